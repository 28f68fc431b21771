"""Concurrent first opens (issue 16, item 8): many processes open one fresh store at once.

Each process opens the same fresh store (a SQLite file that does not exist yet, or an empty
PostgreSQL database) through ``mneme.Memory.open`` at the same moment and retains one memory.
Every one must succeed (the attack saw 3 of 40 fail with "table banks already exists"), the
schema must end at the latest version with each migration recorded once, every write must be
stored exactly once, and the bank must have been created once (one audit chain, not forked).
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mneme import Memory
from mneme.store.postgres import database as pg_database
from mneme.store.sqlite import database as sqlite_database

OPENERS = 10
BANK = "opening"
WORKER = Path(__file__).with_name("first_opener.py")
DEADLINE_SECONDS = 240  # a bound on the wait, not a timing assertion


@pytest.fixture(params=["sqlite", "postgres"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, list[int]]]:
    """A store nobody has opened yet, and the migration versions its backend should end with."""
    if request.param == "sqlite":
        yield str(tmp_path / "fresh.db"), [v for v, _, _ in sqlite_database.migrations()]
        return
    server: str = request.getfixturevalue("pg_server")
    dsn_for = request.getfixturevalue("pg_dsn_for")
    name = f"mneme_fresh_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # empty: no schema, no pgvector yet
    try:
        yield dsn_for(name), [v for v, _, _ in pg_database.migrations()]
    finally:
        with psycopg.connect(server, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run_openers(target: str, n: int = OPENERS) -> list[dict[str, Any]]:
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), target, BANK, str(i)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]
    try:
        for p in procs:  # every process has started and imported mneme
            assert p.stdout is not None
            line = p.stdout.readline()
            assert line.strip() == "ready", (line, p.stderr.read() if p.stderr else "")
        for p in procs:  # then all of them open at once
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        reports = []
        for p in procs:
            out, err = p.communicate(timeout=DEADLINE_SECONDS)
            assert p.returncode == 0, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
        return reports
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def test_concurrent_first_opens_of_one_fresh_store_all_succeed_and_write_once(
    fresh: tuple[str, list[int]],
) -> None:
    target, versions = fresh
    reports = run_openers(target)

    errors = [r["error"] for r in reports if r["error"]]
    assert errors == [], errors[0]
    assert {r["schema_version"] for r in reports} == {versions[-1]}
    with Memory.open(target, embedder="hashing:15") as mem:
        assert mem.admin.schema_version() == versions[-1]
        db: Any = getattr(mem._store, "db")  # noqa: B009  # both backends' Database
        recorded = [int(r[0]) for r in db.query("SELECT version FROM schema_version ORDER BY 1")]
        assert recorded == versions  # each migration applied once
        ids = sorted(str(r[0]) for r in db.query("SELECT id FROM sources"))
        assert ids == sorted(f"open-{i}" for i in range(OPENERS))  # every write, once each
        for i in range(OPENERS):
            assert mem.source(f"open-{i}", bank=BANK).agent_id == f"opener-{i}"
        created = [r for r in mem.admin.audit_log(BANK) if r.op == "bank.create"]
        assert len(created) == 1
        assert mem.admin.audit_verify(BANK)[BANK].ok
