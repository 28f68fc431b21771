"""Entities, mentions, edges, graph expansion, embeddings and the audit chain."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest

from mneme.core.audit_chain import GENESIS, MacKey, verify_chain
from mneme.core.model import Scope
from mneme.errors import NotFound
from mneme.store.protocol import Link, Store


def test_upsert_entity_merges_aliases_and_keeps_the_first_id(store: Store, make: Any) -> None:
    make.bank()
    first = make.entity("Lisbon", aliases=("Lisboa",))
    again = make.entity("Lisbon", id="other", kind="place", aliases=("LIS", "Lisboa"))
    assert again.id == first.id
    assert again.aliases == ("Lisboa", "LIS")
    assert again.kind == "place"  # a better kind than "thing" replaces it
    assert make.entity("Lisbon", kind="person").kind == "place"
    assert store.stats().entities == 1


def test_mentions_feed_unit_entities_and_search_entities(store: Store, make: Any) -> None:
    make.bank()
    lisbon, alice = make.entity("Lisbon"), make.entity("Alice")
    u1, u2 = make.unit("Alice in Lisbon"), make.unit("Lisbon only")
    make.mention(u1, lisbon, alice, lisbon)
    make.mention(u2, lisbon)
    assert store.memories.get_units(make.viewer(), [u1.id])[u1.id].entities == ("Alice", "Lisbon")
    hits = store.channels.search_entities(
        make.viewer(), ["alice", "lisbon", ""], make.filters(), 10
    )
    assert [h.unit_id for h in hits] == [u1.id, u2.id]
    assert store.channels.search_entities(make.viewer(), [], make.filters(), 10) == []


def test_hub_entities_beyond_the_degree_cap_link_nothing(store: Store, make: Any) -> None:
    make.bank()
    hub, rare = make.entity("Speaker"), make.entity("Rare")
    units = [make.unit(f"line {i}", embed=False) for i in range(50)]
    for u in units:
        make.mention(u, hub)
    make.mention(units[0], rare)
    make.mention(units[1], rare)
    assert [
        h.unit_id
        for h in store.channels.search_entities(make.viewer(), ["speaker"], make.filters(), 100)
    ] == []
    links = store.channels.graph_links(make.viewer(), [units[0].id], make.filters(), 100)
    assert links == [Link(units[0].id, units[1].id, "ENTITY", links[0].weight, "Rare")]


def test_edges_of_and_graph_links_walk_both_directions(store: Store, make: Any) -> None:
    make.bank()
    src = make.source()
    a, b, c = (make.unit(t, evidence=(src.id,)) for t in ("a", "b", "c"))
    e1 = make.edge(a.id, b.id, "SUPPORTS", weight=0.5, confidence=0.8)
    e2 = make.edge(c.id, a.id, "CONTRADICTS")
    e3 = make.edge(a.id, src.id, "DERIVED_FROM")
    assert [e.id for e in store.graph.edges_of(make.viewer(), a.id)] == [e1.id, e2.id, e3.id]
    assert store.graph.edges_of(make.viewer(), a.id)[0] == e1
    links = store.channels.graph_links(make.viewer(), [a.id, a.id], make.filters(), 10)
    typed = [lk for lk in links if lk.type not in ("ENTITY", "SOURCE")]
    assert typed == [
        Link(a.id, c.id, "CONTRADICTS", 1.0, e2.id),
        Link(a.id, b.id, "SUPPORTS", 0.4, e1.id),
    ]
    siblings = [lk for lk in links if lk.type == "SOURCE"]
    assert siblings == [
        Link(a.id, b.id, "SOURCE", 0.5, src.id),
        Link(a.id, c.id, "SOURCE", 0.5, src.id),
    ]
    assert store.channels.graph_links(make.viewer(), [], make.filters(), 10) == []
    assert store.stats().edges == 3


def test_put_embedding_and_iter_for_embedding(store: Store, make: Any) -> None:
    make.bank("b1")
    make.bank("b2")
    done = make.unit("has a vector")
    todo = [make.unit(f"needs a vector {i}", embed=False) for i in range(3)]
    elsewhere = make.unit("other bank", bank_id="b2", embed=False)
    batches = list(store.memories.iter_for_embedding("b1", make.model, 2))
    assert [[r.unit_id for r in b] for b in batches] == [[todo[0].id, todo[1].id], [todo[2].id]]
    every = [r.unit_id for b in store.memories.iter_for_embedding(None, make.model, 10) for r in b]
    assert sorted(every) == sorted([t.id for t in todo] + [elsewhere.id])
    with store.transaction():
        for t in todo:
            store.memories.put_embedding("b1", t.id, make.model, make.vec(t.text))
        store.memories.put_embedding("b1", done.id, "model-b", [1.0, 0.0, 0.0])
    assert list(store.memories.iter_for_embedding("b1", make.model, 10)) == []
    hits = store.channels.search_semantic(
        make.viewer(), make.vec(todo[1].text), make.model, make.filters(), 1
    )
    assert hits[0].unit_id == todo[1].id
    other = store.channels.search_semantic(
        make.viewer(), [0.9, 0.1, 0.0], "model-b", make.filters(), 5
    )
    assert [h.unit_id for h in other] == [done.id]
    got = store.memories.get_units(make.viewer(), [done.id])[done.id]
    assert (got.embedding_model, got.embedding_dim) == ("model-b", 3)
    assert store.stats().embeddings_by_model == {make.model: 4, "model-b": 1}


def test_audit_chain_links_every_write_and_verifies(store: Store, make: Any) -> None:
    make.bank("b1")
    make.bank("b2")
    make.unit("one")
    make.unit("two", bank_id="b2")
    with store.transaction():
        store.audit.append(
            "b1", "person", "custom.op", "t1", {"a": 1.5}, {"a": 1e300, "b": "ü"}, "why"
        )
    records = list(store.audit.records("b1"))
    assert [r.op for r in records] == ["bank.create", "unit.put", "custom.op"]
    assert records[0].prev_hash == GENESIS
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
    assert records[-1].after == {"a": 1e300, "b": "ü"}
    report = verify_chain(((r.seq, r.prev_hash, r.hash, r.hashed) for r in records), _keys(store))
    assert report.ok
    assert report.records == 3
    assert store.audit.head("b1") == (records[-1].seq, records[-1].hash, 3)
    assert store.audit.head("nope") is None
    every = list(store.audit.records())
    assert [r.seq for r in every] == sorted(r.seq for r in every)
    assert {r.bank_id for r in every} == {"b1", "b2"}
    for bank in ("b1", "b2"):
        assert verify_chain(
            ((r.seq, r.prev_hash, r.hash, r.hashed) for r in store.audit.records(bank)),
            _keys(store),
        ).ok


def test_get_source_scope_rules(store: Store, make: Any) -> None:
    make.bank()
    mine = make.source(agent="a1")
    theirs = make.source(agent="a2")
    personal, collective = make.viewer("a1"), make.viewer("a1", Scope.COLLECTIVE)
    assert store.memories.get_source(personal, mine.id) == mine
    assert store.memories.get_source(personal, theirs.id) is None
    assert store.memories.get_source(collective, theirs.id) == theirs
    assert store.memories.get_source(make.viewer("a1", Scope.OWNER, bank="b2"), mine.id) is None


def test_put_edges_writes_all_in_one_audit_entry_and_chains(store: Store, make: Any) -> None:
    make.bank()
    a, b, c = (make.unit(t) for t in ("a", "b", "c"))
    before = len(list(store.audit.records("b1")))
    edges = [make.edge_value(a.id, b.id, "RELATES_TO"), make.edge_value(a.id, c.id, "RELATES_TO")]
    with store.transaction():
        store.graph.put_edges(edges)
        store.graph.put_edges([])  # nothing to write, nothing audited
    assert [e.id for e in store.graph.edges_of(make.viewer(), a.id)] == [e.id for e in edges]
    records = list(store.audit.records("b1"))
    assert len(records) == before + 1
    assert records[-1].op == "edge.put"
    assert records[-1].after is not None
    assert [e["id"] for e in records[-1].after["edges"]] == [e.id for e in edges]
    assert verify_chain(((r.seq, r.prev_hash, r.hash, r.hashed) for r in records), _keys(store)).ok


def test_audit_chain_survives_a_rolled_back_savepoint(store: Store, make: Any) -> None:
    """The head a transaction caches must not outlive a savepoint that rolled back."""
    make.bank()
    with store.transaction():
        store.audit.append("b1", "p", "op.one", "t", None, {"n": 1}, "")
        try:
            with store.transaction():
                store.audit.append("b1", "p", "op.lost", "t", None, {"n": 2}, "")
                raise RuntimeError("undo the savepoint")
        except RuntimeError:
            pass
        store.audit.append("b1", "p", "op.two", "t", None, {"n": 3}, "")
    with store.transaction():
        store.audit.append("b1", "p", "op.three", "t", None, {"n": 4}, "")
    records = list(store.audit.records("b1"))
    assert [r.op for r in records][-3:] == ["op.one", "op.two", "op.three"]
    assert verify_chain(((r.seq, r.prev_hash, r.hash, r.hashed) for r in records), _keys(store)).ok
    assert store.audit.head("b1") == (records[-1].seq, records[-1].hash, len(records))


def test_lean_units_carry_knowers_but_not_evidence_or_entities(store: Store, make: Any) -> None:
    make.bank()
    src = make.source()
    unit = make.unit("Alice in Lisbon", evidence=(src.id,))
    make.mention(unit, make.entity("Lisbon"))
    full = store.memories.get_units(make.viewer(), [unit.id])[unit.id]
    lean = store.memories.get_units(make.viewer(), [unit.id], lean=True)[unit.id]
    assert (full.evidence, full.entities) == ((src.id,), ("Lisbon",))
    assert (lean.evidence, lean.entities) == ((), ())
    assert (lean.knowers, lean.text) == (full.knowers, full.text)
    assert (
        store.memories.get_units(make.viewer("stranger", Scope.PERSONAL), [unit.id], lean=True)
        == {}
    )


def _keys(store: Store) -> Mapping[str, MacKey]:
    """The audit keys the store was opened with (the chain is keyed, ADR 0035)."""
    ring = store.audit.anchors().keyring
    assert ring is not None
    return ring.keys


def test_set_bank_config_replaces_the_config_and_audits_before_and_after(
    store: Store, make: Any
) -> None:
    make.bank("b1")
    with store.transaction():
        bank = store.banks.set_bank_config(
            "b1", {"sensitive": {"secret": "refuse"}}, actor="ops", reason="policy"
        )
    assert bank.config == {"sensitive": {"secret": "refuse"}}
    got = store.banks.get_bank("b1")
    assert got is not None
    assert got.config == {"sensitive": {"secret": "refuse"}}
    with store.transaction():
        store.banks.set_bank_config("b1", {}, actor="ops", reason="reset")
    assert [b.config for b in store.banks.list_banks() if b.id == "b1"] == [{}]
    records = [r for r in store.audit.records("b1") if r.op == "bank.configure"]
    assert [(r.actor, r.reason) for r in records] == [("ops", "policy"), ("ops", "reset")]
    assert records[0].before == {"config": {}}
    assert records[1].before == {"config": {"sensitive": {"secret": "refuse"}}}
    assert records[1].after == {"config": {}}
    assert verify_chain(
        ((r.seq, r.prev_hash, r.hash, r.hashed) for r in store.audit.records("b1")),
        _keys(store),
    ).ok
    with pytest.raises(NotFound), store.transaction():
        store.banks.set_bank_config("nope", {}, actor="ops", reason="x")
