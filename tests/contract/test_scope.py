"""Scope inside every read: personal (knower), collective (bank less others' private), owner."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.core.model import Scope, UnitStatus, Visibility
from mneme.store.protocol import Filters, Store, UnitChanges

VISIBLE = {
    ("a1", Scope.PERSONAL): {"mine", "both", "secret1"},
    ("a2", Scope.PERSONAL): {"theirs", "both", "secret2"},
    ("a1", Scope.COLLECTIVE): {"mine", "theirs", "both", "secret1"},
    ("a2", Scope.COLLECTIVE): {"mine", "theirs", "both", "secret2"},
    ("a3", Scope.COLLECTIVE): {"mine", "theirs", "both"},
    ("a3", Scope.PERSONAL): set(),
    ("a1", Scope.OWNER): {"mine", "theirs", "both", "secret1", "secret2"},
}
CASES = sorted(VISIBLE, key=str)


def _names(world: Any, ids: Any) -> set[str]:
    by_id = {u.id: name for name, u in world.items()}
    return {by_id[i] for i in ids}


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_get_units_and_list_units_see_exactly_the_scope(
    store: Store, make: Any, world: Any, agent: Any, scope: Any
) -> None:
    v = make.viewer(agent, scope)
    all_ids = [u.id for u in world.values()]
    assert _names(world, store.memories.get_units(v, all_ids)) == VISIBLE[(agent, scope)]
    listed = store.memories.list_units(v, Filters(), 100)
    assert _names(world, [u.id for u in listed]) == VISIBLE[(agent, scope)]


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_every_search_channel_honors_scope(
    store: Store, make: Any, world: Any, agent: Any, scope: Any
) -> None:
    v = make.viewer(agent, scope)
    allowed = VISIBLE[(agent, scope)]
    lexical = store.channels.search_lexical(v, ["lisbon", "porto"], Filters(), 50)
    semantic = store.channels.search_semantic(v, make.vec("Lisbon"), make.model, Filters(), 50)
    assert _names(world, [s.unit_id for s in lexical]) == allowed
    assert _names(world, [s.unit_id for s in semantic]) == allowed


@pytest.mark.parametrize(("agent", "scope"), CASES)
def test_temporal_entity_and_graph_channels_honor_scope(
    store: Store, make: Any, world: Any, agent: Any, scope: Any
) -> None:
    units = {}
    for name, owner, vis in (
        ("m", "a1", Visibility.SHARED),
        ("t", "a2", Visibility.SHARED),
        ("p2", "a2", Visibility.PRIVATE),
    ):
        units[name] = make.unit(
            f"went hiking {name}", agent=owner, visibility=vis, occurred_start=make.t0
        )
    lisbon = make.entity("Lisbon")
    for u in units.values():
        make.mention(u, lisbon)
    make.mention(world["mine"], lisbon)
    for u in units.values():
        make.edge(world["mine"].id, u.id)
    v = make.viewer(agent, scope)
    temporal = store.channels.search_temporal(
        v, make.t0.replace(hour=0), make.t0.replace(hour=23), Filters(), 50
    )
    named = store.channels.search_entities(v, ["lisbon"], Filters(), 50)
    mentioned = store.channels.entity_mentions(v, ["lisbon"], Filters(), 50).get("lisbon", [])
    links = store.channels.graph_links(v, [world["mine"].id], Filters(), 50)
    seen = {name for name, u in units.items() if u.id in {s.unit_id for s in temporal}}
    expected = {"m", "t", "p2"}
    if scope == Scope.PERSONAL:
        expected = {n for n, u in units.items() if u.agent_id == agent}
    elif scope == Scope.COLLECTIVE:
        expected = {"m", "t"} | ({"p2"} if agent == "a2" else set())
    assert seen == expected
    named_ids = {s.unit_id for s in named}
    assert {n for n, u in units.items() if u.id in named_ids} == expected
    assert {n for n, u in units.items() if u.id in mentioned} == expected
    linked = {lk.dst for lk in links}
    assert {n for n, u in units.items() if u.id in linked} == expected
    assert all(lk.type in {"SUPPORTS", "ENTITY"} for lk in links)


def test_private_unit_is_invisible_to_other_agents_even_by_id_or_source(
    store: Store, make: Any, world: Any
) -> None:
    src = make.source(agent="a2", text="bob's private note", visibility=Visibility.PRIVATE)
    with store.transaction():
        store.memories.add_evidence("b1", world["secret2"].id, src.id, "a2", make.t0)
    for scope in (Scope.PERSONAL, Scope.COLLECTIVE):
        v = make.viewer("a1", scope)
        assert store.memories.get_units(v, [world["secret2"].id]) == {}
        assert store.memories.units_of_source(v, src.id) == []
        assert store.memories.get_source(v, src.id) is None
        assert store.graph.edges_of(v, world["secret2"].id) == []
    assert store.memories.get_source(make.viewer("a1", Scope.OWNER), src.id) is not None
    assert [u.id for u in store.memories.units_of_source(make.viewer("a2"), src.id)] == [
        world["secret2"].id
    ]


def test_nothing_crosses_banks_in_any_read_or_write(store: Store, make: Any, world: Any) -> None:
    other = world["other"]  # in b2
    lisbon_b2 = make.entity("Lisbon", bank_id="b2")
    make.mention(other, lisbon_b2)
    make.edge(other.id, world["mine"].id, bank_id="b2")
    for scope in Scope:
        v = make.viewer("a1", scope, bank="b1")
        assert store.memories.get_units(v, [other.id]) == {}
        assert other.id not in {
            s.unit_id for s in store.channels.search_lexical(v, ["carol"], Filters(), 10)
        }
        sem = store.channels.search_semantic(v, make.vec(other.text), make.model, Filters(), 10)
        assert other.id not in {s.unit_id for s in sem}
        assert store.channels.search_entities(v, ["lisbon"], Filters(), 10) == []
        assert store.channels.entity_mentions(v, ["lisbon"], Filters(), 10) == {}
        assert store.channels.graph_links(v, [other.id], Filters(), 10) == []
        assert store.graph.edges_of(v, other.id) == []
        assert store.memories.get_source(v, "nope") is None
    with pytest.raises(LookupError), store.transaction():
        store.memories.update_unit("b1", other.id, _retire(), actor="a1", reason="cross-bank")
    assert (
        store.memories.get_units(make.viewer("a1", Scope.OWNER, bank="b2"), [other.id])[
            other.id
        ].status
        == UnitStatus.ACTIVE
    )


def _retire() -> UnitChanges:
    return UnitChanges(status=UnitStatus.ARCHIVED)


def test_the_visibility_filter_keeps_shared_units_only_inside_the_query(
    store: Store, make: Any, world: Any
) -> None:
    """Reflect reads evidence this way (ADR 0051): the owner's view, shared units only."""
    owner = make.viewer("a1", Scope.OWNER)
    listed = store.memories.list_units(owner, Filters(visibility=Visibility.SHARED), 100)
    assert _names(world, [u.id for u in listed]) == {"mine", "theirs", "both"}
    private = store.memories.list_units(owner, Filters(visibility=Visibility.PRIVATE), 100)
    assert _names(world, [u.id for u in private]) == {"secret1", "secret2"}


def test_evidence_texts_are_the_sources_a_unit_rests_on_that_the_viewer_may_see(
    store: Store, make: Any, world: Any
) -> None:
    # The write path reads who said what a unit rests on (ADR 0079); another agent's private
    # source names no one to a viewer who may not see it.
    mine = world["mine"].id
    said = make.source(agent="a1", text="User: Alice lives in Lisbon.")
    echo = make.source(agent="a2", text="Assistant: Alice lives in Lisbon, right by the river.")
    hidden = make.source(agent="a2", text="Bob: a private aside", visibility=Visibility.PRIVATE)
    with store.transaction():
        for i, src in enumerate((said, echo, hidden)):
            store.memories.add_evidence("b1", mine, src.id, src.agent_id, make.t0.replace(minute=i))
    shared = [said.text, echo.text]
    team = Scope.COLLECTIVE
    assert store.memories.evidence_texts(make.viewer("a1", team), [mine, "x"]) == {mine: shared}
    assert store.memories.evidence_texts(make.viewer("a1"), [mine]) == {mine: [said.text]}
    assert store.memories.evidence_texts(make.viewer("a2", team), [mine]) == {
        mine: [*shared, hidden.text]
    }
    owner = make.viewer("a1", Scope.OWNER)
    assert store.memories.evidence_texts(owner, [mine])[mine][-1] == hidden.text
    assert store.memories.evidence_texts(make.viewer("a1", team, bank="b2"), [mine]) == {}
    assert store.memories.evidence_texts(make.viewer("a1"), []) == {}
