"""The watchdog's pure rules (core.watchdog): detectors over hand-made snapshots, the ladder,
and when a condition is over."""

from __future__ import annotations

import datetime as dt

from mneme.core.watchdog import (
    Finding,
    Heal,
    IndexState,
    QueuedItem,
    Severity,
    Snapshot,
    StageSample,
    Thresholds,
    cleared,
    detect,
    ladder,
    worst,
)

T0 = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
LIMITS = Thresholds(
    wal_bytes=100,
    queue_depth=10,
    queue_age_seconds=60,
    stuck_seconds=60,
    flood_per_pass=5,
    disk_free_bytes=1000,
    memory_bytes=500,
    growth_bytes_per_hour=3600,
    growth_window_seconds=60,
)


def snap(**fields: object) -> Snapshot:
    return Snapshot(**{"now": T0, "backend": "sqlite", **fields})  # type: ignore[arg-type]


def detectors(found: list[Finding]) -> dict[str, Severity]:
    return {f.detector: f.severity for f in found}


def test_a_quiet_snapshot_has_no_finding() -> None:
    assert detect(snap(db_bytes=10, wal_bytes=10, disk_free_bytes=10**9), None, LIMITS) == []


def test_a_failed_store_is_critical_and_hides_everything_else() -> None:
    found = detect(
        snap(store_problem="database disk image is malformed", wal_bytes=10**9), None, LIMITS
    )
    assert detectors(found) == {"store": Severity.CRITICAL}


def test_each_threshold_gives_its_finding_and_heal() -> None:
    found = detect(
        snap(
            wal_bytes=101,
            indexes=(IndexState("b", "m", stored=3, indexed=4),),
            queue_pending=101,
            queue_oldest=T0 - dt.timedelta(seconds=61),
            processing=(QueuedItem("pend_1", "b", T0 - dt.timedelta(seconds=61)),),
            disk_free_bytes=99,
            rss_bytes=501,
        ),
        None,
        LIMITS,
    )
    assert detectors(found) == {
        "wal": Severity.WARN,
        "index": Severity.WARN,
        "queue_depth": Severity.CRITICAL,  # more than ten times the limit
        "queue_age": Severity.WARN,
        "stuck": Severity.WARN,
        "disk": Severity.CRITICAL,  # below a tenth of the limit
        "memory": Severity.WARN,
    }
    heals = {f.detector: f.heal for f in found if f.heal is not None}
    assert heals == {
        "wal": Heal("checkpoint", "store"),
        "index": Heal("rebuild_index", "b/m"),
        "stuck": Heal("requeue", "pend_1"),
    }
    assert worst(found) is Severity.CRITICAL


def test_growth_is_judged_only_over_the_window() -> None:
    then = snap(db_bytes=0, wal_bytes=0)
    later = snap(now=T0 + dt.timedelta(seconds=60), db_bytes=61, wal_bytes=0)
    assert detectors(detect(later, then, LIMITS, then)) == {"growth": Severity.WARN}
    assert detect(later, then, LIMITS, None) == []  # no base old enough yet


def test_a_flood_is_per_busy_pass_and_a_paused_stage_stays_one_condition() -> None:
    before = snap(stages=(StageSample("reconsolidate", runs=1, produced=0),))
    calm = snap(stages=(StageSample("reconsolidate", runs=3, produced=10),))  # 5 a pass
    wild = snap(stages=(StageSample("reconsolidate", runs=2, produced=6),))  # 6 in one pass
    assert detect(calm, before, LIMITS) == []
    (flood,) = detect(wild, before, LIMITS)
    assert flood.heal == Heal("pause", "reconsolidate", silent=False)
    paused = snap(stages=(StageSample("reconsolidate", runs=2, produced=6, paused=True),))
    (held,) = detect(paused, wild, LIMITS)
    assert held.condition == flood.condition
    assert held.heal is None


def test_the_ladder_climbs_only_past_a_failed_or_loud_heal_and_only_once() -> None:
    wal = Finding("wal", "store", Severity.WARN, "big", heal=Heal("checkpoint", "store"))
    assert not ladder(wal, healed=True, alerted=False).alert
    assert ladder(wal, healed=False, alerted=False).alert
    assert ladder(wal, healed=False, alerted=False).hook
    assert not ladder(wal, healed=False, alerted=True).alert
    pause = Finding("flood", "s", Severity.WARN, "x", heal=Heal("pause", "s", silent=False))
    assert ladder(pause, healed=True, alerted=False).alert
    plain = Finding("disk", "store", Severity.CRITICAL, "full")
    assert ladder(plain, healed=None, alerted=False).alert


def test_a_condition_no_finding_holds_is_cleared() -> None:
    disk = Finding("disk", "store", Severity.WARN, "low")
    assert cleared(["disk:store", "wal:store"], [disk]) == ["wal:store"]
