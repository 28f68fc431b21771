"""Reconsolidation bookkeeping: pending belief changes and queued sweep verdicts (both backends)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from mneme.core.model import PendingSweep, SweepProposal
from mneme.errors import NotFound
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

_PENDING = Columns("reconsolidation")
_PROPOSAL = Columns("sweep_proposals")


def _pending(row: Mapping[str, Any]) -> PendingSweep:
    return PendingSweep(**{**row, "created_at": row["created_at"] or EPOCH})


def _proposal(row: Mapping[str, Any]) -> SweepProposal:
    return SweepProposal(
        **{
            **row,
            "evidence": tuple(row["evidence"] or ()),
            "confidence": float(row["confidence"]),
            "created_at": row["created_at"] or EPOCH,
        }
    )


class Sweeps(Part):
    def add_pending_sweep(self, item: PendingSweep) -> None:
        self.sql.write(
            _PENDING.insert,
            _PENDING.row(self.sql.dialect, item),
        )
        self.engine.audit(
            item.bank_id,
            "system",
            "reconsolidation.pending",
            item.belief_id,
            None,
            {"sweep_id": item.id},
            item.reason,
        )

    def has_pending_sweep(self, bank_id: str | None = None) -> bool:
        sql = "SELECT 1 FROM reconsolidation WHERE status = 'pending'"
        if bank_id:
            return bool(self.sql.rows(sql + " AND bank_id = ? LIMIT 1", (bank_id,)))
        return bool(self.sql.rows(sql + " LIMIT 1"))

    def pending_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]:
        return self._sweeps("pending", bank_id, limit)

    def done_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]:
        return self._sweeps("done", bank_id, limit)

    def _sweeps(self, status: str, bank_id: str | None, limit: int) -> list[PendingSweep]:
        order = "created_at, id" if status == "pending" else "done_at DESC, id"
        rows = self.sql.rows(
            f"SELECT {_PENDING.select} FROM reconsolidation WHERE status = ?"
            + (" AND bank_id = ?" if bank_id else "")
            + f" ORDER BY {order} LIMIT ?",
            (status, *((bank_id,) if bank_id else ()), limit),
        )
        return [_pending(_PENDING.decode(self.sql.dialect, r)) for r in rows]

    def finish_sweep(
        self, bank_id: str, sweep_id: str, report: Mapping[str, Any], now: dt.datetime
    ) -> None:
        d = self.sql.dialect
        self.sql.write(
            "UPDATE reconsolidation SET status = 'done', done_at = ?, report = ? "
            "WHERE bank_id = ? AND id = ?",
            (d.encode("ts", now), d.encode("json", dict(report)), bank_id, sweep_id),
        )

    def put_proposal(self, proposal: SweepProposal) -> None:
        p = proposal
        self.sql.write(
            _PROPOSAL.insert,
            _PROPOSAL.row(self.sql.dialect, p),
        )
        self.engine.audit(
            p.bank_id,
            "sweep:reconsolidate",
            "sweep.propose",
            p.unit_id,
            None,
            {
                "proposal": p.id,
                "verdict": p.verdict,
                "belief": p.belief_id,
                "confidence": p.confidence,
            },
            p.reason,
        )

    def list_proposals(
        self, bank_id: str, status: str | None = "open", limit: int = 100
    ) -> list[SweepProposal]:
        rows = self.sql.rows(
            f"SELECT {_PROPOSAL.select} FROM sweep_proposals WHERE bank_id = ?"
            + (" AND status = ?" if status else "")
            + " ORDER BY created_at, id LIMIT ?",
            (bank_id, *((status,) if status else ()), limit),
        )
        return [_proposal(_PROPOSAL.decode(self.sql.dialect, r)) for r in rows]

    def decide_proposal(
        self, bank_id: str, proposal_id: str, status: str, actor: str, now: dt.datetime
    ) -> SweepProposal:
        self.sql.write(
            "UPDATE sweep_proposals SET status = ?, decided_at = ?, decided_by = ? "
            "WHERE bank_id = ? AND id = ?",
            (status, self.sql.dialect.encode("ts", now), actor, bank_id, proposal_id),
        )
        rows = self.sql.rows(
            f"SELECT {_PROPOSAL.select} FROM sweep_proposals WHERE bank_id = ? AND id = ?",
            (bank_id, proposal_id),
        )
        if not rows:
            raise NotFound(f"no sweep proposal {proposal_id}")
        out = _proposal(_PROPOSAL.decode(self.sql.dialect, rows[0]))
        self.engine.audit(
            bank_id,
            actor,
            f"sweep.{status}",
            out.unit_id,
            None,
            {"proposal": proposal_id},
            "a person decided a sweep proposal",
        )
        return out
