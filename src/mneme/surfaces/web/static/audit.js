// The audit log (admin): verify the hash chain, and the newest records.

import { bankPath } from "./api.js";
import { badge, clear, h, toast, when } from "./dom.js";

export async function verify(ctx) {
  const box = document.getElementById("audit-verdict");
  clear(box).append("Verifying…");
  try {
    const data = await ctx.api.get("/v1/audit/verify", { bank: ctx.bank });
    clear(box).append(
      h("p", { class: data.ok ? "ok" : "error" },
        data.ok ? "The audit chain is intact." : "The audit chain is BROKEN."),
      h("ul", {}, Object.entries(data.banks).map(([bank, r]) =>
        h("li", {}, badge(r.ok ? "ok" : "broken", r.ok ? "approved" : "rejected"),
          ` ${bank}: ${r.records} record(s)`,
          r.ok ? "" : ` · first bad record #${r.first_bad_seq}: ${r.problem}`))));
  } catch (err) {
    clear(box).append(h("p", { class: "error" }, `Cannot verify: ${err.message}`));
  }
}

export async function showAudit(ctx) {
  const body = document.querySelector("#audit-table tbody");
  clear(body);
  try {
    const data = await ctx.api.get(bankPath(ctx.bank, "/audit"), { limit: 200 });
    for (const r of data.records) {
      body.append(h("tr", {},
        h("td", {}, r.seq), h("td", {}, when(r.at)), h("td", {}, r.actor),
        h("td", {}, h("code", {}, r.op)), h("td", {}, h("code", {}, r.target)), h("td", {}, r.reason)));
    }
    if (!data.records.length) body.append(h("tr", {}, h("td", { colspan: 6 }, "No records.")));
  } catch (err) {
    toast(`Cannot load the audit log: ${err.message}`, "error");
  }
}
