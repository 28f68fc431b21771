// The memory browser: search with filters, then one memory's fields, history, graph and
// observations (those citing it; for an observation, its evidence).

import { bankPath } from "./api.js";
import { drawGraph } from "./graph.js";
import { badge, clear, empty, h, latestOnly, toast, when } from "./dom.js";

export const TYPES = [
  "fact", "preference", "skill", "goal", "opinion", "experience",
  "achievement", "action", "belief", "insight", "rule",
];

export function setupBrowser(ctx) {
  const boxes = document.getElementById("type-boxes");
  clear(boxes);
  for (const t of TYPES) {
    boxes.append(h("label", { class: "check" }, h("input", { type: "checkbox", name: "types", value: t }), ` ${t}`));
  }
  document.getElementById("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    search(ctx);
  });
}

function filters() {
  const form = document.getElementById("search-form");
  const types = [...form.querySelectorAll("input[name=types]:checked")].map((b) => b.value);
  const from = document.getElementById("time-from").value;
  const to = document.getElementById("time-to").value;
  return {
    query: document.getElementById("q").value.trim(),
    scope: document.getElementById("scope").value,
    k: Math.min(200, Math.max(1, Number(document.getElementById("k").value) || 20)),
    time_from: from ? `${from}T00:00:00Z` : undefined,
    time_to: to ? `${to}T23:59:59Z` : undefined,
    types: types.length ? types : undefined,
    include_superseded: document.getElementById("include-superseded").checked,
  };
}

function resultItem(ctx, unit, extra) {
  return h("li", { class: "result", dataset: { id: unit.id } },
    h("button", { type: "button", class: "result-open", onclick: () => openMemory(ctx, unit.id) },
      h("span", { class: "result-text" }, unit.text)),
    h("span", { class: "meta" },
      badge(unit.type), " ", badge(unit.status, unit.status), " ",
      unit.visibility === "private" ? badge("private", "private") : "",
      extra || "", ` ${unit.agent_id} · ${when(unit.recorded_at)}`));
}

const searches = latestOnly();

export async function search(ctx) {
  const list = document.getElementById("results");
  const f = filters();
  const current = searches.next();
  clear(list).append(empty("Searching…"));
  try {
    if (!f.query) {
      const data = await ctx.api.get(bankPath(ctx.bank, "/memories"), { scope: f.scope, limit: f.k });
      if (!current()) return;  // a newer search was sent meanwhile
      clear(list);
      if (!data.memories.length) list.append(empty("No memories in this bank yet."));
      for (const u of data.memories) list.append(resultItem(ctx, u));
      return;
    }
    const body = { ...f, detail: "full" };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const data = await ctx.api.post(bankPath(ctx.bank, "/recall"), body);
    if (!current()) return;
    clear(list);
    if (!data.hits.length) list.append(empty("Nothing matches."));
    for (const hit of data.hits) {
      const flags = [
        ` score ${hit.score.toFixed(3)}`,
        hit.superseded ? " · superseded" : "",
        hit.flashback ? " · flashback" : "",
        hit.conflicts.length ? ` · ${hit.conflicts.length} open conflict(s)` : "",
        hit.origin === "graph" ? ` · via ${hit.via_edge}` : "",
      ].join("");
      list.append(resultItem(ctx, hit.unit, flags));
    }
  } catch (err) {
    if (current()) clear(list).append(empty(`Search failed: ${err.message}`));
  }
}

function refButtons(ctx, ids) {
  if (!ids || !ids.length) return "–";
  return ids.map((id) => [
    id.startsWith("u_")
      ? h("button", { type: "button", class: "link", onclick: () => openMemory(ctx, id) }, id)
      : h("button", { type: "button", class: "link", onclick: () => showSource(ctx, id) }, id),
    " ",
  ]);
}

async function showSource(ctx, id) {
  try {
    const src = await ctx.api.get(bankPath(ctx.bank, `/sources/${encodeURIComponent(id)}`));
    const box = document.getElementById("source-view");
    if (box) {
      clear(box).append(h("h4", {}, `Source ${src.id}`),
        h("p", { class: "meta" }, `${src.kind} by ${src.agent_id} · ${when(src.occurred_at || src.recorded_at)}`),
        h("blockquote", {}, src.text));
      box.hidden = false;
    }
  } catch (err) {
    toast(`Cannot open ${id}: ${err.message}`, "error");
  }
}

function fields(unit) {
  const rows = [
    ["Type", `${unit.type} (${unit.network})`],
    ["Status", unit.status],
    ["Confidence", unit.confidence.toFixed(2)],
    ["Author", unit.agent_id],
    ["Knowers", unit.knowers.join(", ") || "–"],
    ["Visibility", unit.visibility],
    ["Recorded", when(unit.recorded_at)],
    ["Happened", unit.occurred_start ? `${when(unit.occurred_start)} – ${when(unit.occurred_end)}` : "–"],
    ["Valid", `${when(unit.valid_from)} – ${unit.valid_until ? when(unit.valid_until) : "now"}`],
    ["Entities", unit.entities.join(", ") || "–"],
  ];
  return h("dl", { class: "fields" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

// The derived units a memory feeds, from its graph's edges: the observations that cite it
// (DERIVED_FROM, observation -> memory; ADR 0051) and the insights it witnesses (SUPPORTS,
// memory -> insight; ADR 0056).
function derivedFrom(ctx, id, graph, { type, network, outgoing, title, kind }) {
  const units = graph.units || {};
  const other = (e) => (outgoing ? e.dst : e.src);
  const found = (graph.edges || [])
    .filter((e) => e.type === type && (outgoing ? e.src : e.dst) === id && units[other(e)]?.network === network)
    .map((e) => units[other(e)]);
  if (!found.length) return ""; // Element.append writes null as the text "null"
  return h("section", { class: `sub ${kind}s` }, h("h4", {}, title),
    h("ul", {}, found.map((u) => h("li", { class: kind, dataset: { id: u.id } },
      h("button", { type: "button", class: "link", onclick: () => openMemory(ctx, u.id) }, u.text.split("\n")[0]),
      " ", badge(u.status, u.status)))));
}

// An observation's own record: what it rests on, how much, over which span.
function evidenceOf(ctx, unit) {
  const obs = unit.network === "observation" ? (unit.metadata || {}).observation : null;
  if (!obs) return "";
  return h("section", { class: "sub observation-evidence" },
    h("h4", {}, `Observation: ${obs.label || obs.key}`),
    h("p", { class: "meta" }, `${obs.proof_count} evidence · ${when(obs.first_evidence_at)} – ${when(obs.last_evidence_at)} · revision ${obs.revision}`),
    h("p", {}, "Rests on: ", refButtons(ctx, obs.evidence_units || [])));
}

// An insight's own record: a hypothesis, its witnesses in the thread's order.
function witnessesOf(ctx, unit) {
  const ins = unit.network === "insight" ? (unit.metadata || {}).insight : null;
  if (!ins) return "";
  const hops = (ins.hops || []).length;
  return h("section", { class: "sub insight-witnesses" },
    h("h4", {}, `Insight (${ins.state}, hypothesis)`),
    h("p", { class: "meta" }, `${hops} hop${hops === 1 ? "" : "s"} · score ${ins.score} · weakest link PMI ${ins.min_pmi}`),
    h("p", {}, "Witnesses, in order: ", refButtons(ctx, ins.witnesses || [])));
}

function summary(event) {
  const d = event.detail || {};
  const before = d.before || {};
  const after = d.after || {};
  const parts = [];
  if (before.status && after.status && before.status !== after.status) parts.push(`${before.status} → ${after.status}`);
  if (d.decision) parts.push(d.decision);
  if (d.reason) parts.push(String(d.reason));
  if (d.note) parts.push(`“${d.note}”`);
  if (!parts.length && after.text) parts.push(after.text);
  return parts.join(" · ");
}

function timeline(events) {
  if (!events.length) return h("p", {}, "No recorded changes.");
  return h("ol", { class: "timeline" }, events.map((e) =>
    h("li", { class: `event ${e.kind.replaceAll(".", "-")}` },
      h("time", { datetime: e.at }, when(e.at)),
      h("span", { class: "kind" }, e.kind),
      h("span", { class: "actor" }, `by ${e.actor}`),
      h("span", { class: "what" }, summary(e)))));
}

function reviewActions(ctx, unit) {
  if (!ctx.canReview) return ""; // Element.append writes null as the text "null"
  const reason = h("input", { id: "unit-reason", maxlength: 4000, placeholder: "Reason or note" });
  const act = (what) => async () => {
    try {
      const path = bankPath(ctx.bank, `/memories/${encodeURIComponent(unit.id)}/${what}`);
      await ctx.api.post(path, what === "reject" ? { reason: reason.value } : { note: reason.value });
      toast(`${what === "reject" ? "Rejected" : "Restored"} ${unit.id}`);
      await openMemory(ctx, unit.id);
    } catch (err) {
      toast(`${what} failed: ${err.message}`, "error");
    }
  };
  return h("div", { class: "actions" },
    h("label", { for: "unit-reason" }, "Reason"), reason,
    h("button", { type: "button", class: "danger", onclick: act("reject") }, "Reject"),
    h("button", { type: "button", class: "quiet", onclick: act("restore") }, "Restore"));
}

export async function openMemory(ctx, id, depth = 1) {
  ctx.show("memories");
  const box = document.getElementById("detail");
  box.hidden = false;
  clear(box).append(h("p", {}, `Loading ${id}…`));
  try {
    const base = bankPath(ctx.bank, `/memories/${encodeURIComponent(id)}`);
    const [unit, hist, graph] = await Promise.all([
      ctx.api.get(base),
      ctx.api.get(`${base}/history`),
      ctx.api.get(`${base}/graph`, { depth }),
    ]);
    const depthSelect = h("select", { id: "graph-depth", onchange: (ev) => openMemory(ctx, id, Number(ev.target.value)) },
      [1, 2, 3].map((d) => h("option", { value: d, selected: d === depth }, `${d} edge${d > 1 ? "s" : ""} out`)));
    clear(box).append(
      h("header", {}, h("h3", {}, unit.text), h("p", { class: "meta" }, h("code", {}, unit.id))),
      fields(unit),
      h("p", {}, "Evidence: ", refButtons(ctx, unit.evidence)),
      h("p", {}, "Supersedes: ", refButtons(ctx, unit.supersedes), " · Superseded by: ",
        refButtons(ctx, unit.superseded_by ? [unit.superseded_by] : [])),
      h("p", {}, "Contradicted by: ", refButtons(ctx, unit.contradictions)),
      evidenceOf(ctx, unit),
      derivedFrom(ctx, id, graph, { type: "DERIVED_FROM", network: "observation", outgoing: false,
        title: "Observations citing it", kind: "observation" }),
      witnessesOf(ctx, unit),
      derivedFrom(ctx, id, graph, { type: "SUPPORTS", network: "insight", outgoing: true,
        title: "Insights it witnesses", kind: "insight" }),
      h("div", { id: "source-view", class: "source-view", hidden: true }),
      reviewActions(ctx, unit),
      h("section", { class: "sub" }, h("h4", {}, "History"), timeline(hist.events)),
      h("section", { class: "sub" },
        h("h4", {}, "Graph neighbourhood ", h("label", { for: "graph-depth", class: "visually-hidden" }, "Depth"), depthSelect),
        drawGraph(graph, (next) => openMemory(ctx, next))),
    );
    box.focus?.();
  } catch (err) {
    clear(box).append(h("p", { class: "error" }, `Cannot open ${id}: ${err.message}`));
  }
}
