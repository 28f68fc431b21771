"""The reflect cadence: a background pass every ``reflect_every`` seconds, bounded to
``reflect_banks_per_pass`` banks taken round-robin, idempotent (issue 19 item 5, ADR 0051)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.background.cadence import ReflectCadence, ReflectPassFailed
from mneme.background.reflect import ReflectReport
from mneme.core.model import Network
from mneme.errors import InvalidInput, NotFound

DEADLINE = 20.0


def wait_for(what: Callable[[], bool]) -> bool:
    """Poll ``what`` until it holds or the deadline passes (bounded, never a bare sleep)."""
    end = time.monotonic() + DEADLINE
    while not what():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def observations(mem: mneme.Memory, bank: str) -> list[Any]:
    return [u for u in mem.list_memories(bank=bank, limit=500) if u.network == Network.OBSERVATION]


def seed(mem: mneme.Memory, bank: str, name: str) -> None:
    for i, what in enumerate(("hiking", "painting", "chess")):
        mem.retain(f"{name} likes {what}.", bank=bank, agent="a1", source_id=f"{bank}-{i}")


def runs(mem: mneme.Memory) -> int:
    worker: dict[str, int] = mem.admin.health()["workers"]["reflect"]
    return worker["runs"]


def test_the_background_pass_writes_observations_and_a_second_adds_nothing(db_path: str) -> None:
    # Seeded before the worker starts: a pass over half-seeded evidence would (rightly) be
    # revised by the next one, and the count below would race it.
    with mneme.Memory.open(db_path, embedder="hashing") as seeding:
        seed(seeding, "people", "Oliver")
        seed(seeding, "pets", "Rex")
    mem = mneme.Memory.open(db_path, embedder="hashing", reflect_every=0.05)
    try:
        # A finished pass (runs counts passes done), so no pass is half-way through a bank.
        assert wait_for(
            lambda: (
                runs(mem) >= 1 and bool(observations(mem, "people") and observations(mem, "pets"))
            )
        )
        units = {b: len(mem.list_memories(bank=b, limit=500)) for b in ("people", "pets")}
        audit = {b: len(mem.admin.audit_log(b)) for b in ("people", "pets")}
        mark = runs(mem)
        assert wait_for(lambda: runs(mem) >= mark + 3)  # passes over both banks since
        assert {b: len(mem.list_memories(bank=b, limit=500)) for b in units} == units
        assert {b: len(mem.admin.audit_log(b)) for b in audit} == audit  # not even a record
        health = mem.admin.health()["workers"]
        assert health["reflect"]["errors"] == 0
        assert set(health) == {"reconsolidate", "reflect", "watchdog", "insights"}
        reflected = [r for r in mem.admin.audit_log("people") if r.op == "reflect"]
        assert reflected
        assert {r.actor for r in reflected} == {"reflect"}
    finally:
        mem.close()


def test_reflect_every_zero_or_a_read_only_store_runs_no_background_pass(
    db_path: str, tmp_path: Path
) -> None:
    with mneme.Memory.open(db_path, embedder="hashing") as mem:
        seed(mem, "people", "Oliver")
        assert mem.config.reflect_every == 0
        assert "mneme-reflect" not in {t.name for t in threading.enumerate()}
    with mneme.Memory.open(db_path, embedder="hashing", read_only=True, reflect_every=0.01) as ro:
        assert "mneme-reflect" not in {t.name for t in threading.enumerate()}
        assert ro.admin.health()["workers"]["reflect"]["runs"] == 0
        assert observations(ro, "people") == []


def test_the_cadence_settings_are_validated() -> None:
    with pytest.raises(InvalidInput, match="reflect_every"):
        mneme.Memory.open(":memory:", embedder="hashing", reflect_every=-1)
    with pytest.raises(InvalidInput, match="reflect_banks_per_pass"):
        mneme.Memory.open(":memory:", embedder="hashing", reflect_banks_per_pass=0)


class Recorder:
    """Stands for the Reflector: records the banks a pass reflects; ``bad`` ones fail."""

    def __init__(self, bad: frozenset[str] = frozenset()) -> None:
        self.seen: list[str] = []
        self.bad = bad

    def reflect(self, bank: str, *, agent: str) -> ReflectReport:
        self.seen.append(bank)
        if bank in self.bad:
            raise NotFound(f"no bank {bank!r}")
        return ReflectReport(bank=bank, created=("u_1",))


def test_each_pass_is_bounded_and_every_bank_is_reached_round_robin() -> None:
    banks = ["a", "b", "c"]
    recorder = Recorder()
    cadence = ReflectCadence(recorder, lambda: banks, 2)  # type: ignore[arg-type]
    passes = []
    for _ in range(3):
        before = len(recorder.seen)
        assert cadence.step() is False  # bounded: the next pass waits for the interval
        passes.append(recorder.seen[before:])
    assert passes == [["a", "b"], ["c", "a"], ["b", "c"]]
    banks.insert(0, "0new")  # a new bank joins the order without skipping the others
    cadence.step()
    assert recorder.seen[-2:] == ["0new", "a"]
    assert cadence.last["a"]["created"] == 1


def test_a_failing_bank_does_not_starve_the_others_and_is_counted() -> None:
    recorder = Recorder(bad=frozenset({"a"}))
    cadence = ReflectCadence(recorder, lambda: ["a", "b"], 2)  # type: ignore[arg-type]
    with pytest.raises(ReflectPassFailed, match="a: no bank"):
        cadence.step()
    assert recorder.seen == ["a", "b"]
    assert "b" in cadence.last
    cadence.halt()
    assert cadence.step() is False
    assert recorder.seen == ["a", "b"]  # halted: no bank is started
