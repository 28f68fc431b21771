"""Argument types shared by the tools: each carries its JSON-schema description and limits.

Numbers and flags are strict (``"5"`` is not 5, ``1`` is not true): a wrong type is a clear
error, not a guess. Strings are capped so an over-long value is refused before any work.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, Strict

from mneme.surfaces.literals import Scope as ScopeValue

#: Longest text a tool accepts (a memory, a thought); the core has its own, larger, limit.
MAX_TEXT = 100_000
#: Longest id accepted by the schema; the core then checks the id's shape (1-128 characters).
MAX_ID = 1_000
MAX_QUERY = 8_192
MAX_NOTE = 4_000
MAX_TIME = 100

Text = Annotated[
    str, Field(min_length=1, max_length=MAX_TEXT, description="The text, in plain language.")
]
Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY,
        description="A question or keywords.",
    ),
]
Bank = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_ID,
        description="Default: yours.",
    ),
]
MemoryId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID, description="A memory unit id (u_...)."),
]
ObjectId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID,
        description="A memory unit (u_...), source (src_...), claim (clm_...) or conflict "
        "(cfl_...) id.",
    ),
]
SessionId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID, description="The thinking session id think_start gave."),
]
OptionalId = Annotated[str | None, Field(max_length=MAX_ID)]
Note = Annotated[str, Field(max_length=MAX_NOTE, description="A short note kept with it.")]
Time = Annotated[
    str | None,
    Field(
        max_length=MAX_TIME,
        description="An ISO 8601 time, e.g. 2024-07-01 or 2024-07-01T12:00:00Z.",
    ),
]
Scope = Annotated[
    ScopeValue,
    Field(description="personal: only what you stated."),
]


K = Annotated[int, Strict(), Field(ge=1, le=100, description="How many results (1-100).")]
Limit = Annotated[int, Strict(), Field(ge=1, le=1000, description="Page size (1-1000).")]
Flag = Annotated[bool, Strict()]
