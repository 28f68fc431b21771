"""The PostgreSQL backend's own promises: HNSW use, clear errors, and the public entry points."""

from __future__ import annotations

import socket
import subprocess
import sys
import uuid
from typing import Any

import psycopg
import pytest

import mneme
from mneme.core.model import Scope
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import BackendUnavailable, SchemaMismatch
from mneme.memory import open_store
from mneme.store.postgres import PostgresStore
from mneme.store.postgres.database import latest_version
from mneme.store.postgres.vectors import index_name, semantic_query


def _plan(store: PostgresStore, query: Any, params: Any, *, seqscan: bool = False) -> str:
    with store.db.transaction(), store.db.conn() as conn:
        if not seqscan:
            # At a few hundred rows a sort is cheaper and the planner rightly picks it; turning
            # the alternatives off shows the index matches the query's cast and predicate.
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                conn.execute(f"SET LOCAL {setting} = off")
        conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        rows = conn.execute(b"EXPLAIN " + query.as_bytes(conn), params).fetchall()
    return "\n".join(r[0] for r in rows)


def test_semantic_query_is_answered_by_the_models_hnsw_index(pg_make: Any, pg_hnsw: None) -> None:
    store = pg_make.store
    pg_make.bank()
    for i in range(60):
        pg_make.unit(f"memory number {i} about topic {i % 17}")
    with store.db.transaction():
        store.db.execute("ANALYZE")
    query, params = semantic_query(
        pg_make.viewer(scope=Scope.COLLECTIVE),
        pg_make.vec("topic 3"),
        pg_make.model,
        pg_make.filters(),
        10,
    )
    name = index_name(pg_make.model, pg_make.dim)
    plan = _plan(store, query, params, seqscan=False)
    assert f"Index Scan using {name} on embeddings" in plan, plan
    assert "Order By" in plan, plan
    hits = store.channels.search_semantic(
        pg_make.viewer(),
        pg_make.vec("memory number 5 about topic 5"),
        pg_make.model,
        pg_make.filters(),
        3,
    )
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_unreachable_server_is_backend_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens on it once closed
    with pytest.raises(BackendUnavailable, match="cannot connect"):
        PostgresStore(f"postgresql://nobody:secret@127.0.0.1:{port}/x", connect_timeout=2)


def test_wrong_credentials_are_backend_unavailable_without_the_password(pg_dsn_for: Any) -> None:
    dsn = pg_dsn_for(f"missing_{uuid.uuid4().hex[:8]}")
    with pytest.raises(BackendUnavailable) as info:
        PostgresStore(dsn)
    assert "secret" not in str(info.value)


def test_a_newer_schema_is_refused(pg_database: Any) -> None:
    with psycopg.connect(pg_database, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO schema_version VALUES (%s, 'future', now())", (latest_version() + 1,)
        )
    with pytest.raises(SchemaMismatch, match="newer"):
        PostgresStore(pg_database)


def test_missing_pgvector_says_create_extension_is_needed(pg_server: Any, pg_dsn_for: Any) -> None:
    dbname, role = f"novec_{uuid.uuid4().hex[:8]}", f"mneme_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"CREATE DATABASE {dbname} OWNER {role}")
    try:
        dsn = psycopg.conninfo.make_conninfo(pg_dsn_for(dbname), user=role)
        with pytest.raises(SchemaMismatch, match="CREATE EXTENSION vector"):
            PostgresStore(dsn)  # a plain role may not create pgvector itself
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)")
            conn.execute(f"DROP ROLE IF EXISTS {role}")


def test_memory_open_with_a_postgresql_url_retains_and_recalls(pg_database: Any) -> None:
    assert pg_database.startswith("postgresql://")
    opened = open_store(pg_database)
    assert isinstance(opened, PostgresStore)
    opened.close()
    mem = mneme.Memory.open(pg_database, embedder=HashingEmbedder(15))
    try:
        mem.retain("Alice moved to Lisbon in 2019.", bank="b1", agent="a1")
        hits = mem.recall("Where does Alice live?", bank="b1", agent="a1")
        assert any("Lisbon" in h.unit.text for h in hits)
        assert mem.recall("Where does Alice live?", bank="b1", agent="a2", scope="personal") == []
    finally:
        mem.close()


def test_a_growing_store_refreshes_the_planners_statistics(pg_make: Any) -> None:
    """Statistics of an empty table plan the semantic channel as a nested loop over every
    unit; after its units double (from 256) the store analyses its tables on commit."""
    store = pg_make.store
    pg_make.bank()

    def tuples() -> float:
        # ANALYZE writes pg_class.reltuples transactionally (-1: never analysed).
        return float(store.db.scalar("SELECT reltuples FROM pg_class WHERE relname = 'units'"))

    for i in range(255):
        pg_make.unit(f"memory {i}", embed=False)
    assert tuples() < 255  # not due yet
    pg_make.unit("the 256th memory", embed=False)
    assert tuples() >= 256


def _run_script(path: Any, source: str, dsn: str) -> subprocess.CompletedProcess[str]:
    """Run ``source`` as a script of its own (given the DSN) to its exit; it must succeed."""
    path.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(path), dsn], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done


_LEFT_OPEN = """
import atexit, sys
from mneme.store.postgres import PostgresStore

seen = {}
# Registered before the store opens, as a test server's stop is: it runs after the store's.
atexit.register(lambda: print("pool closed at exit:", seen["store"].db.pool.closed))
seen["store"] = PostgresStore(sys.argv[1])
closed = PostgresStore(sys.argv[1])
closed.close()  # a store closed by hand leaves no exit hook behind
"""


def test_a_store_left_open_closes_its_pool_before_earlier_exit_hooks_run(
    pg_database: Any, tmp_path: Any
) -> None:
    """A script that never closes its store still lets go of the server before an exit hook
    registered earlier (a test server's stop) runs: otherwise the pool's workers meet the
    shutdown and log each failed reconnection as an error."""
    done = _run_script(tmp_path / "left_open.py", _LEFT_OPEN, pg_database)
    assert "pool closed at exit: True" in done.stdout
    assert "error connecting" not in done.stderr


_MEMORY_LEFT_OPEN = """
import atexit, sys
import mneme
from mneme.embed.hashing import HashingEmbedder

seen = {}
atexit.register(lambda: print("store closed at exit:", seen["mem"]._store.db.pool.closed))
mem = mneme.Memory.open(sys.argv[1], embedder=HashingEmbedder())
seen["mem"] = mem
mem.admin.create_bank("b1")
mem.retain("Quentin keeps the spare badge in drawer D-41.", bank="b1", agent="a1", wait=0)
"""


def test_a_memory_left_open_stops_its_workers_before_its_pool_closes(
    pg_database: Any, tmp_path: Any
) -> None:
    """The write worker of a Memory nobody closed must not meet its own closed pool at exit
    (it logged "ingest worker error ... the pool 'mneme' is already closed")."""
    done = _run_script(tmp_path / "memory_left_open.py", _MEMORY_LEFT_OPEN, pg_database)
    assert "store closed at exit: True" in done.stdout
    assert "error" not in done.stderr.casefold(), done.stderr
