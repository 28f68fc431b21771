"""Copy a whole store into an empty one, across backends, losing nothing (``mneme db copy``).

Every table of ``tables.TABLES`` is moved row by row in its portable form, in one transaction
on the destination: a failed copy leaves the destination as empty as it was. Audit records
are copied verbatim (seq, time, digests and hashes), and the keys that sealed them join the
destination's audit key ring (its key file), so ``audit verify`` passes on the copy; no new
audit record is written: a copy is not a change to the memory (ADR 0035).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mneme.errors import Conflict, SchemaMismatch
from mneme.store.protocol import Store
from mneme.store.tables import TABLES


@dataclass(frozen=True, slots=True)
class CopyReport:
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows copied

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def copy_store(
    src: Store,
    dst: Store,
    *,
    progress: Callable[[str, int], None] | None = None,
    batch: int = 1000,
) -> CopyReport:
    """Copy every row of ``src`` into ``dst``, which must be empty and at the same schema.

    Raises:
        SchemaMismatch: the two stores are at different schema versions.
        Conflict: the destination already holds rows.
    """
    if src.schema_version() != dst.schema_version():
        raise SchemaMismatch(
            f"source schema {src.schema_version()} and destination schema "
            f"{dst.schema_version()} differ; migrate both to the same version first"
        )
    for table in TABLES:
        if next(iter(dst.portable.export_rows(table, batch=1)), None):
            raise Conflict(
                f"the destination is not empty (table {table} has rows); "
                "copy only into a new, empty store"
            )
    ring, into = src.audit.anchors().keyring, dst.audit.anchors().keyring
    if ring is not None and into is not None:
        into.adopt(ring.secrets())
    counts: dict[str, int] = {}
    with dst.transaction():
        for table in TABLES:
            counts[table] = 0
            for rows in src.portable.export_rows(table, batch=batch):
                dst.portable.import_rows(table, rows)
                counts[table] += len(rows)
                if progress is not None:
                    progress(table, counts[table])
    return CopyReport(counts)
