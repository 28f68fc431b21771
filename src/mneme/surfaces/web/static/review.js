// The review queue: claims waiting for a person, and the four decisions with a note.
// A card's heading is the statement as it was said; the claim's normal form (subject,
// attribute, value) is a small line under it, and the meta line says who said it, when and
// in which source.

import { bankPath } from "./api.js";
import { badge, clear, empty, h, toast, when } from "./dom.js";

const DECISIONS = [
  ["approve", "Approve", "primary"],
  ["reject", "Reject", "danger"],
  ["supersede", "Supersede", ""],
  ["restore", "Restore", "quiet"],
];

function refLink(ctx, ref) {
  if (ref.startsWith("u_")) {
    return h("button", { type: "button", class: "link", onclick: () => ctx.openMemory(ref) }, ref);
  }
  return h("code", {}, ref);
}

// The date part of an ISO time (UTC), the same for every reader whatever their locale.
function day(iso) {
  return iso ? iso.slice(0, 10) : null;
}

function saidLine(item) {
  return [
    item.author ? `said by ${item.author}` : null,
    day(item.said_at),
    item.source_id ? `source ${item.source_id}` : null,
  ].filter(Boolean).join(" · ");
}

function claimCard(ctx, item, reload) {
  const claim = item.claim;
  const noteId = `note-${claim.id}`;
  const note = h("textarea", { id: noteId, rows: 2, maxlength: 4000, placeholder: "Why (kept with the decision)" });
  const buttons = DECISIONS.map(([decision, label, kind]) =>
    h("button", {
      type: "button",
      class: kind,
      dataset: { decision },
      onclick: async (ev) => {
        ev.target.disabled = true;
        try {
          await ctx.api.post(bankPath(ctx.bank, `/review/${encodeURIComponent(claim.id)}/decide`), {
            decision,
            note: note.value,
          });
          toast(`${label}: ${item.text}`);
          await reload();
        } catch (err) {
          toast(`${label} failed: ${err.message}`, "error");
          ev.target.disabled = false;
        }
      },
    }, label),
  );
  const neg = claim.negated ? "not " : "";
  const said = saidLine(item);
  return h("li", { class: "card", dataset: { id: claim.id } },
    h("div", { class: "card-head" },
      h("h3", { class: "statement" }, item.text),
      badge(claim.review_status.replaceAll("_", " "), claim.review_status),
      badge(claim.status, claim.status)),
    h("p", { class: "normal-form", title: "The claim as mneme holds it: subject, attribute, value" },
      h("span", { class: "subject" }, claim.subject), " · ",
      h("span", { class: "attribute" }, claim.attribute.replaceAll("_", " ")), " · ",
      h("span", { class: "value" }, neg + claim.value)),
    h("p", { class: "meta" },
      said ? `${said} · ` : "",
      `${claim.evidence_count} piece(s) of evidence · last ${when(claim.last_evidence_at)}`,
      claim.reviewed_by ? ` · decided by ${claim.reviewed_by} ${when(claim.reviewed_at)}` : "",
      claim.review_note ? ` · “${claim.review_note}”` : ""),
    claim.evidence_refs.length
      ? h("p", { class: "refs" }, "Evidence: ", claim.evidence_refs.map((r) => [refLink(ctx, r), " "]))
      : null,
    claim.contradiction_refs.length
      ? h("p", { class: "refs warn" }, "Contradicted by: ", claim.contradiction_refs.map((r) => [h("code", {}, r), " "]))
      : null,
    h("label", { for: noteId, class: "note-label" }, "Note"),
    note,
    h("div", { class: "actions" }, buttons));
}

export async function showReview(ctx) {
  const list = document.getElementById("review-list");
  const status = document.getElementById("review-status").value;
  const reload = () => showReview(ctx);
  clear(list).append(empty("Loading…"));
  try {
    const data = await ctx.api.get(bankPath(ctx.bank, "/review"), { status, limit: 100 });
    clear(list);
    if (!data.items.length) list.append(empty(`Nothing ${status.replaceAll("_", " ")} in ${ctx.bank}.`));
    for (const item of data.items) list.append(claimCard(ctx, item, reload));
  } catch (err) {
    clear(list).append(empty(`Cannot load the queue: ${err.message}`));
  }
}
