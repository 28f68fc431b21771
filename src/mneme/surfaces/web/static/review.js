// The review queue (ADR 0048): only what waits for a decision, as cards a person can work
// through. Counts per kind, filters, order and pages come from the worklist route; a card
// shows the statement as said (author, sources, when it happened, when it was recorded), the
// other side, and only the decisions its `actions` list. Reject asks for a confirmation with
// a reason; ticked cards are approved or rejected in bulk; keys move and decide.

import { bankPath } from "./api.js";
import { badge, clear, empty, h, latestOnly, toast } from "./dom.js";

const PAGE = 20;
const KINDS = {
  question: "open question",
  contested: "contested claim",
  reasserted: "rejected, said again",
  proposal: "sweep proposal",
};
// Each action's button: label, style, and whether it needs the confirmation with a reason.
const ACTIONS = {
  approve: ["Approve", "primary", false],
  reject: ["Reject…", "danger", true],
  supersede: ["Supersede", "", false],
  accept: ["Accept", "primary", false],
  dismiss: ["Dismiss…", "danger", true],
  not_conflict: ["Not a conflict", "", false],
  scoped_exception: ["Scoped exception…", "", true],
};
// What the `a` and `r` keys do on each kind of card.
const KEY_ACTION = { a: ["approve", "accept"], r: ["reject", "dismiss"] };

const state = { offset: 0, selected: new Set(), current: -1, items: [] };

const $ = (id) => document.getElementById(id);

// The date part of an ISO time (UTC): the same for every reader whatever their locale.
function day(iso) {
  return iso ? iso.slice(0, 10) : "–";
}

function statement(ctx, s, label) {
  if (!s) return h("div", { class: "side" }, h("span", { class: "side-label" }, label), h("p", { class: "meta" }, "(not visible)"));
  return h("div", { class: "side", dataset: { unit: s.unit_id } },
    h("span", { class: "side-label" }, label),
    h("blockquote", { class: "said" }, s.text),
    h("dl", { class: "said-meta" },
      h("dt", {}, "author"), h("dd", { class: "author" }, s.author),
      h("dt", {}, "source"), h("dd", { class: "sources" }, s.source_ids.length ? s.source_ids.join(", ") : "–"),
      h("dt", {}, "happened"), h("dd", { class: "occurred" }, day(s.occurred_at)),
      h("dt", {}, "recorded"), h("dd", { class: "recorded" }, day(s.recorded_at)),
      h("dt", {}, "memory"), h("dd", {},
        h("button", { type: "button", class: "link", onclick: () => ctx.openMemory(s.unit_id) }, s.unit_id),
        " ", badge(s.status, s.status))));
}

// The confirmation dialog: resolves to {reason, scope_a, scope_b}, or null when cancelled.
function confirmDialog({ title, what, scopes = false, button = "Confirm" }) {
  const dialog = $("confirm");
  const reason = $("confirm-reason");
  const error = $("confirm-error");
  $("confirm-title").textContent = title;
  $("confirm-what").textContent = what;
  $("confirm-ok").textContent = button;
  $("confirm-scopes").hidden = !scopes;
  for (const input of [reason, $("confirm-scope-a"), $("confirm-scope-b")]) input.value = "";
  error.textContent = "";
  return new Promise((resolve) => {
    const form = $("confirm-form");
    const done = (value) => {
      form.removeEventListener("submit", submit);
      $("confirm-cancel").removeEventListener("click", cancel);
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const submit = (ev) => {
      ev.preventDefault();
      const why = reason.value.trim();
      const a = $("confirm-scope-a").value.trim();
      const b = $("confirm-scope-b").value.trim();
      if (!why) {
        error.textContent = "A reason is required.";
        reason.focus();
        return;
      }
      if (scopes && (!a || !b)) {
        error.textContent = "Say where each one holds.";
        (a ? $("confirm-scope-b") : $("confirm-scope-a")).focus();
        return;
      }
      done({ reason: why, scope_a: a, scope_b: b });
    };
    const cancel = (ev) => {
      if (ev) ev.preventDefault();
      done(null);
    };
    form.addEventListener("submit", submit);
    $("confirm-cancel").addEventListener("click", cancel);
    dialog.addEventListener("cancel", cancel);
    dialog.showModal();
    reason.focus();
  });
}

async function act(ctx, item, action) {
  const [label, , confirm] = ACTIONS[action];
  let answer = { reason: "" };
  if (confirm) {
    answer = await confirmDialog({
      title: `${label.replace("…", "")}: are you sure?`,
      what: item.said ? `“${item.said.text}”` : item.id,
      scopes: action === "scoped_exception",
      button: label.replace("…", ""),
    });
    if (!answer) return false;
  }
  const path = (rest) => bankPath(ctx.bank, rest);
  const id = encodeURIComponent(item.id);
  if (item.kind === "question") {
    const c = item.conflict;
    const body = { resolution: action, note: answer.reason };
    // supersede: the newer statement replaces the older; reject: the newer one is wrong.
    if (action === "supersede") body.winner = c.b_unit;
    if (action === "reject") body.winner = c.a_unit;
    if (action === "scoped_exception") Object.assign(body, { scope_a: answer.scope_a, scope_b: answer.scope_b });
    await ctx.api.post(path(`/conflicts/${id}/resolve`), body);
  } else if (item.kind === "proposal") {
    const { results } = await ctx.api.post(path("/review/bulk"), {
      ids: [item.id], decision: action === "accept" ? "approve" : "reject", reason: answer.reason,
    });
    if (!results[0].ok) throw new Error(results[0].message);
  } else {
    await ctx.api.post(path(`/review/${id}/decide`), { decision: action, note: answer.reason });
  }
  return true;
}

function card(ctx, item, index) {
  const buttons = item.actions.map((action) => {
    const [label, kind] = ACTIONS[action];
    return h("button", {
      type: "button",
      class: kind,
      dataset: { action },
      onclick: async (ev) => {
        const button = ev.currentTarget;
        button.disabled = true;
        try {
          if (await act(ctx, item, action)) {
            toast(`${label.replace("…", "")}: ${item.said ? item.said.text : item.id}`);
            await showReview(ctx);
          }
        } catch (err) {
          toast(`${label.replace("…", "")} failed: ${err.message}`, "error");
        } finally {
          button.disabled = false;
        }
      },
    }, label);
  });
  const bulkable = item.actions.includes("approve") || item.actions.includes("accept");
  const box = h("input", {
    type: "checkbox",
    class: "pick",
    "aria-label": "select for a bulk decision",
    disabled: !bulkable,
    checked: state.selected.has(item.id),
    onchange: (ev) => select(item.id, ev.target.checked),
  });
  const sides = [statement(ctx, item.said, item.kind === "proposal" ? "The memory" : "Said")];
  if (item.other) {
    sides.push(statement(ctx, item.other, {
      question: "The other side (said before)",
      contested: "The other side (the rival value)",
      reasserted: "First said",
      proposal: "The belief",
    }[item.kind]));
  }
  const claim = item.claim;
  return h("li", {
    class: "card",
    tabindex: -1,
    dataset: { id: item.id, kind: item.kind, index },
    onclick: () => focusCard(index, false),
  },
    h("div", { class: "card-head" },
      box,
      h("h3", { class: "statement" }, item.said ? item.said.text : item.id),
      badge(KINDS[item.kind], item.kind),
      item.contest > 1 ? badge(`contested ×${item.contest}`, "contest") : null),
    item.question ? h("p", { class: "question" }, item.question) : null,
    claim ? h("p", { class: "normal-form", title: "The claim as mneme holds it: subject, attribute, value" },
      h("span", { class: "subject" }, claim.subject), " · ",
      h("span", { class: "attribute" }, claim.attribute.replaceAll("_", " ")), " · ",
      h("span", { class: "value" }, (claim.negated ? "not " : "") + claim.value)) : null,
    item.rejection ? h("p", { class: "meta rejection" },
      `Rejected by ${item.rejection.actor} on ${day(item.rejection.at)}: “${item.rejection.reason}”`) : null,
    h("div", { class: "sides" }, sides),
    h("div", { class: "actions" }, buttons));
}

function select(id, on) {
  if (on) state.selected.add(id);
  else state.selected.delete(id);
  const n = state.selected.size;
  $("review-selected").textContent = `${n} selected`;
  $("review-bulk-approve").disabled = n === 0;
  $("review-bulk-reject").disabled = n === 0;
  const boxes = [...document.querySelectorAll("#review-list input.pick:not(:disabled)")];
  $("review-select-all").checked = boxes.length > 0 && boxes.every((b) => b.checked);
}

function cards() {
  return [...document.querySelectorAll("#review-list li.card")];
}

function focusCard(index, scroll = true) {
  const all = cards();
  if (!all.length) return;
  state.current = Math.max(0, Math.min(index, all.length - 1));
  all.forEach((c, i) => c.classList.toggle("current", i === state.current));
  const el = all[state.current];
  if (scroll) el.focus();
}

function filters() {
  const kind = $("review-kind").value;
  return {
    kind: kind || undefined,
    author: $("review-author").value.trim() || undefined,
    text: $("review-text").value.trim() || undefined,
    sort: $("review-sort").value,
    limit: PAGE,
    offset: state.offset,
  };
}

function showCounts(data) {
  const box = clear($("review-counts"));
  const wanted = $("review-kind").value;
  for (const [kind, label] of Object.entries(KINDS)) {
    box.append(h("button", {
      type: "button",
      class: `count ${kind}${wanted === kind ? " on" : ""}`,
      dataset: { kind },
      "aria-pressed": wanted === kind ? "true" : "false",
      onclick: () => {
        $("review-kind").value = wanted === kind ? "" : kind;
        state.offset = 0;
        showReview(ctx_);
      },
    }, h("span", { class: "n" }, String(data.counts[kind] ?? 0)), ` ${label}`));
  }
  $("review-total").textContent = `${data.total} waiting`;
  const last = Math.min(data.offset + data.items.length, data.total);
  $("review-page").textContent = data.total ? `${data.offset + 1}–${last} of ${data.total}` : "";
  $("review-prev").disabled = data.offset === 0;
  $("review-next").disabled = last >= data.total;
}

let ctx_ = null;
const loads = latestOnly();

export async function showReview(ctx) {
  ctx_ = ctx;
  const list = $("review-list");
  const current = loads.next();
  clear(list).append(empty("Loading…"));
  try {
    const data = await ctx.api.get(bankPath(ctx.bank, "/review/worklist"), filters());
    if (!current()) return;  // the filters changed while this one was on its way
    if (!data.items.length && data.offset > 0) {
      state.offset = Math.max(0, data.offset - PAGE);  // the page emptied: go back one
      return showReview(ctx);
    }
    state.items = data.items;
    const ids = new Set(data.items.map((i) => i.id));
    for (const id of [...state.selected]) if (!ids.has(id)) state.selected.delete(id);
    clear(list);
    showCounts(data);
    if (!data.items.length) list.append(empty(`Nothing waits for a decision in ${ctx.bank}.`));
    data.items.forEach((item, i) => list.append(card(ctx, item, i)));
    select(null, false);
    if (data.items.length) focusCard(Math.min(Math.max(state.current, 0), data.items.length - 1), false);
  } catch (err) {
    if (current()) clear(list).append(empty(`Cannot load the queue: ${err.message}`));
  }
}

async function bulk(ctx, decision) {
  const ids = [...state.selected];
  if (!ids.length) return;
  let reason = "";
  if (decision === "reject") {
    const answer = await confirmDialog({
      title: `Reject ${ids.length} card(s): are you sure?`,
      what: "Each rejected value is tombstoned; a proposal is dismissed.",
      button: `Reject ${ids.length}`,
    });
    if (!answer) return;
    reason = answer.reason;
  }
  try {
    const { results } = await ctx.api.post(bankPath(ctx.bank, "/review/bulk"), { ids, decision, reason });
    const failed = results.filter((r) => !r.ok);
    state.selected.clear();
    if (failed.length) toast(`${results.length - failed.length} done, ${failed.length} failed: ${failed[0].message}`, "error");
    else toast(`${decision === "approve" ? "Approved" : "Rejected"} ${results.length}`);
  } catch (err) {
    toast(`Bulk ${decision} failed: ${err.message}`, "error");
  }
  await showReview(ctx);
}

function onKey(ctx, ev) {
  if (ctx.view !== "review" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (document.querySelector("dialog[open]")) return;
  const typing = ev.target.closest && ev.target.closest("input, textarea, select");
  if (typing) return;
  const all = cards();
  const item = state.items[state.current];
  if (ev.key === "?") {
    ev.preventDefault();
    $("review-help").showModal();
  } else if (ev.key === "/") {
    ev.preventDefault();
    $("review-text").focus();
  } else if (ev.key === "j" || ev.key === "k") {
    ev.preventDefault();
    focusCard(state.current + (ev.key === "j" ? 1 : -1));
  } else if (ev.key === "x" && item) {
    const box = all[state.current].querySelector("input.pick");
    if (box.disabled) return toast("This card is not decided in bulk.", "error");
    box.checked = !box.checked;
    select(item.id, box.checked);
  } else if ((ev.key === "a" || ev.key === "r") && item) {
    const action = KEY_ACTION[ev.key].find((a) => item.actions.includes(a));
    if (!action) return toast(`No ${ev.key === "a" ? "approve" : "reject"} for this card.`, "error");
    all[state.current].querySelector(`button[data-action="${action}"]`).click();
  }
}

export function setupReview(ctx) {
  $("review-filters").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.offset = 0;
    showReview(ctx);
  });
  for (const id of ["review-kind", "review-sort"]) {
    $(id).addEventListener("change", () => { state.offset = 0; showReview(ctx); });
  }
  $("review-reload").addEventListener("click", () => showReview(ctx));
  $("review-prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); showReview(ctx); });
  $("review-next").addEventListener("click", () => { state.offset += PAGE; showReview(ctx); });
  $("review-select-all").addEventListener("change", (ev) => {
    for (const box of document.querySelectorAll("#review-list input.pick:not(:disabled)")) {
      box.checked = ev.target.checked;
      select(box.closest("li.card").dataset.id, box.checked);
    }
  });
  $("review-bulk-approve").addEventListener("click", () => bulk(ctx, "approve"));
  $("review-bulk-reject").addEventListener("click", () => bulk(ctx, "reject"));
  $("review-help-open").addEventListener("click", () => $("review-help").showModal());
  document.addEventListener("keydown", (ev) => onKey(ctx, ev));
}
