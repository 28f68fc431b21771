// A unit's graph neighbourhood as an SVG picture: a radial layout, the unit at the centre,
// each ring one edge further out, children kept inside their parent's sector.

import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const RING = 170;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function edgeKind(type) {
  if (type === "CONTRADICTS" || type === "CONTESTED_BECAUSE") return "contra";
  if (type === "SUPERSEDES") return "supersedes";
  if (type === "SUPPORTS" || type === "BECAUSE" || type === "CAUSES" || type === "IMPLIES") return "supports";
  if (type === "PART_OF" || type === "DERIVED_FROM") return "part";
  return "other";
}

function short(text, n = 26) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

// Breadth-first tree over the undirected edges: depth and parent of every node.
function tree(center, ids, edges) {
  const adj = new Map(ids.map((id) => [id, []]));
  for (const e of edges) {
    adj.get(e.src)?.push(e.dst);
    adj.get(e.dst)?.push(e.src);
  }
  const depth = new Map([[center, 0]]);
  const children = new Map(ids.map((id) => [id, []]));
  const queue = [center];
  while (queue.length) {
    const id = queue.shift();
    for (const next of [...new Set(adj.get(id) || [])].sort()) {
      if (depth.has(next)) continue;
      depth.set(next, depth.get(id) + 1);
      children.get(id).push(next);
      queue.push(next);
    }
  }
  const maxDepth = Math.max(0, ...depth.values());
  const orphans = ids.filter((id) => !depth.has(id));
  for (const id of orphans) depth.set(id, maxDepth + 1);
  return { depth, children, orphans };
}

function layout(center, ids, edges) {
  const { depth, children, orphans } = tree(center, ids, edges);
  const pos = new Map([[center, { x: 0, y: 0 }]]);
  const place = (id, from, to) => {
    const kids = children.get(id);
    const step = (to - from) / Math.max(1, kids.length);
    kids.forEach((kid, i) => {
      const a = from + step * (i + 0.5);
      const r = RING * depth.get(kid);
      pos.set(kid, { x: r * Math.cos(a), y: r * Math.sin(a) });
      place(kid, from + step * i, from + step * (i + 1));
    });
  };
  place(center, -Math.PI / 2, (3 * Math.PI) / 2);
  orphans.forEach((id, i) => {
    const a = (2 * Math.PI * i) / orphans.length;
    const r = RING * depth.get(id);
    pos.set(id, { x: r * Math.cos(a), y: r * Math.sin(a) });
  });
  return pos;
}

export function drawGraph(view, onSelect) {
  const units = view.units || {};
  const edges = view.edges || [];
  const ids = [...new Set([view.center, ...Object.keys(units), ...edges.flatMap((e) => [e.src, e.dst])])];
  const pos = layout(view.center, ids, edges);
  const xs = [...pos.values()].map((p) => p.x);
  const ys = [...pos.values()].map((p) => p.y);
  const [x0, x1] = [Math.min(...xs) - 110, Math.max(...xs) + 110];
  const [y0, y1] = [Math.min(...ys) - 50, Math.max(...ys) + 60];
  const svg = s("svg", {
    class: "graph",
    viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}`,
    role: "img",
    "aria-label": `Graph around ${view.center}: ${ids.length} nodes, ${edges.length} edges`,
  });
  svg.append(s("defs", {}, s("marker", {
    id: "arrow", viewBox: "0 0 10 10", refX: 22, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse",
  }, s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))));
  const edgeLayer = s("g", { class: "edges" });
  for (const e of edges) {
    const a = pos.get(e.src);
    const b = pos.get(e.dst);
    if (!a || !b) continue;
    const line = s("line", {
      x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `edge ${edgeKind(e.type)}`, "marker-end": "url(#arrow)",
    }, s("title", {}, `${e.src} ${e.type} ${e.dst} (by ${e.made_by})`));
    const label = s("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: "edge-label" }, e.type);
    edgeLayer.append(line, label);
  }
  const nodeLayer = s("g", { class: "nodes" });
  for (const id of ids) {
    const p = pos.get(id);
    const unit = units[id];
    const kind = unit ? `unit ${unit.status}` : id.startsWith("src_") ? "source" : "outside";
    const text = unit ? unit.text : id.startsWith("src_") ? `source ${id}` : `${id} (outside your view)`;
    const node = s("g", {
      class: `node ${kind}${id === view.center ? " center" : ""}`,
      transform: `translate(${p.x} ${p.y})`,
      "data-id": id,
    }, s("title", {}, text));
    node.append(id.startsWith("src_")
      ? s("rect", { x: -9, y: -9, width: 18, height: 18, rx: 3 })
      : s("circle", { r: id === view.center ? 16 : 11 }));
    node.append(s("text", { y: id === view.center ? 32 : 26, class: "node-label" }, short(unit ? unit.text : id, 24)));
    if (unit && id !== view.center) {
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", `Open memory: ${unit.text}`);
      node.addEventListener("click", () => onSelect(id));
      node.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onSelect(id); }
      });
    }
    nodeLayer.append(node);
  }
  svg.append(edgeLayer, nodeLayer);
  const list = h("details", { class: "edge-list" },
    h("summary", {}, `The ${edges.length} edges as a list`),
    h("ul", {}, edges.map((e) => h("li", {},
      h("code", {}, e.src), ` ${e.type} `, h("code", {}, e.dst), ` (by ${e.made_by})`))));
  const legend = h("p", { class: "legend" },
    h("span", { class: "key supports" }, "supports / causes"), " ",
    h("span", { class: "key contra" }, "contradicts"), " ",
    h("span", { class: "key supersedes" }, "supersedes"), " ",
    h("span", { class: "key part" }, "part of a source"), " ",
    h("span", { class: "key other" }, "other"));
  return h("figure", { class: "graph-figure" }, svg, legend, list);
}
