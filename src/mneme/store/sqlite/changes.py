"""The unit change log (schema 10, ADR 0025): which units changed, in commit order.

Triggers on ``units`` (status and validity updates, deletes) and ``unit_knowers`` (inserts,
deletes) append a row per change, so another process's in-memory vector index can catch up by
reading the units changed since it last looked instead of the state of every unit in the bank.
The log is derived data: ``mneme db copy`` does not move it, and the writer prunes it to its
newest KEEP rows; a reader further behind than that reads the whole bank again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mneme.store.sql.records import chunks
from mneme.store.sqlite.database import Database

#: Tables of SQLite's schema that are derived data, not moved by ``mneme db copy``.
DERIVED_TABLES = frozenset({"unit_changes"})
#: The writer keeps this many of the newest log rows (pruned every PRUNE_EVERY generations).
KEEP = 250_000
PRUNE_EVERY = 512


@dataclass(frozen=True, slots=True)
class Changes:
    seq: int  # the newest log row read
    unit_ids: tuple[str, ...]  # each changed unit once, in first-change order
    gone: bool  # some unit was deleted: the index must be rebuilt


def newest(db: Database) -> int:
    """The newest log row: where an index built now starts reading changes from."""
    row = db.query("SELECT max(seq) FROM unit_changes")
    return int(row[0][0] or 0)


def since(db: Database, bank_id: str, after: int) -> Changes | None:
    """The bank's changes after log row ``after``; None when rows after it were pruned (the
    caller must then read the whole bank)."""
    oldest = db.query("SELECT min(seq) FROM unit_changes")[0][0]
    if oldest is not None and int(oldest) > after + 1:  # rows after+1 .. oldest-1 are pruned
        return None
    seq = after
    ids: dict[str, None] = {}
    gone = False
    for row_seq, unit_id, was_deleted in db.query(
        "SELECT seq, unit_id, gone FROM unit_changes WHERE bank_id = ? AND seq > ? ORDER BY seq",
        (bank_id, after),
    ):
        seq = int(row_seq)
        ids[unit_id] = None
        gone = gone or bool(was_deleted)
    return Changes(seq=max(seq, after), unit_ids=tuple(ids), gone=gone)


def knowers_of(db: Database, bank_id: str, unit_ids: Sequence[str]) -> dict[str, list[str]]:
    """Every knower of each of ``unit_ids`` (a unit with none is absent)."""
    knowers: dict[str, list[str]] = {}
    for part in chunks(unit_ids):
        for uid, agent in db.query(
            "SELECT unit_id, agent_id FROM unit_knowers WHERE bank_id = ? AND unit_id IN "
            f"({','.join('?' * len(part))})",
            (bank_id, *part),
        ):
            knowers.setdefault(uid, []).append(agent)
    return knowers


def states_of(db: Database, bank_id: str, unit_ids: Sequence[str]) -> list[Any]:
    """(id, status, valid_from, valid_until) of each of ``unit_ids`` that still exists."""
    rows: list[Any] = []
    for part in chunks(unit_ids):
        rows += db.query(
            "SELECT id, status, valid_from, valid_until FROM units WHERE bank_id = ? AND id IN "
            f"({','.join('?' * len(part))})",
            (bank_id, *part),
        )
    return rows


def prune(db: Database, generation: int) -> None:
    """Inside a write transaction: every PRUNE_EVERY generations, drop all but the newest
    KEEP rows."""
    if generation % PRUNE_EVERY == 0:
        db.execute(
            "DELETE FROM unit_changes WHERE seq <= (SELECT max(seq) FROM unit_changes) - ?",
            (KEEP,),
        )
