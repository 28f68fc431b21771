"""Reconsolidation bookkeeping in PostgreSQL: pending belief changes and queued sweep verdicts
(the same rows and audit records as the SQLite backend's ``sweeps`` module)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from mneme.core.model import PendingSweep, SweepProposal
from mneme.errors import NotFound
from mneme.store.postgres.base import PostgresBase
from mneme.store.postgres.rows import utc, utc_opt

_PENDING = "bank_id, id, belief_id, reason, status, created_at, done_at, report"
_PROPOSAL = (
    "bank_id, id, unit_id, belief_id, verdict, reason, evidence, confidence, status, "
    "created_at, decided_at, decided_by"
)


def _pending(r: Sequence[Any]) -> PendingSweep:
    return PendingSweep(
        bank_id=r[0],
        id=r[1],
        belief_id=r[2],
        reason=r[3],
        status=r[4],
        created_at=utc(r[5]),
        done_at=utc_opt(r[6]),
        report=r[7],
    )


def _proposal(r: Sequence[Any]) -> SweepProposal:
    return SweepProposal(
        bank_id=r[0],
        id=r[1],
        unit_id=r[2],
        belief_id=r[3],
        verdict=r[4],
        reason=r[5],
        evidence=tuple(r[6] or ()),
        confidence=float(r[7]),
        status=r[8],
        created_at=utc(r[9]),
        decided_at=utc_opt(r[10]),
        decided_by=r[11],
    )


class SweepsMixin(PostgresBase):
    def add_pending_sweep(self, item: PendingSweep) -> None:
        self._w(
            f"INSERT INTO reconsolidation ({_PENDING}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (
                item.bank_id,
                item.id,
                item.belief_id,
                item.reason,
                item.status,
                utc(item.created_at),
                utc(item.done_at),
                None if item.report is None else Jsonb(dict(item.report)),
            ),
        )
        self.audit(
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
        rows = self.db.query(
            sql + (" AND bank_id = %s LIMIT 1" if bank_id else " LIMIT 1"),
            (bank_id,) if bank_id else None,
        )
        return bool(rows)

    def pending_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]:
        return self._sweeps("pending", bank_id, limit)

    def done_sweeps(self, bank_id: str | None, limit: int) -> list[PendingSweep]:
        return self._sweeps("done", bank_id, limit)

    def _sweeps(self, status: str, bank_id: str | None, limit: int) -> list[PendingSweep]:
        order = "created_at, id" if status == "pending" else "done_at DESC, id"
        rows = self.db.query(
            f"SELECT {_PENDING} FROM reconsolidation WHERE status = %s"
            + (" AND bank_id = %s" if bank_id else "")
            + f" ORDER BY {order} LIMIT %s",
            (status, *((bank_id,) if bank_id else ()), limit),
        )
        return [_pending(r) for r in rows]

    def finish_sweep(
        self, bank_id: str, sweep_id: str, report: Mapping[str, Any], now: dt.datetime
    ) -> None:
        self._w(
            "UPDATE reconsolidation SET status = 'done', done_at = %s, report = %s "
            "WHERE bank_id = %s AND id = %s",
            (utc(now), Jsonb(dict(report)), bank_id, sweep_id),
        )

    def put_proposal(self, proposal: SweepProposal) -> None:
        p = proposal
        self._w(
            f"INSERT INTO sweep_proposals ({_PROPOSAL}) VALUES ({', '.join(['%s'] * 12)})",
            (
                p.bank_id,
                p.id,
                p.unit_id,
                p.belief_id,
                p.verdict,
                p.reason,
                Jsonb(list(p.evidence)),
                p.confidence,
                p.status,
                utc(p.created_at),
                utc(p.decided_at),
                p.decided_by,
            ),
        )
        self.audit(
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
        rows = self.db.query(
            f"SELECT {_PROPOSAL} FROM sweep_proposals WHERE bank_id = %s"
            + (" AND status = %s" if status else "")
            + " ORDER BY created_at, id LIMIT %s",
            (bank_id, *((status,) if status else ()), limit),
        )
        return [_proposal(r) for r in rows]

    def decide_proposal(
        self, bank_id: str, proposal_id: str, status: str, actor: str, now: dt.datetime
    ) -> SweepProposal:
        self._w(
            "UPDATE sweep_proposals SET status = %s, decided_at = %s, decided_by = %s "
            "WHERE bank_id = %s AND id = %s",
            (status, utc(now), actor, bank_id, proposal_id),
        )
        rows = self.db.query(
            f"SELECT {_PROPOSAL} FROM sweep_proposals WHERE bank_id = %s AND id = %s",
            (bank_id, proposal_id),
        )
        if not rows:
            raise NotFound(f"no sweep proposal {proposal_id}")
        out = _proposal(rows[0])
        self.audit(
            bank_id,
            actor,
            f"sweep.{status}",
            out.unit_id,
            None,
            {"proposal": proposal_id},
            "a person decided a sweep proposal",
        )
        return out
