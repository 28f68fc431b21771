"""Scope is enforced inside every query: tries to read, search, traverse and update across
banks, agents and private units, through the public API, and must fail to."""

from __future__ import annotations

import datetime as dt

import pytest

import mneme
from mneme.core.model import Scope, Viewer
from mneme.errors import NotFound
from mneme.store.protocol import Filters

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
SECRET = "Zelda keeps the vault code 7741 in the blue notebook."
QUERY = "Where is the vault code kept?"


@pytest.fixture
def world(mem: mneme.Memory) -> dict[str, str]:
    """Two banks, three agents, one private unit, one shared unit known by a1 only."""
    ids = {}
    r = mem.retain(
        SECRET, bank="b1", agent="a1", source_id="s-private", occurred_at=T0, visibility="private"
    )
    ids["private"] = r.memory_ids[0]
    r = mem.retain(
        "Zelda keeps the spare vault key in drawer D-12.",
        bank="b1",
        agent="a1",
        source_id="s-shared",
        occurred_at=T0,
    )
    ids["shared"] = r.memory_ids[0]
    r = mem.retain(
        "Zelda keeps the vault code in the red binder.",
        bank="b2",
        agent="a1",
        source_id="s-other-bank",
        occurred_at=T0,
    )
    ids["other_bank"] = r.memory_ids[0]
    mem.retain("Yusuf waters the ferns on Fridays.", bank="b1", agent="a2", occurred_at=T0)
    return ids


def _texts(hits: list[mneme.Hit]) -> str:
    return " | ".join(h.text for h in hits)


@pytest.mark.parametrize("scope", ["personal", "collective"])
def test_a_private_unit_is_never_recalled_by_another_agent(mem, world, scope):
    hits = mem.recall(QUERY, bank="b1", agent="a2", scope=scope, k=50)
    assert "7741" not in _texts(hits)
    for h in hits:
        assert "s-private" not in h.evidence_source_ids
        assert world["private"] not in h.family


def test_the_author_recalls_its_private_unit_in_both_scopes(mem, world):
    for scope in ("personal", "collective"):
        hits = mem.recall(QUERY, bank="b1", agent="a1", scope=scope, k=5)
        assert "7741" in _texts(hits)


def test_personal_scope_sees_only_what_the_agent_stated(mem, world):
    hits = mem.recall("Zelda vault key drawer", bank="b1", agent="a2", scope="personal", k=50)
    assert "D-12" not in _texts(hits)
    hits = mem.recall("Zelda vault key drawer", bank="b1", agent="a2", scope="collective", k=50)
    assert "D-12" in _texts(hits)


def test_recall_reads_the_collective_scope_unless_told_otherwise(mem, world):
    # The default of every read on every surface (docs/http.md): another agent's shared
    # statement is seen, another agent's private one never is.
    hits = mem.recall("Zelda vault key drawer", bank="b1", agent="a2", k=50)
    assert "D-12" in _texts(hits)
    assert "7741" not in _texts(mem.recall(QUERY, bank="b1", agent="a2", k=50))


def test_another_bank_is_invisible_to_recall_in_every_scope(mem, world):
    for scope in ("personal", "collective"):
        hits = mem.recall(QUERY, bank="b1", agent="a1", scope=scope, k=50)
        assert "red binder" not in _texts(hits)
        hits = mem.recall(QUERY, bank="b2", agent="a1", scope=scope, k=50)
        assert "7741" not in _texts(hits)
        assert "D-12" not in _texts(hits)


def test_every_channel_hides_the_private_unit_from_other_agents(mem, world):
    store = mem._store
    viewer = Viewer("b1", "a2", Scope.COLLECTIVE)
    vector = mem.embedder.embed([SECRET])[0]
    assert world["private"] not in {
        s.unit_id
        for s in store.channels.search_semantic(
            viewer, vector, mem.embedder.model_id, Filters(), 100
        )
    }
    assert world["private"] not in {
        s.unit_id
        for s in store.channels.search_lexical(
            viewer, ["zelda", "vault", "7741", "notebook"], Filters(), 100
        )
    }
    assert world["private"] not in {
        s.unit_id
        for s in store.channels.search_temporal(
            viewer, T0 - dt.timedelta(days=1), T0 + dt.timedelta(days=1), Filters(), 100
        )
    }
    assert world["private"] not in {
        s.unit_id for s in store.channels.search_entities(viewer, ["zelda"], Filters(), 100)
    }
    links = store.channels.graph_links(viewer, [world["shared"]], Filters(), 100)
    assert world["private"] not in {li.dst for li in links}


def test_graph_traversal_never_reaches_a_private_unit_of_another_agent(mem, world):
    view = mem.graph(world["shared"], depth=3, agent="a2", scope="collective")
    assert world["private"] not in view.units
    assert all(world["private"] not in (e.src, e.dst) for e in view.edges)


def test_reading_a_private_unit_by_id_as_another_agent_is_not_found(mem, world):
    with pytest.raises(NotFound):
        mem.get(world["private"], agent="a2", scope="collective")
    with pytest.raises(NotFound):
        mem.source("s-private", agent="a2", scope="collective")
    with pytest.raises(NotFound):
        mem.history(world["private"], agent="a2")
    assert mem.get(world["private"], agent="a1").text == SECRET


def test_reading_a_unit_through_the_wrong_bank_is_not_found(mem, world):
    with pytest.raises(NotFound):
        mem.get(world["other_bank"], bank="b1")
    with pytest.raises(NotFound):
        mem.get(world["shared"], bank="b2", agent="a1")


def test_a_repeat_by_another_agent_never_merges_into_a_private_unit(mem, world):
    r = mem.retain(SECRET, bank="b1", agent="a2", occurred_at=T0)
    assert r.memory_ids
    assert r.memory_ids[0] != world["private"]
    private = mem.get(world["private"])
    assert private.knowers == ("a1",)


def test_the_store_refuses_to_update_a_unit_through_another_bank(mem, world):
    from mneme.store.protocol import UnitChanges

    with pytest.raises(NotFound), mem._store.transaction():
        mem._store.memories.update_unit(
            "b2",
            world["shared"],
            UnitChanges(confidence=0.1),
            actor="a1",
            reason="cross-bank attempt",
        )
    assert mem.get(world["shared"]).confidence != 0.1


def test_listing_units_as_an_agent_hides_other_agents_private_units(mem, world):
    listed = {u.id for u in mem.list_memories(bank="b1", agent="a2", scope="collective")}
    assert world["shared"] in listed
    assert world["private"] not in listed
    owner = {u.id for u in mem.list_memories(bank="b1")}
    assert world["private"] in owner


def test_a_private_correction_never_retires_what_others_see(mem):
    shared = mem.retain("I live in Paris.", bank="p", agent="a1", occurred_at=T0).memory_ids[0]
    mem.retain(
        "I moved to Berlin last month.",
        bank="p",
        agent="a2",
        occurred_at=T0 + dt.timedelta(days=60),
        visibility="private",
    )
    mem.retain(
        "Paris is wrong, it is Rome.",
        bank="p",
        agent="a2",
        visibility="private",
        supersedes=[shared],
    )
    assert mem.get(shared).status != mneme.UnitStatus.SUPERSEDED
    hits = mem.recall("Where do I live?", bank="p", agent="a1", scope="collective")
    assert any(h.id == shared and not h.superseded for h in hits)


def test_settling_a_contradiction_never_lets_a_private_memory_retire_a_shared_one(mem):
    shared = mem.retain("Our standup is at 09:15.", bank="p", agent="a1").memory_ids[0]
    r = mem.retain(
        "According to my calendar, the standup is at 09:45.",
        bank="p",
        agent="a2",
        visibility="private",
    )
    private = r.memory_ids[0]
    # One standup, two sources disagreeing: only a2 is told (no conflict others see, ADR
    # 0036), and a2 then tries to settle it anyway.
    assert not mem._store.trust.list_conflicts("p", status=None, unit_id=private)
    assert mem.get(shared).status == mneme.UnitStatus.ACTIVE
    with pytest.raises(NotFound, match="no open conflict"):
        mem.conflicts.resolve_contradiction(private, shared, "confirm", actor="a2")
    assert mem.get(shared).status != mneme.UnitStatus.SUPERSEDED
    assert mem.get(shared).superseded_by is None
    kinds_before = [e.kind for e in mem.history(shared)]
    with pytest.raises(NotFound):
        mem.conflicts.resolve_contradiction(private, shared, "confirm", actor="a2")
    assert [e.kind for e in mem.history(shared)] == kinds_before  # nothing was written
