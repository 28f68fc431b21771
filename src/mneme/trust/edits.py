"""Edits of a memory's own fields by a person (or a sweep): when it stopped being true, and
how sure mneme is of it. Nothing else about a memory is edited in place: its text is
corrected by superseding it (``Memory.update``), its status by a review decision."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Protocol

from mneme import validate
from mneme.core.model import Unit
from mneme.errors import InvalidInput
from mneme.store.protocol import Memories, Transactions, UnitChanges
from mneme.trust.review import Review


class EditsStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories


class Edits:
    """``Memory.invalidate`` and ``mem.beliefs.set_confidence``. ``owned`` reads a unit by
    id as the store's owner, refusing an unknown id as every read does."""

    def __init__(self, store: EditsStore, review: Review, owned: Callable[[str], Unit]) -> None:
        self._store = store
        self._review = review
        self._owned = owned

    def invalidate(
        self, memory_id: str, valid_until: dt.datetime | str, *, actor: str, reason: str = ""
    ) -> Unit:
        """Say when a memory stopped being true (valid time), never before it began."""
        until = validate.when(valid_until, "valid_until")
        assert until is not None
        unit = self._owned(memory_id)
        if unit.valid_from is not None and until < unit.valid_from:
            raise InvalidInput(
                f"valid_until {until.isoformat()} is before the memory began to hold "
                f"({unit.valid_from.isoformat()})"
            )
        with self._store.transaction():
            return self._store.memories.update_unit(
                unit.bank_id,
                unit.id,
                UnitChanges(valid_until=until),
                actor=validate.ident(actor, "actor"),
                reason=reason or "no longer true",
            )

    def set_confidence(self, memory_id: str, confidence: float, *, actor: str, reason: str) -> Unit:
        """A person's (or a sweep's) change of confidence; a belief that loses it is swept."""
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
            or not 0 <= confidence <= 1
        ):
            raise InvalidInput(f"confidence must be a number from 0 to 1, not {confidence!r}")
        unit = self._owned(memory_id)
        with self._store.transaction():
            after = self._store.memories.update_unit(
                unit.bank_id,
                unit.id,
                UnitChanges(confidence=float(confidence)),
                actor=validate.ident(actor, "actor"),
                reason=reason or "confidence changed",
            )
            if confidence < unit.confidence:
                self._review.changed(unit.bank_id, [unit.id], "lost confidence")
        return after
