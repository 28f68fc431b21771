"""Units a write transaction inserts join its remembered lean reads (the write path judges each
next atom against what the batch wrote): what is remembered is what a read of the file returns,
for every viewer, and only for the viewers who may see the unit."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from mneme.core.model import Network, Scope, Unit, UnitStatus, UnitType, Viewer, Visibility
from mneme.store.sqlite.store import SQLiteStore

pytestmark = pytest.mark.parametrize("store", ["sqlite"], indirect=True)

VIEWERS = (
    Viewer("b1", "a1", Scope.COLLECTIVE),
    Viewer("b1", "a2", Scope.COLLECTIVE),
    Viewer("b1", "a1", Scope.PERSONAL),
    Viewer("b1", "a3", Scope.PERSONAL),
    Viewer("b1", "a1", Scope.OWNER),
    Viewer("b2", "a1", Scope.COLLECTIVE),
)
#: A time in another zone than the stored UTC: the read gives it back in UTC.
BERLIN = dt.timezone(dt.timedelta(hours=2))


def _unit(make: Any, uid: str, agent: str, source: str, **kw: Any) -> Unit:
    return Unit(
        id=uid,
        bank_id="b1",
        text=f"{uid} moved the standup to 09:45",
        content_key=f"k-{uid}",
        network=Network.WORLD,
        type=kw.pop("type", UnitType.FACT),
        status=kw.pop("status", UnitStatus.ACTIVE),
        confidence=kw.pop("confidence", 0.8),
        agent_id=agent,
        recorded_at=make.t0,
        embedding_model=make.model,
        embedding_dim=make.dim,
        evidence=(source,),
        **kw,
    )


def test_a_unit_written_reads_the_same_from_memory_as_from_the_file(store: Any, make: Any) -> None:
    assert isinstance(store, SQLiteStore)  # remembered writes are the SQLite engine's (ADR 0059)
    make.bank()
    s1, s2 = make.source(agent="a1").id, make.source(agent="a2").id
    units = [
        _unit(
            make,
            "u-shared",
            "a1",
            s1,
            knowers=("a3", "a1", "a3"),
            occurred_start=dt.datetime(2024, 3, 4, 23, 30, tzinfo=BERLIN),
            mentioned_at=dt.datetime(2024, 3, 5, 9, 0, 0, 123456, tzinfo=BERLIN),
            metadata={"session_id": "c:S1", "answers": "u-q"},
            supersedes=("u-old",),
            confidence=1,
        ),
        _unit(make, "u-private", "a2", s2, visibility=Visibility.PRIVATE),
        _unit(make, "u-rejected", "a1", s1, status=UnitStatus.REJECTED, type=UnitType.OPINION),
    ]
    ids = [u.id for u in units]
    with store.transaction():
        for viewer in VIEWERS:  # each viewer has read before: its memory of reads exists
            store.memories.get_units(viewer, ["u-none"], lean=True)
        for u in units:
            store.memories.put_unit(u, make.vec(u.text))
        remembered = {v: store.memories.get_units(v, ids, lean=True) for v in VIEWERS}
        store.engine._forget()  # white-box: nothing remembered, every read goes to the file
        read = {v: store.memories.get_units(v, ids, lean=True) for v in VIEWERS}
    assert remembered == read
    assert sorted(read[VIEWERS[0]]) == ["u-rejected", "u-shared"]
    assert sorted(read[VIEWERS[1]]) == ["u-private", "u-rejected", "u-shared"]
    assert sorted(read[VIEWERS[3]]) == ["u-shared"]  # a3 knows only the shared unit
    assert read[VIEWERS[5]] == {}  # another bank
    shared = read[VIEWERS[4]]["u-shared"]
    assert shared.knowers == ("a1", "a3")
    assert shared.occurred_start == dt.datetime(2024, 3, 4, 21, 30, tzinfo=dt.UTC)


def test_a_unit_changed_after_it_was_written_is_read_again(store: Any, make: Any) -> None:
    """What the transaction changes after the insert is not answered from memory."""
    from mneme.store.protocol import UnitChanges

    make.bank()
    s1 = make.source(agent="a1").id
    unit = _unit(make, "u-1", "a1", s1)
    viewer = VIEWERS[0]
    with store.transaction():
        store.memories.get_units(viewer, ["u-none"], lean=True)
        store.memories.put_unit(unit, make.vec(unit.text))
        assert store.memories.get_units(viewer, ["u-1"], lean=True)["u-1"].status == (
            UnitStatus.ACTIVE
        )
        store.memories.update_unit(
            "b1", "u-1", UnitChanges(status=UnitStatus.SUPERSEDED), actor="a1", reason="test"
        )
        store.memories.add_evidence("b1", "u-1", s1, "a2", make.t0)
        again = store.memories.get_units(viewer, ["u-1"], lean=True)["u-1"]
    assert again.status == UnitStatus.SUPERSEDED
    assert again.knowers == ("a1", "a2")
