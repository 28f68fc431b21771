"""``Filters.include_ids``: every channel and listing keeps to the allowed units, in the query."""

from __future__ import annotations

import datetime as dt
from typing import Any

from mneme.core.model import Scope
from mneme.store.protocol import Store


def test_include_ids_restricts_every_channel_and_listing(store: Store, make: Any) -> None:
    make.bank()
    lisbon = make.entity("Lisbon")
    t = make.t0
    units = [
        make.unit(f"Lisbon note {i} about trams", occurred_start=t + dt.timedelta(days=i))
        for i in range(6)
    ]
    for u in units:
        make.mention(u, lisbon)
    make.edge(units[0].id, units[1].id)
    make.edge(units[0].id, units[2].id)
    allowed = frozenset({units[1].id, units[4].id})
    only = make.filters(include_ids=allowed)
    viewer = make.viewer(scope=Scope.COLLECTIVE)

    def ids(hits: Any) -> set[str]:
        return {h.unit_id for h in hits}

    assert ids(store.channels.search_lexical(viewer, ["trams"], only, 10)) == allowed
    assert ids(
        store.channels.search_semantic(viewer, make.vec("Lisbon trams"), make.model, only, 10)
    ) == (allowed)
    window = (t - dt.timedelta(days=1), t + dt.timedelta(days=10))
    assert ids(store.channels.search_temporal(viewer, *window, only, 10)) == allowed
    assert ids(store.channels.search_entities(viewer, ["lisbon"], only, 10)) == allowed
    assert {u.id for u in store.memories.list_units(viewer, only, 10)} == allowed
    links = store.channels.graph_links(viewer, [units[0].id], only, 10)
    assert {link.dst for link in links} == allowed  # by the edge and the shared entity
    assert {link.dst for link in links if link.type == "SUPPORTS"} == {units[1].id}
    empty = make.filters(include_ids=frozenset())
    assert store.channels.search_lexical(viewer, ["trams"], empty, 10) == []
    assert store.channels.search_semantic(viewer, make.vec("trams"), make.model, empty, 10) == []
    assert store.memories.list_units(viewer, empty, 10) == []
    both = make.filters(include_ids=allowed, exclude_ids=frozenset({units[1].id}))
    assert ids(store.channels.search_lexical(viewer, ["trams"], both, 10)) == {units[4].id}
