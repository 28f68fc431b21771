// The review page: token handling, bank choice, tabs. Each view lives in its own module.

import { Api } from "./api.js";
import { verify, showAudit } from "./audit.js";
import { openMemory, search, setupBrowser } from "./browser.js";
import { showConflicts } from "./conflicts.js";
import { clear, h, toast } from "./dom.js";
import { setupReview, showReview } from "./review.js";

const TOKEN_KEY = "mneme.token";
const BANK_KEY = "mneme.bank";
const VIEWS = ["review", "conflicts", "memories", "audit"];

// First use: a token (and bank) may come in the URL; keep it in this tab only, then drop it
// from the address bar so it is not bookmarked or shared by accident.
function takeFromUrl() {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token");
  const bank = url.searchParams.get("bank");
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  if (bank) sessionStorage.setItem(BANK_KEY, bank);
  if (token || bank) {
    url.searchParams.delete("token");
    url.searchParams.delete("bank");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}

const ctx = {
  api: null,
  bank: null,
  role: null,
  agent: null,
  canReview: false,
  isAdmin: false,
  view: null,
  show: (view) => show(view),
  openMemory: (id) => openMemory(ctx, id),
};

function allowed(view) {
  if (view === "review" || view === "conflicts") return ctx.canReview;
  if (view === "audit") return ctx.isAdmin;
  return true;
}

function show(view, load = false) {
  const changed = ctx.view !== view;
  ctx.view = view;
  for (const v of VIEWS) {
    const tab = document.getElementById(`tab-${v}`);
    const panel = document.getElementById(`panel-${v}`);
    const on = v === view;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
    panel.hidden = !on;
  }
  if (changed || load) refresh();
}

function refresh() {
  if (!ctx.bank) return;
  if (ctx.view === "review") showReview(ctx);
  else if (ctx.view === "conflicts") showConflicts(ctx);
  else if (ctx.view === "audit") showAudit(ctx);
  else if (ctx.view === "memories" && !document.getElementById("results").children.length) search(ctx);
}

async function chooseBanks(me) {
  const select = document.getElementById("bank-select");
  clear(select);
  let banks = [me.bank];
  if (me.bank === "*") {
    const data = await ctx.api.get("/v1/banks");
    banks = data.banks.map((b) => b.id);
  }
  const wanted = sessionStorage.getItem(BANK_KEY);
  if (wanted && !banks.includes(wanted) && me.bank === "*") banks.unshift(wanted);
  for (const b of banks) select.append(h("option", { value: b }, b));
  ctx.bank = banks.includes(wanted) ? wanted : banks[0] || null;
  if (ctx.bank) select.value = ctx.bank;
  select.disabled = banks.length < 2;
  if (!ctx.bank) toast("No banks yet: retain something first.", "error");
}

async function start(token) {
  ctx.api = new Api(token);
  let me;
  try {
    me = await ctx.api.get("/v1/whoami");
  } catch (err) {
    sessionStorage.removeItem(TOKEN_KEY);
    toast(`That token does not work: ${err.message}`, "error");
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  Object.assign(ctx, {
    role: me.role,
    agent: me.agent,
    canReview: me.role === "reviewer" || me.role === "admin",
    isAdmin: me.role === "admin",
  });
  await chooseBanks(me);
  document.getElementById("who").textContent = `${me.agent} · ${me.role}`;
  document.getElementById("token-form").hidden = true;
  document.getElementById("session").hidden = false;
  document.getElementById("welcome").hidden = true;
  document.getElementById("tabs").hidden = false;
  for (const v of VIEWS) document.getElementById(`tab-${v}`).hidden = !allowed(v);
  ctx.view = null;
  show(ctx.canReview ? "review" : "memories");
}

function wire() {
  document.getElementById("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("token-input");
    const token = input.value.trim();
    input.value = "";
    if (token) start(token);
  });
  document.getElementById("sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(BANK_KEY);
    window.location.reload();
  });
  document.getElementById("bank-select").addEventListener("change", (ev) => {
    ctx.bank = ev.target.value;
    sessionStorage.setItem(BANK_KEY, ctx.bank);
    clear(document.getElementById("results"));
    document.getElementById("detail").hidden = true;
    refresh();
  });
  const tabs = VIEWS.map((v) => document.getElementById(`tab-${v}`));
  for (const tab of tabs) {
    tab.addEventListener("click", () => show(tab.dataset.view));
    tab.addEventListener("keydown", (ev) => {
      if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
      const visible = tabs.filter((t) => !t.hidden);
      const i = visible.indexOf(tab);
      const next = visible[(i + (ev.key === "ArrowRight" ? 1 : visible.length - 1)) % visible.length];
      next.focus();
      show(next.dataset.view);
    });
  }
  setupReview(ctx);
  document.getElementById("conflict-status").addEventListener("change", () => showConflicts(ctx));
  document.getElementById("conflicts-reload").addEventListener("click", () => showConflicts(ctx));
  document.getElementById("audit-verify").addEventListener("click", () => verify(ctx));
  document.getElementById("audit-reload").addEventListener("click", () => showAudit(ctx));
  setupBrowser(ctx);
}

wire();
takeFromUrl();
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) start(saved);
