"""SQL fragments for scope and hard filters, shared by every PostgreSQL query that reads units.

The same rules as the SQLite backend's ``scoping`` module, as predicates inside each query:
- personal: the viewer is among the unit's knowers;
- collective: the whole bank;
- owner: the whole bank, private units included;
- and in personal and collective scope, a private unit is visible only to its author.
"""

from __future__ import annotations

from typing import Any

from mneme.core.model import Scope, Viewer
from mneme.store.protocol import Filters


def scope_sql(viewer: Viewer, alias: str = "u") -> tuple[str, list[Any]]:
    """``bank AND visibility [AND knower]`` for one viewer, as SQL with its parameters."""
    if viewer.scope == Scope.OWNER:
        return f"{alias}.bank_id = %s", [viewer.bank_id]
    sql = f"{alias}.bank_id = %s AND ({alias}.visibility = 'shared' OR {alias}.agent_id = %s)"
    params: list[Any] = [viewer.bank_id, viewer.agent_id]
    if viewer.scope == Scope.PERSONAL:
        sql += (
            f" AND EXISTS (SELECT 1 FROM unit_knowers k WHERE k.bank_id = {alias}.bank_id"
            f" AND k.unit_id = {alias}.id AND k.agent_id = %s)"
        )
        params.append(viewer.agent_id)
    return sql, params


def filters_sql(filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    parts: list[str] = []
    params: list[Any] = []
    if filters.statuses is not None:
        parts.append(f"{alias}.status = ANY(%s::text[])")
        params.append(sorted(s.value for s in filters.statuses))
    if filters.types is not None:
        parts.append(f"{alias}.type = ANY(%s::text[])")
        params.append(sorted(t.value for t in filters.types))
    if filters.occurred_from is not None or filters.occurred_to is not None:
        # An open end is unbounded; a unit with no occurred_start never matches (as in SQLite).
        parts.append(
            f"({alias}.occurred_start <= coalesce(%s::timestamptz, 'infinity') AND "
            f"(coalesce({alias}.occurred_end, {alias}.occurred_start) > "
            f"coalesce(%s::timestamptz, '-infinity') OR {alias}.occurred_start >= "
            f"coalesce(%s::timestamptz, '-infinity')))"
        )
        params.extend([filters.occurred_to, filters.occurred_from, filters.occurred_from])
    if filters.valid_at is not None:
        parts.append(
            f"(coalesce({alias}.valid_from, '-infinity') <= %s AND ({alias}.valid_until IS NULL "
            f"OR {alias}.valid_until > %s))"
        )
        params.extend([filters.valid_at, filters.valid_at])
    if filters.exclude_ids:
        parts.append(f"NOT ({alias}.id = ANY(%s::text[]))")
        params.append(sorted(filters.exclude_ids))
    if filters.include_ids is not None:
        parts.append(f"{alias}.id = ANY(%s::text[])")
        params.append(sorted(filters.include_ids))
    if filters.session is not None:
        parts.append(f"({alias}.metadata->>'session_id') = %s")
        params.append(filters.session)
    return (" AND ".join(parts) or "true"), params


def where(viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    s_sql, s_params = scope_sql(viewer, alias)
    f_sql, f_params = filters_sql(filters, alias)
    return f"{s_sql} AND {f_sql}", s_params + f_params
