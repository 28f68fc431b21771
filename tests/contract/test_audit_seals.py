"""The tamper-evident audit on every backend (ADR 0035): edits made straight in the database,
on a connection of its own (not mneme's), are found by ``audit verify``; a store written by
mneme verifies clean. The full tamper table runs on SQLite files (integration suite)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

import mneme
from mneme.core.audit_chain import GENESIS, record_hash


@contextmanager
def _beside(target: str) -> Iterator[Any]:
    """A connection of the tamperer's own: SQLite file or PostgreSQL session, autocommit."""
    if _is_pg(target):
        conn: Any = psycopg.connect(target, autocommit=True)
    else:
        import sqlite3  # the tamperer's own connection, beside the store

        conn = sqlite3.connect(target, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def _is_pg(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://")) or "dbname=" in target


def _mark(target: str) -> str:
    return "%s" if _is_pg(target) else "?"


def _open(target: str, tmp_path: Path) -> mneme.Memory:
    return mneme.Memory.open(target, embedder="hashing:15", audit_key_file=str(tmp_path / "k.key"))


def _workload(mem: mneme.Memory) -> dict[str, str]:
    lisbon = mem.retain("Alice lives in Lisbon.", bank="b1", agent="a1", source_id="ev-1")
    mem.retain("Alice lives in Porto.", bank="b1", agent="a3", source_id="ev-2")
    (conflict,) = mem.conflicts.list(bank="b1")
    mem.conflicts.resolve(conflict.id, "supersede", actor="pat", winner=lisbon.memory_ids[0])
    tea = mem.retain("Bob prefers green tea.", bank="b1", agent="a1", source_id="ev-3")
    mem.review.reject(tea.memory_ids[0], "wrong", "pat")
    secret = mem.retain("Carol's passport is X9-4471.", bank="b1", agent="a1", source_id="ev-4")
    mem.admin.purge(secret.memory_ids[0], actor="dpo", reason="GDPR art. 17 request from Carol")
    mem.retain("Dana works at Harbor Labs.", bank="b2", agent="a1", source_id="ev-5")
    return {"unit": lisbon.memory_ids[0], "conflict": conflict.id}


def _broken(mem: mneme.Memory) -> bool:
    return not all(r.ok for r in mem.admin.audit_verify().values())


def test_a_store_written_by_mneme_verifies_clean_after_a_workload(
    target: str, tmp_path: Path
) -> None:
    with _open(target, tmp_path) as mem:
        _workload(mem)
        reports = mem.admin.audit_verify()
        assert set(reports) == {"b1", "b2"}
        assert all(r.ok and not r.notes for r in reports.values()), reports
        purge = next(r for r in mem.admin.audit_log("b1") if r.op == "purge")
        assert purge.reason == ""  # the legal ground only as its digest


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE units SET text = 'Alice lives in Paris.' WHERE id = '{unit}'",
        "UPDATE units SET status = 'archived' WHERE id = '{unit}'",
        "UPDATE conflicts SET status = 'open', winner = NULL WHERE id = '{conflict}'",
        "UPDATE tombstones SET lifted_at = lifted_at WHERE 1 = 0",  # no-op: still clean
        "DELETE FROM audit_log WHERE bank_id = 'b2'",
        "UPDATE audit_log SET actor = 'mallory' WHERE target = '{unit}'",
    ],
)
def test_an_edit_beside_mneme_is_found(target: str, tmp_path: Path, statement: str) -> None:
    with _open(target, tmp_path) as mem:
        ids = _workload(mem)
        with _beside(target) as conn:
            conn.execute(statement.format(**ids))
        assert _broken(mem) == ("1 = 0" not in statement)


def test_a_chain_recomputed_with_plain_sha256_is_found(target: str, tmp_path: Path) -> None:
    with _open(target, tmp_path) as mem:
        _workload(mem)
        records = list(mem.admin.audit_log("b2"))
        m = _mark(target)
        with _beside(target) as conn:
            prev = GENESIS
            for r in records:
                fields = {k: r.hashed[k] for k in ("bank_id", "at", "actor", "op", "target")}
                fields |= {"before": r.hashed["before"], "after": r.hashed["after"]}
                fields |= {"reason": r.reason, "before_sha": None, "after_sha": None}
                new = record_hash(prev, fields)
                conn.execute(
                    f"UPDATE audit_log SET prev_hash = {m}, hash = {m}, version = NULL, "
                    f"key_id = NULL WHERE seq = {m}",
                    (prev, new, r.seq),
                )
                prev = new
            conn.execute(
                f"UPDATE audit_head SET hash = {m} WHERE bank_id = 'b2'",
                (prev,),
            )
        assert not mem.admin.audit_verify()["b2"].ok
