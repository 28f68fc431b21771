"""Scope and hard filters as SQL: the one predicate every query that reads units carries.

Scope is a predicate inside each query, never a filter applied to results afterwards:
- personal: the viewer is among the unit's knowers;
- collective: the whole bank;
- owner: the whole bank, private units included;
- and in personal and collective scope, a private unit is visible only to its author.
"""

from __future__ import annotations

from typing import Any

from mneme.core.model import Scope, Viewer
from mneme.store.protocol import Filters
from mneme.store.sql.dialect import Dialect


def scope_sql(viewer: Viewer, alias: str = "u") -> tuple[str, list[Any]]:
    """``bank AND visibility [AND knower]`` for one viewer, as SQL with its parameters."""
    if viewer.scope == Scope.OWNER:
        return f"{alias}.bank_id = ?", [viewer.bank_id]
    sql = f"{alias}.bank_id = ? AND ({alias}.visibility = 'shared' OR {alias}.agent_id = ?)"
    params: list[Any] = [viewer.bank_id, viewer.agent_id]
    if viewer.scope == Scope.PERSONAL:
        sql += (
            f" AND EXISTS (SELECT 1 FROM unit_knowers k WHERE k.bank_id = {alias}.bank_id"
            f" AND k.unit_id = {alias}.id AND k.agent_id = ?)"
        )
        params.append(viewer.agent_id)
    return sql, params


def filters_sql(d: Dialect, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    parts: list[str] = []
    params: list[Any] = []

    def among(column: str, values: Any, *, negate: bool = False) -> None:
        sql, values = d.one_of(f"{alias}.{column}", sorted(values), negate=negate)
        parts.append(sql)
        params.extend(values)

    if filters.statuses is not None:
        among("status", (s.value for s in filters.statuses))
    if filters.types is not None:
        among("type", (t.value for t in filters.types))
    if filters.occurred_from is not None or filters.occurred_to is not None:
        # An open end is unbounded; a unit with no occurred_start never matches.
        lo = d.encode("ts", filters.occurred_from) or d.ts_min
        hi = d.encode("ts", filters.occurred_to) or d.ts_max
        parts.append(
            f"({alias}.occurred_start <= ? AND (coalesce({alias}.occurred_end, "
            f"{alias}.occurred_start) > ? OR {alias}.occurred_start >= ?))"
        )
        params.extend([hi, lo, lo])
    if filters.valid_at is not None:
        t = d.encode("ts", filters.valid_at)
        parts.append(
            f"(({alias}.valid_from IS NULL OR {alias}.valid_from <= ?) AND "
            f"({alias}.valid_until IS NULL OR {alias}.valid_until > ?))"
        )
        params.extend([t, t])
    if filters.exclude_ids:
        among("id", filters.exclude_ids, negate=True)
    if filters.include_ids is not None:
        among("id", filters.include_ids)
    if filters.visibility is not None:
        parts.append(f"{alias}.visibility = ?")
        params.append(filters.visibility.value)
    if filters.session is not None:
        parts.append(f"{d.json_text(f'{alias}.metadata', 'session_id')} = ?")
        params.append(filters.session)
    return (" AND ".join(parts) or d.true), params


def clause(d: Dialect, viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    """Scope and filters of one query with ``?`` placeholders (for a statement in store/sql)."""
    s_sql, s_params = scope_sql(viewer, alias)
    f_sql, f_params = filters_sql(d, filters, alias)
    return f"{s_sql} AND {f_sql}", s_params + f_params


def where(d: Dialect, viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    """Scope and filters of one query, compiled for the backend, with their parameters."""
    sql, params = clause(d, viewer, filters, alias)
    return d.compile(sql), params
