// The review queue: claims waiting for a person, and the four decisions with a note.

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

function claimCard(ctx, claim, reload) {
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
          toast(`${label}: ${claim.subject} ${claim.attribute} ${claim.value}`);
          await reload();
        } catch (err) {
          toast(`${label} failed: ${err.message}`, "error");
          ev.target.disabled = false;
        }
      },
    }, label),
  );
  const neg = claim.negated ? "not " : "";
  return h("li", { class: "card", dataset: { id: claim.id } },
    h("div", { class: "card-head" },
      h("h3", {}, h("span", { class: "subject" }, claim.subject), " ",
        h("span", { class: "attribute" }, claim.attribute.replaceAll("_", " ")), " ",
        h("strong", {}, neg + claim.value)),
      badge(claim.review_status.replaceAll("_", " "), claim.review_status),
      badge(claim.status, claim.status)),
    h("p", { class: "meta" },
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
    for (const claim of data.items) list.append(claimCard(ctx, claim, reload));
  } catch (err) {
    clear(list).append(empty(`Cannot load the queue: ${err.message}`));
  }
}
