"""SQL fragments for scope and hard filters, shared by every SQLite query that reads units.

Scope is a predicate inside each query (never a filter applied to results afterwards):
- personal: the viewer is among the unit's knowers;
- collective: the whole bank;
- and in both, a private unit is visible only to its author.
"""

from __future__ import annotations

from typing import Any

from mneme.core.model import Scope, Viewer
from mneme.store.codec import ts
from mneme.store.protocol import Filters


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


def filters_sql(filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    parts: list[str] = []
    params: list[Any] = []
    if filters.statuses is not None:
        marks = ",".join("?" * len(filters.statuses))
        parts.append(f"{alias}.status IN ({marks})" if marks else "0")
        params.extend(sorted(s.value for s in filters.statuses))
    if filters.types is not None:
        marks = ",".join("?" * len(filters.types))
        parts.append(f"{alias}.type IN ({marks})" if marks else "0")
        params.extend(sorted(t.value for t in filters.types))
    if filters.occurred_from is not None or filters.occurred_to is not None:
        lo = ts(filters.occurred_from) or ""
        hi = ts(filters.occurred_to) or "9999"
        parts.append(
            f"({alias}.occurred_start <= ? AND (coalesce({alias}.occurred_end, "
            f"{alias}.occurred_start) > ? OR {alias}.occurred_start >= ?))"
        )
        params.extend([hi, lo, lo])
    if filters.valid_at is not None:
        t = ts(filters.valid_at)
        parts.append(
            f"(coalesce({alias}.valid_from, '') <= ? AND ({alias}.valid_until IS NULL "
            f"OR {alias}.valid_until > ?))"
        )
        params.extend([t, t])
    if filters.exclude_ids:
        marks = ",".join("?" * len(filters.exclude_ids))
        parts.append(f"{alias}.id NOT IN ({marks})")
        params.extend(sorted(filters.exclude_ids))
    if filters.include_ids is not None:
        marks = ",".join("?" * len(filters.include_ids))
        parts.append(f"{alias}.id IN ({marks})" if marks else "0")
        params.extend(sorted(filters.include_ids))
    if filters.session is not None:
        parts.append(f"json_extract({alias}.metadata, '$.session_id') = ?")
        params.append(filters.session)
    return (" AND ".join(parts) or "1"), params


def where(viewer: Viewer, filters: Filters, alias: str = "u") -> tuple[str, list[Any]]:
    s_sql, s_params = scope_sql(viewer, alias)
    f_sql, f_params = filters_sql(filters, alias)
    return f"{s_sql} AND {f_sql}", s_params + f_params


def fts_query(terms: list[str] | tuple[str, ...]) -> str:
    """An FTS5 MATCH expression that ORs the terms, each quoted so no user text is syntax."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    return " OR ".join(quoted)
