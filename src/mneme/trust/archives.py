"""Portable archives with their audit intact (ADR 0053): export a store to an archive, and
import one only if the audit chain of every bank it fills verifies on the copy, checked inside
the import's transaction (a chain that does not verify there is never committed).

The archive's audit keys travel in a file of their own (``<archive>.audit-key``), never in
the archive; on import they join the store's key file, so ``audit verify`` passes on the copy.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

from mneme.errors import InvalidInput
from mneme.store import archive, merge
from mneme.store import audit_key as keys
from mneme.store.backup import read_snapshot
from mneme.store.protocol import Store
from mneme.trust.audit import verify


def _version() -> str:
    try:
        return metadata.version("mneme")
    except metadata.PackageNotFoundError:
        return "unknown"


def export(
    store: Store,
    path: str | Path,
    *,
    now: dt.datetime,
    overwrite: bool = False,
    progress: Callable[[str, int], None] | None = None,
) -> archive.ArchiveReport:
    """Write every table of the store, read from one snapshot, to the archive ``path``.

    Raises:
        Conflict: ``path`` exists and ``overwrite`` is off.
    """
    target = Path(path).expanduser()
    with read_snapshot(store):
        return archive.write(
            store,
            target,
            manifest={
                "schema": store.schema_version(),
                "mneme": _version(),
                "created": now.isoformat(),
                "backend": store.capabilities.name,
            },
            overwrite=overwrite,
            progress=progress,
        )


def import_archive(
    store: Store,
    path: str | Path,
    *,
    audit_key_file: str | Path | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> merge.ImportReport:
    """Merge the archive at ``path`` into the store (merge rules: ``store.merge``).

    ``audit_key_file``: the archive's audit keys (default: ``<archive>.audit-key``).

    Raises:
        InvalidInput: the archive is truncated, damaged or changed, or its keys are missing.
        SchemaMismatch: the archive is from a newer schema than this build.
        Conflict: its rows clash with the store's (same id, other state).
        ArchiveAuditFailed: an imported bank's audit does not verify on the copy.
    """
    reader = archive.Reader(Path(path).expanduser())
    wanted = [str(k) for k in reader.manifest.get("keys", [])]
    key_file = Path(audit_key_file or archive.key_path(reader.path)).expanduser()
    ring = keys.load(str(key_file), create=False)
    missing = [k for k in wanted if ring is None or k not in ring.keys]
    if missing:
        raise InvalidInput(
            f"the audit records of {reader.path} are sealed with key(s) "
            f"{', '.join(missing)}, which {key_file} does not hold: give the key file "
            "export wrote beside the archive (--audit-key); nothing was imported"
        )
    return merge.import_archive(
        store, reader, ring, check=lambda banks: _verified(store, banks), progress=progress
    )


def _verified(store: Store, banks: Iterable[str]) -> None:
    for bank in banks:
        report = verify(store, bank).get(bank)
        if report is not None and not report.ok:
            raise ArchiveAuditFailed(
                f"the audit of bank {bank!r} does not verify on the copy ({report.problem}); "
                "nothing was imported"
            )


class ArchiveAuditFailed(InvalidInput):
    """An imported bank's audit chain did not verify inside the import: refused."""

    code = "audit_failed"
