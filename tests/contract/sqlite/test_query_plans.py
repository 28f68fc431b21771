"""Queries the write path runs once per atom start from their narrowest index on SQLite.

SQLite keeps no statistics here (nothing runs ANALYZE), so a join may be planned from the wrong
side: the slot lookup of every judged atom once walked all of a bank's claim units (160 us a
call on one LoCoMo conversation, 4 us from the slot's index; ADR 0024). The plan, not a timing,
is what a test can hold.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from mneme.store.sqlite.store import SQLiteStore

pytestmark = pytest.mark.parametrize("store", ["sqlite"], indirect=True)


def _plan_of(store: SQLiteStore, call: Any) -> list[str]:
    """The query plan of the one statement ``call`` runs, with its parameters bound."""
    conn: sqlite3.Connection = store.engine.db.conn()
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        call()
    finally:
        conn.set_trace_callback(None)
    (sql,) = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    return [str(row[3]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]


def test_a_slots_units_are_found_from_the_slot_index(store: SQLiteStore, make: Any) -> None:
    make.bank()
    plan = _plan_of(store, lambda: store.trust.slot_unit_ids("b1", "alice|lives_in"))
    assert plan[0].startswith("SEARCH c USING INDEX claims_slot"), plan
    assert "claim_id=?" in plan[1], plan  # then each claim's units by key, no bank-wide walk
