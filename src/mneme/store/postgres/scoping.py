"""Scope and filters in PostgreSQL's paramstyle: the shared predicate (``store.sql.scoping``)."""

from __future__ import annotations

from typing import Any

from mneme.core.model import Viewer
from mneme.store.postgres.dialect import DIALECT
from mneme.store.protocol import Filters
from mneme.store.sql import scoping


def where(viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    return scoping.where(DIALECT, viewer, filters, alias)
