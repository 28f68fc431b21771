"""PostgreSQL's side of the shared SQL: ``%s`` placeholders, timestamptz, jsonb, pgvector text."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from mneme.store.codec import ts
from mneme.store.postgres.rows import portable, utc_opt
from mneme.store.protocol import Vector


def literal(vector: Vector) -> str:
    """A vector as pgvector's text form; float32 values round-trip exactly through '%.9g'."""
    values = np.asarray(vector, dtype=np.float32).ravel()
    return "[" + ",".join(format(float(x), ".9g") for x in values) + "]"


class PostgresDialect:
    name = "postgres"
    true = "true"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    for_update = " FOR UPDATE"
    greatest = "greatest"
    vector_mark = "?::vector"  # pgvector's text form
    insertion = "seq"
    vector_select = "{}::text"
    ts_min = dt.datetime.min.replace(tzinfo=dt.UTC)
    ts_max = dt.datetime.max.replace(tzinfo=dt.UTC)

    def compile(self, sql: str) -> str:
        # A literal percent sign must not read as a placeholder; the shared SQL has no "?"
        # operators (jsonb's) and no "?" inside string literals.
        return sql.replace("%", "%%").replace("?", "%s")

    def encode(self, kind: str, value: Any) -> Any:
        if value is None:
            return None
        if kind == "ts":
            return utc_opt(value) if isinstance(value, dt.datetime) else value
        if kind == "json":
            return Jsonb(value)
        if kind == "bool":
            return bool(value)
        if kind == "vector":
            return literal(value)
        return value

    def decode(self, kind: str, value: Any) -> Any:
        return portable(kind, value)

    def hashed_ts(self, value: Any) -> str | None:
        return ts(utc_opt(value))

    def one_of(
        self, column: str, values: Sequence[Any], *, negate: bool = False, kind: str = "text"
    ) -> tuple[str, list[Any]]:
        # One array parameter, whatever the count: one statement text for the plan cache.
        array = "bigint" if kind == "int" else "text"
        if negate:
            return f"NOT ({column} = ANY(?::{array}[]))", [list(values)]
        return f"{column} = ANY(?::{array}[])", [list(values)]

    def json_text(self, column: str, key: str) -> str:
        return f"({column}->>'{key}')"

    def indexed_by(self, index: str) -> str:
        return ""


DIALECT = PostgresDialect()
