"""Backups of a whole store in its backend's own format (``mneme backup``; ADR 0053), and the
consistent read an export needs: the one place above the backends that picks between them.

SQLite: the online backup API into one file. PostgreSQL: ``pg_dump --format=custom``. Either
way the audit keys go beside the backup (``<backup>.audit-key``, 0600): a backup without its
key restores a store that can neither be verified nor written (ADR 0035).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme.errors import Conflict, InvalidInput
from mneme.store.archive import key_path, write_key_file
from mneme.store.protocol import Store


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: str
    backend: str
    bytes: int
    key_file: str | None


def _engine(store: Store) -> Any:
    return getattr(store, "engine", store)


@contextlib.contextmanager
def read_snapshot(store: Store) -> Iterator[None]:
    """Every read of this thread sees one state of the store until the block ends."""
    if store.capabilities.name == "postgres":
        from mneme.store.postgres.dump import read_snapshot as pg

        with pg(_engine(store)):
            yield
    else:
        from mneme.store.sqlite.snapshot import read_snapshot as lite

        with lite(_engine(store)):
            yield


def backup(
    store: Store,
    path: str | Path,
    *,
    overwrite: bool = False,
    pg_dump: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BackupReport:
    """Back the store up into ``path`` with its audit keys beside it.

    Raises:
        Conflict: ``path`` exists and ``overwrite`` is off.
        BackendUnavailable: the disk is full, the target is not writable, or pg_dump failed;
            nothing is left at ``path`` and the store is untouched.
    """
    target = Path(path).expanduser()
    if target.exists() and not overwrite:
        raise Conflict(f"{target} already exists; choose another path or replace it (--force)")
    if not target.parent.is_dir():
        raise InvalidInput(f"the folder {target.parent} does not exist")
    name = store.capabilities.name
    ring = store.audit.anchors().keyring
    key_file = None if ring is None else key_path(target)
    if ring is not None and key_file is not None:
        # The key first: a backup never lies on disk without the key that verifies it.
        write_key_file(ring, list(ring.keys), key_file)
    try:
        if name == "postgres":
            from mneme.store.postgres.dump import backup as dump

            size = dump(_engine(store), target, pg_dump=pg_dump)
        else:
            from mneme.store.sqlite.snapshot import backup as copy

            size = copy(_engine(store), target, progress=progress)
    except BaseException:
        if key_file is not None and not target.exists():
            key_file.unlink(missing_ok=True)
        raise
    return BackupReport(str(target), name, size, None if key_file is None else str(key_file))
