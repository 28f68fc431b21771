"""Unit rows: the columns a unit is read from, and a unit with its knowers, evidence and names."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from mneme.core.model import Network, Unit, UnitStatus, UnitType, Visibility
from mneme.store.protocol import EmbeddingRow
from mneme.store.sql.dialect import Dialect
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH

#: The columns of ``units`` a Unit is made from, in this order (``owner`` is derived).
UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)

#: The most ids one IN list carries (SQLite's default limit on parameters is far above it).
CHUNK = 500


def unit_record(
    d: Dialect,
    r: Sequence[Any],
    knowers: tuple[str, ...],
    evidence: tuple[str, ...],
    entities: tuple[str, ...],
) -> Unit:
    """One row of ``SELECT {UNIT_COLS}`` as a Unit (positional: this is the read path)."""
    t = d.decode
    return Unit(
        bank_id=r[0],
        id=r[1],
        text=r[2],
        content_key=r[3],
        network=Network(r[4]),
        type=UnitType(r[5]),
        status=UnitStatus(r[6]),
        confidence=float(r[7]),
        agent_id=r[8],
        visibility=Visibility(r[9]),
        occurred_start=t("ts", r[10]),
        occurred_end=t("ts", r[11]),
        valid_from=t("ts", r[12]),
        valid_until=t("ts", r[13]),
        recorded_at=t("ts", r[14]) or EPOCH,
        retired_at=t("ts", r[15]),
        mentioned_at=t("ts", r[16]),
        embedding_model=r[17],
        embedding_dim=r[18],
        superseded_by=r[19],
        supersedes=tuple(t("json", r[20]) or ()),
        contradictions=tuple(t("json", r[21]) or ()),
        categories=tuple(t("json", r[22]) or ()),
        metadata=t("json", r[23]) or {},
        knowers=knowers,
        evidence=evidence,
        entities=entities,
    )


class UnitRows(Part):
    def _hydrate(self, rows: Sequence[Any], *, lean: bool = False) -> list[Unit]:
        """Units from rows of ``SELECT {UNIT_COLS}``; ``lean`` leaves evidence and names out."""
        if not rows:
            return []
        d = self.sql.dialect
        keys = [(r[0], r[1]) for r in rows]
        knowers = self._group(
            "SELECT unit_id, agent_id FROM unit_knowers", keys, "ORDER BY first_at, agent_id"
        )
        if lean:
            return [unit_record(d, r, knowers.get(r[1], ()), (), ()) for r in rows]
        evidence = self._group(
            "SELECT unit_id, source_id FROM unit_evidence", keys, "ORDER BY at, source_id"
        )
        names = self._group(
            "SELECT m.unit_id, e.name FROM mentions m JOIN entities e "
            "ON e.bank_id = m.bank_id AND e.id = m.entity_id",
            keys,
            "ORDER BY e.name",
            alias="m",
        )
        return [
            unit_record(d, r, knowers.get(r[1], ()), evidence.get(r[1], ()), names.get(r[1], ()))
            for r in rows
        ]

    def _group(
        self, select: str, keys: Sequence[tuple[str, str]], order: str, alias: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """``select``'s (unit id, value) pairs for the units ``keys`` name, grouped by unit."""
        out: dict[str, list[str]] = {}
        prefix = f"{alias}." if alias else ""
        by_bank: dict[str, list[str]] = {}
        for bank, uid in keys:
            by_bank.setdefault(bank, []).append(uid)
        for bank, ids in by_bank.items():
            for i in range(0, len(ids), CHUNK):
                among, values = self.sql.dialect.one_of(f"{prefix}unit_id", ids[i : i + CHUNK])
                rows = self.sql.rows(
                    f"{select} WHERE {prefix}bank_id = ? AND {among} {order}", (bank, *values)
                )
                for uid, value in rows:
                    out.setdefault(uid, []).append(value)
        return {k: tuple(v) for k, v in out.items()}

    def iter_for_embedding(
        self, bank_id: str | None, model: str, batch: int
    ) -> Iterator[list[EmbeddingRow]]:
        """Units without a ``model`` vector, in id order, ``batch`` at a time (re-embedding)."""
        last = ""
        while True:
            rows = self.sql.rows(
                "SELECT u.id, u.text, u.embedding_model FROM units u WHERE u.id > ? "
                + ("AND u.bank_id = ? " if bank_id else "")
                + "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.bank_id = u.bank_id "
                "AND e.unit_id = u.id AND e.model = ?) ORDER BY u.id LIMIT ?",
                (last, *((bank_id,) if bank_id else ()), model, batch),
            )
            if not rows:
                return
            last = rows[-1][0]
            yield [EmbeddingRow(unit_id=r[0], text=r[1], model=r[2]) for r in rows]
