"""Whole-file copies of a SQLite store: a consistent read of every table (what ``mneme export``
reads) and a backup through SQLite's online backup API (``mneme backup``; ADR 0053)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from mneme.errors import BackendUnavailable, MnemeError
from mneme.store.sqlite.engine import SQLiteEngine

#: Headroom asked of the disk beyond the database's own size before a backup starts.
_HEADROOM = 1 << 20


@contextlib.contextmanager
def read_snapshot(store: SQLiteEngine) -> Iterator[None]:
    """Every read of this thread sees one state of the file until the block ends.

    A deferred transaction on this thread's reader: in WAL mode it holds a snapshot without
    blocking the writer (an export of a store in use neither waits for writes nor stops them).
    """
    if store.db.owns_transaction:
        yield  # the writer's own transaction is a snapshot already
        return
    store.db.execute("BEGIN")
    try:
        store.db.query("SELECT count(*) FROM banks")  # the snapshot starts at the first read
        yield
    finally:
        with contextlib.suppress(MnemeError):
            store.db.execute("COMMIT")


def backup(
    store: SQLiteEngine, target: Path, *, progress: Callable[[int, int], None] | None = None
) -> int:
    """Copy the database into ``target`` (written under a temporary name, checked with
    ``quick_check``, then renamed); the bytes written.

    Raises:
        BackendUnavailable: the disk is full or the target cannot be written; the partial
            file is removed and the store is untouched.
    """
    source = store.db.conn()
    pages = int(source.execute("PRAGMA page_count").fetchone()[0])
    size = pages * int(source.execute("PRAGMA page_size").fetchone()[0])
    free = shutil.disk_usage(target.parent).free
    if free < size + _HEADROOM:
        raise BackendUnavailable(
            f"not enough free space for a backup in {target.parent}: the store is "
            f"{size / 1e6:.1f} MB, {free / 1e6:.1f} MB are free; nothing was written"
        )
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        dest = sqlite3.connect(tmp, isolation_level=None)
        try:
            # One step: the copy is of one state of the file (a stepped copy restarts on
            # every write another connection makes, and may never finish on a busy store).
            source.backup(dest, pages=-1)
            if progress is not None:
                progress(pages, pages)
            dest.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            ok = dest.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise BackendUnavailable(f"the backup in {tmp} does not check: {ok}")
        finally:
            dest.close()
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except (sqlite3.Error, OSError) as exc:
        raise BackendUnavailable(
            f"the backup to {target} failed ({exc}): the disk may be full or not writable; "
            "the partial file was removed and the store is untouched"
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}-journal").unlink(missing_ok=True)
    return target.stat().st_size
