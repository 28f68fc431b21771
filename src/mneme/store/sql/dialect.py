"""What differs between the SQL of two backends, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Dialect(Protocol):
    """Placeholder compilation and value conversion by column kind (``mneme.store.tables``).

    Kinds: ``text``, ``int``, ``float``, ``bool``, ``ts`` (an aware UTC datetime), ``json``
    (the parsed value) and ``vector``; None is None in both directions.
    """

    name: str
    #: The literal for true in a WHERE clause ("1" or "true").
    true: str
    #: What follows a SELECT that claims rows another worker must skip ("" where one writer
    #: holds the whole database).
    skip_locked: str
    #: What follows a SELECT inside a write transaction that must hold the rows it read
    #: until it commits ("" where one writer holds the whole database).
    for_update: str
    #: The two-argument maximum of a scalar expression ("max" or "greatest").
    greatest: str
    #: The placeholder of a vector value ("?" or "?::vector").
    vector_mark: str
    #: The column of ``units`` that orders rows as they were written ("rowid" or "seq").
    insertion: str
    #: A vector column in a select list, as this backend reads it back ("{}" or "{}::text").
    vector_select: str
    #: Encoded times before and after every stored one (the open ends of a range filter).
    ts_min: Any
    ts_max: Any

    def compile(self, sql: str) -> str:
        """A statement written with ``?`` placeholders, in this backend's paramstyle."""
        ...

    def encode(self, kind: str, value: Any) -> Any:
        """A portable value as this backend stores it."""
        ...

    def decode(self, kind: str, value: Any) -> Any:
        """A stored value in its portable form."""
        ...

    def hashed_ts(self, value: Any) -> str | None:
        """A stored time as the text the audit chain hashed (SQLite stores that very text)."""
        ...

    def one_of(
        self, column: str, values: Sequence[Any], *, negate: bool = False, kind: str = "text"
    ) -> tuple[str, list[Any]]:
        """``column IN values`` (or NOT IN) as SQL with its parameters; an empty set is false
        (negated: true). ``kind``: the column's, "text" or "int"."""
        ...

    def json_text(self, column: str, key: str) -> str:
        """The text of one top-level key of a JSON column, as the expression its index uses."""
        ...

    def indexed_by(self, index: str) -> str:
        """A hint that a FROM item be read through ``index`` ("" where there are no hints)."""
        ...
