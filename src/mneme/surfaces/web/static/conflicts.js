// Conflicts: both sides, the question, and the four resolutions.

import { bankPath } from "./api.js";
import { badge, clear, empty, h, latestOnly, toast, when } from "./dom.js";

const RESOLUTIONS = [
  ["supersede", "Supersede", "the chosen memory replaces the other"],
  ["reject", "Reject", "the other memory is wrong: rejected and tombstoned"],
  ["not_conflict", "Not a conflict", "both hold; this pair is never flagged again"],
  ["scoped_exception", "Scoped exception", "both hold, each in its own scope"],
];

// The date part of an ISO time (UTC), the same for every reader whatever their locale.
function day(iso) {
  return iso ? iso.slice(0, 10) : "–";
}

async function side(ctx, id, label) {
  let text = "(not visible)";
  let unit = null;
  try {
    unit = await ctx.api.get(bankPath(ctx.bank, `/memories/${encodeURIComponent(id)}`));
    text = unit.text;
  } catch (err) {
    text = `(${err.message})`;
  }
  return h("div", { class: "side" },
    h("span", { class: "side-label" }, label),
    h("blockquote", {}, text),
    h("p", { class: "meta" },
      h("button", { type: "button", class: "link", onclick: () => ctx.openMemory(id) }, id),
      unit ? ` · by ${unit.agent_id} · ${unit.status}` : ""),
    unit ? h("p", { class: "meta said-when" },
      `happened ${day(unit.occurred_start)} · recorded ${day(unit.recorded_at)} · source ${(unit.evidence || []).join(", ") || "–"}`) : null);
}

async function conflictCard(ctx, c, reload) {
  const name = `res-${c.id}`;
  const sides = await Promise.all([side(ctx, c.a_unit, "A"), side(ctx, c.b_unit, "B")]);
  const head = h("div", { class: "card-head" },
    h("h3", {}, c.question || `Conflict (${c.kind})`),
    badge(c.kind), badge(c.status, c.status));
  if (c.status !== "open") {
    return h("li", { class: "card", dataset: { id: c.id } }, head, h("div", { class: "sides" }, sides),
      h("p", { class: "meta" },
        `Resolved: ${c.resolution} by ${c.resolved_by} ${when(c.resolved_at)}`,
        c.winner ? ` · stands: ${c.winner === c.a_unit ? "A" : "B"}` : "",
        c.scope_a ? ` · A holds for “${c.scope_a}”, B for “${c.scope_b}”` : "",
        c.note ? ` · “${c.note}”` : ""));
  }
  const radios = RESOLUTIONS.map(([value, label, hint], i) =>
    h("label", { class: "choice" },
      h("input", { type: "radio", name, value, checked: i === 0 }),
      ` ${label} `, h("span", { class: "hint" }, `(${hint})`)));
  const winner = h("fieldset", { class: "winner" },
    h("legend", {}, "Which memory stands?"),
    h("label", { class: "choice" }, h("input", { type: "radio", name: `${name}-w`, value: c.a_unit }), " A"),
    h("label", { class: "choice" }, h("input", { type: "radio", name: `${name}-w`, value: c.b_unit, checked: true }), " B"));
  const scopeA = h("input", { id: `${name}-sa`, maxlength: 200, placeholder: "e.g. at work" });
  const scopeB = h("input", { id: `${name}-sb`, maxlength: 200, placeholder: "e.g. at home" });
  const scopes = h("fieldset", { class: "scopes", hidden: true },
    h("legend", {}, "Where does each hold?"),
    h("label", { for: `${name}-sa` }, "Scope of A"), scopeA,
    h("label", { for: `${name}-sb` }, "Scope of B"), scopeB);
  const note = h("textarea", { id: `${name}-note`, rows: 2, maxlength: 4000, placeholder: "Why (kept with the resolution)" });
  const form = h("form", { class: "resolve" },
    h("fieldset", { class: "resolutions" }, h("legend", {}, "Resolution"), radios),
    winner, scopes,
    h("label", { for: `${name}-note`, class: "note-label" }, "Note"), note,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Resolve")));
  const chosen = () => form.querySelector(`input[name="${name}"]:checked`).value;
  form.addEventListener("change", () => {
    const how = chosen();
    winner.hidden = !(how === "supersede" || how === "reject");
    scopes.hidden = how !== "scoped_exception";
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const resolution = chosen();
    const body = { resolution, note: note.value };
    if (resolution === "supersede" || resolution === "reject") {
      body.winner = form.querySelector(`input[name="${name}-w"]:checked`).value;
    }
    if (resolution === "scoped_exception") {
      if (!scopeA.value.trim() || !scopeB.value.trim()) {
        toast("A scoped exception needs both scopes.", "error");
        (scopeA.value.trim() ? scopeB : scopeA).focus();
        return;
      }
      body.scope_a = scopeA.value.trim();
      body.scope_b = scopeB.value.trim();
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await ctx.api.post(bankPath(ctx.bank, `/conflicts/${encodeURIComponent(c.id)}/resolve`), body);
      toast(`Conflict resolved: ${resolution.replaceAll("_", " ")}`);
      await reload();
    } catch (err) {
      toast(`Resolve failed: ${err.message}`, "error");
      button.disabled = false;
    }
  });
  return h("li", { class: "card", dataset: { id: c.id } }, head, h("div", { class: "sides" }, sides),
    h("p", { class: "meta" }, `Opened ${when(c.created_at)}`), form);
}

const loads = latestOnly();

export async function showConflicts(ctx) {
  const list = document.getElementById("conflict-list");
  const status = document.getElementById("conflict-status").value;
  const reload = () => showConflicts(ctx);
  const current = loads.next();
  clear(list).append(empty("Loading…"));
  try {
    const data = await ctx.api.get(bankPath(ctx.bank, "/conflicts"), { status, limit: 100 });
    const cards = await Promise.all(data.conflicts.map((c) => conflictCard(ctx, c, reload)));
    if (!current()) return;  // another status was chosen meanwhile
    clear(list);
    if (!cards.length) list.append(empty(`No ${status === "all" ? "" : status + " "}conflicts in ${ctx.bank}.`));
    list.append(...cards);
  } catch (err) {
    if (current()) clear(list).append(empty(`Cannot load conflicts: ${err.message}`));
  }
}
