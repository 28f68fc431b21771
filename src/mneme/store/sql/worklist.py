"""The review worklist: what waits for a person's decision, found by one query (ADR 0048).

Four kinds of row, each a SELECT of ``(kind, id, at, contest)`` over its own table, joined by
UNION ALL, so that the order (newest, or most contested first), the page (LIMIT/OFFSET) and
every filter (kind, author, text) are clauses of the storage query:

- ``question``: an open conflict; ``at`` is when it was opened; ``contest`` how many open
  conflicts its two memories are in.
- ``contested``: a claim waiting for review (live, pending) with a live rival in its slot,
  whose memories are in no conflict (an open one is the card; a settled one was decided);
  ``at`` its last evidence; ``contest`` how many live rivals it has.
- ``reasserted``: a rejected claim put back in front of a person because its value was said
  again (the write path sets it pending); ``contest`` how often it was said.
- ``proposal``: a sweep verdict below the auto-apply bar; ``contest`` 1.

Superseded, approved and settled records match none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mneme.store.protocol import WorkFilter, WorkRow
from mneme.store.sql.part import Part

#: The units said by each kind's row (``{r}`` is the row's alias), for the author and text
#: filters: both sides of a conflict, every memory stating a claim, the proposal's memory.
_SAID_BY = {
    "question": "u.id IN ({r}.a_unit, {r}.b_unit)",
    "contested": "u.id IN (SELECT cu.unit_id FROM claim_units cu "
    "WHERE cu.bank_id = {r}.bank_id AND cu.claim_id = {r}.id)",
    "reasserted": "u.id IN (SELECT cu.unit_id FROM claim_units cu "
    "WHERE cu.bank_id = {r}.bank_id AND cu.claim_id = {r}.id)",
    "proposal": "u.id = {r}.unit_id",
}

#: A claim whose memories are in a conflict: an open one is the card; a settled one was
#: decided by a person (both hold, or one replaced the other), so its rivalry is no question.
_CONFLICT_ON_CLAIM = (
    "EXISTS (SELECT 1 FROM conflicts o JOIN claim_units cu "
    "ON cu.bank_id = o.bank_id AND cu.unit_id IN (o.a_unit, o.b_unit) "
    "WHERE o.bank_id = r.bank_id AND cu.claim_id = r.id)"
)
_LIVE_RIVALS = (
    "(SELECT count(*) FROM claims x WHERE x.bank_id = r.bank_id AND x.slot_key = r.slot_key "
    "AND x.id <> r.id AND x.claim_key <> r.claim_key AND x.status = 'active')"
)

_SELECT = {
    "question": (
        "SELECT 'question' AS kind, r.id AS id, r.created_at AS at, "
        "(SELECT count(*) FROM conflicts o WHERE o.bank_id = r.bank_id AND o.status = 'open' "
        "AND (o.a_unit IN (r.a_unit, r.b_unit) OR o.b_unit IN (r.a_unit, r.b_unit))) AS contest "
        "FROM conflicts r WHERE r.bank_id = ? AND r.status = 'open'"
    ),
    "contested": (
        f"SELECT 'contested' AS kind, r.id AS id, r.last_evidence_at AS at, {_LIVE_RIVALS} "
        "AS contest FROM claims r WHERE r.bank_id = ? AND r.status = 'active' "
        f"AND r.review_status = 'pending_review' AND {_LIVE_RIVALS} > 0 "
        f"AND NOT {_CONFLICT_ON_CLAIM}"
    ),
    "reasserted": (
        "SELECT 'reasserted' AS kind, r.id AS id, r.last_evidence_at AS at, "
        "r.evidence_count AS contest FROM claims r WHERE r.bank_id = ? "
        "AND r.status = 'rejected' AND r.review_status = 'pending_review'"
    ),
    "proposal": (
        "SELECT 'proposal' AS kind, r.id AS id, r.created_at AS at, 1 AS contest "
        "FROM sweep_proposals r WHERE r.bank_id = ? AND r.status = 'open'"
    ),
}

_ORDER = {
    "newest": "at DESC, id DESC",
    "most_contested": "contest DESC, at DESC, id DESC",
}


def _like(text: str) -> str:
    """A substring pattern with LIKE's own characters taken literally."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class Worklist(Part):
    def _union(self, bank_id: str, wanted: WorkFilter) -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[Any] = []
        for kind in wanted.kinds:
            sql = _SELECT[kind]
            args: list[Any] = [bank_id]
            said = _SAID_BY[kind].format(r="r")
            if wanted.author is not None:
                # The author, or any agent that said it again (its evidence).
                sql += (
                    " AND EXISTS (SELECT 1 FROM units u WHERE u.bank_id = r.bank_id "
                    f"AND {said} AND (u.agent_id = ? OR EXISTS (SELECT 1 FROM unit_evidence ue "
                    "WHERE ue.bank_id = u.bank_id AND ue.unit_id = u.id AND ue.agent_id = ?)))"
                )
                args += [wanted.author, wanted.author]
            if wanted.text is not None:
                sql += (
                    " AND EXISTS (SELECT 1 FROM units u WHERE u.bank_id = r.bank_id "
                    f"AND {said} AND lower(u.text) LIKE ? ESCAPE '\\')"
                )
                args.append(_like(wanted.text))
            parts.append(sql)
            params += args
        return " UNION ALL ".join(parts), params

    def review_worklist(self, bank_id: str, wanted: WorkFilter) -> list[WorkRow]:
        if not wanted.kinds:
            return []
        union, params = self._union(bank_id, wanted)
        rows: Sequence[Any] = self.sql.rows(
            f"SELECT kind, id, at, contest FROM ({union}) w ORDER BY {_ORDER[wanted.sort]} "
            "LIMIT ? OFFSET ?",
            (*params, wanted.limit, wanted.offset),
        )
        d = self.sql.dialect
        return [WorkRow(r[0], r[1], d.decode("ts", r[2]), int(r[3])) for r in rows]

    def review_counts(self, bank_id: str, wanted: WorkFilter) -> dict[str, int]:
        counts = dict.fromkeys(wanted.kinds, 0)
        if not wanted.kinds:
            return counts
        union, params = self._union(bank_id, wanted)
        for kind, n in self.sql.rows(
            f"SELECT kind, count(*) FROM ({union}) w GROUP BY kind", params
        ):
            counts[kind] = int(n)
        return counts
