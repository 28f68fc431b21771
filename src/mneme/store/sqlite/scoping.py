"""Scope and filters in SQLite's paramstyle (the shared predicate: ``store.sql.scoping``), and
the FTS5 query syntax."""

from __future__ import annotations

from typing import Any

from mneme.core.model import Viewer
from mneme.store.protocol import Filters
from mneme.store.sql import scoping
from mneme.store.sqlite.dialect import DIALECT


def where(viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    return scoping.where(DIALECT, viewer, filters, alias)


def fts_query(terms: list[str] | tuple[str, ...]) -> str:
    """An FTS5 MATCH expression that ORs the terms, each quoted so no user text is syntax."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    return " OR ".join(quoted)
