"""Units, sources, banks and agents: writes, reads and the rules the store enforces."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mneme.core.model import Agent, Bank, Network, Scope, UnitStatus, Visibility
from mneme.errors import Conflict, MnemeError, NotFound
from mneme.store.protocol import Filters, Store, UnitChanges


def test_ensure_bank_is_idempotent_and_listed(store: Store, make: Any) -> None:
    first = make.bank("b1")
    with store.transaction():
        again = store.banks.ensure_bank(Bank(id="b1", name="renamed", created_at=make.t0))
    make.bank("a0")
    assert again == first
    assert first.created_at == make.t0
    assert [b.id for b in store.banks.list_banks()] == ["a0", "b1"]
    assert store.banks.get_bank("nope") is None
    assert store.stats().banks == 2


def test_heartbeat_keeps_the_latest_last_seen_and_lists_newest_first(
    store: Store, make: Any
) -> None:
    make.bank()
    later = make.t0 + dt.timedelta(hours=1)
    make.agent("a1", seen=later, host="h1")
    make.agent("a1", seen=make.t0)  # an older, late-arriving heartbeat
    make.agent("a2", seen=make.t0)
    agents = store.banks.list_agents("b1")
    assert [a.id for a in agents] == ["a1", "a2"]
    assert agents[0].last_seen == later
    assert agents[0].host == "h1"  # a heartbeat without host keeps the known one
    assert store.banks.list_agents("b2") == []


def test_agent_rows_can_never_be_deleted(store: Store, make: Any) -> None:
    make.bank()
    make.agent("a1")
    with pytest.raises(MnemeError), store.transaction():
        store.db.execute("DELETE FROM agents")  # type: ignore[attr-defined]
    assert [a.id for a in store.banks.list_agents("b1")] == ["a1"]


def test_sources_are_immutable_and_ids_unique(store: Store, make: Any) -> None:
    make.bank()
    src = make.source(
        text="original", session_id="s1", trust=0.5, occurred_at=make.t0, metadata={"k": [1, 2]}
    )
    assert store.memories.get_source(make.viewer(), src.id) == src
    with pytest.raises(MnemeError), store.transaction():
        store.db.execute("UPDATE sources SET text = 'changed'")  # type: ignore[attr-defined]
    with pytest.raises(Conflict):
        make.source(id=src.id, text="again")
    assert store.memories.get_source(make.viewer(), src.id) == src
    assert store.memories.locate(src.id) == "b1"
    assert store.memories.locate("missing") is None


def test_put_unit_round_trips_every_field(store: Store, make: Any) -> None:
    make.bank()
    src = make.source()
    unit = make.unit(
        "Alice lives in Lisbon",
        evidence=(src.id,),
        knowers=("a1", "a2"),
        occurred_start=make.t0,
        occurred_end=make.t0 + dt.timedelta(days=1),
        valid_from=make.t0,
        mentioned_at=make.t0,
        supersedes=("u0",),
        categories=("home",),
        metadata={"x": 1, "nested": {"y": [1, "z"]}},
    )
    got = store.memories.get_units(make.viewer(scope=Scope.OWNER), [unit.id])[unit.id]
    assert got == unit
    assert store.memories.locate(unit.id) == "b1"
    assert store.stats().units == 1
    assert store.stats().embeddings_by_model == {make.model: 1}


def test_content_key_is_unique_for_shared_and_per_author_for_private(
    store: Store, make: Any
) -> None:
    make.bank()
    shared = make.unit("tea", content_key="k")
    private1 = make.unit("tea", content_key="k", visibility=Visibility.PRIVATE)
    private2 = make.unit("tea", agent="a2", content_key="k", visibility=Visibility.PRIVATE)
    find = store.memories.find_by_content_key
    assert find("b1", "k", Visibility.SHARED, "a2").id == shared.id  # type: ignore[union-attr]
    assert find("b1", "k", Visibility.PRIVATE, "a1").id == private1.id  # type: ignore[union-attr]
    assert find("b1", "k", Visibility.PRIVATE, "a2").id == private2.id  # type: ignore[union-attr]
    assert find("b1", "k", Visibility.PRIVATE, "a3") is None
    assert find("b2", "k", Visibility.SHARED, "a1") is None
    with pytest.raises(MnemeError):
        make.unit("tea again", content_key="k")


def test_held_content_keys_are_the_keys_find_by_content_key_finds(store: Store, make: Any) -> None:
    make.bank()
    make.unit("tea", content_key="k1")
    make.unit("jam", content_key="k2", visibility=Visibility.PRIVATE)
    held = store.memories.held_content_keys
    assert held("b1", ["k1", "k2", "k3", "k1"], Visibility.SHARED, "a1") == {"k1"}
    assert held("b1", ["k1", "k2"], Visibility.PRIVATE, "a1") == {"k2"}
    assert held("b1", ["k2"], Visibility.PRIVATE, "a2") == set()
    assert held("b2", ["k1"], Visibility.SHARED, "a1") == set()
    assert held("b1", [], Visibility.SHARED, "a1") == set()
    many = [f"x{i}" for i in range(1200)] + ["k1"]
    assert held("b1", many, Visibility.SHARED, "a1") == {"k1"}


def test_a_key_found_absent_in_a_transaction_is_found_once_a_unit_takes_it(
    store: Store, make: Any
) -> None:
    make.bank()
    with store.transaction():
        assert store.memories.held_content_keys("b1", ["k", "k2"], Visibility.SHARED, "a1") == set()
        assert store.memories.find_by_content_key("b1", "k", Visibility.SHARED, "a1") is None
        unit = make.unit("tea", content_key="k")  # a savepoint inside the transaction
        found = store.memories.find_by_content_key("b1", "k", Visibility.SHARED, "a1")
        assert found is not None
        assert found.id == unit.id
        assert store.memories.held_content_keys("b1", ["k", "k2"], Visibility.SHARED, "a1") == {"k"}

        def taken_then_rolled_back() -> None:
            with store.transaction():
                make.unit("jam", content_key="k2")
                assert (
                    store.memories.find_by_content_key("b1", "k2", Visibility.SHARED, "a1")
                    is not None
                )
                raise RuntimeError("roll the savepoint back")

        with pytest.raises(RuntimeError):
            taken_then_rolled_back()
        assert store.memories.find_by_content_key("b1", "k2", Visibility.SHARED, "a1") is None
        private = make.unit("jam", content_key="k2", visibility=Visibility.PRIVATE)
        assert store.memories.find_by_content_key("b1", "k2", Visibility.SHARED, "a1") is None
        mine = store.memories.find_by_content_key("b1", "k2", Visibility.PRIVATE, "a1")
        assert mine is not None
        assert mine.id == private.id


def test_add_evidence_adds_a_knower_once_per_agent(store: Store, make: Any) -> None:
    make.bank()
    s1, s2, s3 = make.source(), make.source(agent="a2"), make.source(agent="a2")
    unit = make.unit("fact", evidence=(s1.id,))
    with store.transaction():
        assert store.memories.add_evidence("b1", unit.id, s2.id, "a2", make.t0) is True
        assert store.memories.add_evidence("b1", unit.id, s3.id, "a2", make.t0) is False
        assert store.memories.add_evidence("b1", unit.id, s1.id, "a1", make.t0) is False
    got = store.memories.get_units(make.viewer("a2"), [unit.id])[unit.id]
    assert got.knowers == ("a1", "a2")
    assert got.evidence == (s1.id, s2.id, s3.id)
    assert [u.id for u in store.memories.units_of_source(make.viewer("a2"), s3.id)] == [unit.id]


def test_update_unit_merges_lists_and_metadata_and_audits_before_after(
    store: Store, make: Any
) -> None:
    make.bank()
    unit = make.unit("fact", supersedes=("a",), categories=("c1",), metadata={"m": 1})
    later = make.t0 + dt.timedelta(days=2)
    with store.transaction():
        after = store.memories.update_unit(
            "b1",
            unit.id,
            UnitChanges(
                status=UnitStatus.SUPERSEDED,
                confidence=0.3,
                valid_until=later,
                retired_at=later,
                superseded_by="u9",
                add_supersedes=("a", "b"),
                add_contradictions=("x",),
                add_categories=("c2",),
                metadata={"n": 2},
            ),
            actor="person",
            reason="corrected",
        )
    assert after.status == UnitStatus.SUPERSEDED
    assert (after.confidence, after.valid_until, after.retired_at) == (0.3, later, later)
    assert after.superseded_by == "u9"
    assert after.supersedes == ("a", "b")
    assert after.contradictions == ("x",)
    assert after.categories == ("c1", "c2")
    assert after.metadata == {"m": 1, "n": 2}
    assert store.memories.get_units(make.viewer(), [unit.id])[unit.id] == after
    record = list(store.audit.records("b1"))[-1]
    assert (record.op, record.actor, record.target, record.reason) == (
        "unit.update",
        "person",
        unit.id,
        "corrected",
    )
    assert record.before is not None
    assert record.after is not None
    assert record.before["status"] == "active"
    assert record.after["status"] == "superseded"


def test_update_unit_with_no_change_writes_nothing(store: Store, make: Any) -> None:
    make.bank()
    unit = make.unit("fact")
    head = store.audit.head("b1")
    with store.transaction():
        same = store.memories.update_unit("b1", unit.id, UnitChanges(), actor="a1", reason="noop")
    assert same == store.memories.get_units(make.viewer(), [unit.id])[unit.id]
    assert store.audit.head("b1") == head


def test_update_unit_clears_nullable_fields_back_to_null(store: Store, make: Any) -> None:
    make.bank()
    old = make.unit("Alice lives in Lisbon")
    new = make.unit("Alice lives in Porto")
    until = make.t0 + dt.timedelta(days=3)
    with store.transaction():
        store.memories.update_unit(
            "b1",
            old.id,
            UnitChanges(
                status=UnitStatus.SUPERSEDED,
                superseded_by=new.id,
                valid_until=until,
                retired_at=until,
            ),
            actor="judge",
            reason="superseded",
        )
        back = store.memories.update_unit(
            "b1",
            old.id,
            UnitChanges(
                status=UnitStatus.ACTIVE,
                clear=frozenset({"superseded_by", "valid_until", "retired_at"}),
            ),
            actor="pat",
            reason="the supersession was reverted",
        )
    assert (back.status, back.superseded_by, back.valid_until, back.retired_at) == (
        UnitStatus.ACTIVE,
        None,
        None,
        None,
    )
    assert store.memories.get_units(make.viewer(), [old.id])[old.id] == back
    before = next(r for r in store.audit.records("b1", target=old.id) if r.reason.startswith("the"))
    assert (before.before or {}).get("superseded_by") == new.id
    assert (before.after or {}).get("superseded_by") is None
    bad = UnitChanges(clear=frozenset({"text"}))
    with pytest.raises(MnemeError, match="cannot clear"), store.transaction():
        store.memories.update_unit("b1", old.id, bad, actor="x", reason="")


def test_update_of_a_missing_unit_raises_not_found(store: Store, make: Any) -> None:
    make.bank()
    with pytest.raises(NotFound), store.transaction():
        store.memories.update_unit("b1", "nope", UnitChanges(confidence=0.1), actor="a", reason="r")


def test_list_units_orders_newest_first_and_pages(store: Store, make: Any) -> None:
    make.bank()
    ids = [
        make.unit(f"fact {i}", recorded_at=make.t0 + dt.timedelta(minutes=i % 3)).id
        for i in range(6)
    ]
    listed = [u.id for u in store.memories.list_units(make.viewer(), Filters(), 100)]
    expected = sorted(ids, key=lambda i: (ids.index(i) % 3, i), reverse=True)
    assert listed == expected
    assert [
        u.id for u in store.memories.list_units(make.viewer(), Filters(), 2, offset=2)
    ] == expected[2:4]


def test_writes_outside_a_transaction_are_refused(store: Store, make: Any) -> None:
    """One guard on every backend: a raised MnemeError naming the rule, never an assert."""
    make.bank()
    t0 = make.t0
    writes: list[Callable[[], object]] = [
        lambda: store.banks.heartbeat(Agent(id="a1", bank_id="b1", first_seen=t0, last_seen=t0)),
        lambda: store.portable.import_rows(
            "agents", [{"bank_id": "b1", "id": "a2", "status": "x"}]
        ),
        lambda: store.banks.set_bank_config("b1", {"k": 1}, actor="a1", reason="test"),
    ]
    for write in writes:
        with pytest.raises(MnemeError, match=r"writes run inside Store\.transaction\(\)"):
            write()
    assert store.banks.list_agents("b1") == []
    assert store.banks.get_bank("b1").config == {}  # type: ignore[union-attr]


def test_the_write_guard_holds_under_python_o(tmp_path: Path) -> None:
    """``python -O`` strips asserts: the guard must not be one."""
    code = (
        "import datetime as dt, sys\n"
        "from mneme.core.model import Agent\n"
        "from mneme.errors import MnemeError\n"
        "from mneme.store.sqlite import SQLiteStore\n"
        "s = SQLiteStore(sys.argv[1])\n"
        "t = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)\n"
        "try:\n"
        "    s.banks.heartbeat(Agent(id='a', bank_id='b', first_seen=t, last_seen=t))\n"
        "except MnemeError as exc:\n"
        "    print('refused:', exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-O", "-c", code, str(tmp_path / "o.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "refused: writes run inside Store.transaction()" in out.stdout, out.stderr


def test_a_unit_brief_names_its_network(store: Store, make: Any) -> None:
    """Recall ranks an observation below its evidence from the brief alone (ADR 0051)."""
    make.bank()
    fact = make.unit("Oliver likes hiking.")
    obs = make.unit("About Oliver: likes hiking.", network=Network.OBSERVATION)
    briefs = store.memories.unit_briefs(make.viewer(), [fact.id, obs.id])
    assert briefs[fact.id].network == Network.WORLD
    assert briefs[obs.id].network == Network.OBSERVATION
