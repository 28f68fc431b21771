"""Lookup: one memory or source by id, a bank's memories, and those that name a thing, each
within what the caller may see.

Without an agent the caller is the store's owner (a local Python caller, a reviewer). With
one, every read is scoped inside the store's query like recall. An id that does not exist and
one the caller may not see get the same answer (``unseen``).
"""

from __future__ import annotations

from typing import Protocol

from mneme import validate
from mneme.core.language import entity_key
from mneme.core.model import LIVE_STATUSES, Scope, Source, Unit, Viewer
from mneme.errors import InvalidInput, NotFound
from mneme.store.protocol import Channels, Filters, Memories, Trust


class LookupStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories
    channels: Channels
    trust: Trust


def unseen(what: str, object_id: str, agent: str) -> NotFound:
    """The one answer for an id that does not exist and for one the caller may not see: the
    words never tell the two apart (issue 16: they differed, so an absent id and another
    agent's private one could be told apart by the message alone)."""
    return NotFound(f"no {what} {object_id!r} visible to {agent}")


class Lookup:
    """Reads by id and by name for ``Memory.get``, ``source``, ``list_memories``,
    ``concept``, and the viewer that ``graph``, ``history`` and ``state_at`` read as."""

    def __init__(self, store: LookupStore) -> None:
        self._store = store

    def viewer(
        self, object_id: str, bank: str | None, agent: str | None, scope: str, what: str
    ) -> Viewer:
        """Who looks, and in which bank: the named one, else the bank holding the id. An id
        that is nowhere is refused in the words ``what`` an invisible one gets (``unseen``)."""
        validate.ident(object_id, "id")
        who = "owner" if agent is None else validate.ident(agent, "agent")
        if bank is not None:
            # The bank named is where to look: whether the id exists elsewhere is not told.
            found: str | None = validate.ident(bank, "bank")
        else:
            found = self._store.memories.locate(object_id)
            if found is not None and len(self._store.memories.source_banks(object_id)) > 1:
                raise InvalidInput(
                    f"source id {object_id!r} is used in more than one bank; name the bank"
                )
        if found is None:
            raise unseen(what, object_id, who)
        if agent is None:
            return Viewer(found, "owner", Scope.OWNER)
        return Viewer(found, who, validate.scope(scope))

    def unit(self, memory_id: str, bank: str | None, agent: str | None, scope: str) -> Unit:
        """One memory unit by id."""
        viewer = self.viewer(memory_id, bank, agent, scope, "memory")
        unit = self._store.memories.get_units(viewer, [memory_id]).get(memory_id)
        if unit is None:
            raise unseen("memory", memory_id, viewer.agent_id)
        return unit

    def owned(self, memory_id: str) -> Unit:
        """One memory unit by id, read as the store's owner (every bank, every scope)."""
        return self.unit(memory_id, None, None, "collective")

    def source(self, source_id: str, bank: str | None, agent: str | None, scope: str) -> Source:
        """One source (the input as given) by id."""
        viewer = self.viewer(source_id, bank, agent, scope, "source")
        src = self._store.memories.get_source(viewer, source_id)
        if src is None:
            raise unseen("source", source_id, viewer.agent_id)
        return src

    def units(
        self, bank: str, agent: str | None, scope: str, limit: int, offset: int
    ) -> list[Unit]:
        """Units of a bank, newest first."""
        validate.ident(bank, "bank")
        viewer = (
            Viewer(bank, "owner", Scope.OWNER)
            if agent is None
            else Viewer(bank, validate.ident(agent, "agent"), validate.scope(scope))
        )
        return self._store.memories.list_units(
            viewer,
            Filters(),
            validate.positive_int(limit, "limit", high=10_000),
            validate.offset(offset),
        )

    def mentioning(self, name: str, bank: str, agent: str, scope: str, k: int) -> list[Unit]:
        """Live memories that mention a named thing (an entity or one of its aliases)."""
        name = validate.text(name, what="concept", max_chars=200)
        viewer = Viewer(
            validate.ident(bank, "bank"), validate.ident(agent, "agent"), validate.scope(scope)
        )
        k = validate.positive_int(k, "k", high=1000)
        scored = self._store.channels.search_entities(
            viewer, [entity_key(name)], Filters(statuses=LIVE_STATUSES), k
        )
        units = self._store.memories.get_units(viewer, [s.unit_id for s in scored])
        return [units[s.unit_id] for s in scored if s.unit_id in units]

    def recorded(self, object_id: str, bank: str | None, agent: str | None) -> Viewer:
        """The viewer of an object whose history the caller may read: a unit or source it
        sees, or (as the owner) a claim or conflict; anything else is ``unseen``."""
        viewer = self.viewer(object_id, bank, agent, "collective", "memory or source")
        store = self._store
        visible = (
            store.memories.get_units(viewer, [object_id])
            or store.memories.get_source(viewer, object_id) is not None
            or (
                viewer.scope == Scope.OWNER
                and (
                    store.trust.get_claim(viewer.bank_id, object_id) is not None
                    or store.trust.get_conflict(viewer.bank_id, object_id) is not None
                )
            )
        )
        if not visible:
            raise unseen("memory or source", object_id, viewer.agent_id)
        return viewer
