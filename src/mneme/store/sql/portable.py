"""Whole-store export (``mneme db copy``): every table's rows in the portable form of
``mneme.store.tables``, paged by the table's key. Importing differs by backend (derived columns,
identity sequences, lexical indexes): each store keeps its own ``import_rows``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mneme.store.sql.part import Part
from mneme.store.tables import spec


class Portable(Part):
    """The Portable role: export is shared; import is the engine's (derived columns differ)."""

    def import_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self.engine.import_rows(table, rows)

    def export_rows(self, table: str, batch: int = 1000) -> Iterator[list[dict[str, Any]]]:
        d = self.sql.dialect
        t = spec(table)
        # Units go out in the order they were written, so ties break alike after a copy.
        order = (d.insertion,) if t.key == ("insertion",) else t.key
        cols = ", ".join(d.vector_select.format(c) if k == "vector" else c for c, k in t.columns)
        keys = ", ".join(order)
        last: tuple[Any, ...] | None = None
        while True:
            after = f"WHERE ({keys}) > ({','.join('?' * len(order))}) " if last else ""
            rows = self.sql.rows(
                f"SELECT {cols}, {keys} FROM {t.name} {after}ORDER BY {keys} LIMIT ?",
                (*(last or ()), batch),
            )
            if not rows:
                return
            n = len(t.columns)
            last = tuple(rows[-1][n:])
            yield [{c: d.decode(k, r[i]) for i, (c, k) in enumerate(t.columns)} for r in rows]
            if len(rows) < batch:
                return
