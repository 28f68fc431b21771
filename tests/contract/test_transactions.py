"""Transactions: all or nothing, nested savepoints, and concurrent writers as declared."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest

from mneme.core.audit_chain import MacKey, verify_chain
from mneme.core.model import Bank, Entity, Scope, Tombstone
from mneme.store.protocol import Store


class Boom(Exception):
    pass


def test_a_failed_transaction_leaves_nothing_half_written(store: Store, make: Any) -> None:
    make.bank("b1")
    head = store.audit.head("b1")
    stats = store.stats()

    def write_then_fail() -> None:
        with store.transaction():
            store.banks.ensure_bank(Bank(id="b2", name="b2", created_at=make.t0))
            src = make.source(text="inside")
            make.unit("inside the failed transaction", evidence=(src.id,))
            make.entity("Lisbon")
            raise Boom

    with pytest.raises(Boom):
        write_then_fail()
    assert store.stats() == stats
    assert store.audit.head("b1") == head
    assert store.banks.get_bank("b2") is None
    assert (
        store.channels.search_lexical(
            make.viewer(scope=Scope.OWNER), ["inside"], make.filters(), 10
        )
        == []
    )
    assert (
        store.channels.search_semantic(
            make.viewer(scope=Scope.OWNER), make.vec("inside"), make.model, make.filters(), 10
        )
        == []
    )


def _audit_head_is_the_last_record(store: Store) -> None:
    records = list(store.audit.records("b1"))
    assert store.audit.head("b1") == (records[-1].seq, records[-1].hash, len(records))
    assert verify_chain(((r.seq, r.prev_hash, r.hash, r.hashed) for r in records), _keys(store)).ok


def test_a_failed_nested_transaction_rolls_back_only_its_savepoint(store: Store, make: Any) -> None:
    """Only the savepoint's writes go; the audit chain and its head (which a backend may
    write only at commit) follow the rollback, inside the transaction and after it."""
    make.bank()

    def nested_failure() -> None:
        with store.transaction():
            make.unit("dropped")
            raise Boom

    with store.transaction():
        kept = make.unit("kept")
        _audit_head_is_the_last_record(store)
        with pytest.raises(Boom):
            nested_failure()
        kept2 = make.unit("kept too")
    owner = make.viewer(scope=Scope.OWNER)
    texts = sorted(u.text for u in store.memories.list_units(owner, make.filters(), 10))
    assert texts == ["kept", "kept too"]
    assert {kept.id, kept2.id} <= set(store.memories.get_units(owner, [kept.id, kept2.id]))
    _audit_head_is_the_last_record(store)
    make.unit("after commit")
    _audit_head_is_the_last_record(store)


def test_concurrent_writers_match_the_declared_capability(store: Store, make: Any) -> None:
    make.bank()
    holding = threading.Event()
    release = threading.Event()
    other_done = threading.Event()

    def hold() -> None:
        with store.transaction():
            make.agent("a1")
            holding.set()
            release.wait(10)

    def write() -> None:
        make.agent("a2")
        other_done.set()

    t1 = threading.Thread(target=hold)
    t1.start()
    assert holding.wait(10)
    t2 = threading.Thread(target=write)
    t2.start()
    finished_while_held = other_done.wait(1.0 if store.capabilities.concurrent_writers else 0.3)
    release.set()
    t1.join(10)
    t2.join(10)
    assert finished_while_held == store.capabilities.concurrent_writers
    assert {a.id for a in store.banks.list_agents("b1")} == {"a1", "a2"}


def test_reads_inside_a_transaction_see_its_own_writes(store: Store, make: Any) -> None:
    """Reads a write transaction repeats (banks, entities by key, tombstones, the audit head)
    may be remembered for the transaction: each must still see the writes made before it."""
    make.bank()
    with store.transaction():
        assert store.banks.get_bank("b9") is None
        store.banks.ensure_bank(Bank(id="b9", name="b9", created_at=make.t0))
        assert store.banks.get_bank("b9") is not None
        assert store.trust.find_tombstones("b1", content_key="k1") == []
        store.trust.put_tombstone(
            Tombstone(
                id="t1",
                bank_id="b1",
                text="x",
                reason="wrong",
                actor="a1",
                at=make.t0,
                content_key="k1",
            )
        )
        assert [t.id for t in store.trust.find_tombstones("b1", content_key="k1")] == ["t1"]
        first = store.graph.upsert_entity(
            Entity(id="ent_1", bank_id="b1", name="Lisbon", key="lisbon", aliases=("LIS",))
        )
        again = store.graph.upsert_entity(
            Entity(id="ent_2", bank_id="b1", name="Lisbon", key="lisbon", aliases=("Lisboa",))
        )
        assert again.id == first.id
        assert set(again.aliases) == {"LIS", "Lisboa"}
        third = store.graph.upsert_entity(
            Entity(id="ent_3", bank_id="b1", name="Lisbon", key="lisbon")
        )
        assert third.id == first.id
        assert set(third.aliases) == {"LIS", "Lisboa"}


def _keys(store: Store) -> Mapping[str, MacKey]:
    """The audit keys the store was opened with (the chain is keyed, ADR 0035)."""
    ring = store.audit.anchors().keyring
    assert ring is not None
    return ring.keys
