"""Transactions: all or nothing, nested savepoints, and concurrent writers as declared."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from mneme.core.chain import verify_chain
from mneme.core.model import Bank, Scope
from mneme.store.protocol import Store


class Boom(Exception):
    pass


def test_a_failed_transaction_leaves_nothing_half_written(store: Store, make: Any) -> None:
    make.bank("b1")
    head = store.audit_head("b1")
    stats = store.stats()

    def write_then_fail() -> None:
        with store.transaction():
            store.ensure_bank(Bank(id="b2", name="b2", created_at=make.t0))
            src = make.source(text="inside")
            make.unit("inside the failed transaction", evidence=(src.id,))
            make.entity("Lisbon")
            raise Boom

    with pytest.raises(Boom):
        write_then_fail()
    assert store.stats() == stats
    assert store.audit_head("b1") == head
    assert store.get_bank("b2") is None
    assert (
        store.search_lexical(make.viewer(scope=Scope.OWNER), ["inside"], make.filters(), 10) == []
    )
    assert (
        store.search_semantic(
            make.viewer(scope=Scope.OWNER), make.vec("inside"), make.model, make.filters(), 10
        )
        == []
    )


def test_a_failed_nested_transaction_rolls_back_only_its_savepoint(store: Store, make: Any) -> None:
    make.bank()

    def nested_failure() -> None:
        with store.transaction():
            make.unit("dropped")
            raise Boom

    with store.transaction():
        kept = make.unit("kept")
        with pytest.raises(Boom):
            nested_failure()
        kept2 = make.unit("kept too")
    owner = make.viewer(scope=Scope.OWNER)
    texts = sorted(u.text for u in store.list_units(owner, make.filters(), 10))
    assert texts == ["kept", "kept too"]
    assert {kept.id, kept2.id} <= set(store.get_units(owner, [kept.id, kept2.id]))
    assert verify_chain(
        (r.seq, r.prev_hash, r.hash, r.hashed) for r in store.audit_records("b1")
    ).ok


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
    assert {a.id for a in store.list_agents("b1")} == {"a1", "a2"}
