"""The health watchdog on a real SQLite file: each detector fires on a condition induced for
real (a WAL grown by writes, an ingest item left processing by a process that died, a vector
index out of step with its embeddings, a flooding reconsolidation, a hook that fails or hangs),
and each reaction is taken and journaled (ADR 0054)."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Clock

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.store.protocol import QueueItem
from mneme.store.sqlite import SQLiteStore


def open_mem(path: str, clock: Clock, **config: Any) -> mneme.Memory:
    return mneme.Memory.open(path, embedder=HashingEmbedder(), clock=clock, **config)


def journal_ops(mem: mneme.Memory) -> list[str]:
    return [e["op"] for e in mem.admin.watch_journal(500)]


def finding(report: dict[str, Any], detector: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [f for f in report["findings"] if f["detector"] == detector]
    assert found, (detector, report["findings"])
    return found[0]


def test_a_quiet_store_reports_ok_on_every_check(mem: mneme.Memory) -> None:
    mem.retain("The Kepler bid is due on Friday.", bank="b", agent="ann")
    report = mem.admin.check()
    assert report["severity"] == "ok"
    assert set(report["checks"].values()) == {"ok"}
    assert report["store"]["db_bytes"] > 0
    assert report["store"]["disk_free_bytes"] > 0
    assert report["process"]["rss_bytes"] > 0


def test_a_wal_grown_by_writes_is_checkpointed_silently(tmp_path: Path, clock: Clock) -> None:
    mem = open_mem(str(tmp_path / "w.db"), clock, watch_wal_bytes=256 * 1024)
    try:
        for i in range(20):
            mem.retain(f"Shipment {i} left the Birch depot at dawn.", bank="b", agent="ann")
        seen = mem.admin.check()
        assert seen["store"]["wal_bytes"] > 256 * 1024
        assert seen["checks"]["wal"] == "warn"
        report = mem.admin.watch()
        heal = finding(report, "wal")["reaction"]["heal"]
        assert heal["ok"], heal
        assert report["severity"] == "ok"  # healed silently: nothing left to look at
        # Truncated, then the journal's own record written into it: well under the limit.
        assert Path(f"{tmp_path / 'w.db'}-wal").stat().st_size < 256 * 1024
        assert mem.admin.check()["checks"]["wal"] == "ok"
        assert "watchdog.checkpoint" in journal_ops(mem)
        assert "watchdog.alert" not in journal_ops(mem)
        assert mem.recall("Birch depot shipment", bank="b", agent="ann")  # nothing was lost
    finally:
        mem.close()


def test_an_item_left_processing_by_a_dead_process_is_requeued_and_done(
    tmp_path: Path, clock: Clock
) -> None:
    path = str(tmp_path / "q.db")
    mem = open_mem(path, clock, watch_stuck_after=60.0)
    try:
        mem.admin.create_bank("b")
        # Another process accepted a write, claimed it an hour ago, and died.
        other = SQLiteStore(path, audit_key_file=f"{path}.audit-key")
        hour_ago = clock() - dt.timedelta(hours=1)
        args = {"text": "The Oslo office opens at nine.", "bank": "b", "agent": "ann"}
        with other.transaction():
            other.queue.enqueue(QueueItem("pend_dead", "b", args, "pending", 0, hour_ago, hour_ago))
        with other.transaction():
            assert other.queue.claim_queued(hour_ago) is not None
        other.close()
        assert mem.admin.check()["checks"]["stuck"] == "warn"
        report = mem.admin.watch()
        heal = finding(report, "stuck")["reaction"]["heal"]
        assert heal == {"action": "requeue", "ok": True, "outcome": "requeued"}
        deadline = time.monotonic() + 20  # the buffer's worker takes it again
        while mem.get_add_status("pend_dead").status != "done":
            assert time.monotonic() < deadline, mem.get_add_status("pend_dead")
            time.sleep(0.05)
        assert mem.recall("Oslo office", bank="b", agent="ann")
        assert "watchdog.requeue" in journal_ops(mem)
    finally:
        mem.close()


def test_a_vector_index_out_of_step_with_its_embeddings_is_rebuilt(
    tmp_path: Path, clock: Clock
) -> None:
    path = str(tmp_path / "i.db")
    mem = open_mem(path, clock)
    try:
        for text in ("Ravi owns the Kepler bid.", "Mia runs the Oslo office.", "Tea is at four."):
            mem.retain(text, bank="b", agent="ann")
        mem.recall("Kepler", bank="b", agent="ann")  # loads the bank's index
        # A row goes from the table behind the index's back (a bug, a hand edit, a restore).
        with sqlite3.connect(path) as raw:
            raw.execute("DELETE FROM embeddings WHERE rowid = (SELECT min(rowid) FROM embeddings)")
        index = finding(mem.admin.check(), "index")
        assert index["evidence"]["indexed"] == index["evidence"]["stored"] + 1
        report = mem.admin.watch()
        assert finding(report, "index")["reaction"]["heal"]["ok"]
        (state,) = [i for i in mem.admin.check()["store"]["indexes"] if i["bank"] == "b"]
        assert state["indexed"] == state["stored"]
        assert "watchdog.rebuild_index" in journal_ops(mem)
    finally:
        mem.close()


def flood_reconsolidation(mem: mneme.Memory, supporters: int) -> None:
    """A belief many memories support, then rejected: its sweep re-examines every one."""
    belief = mem.retain("The launch is on Monday.", bank="b", agent="ann").memory_ids[0]
    for i in range(supporters):
        unit = mem.retain(f"Crew {i} booked travel for the launch.", bank="b", agent="ann")
        mem.beliefs.support(unit.memory_ids[0], belief=belief, actor="ann")
    mem.review.reject(belief, reason="moved", actor="rita")


def test_a_flooding_stage_is_paused_alerted_once_and_resumed(tmp_path: Path, clock: Clock) -> None:
    mem = open_mem(str(tmp_path / "f.db"), clock, watch_flood_per_pass=2, watch_pause_passes=2)
    try:
        mem.admin.watch()  # the baseline the next pass's rate is read against
        flood_reconsolidation(mem, supporters=4)
        mem.beliefs.reconsolidate()  # one pass that re-examines four memories
        report = mem.admin.watch()
        flood = finding(report, "flood")
        assert flood["evidence"]["per_pass"] > 2
        assert flood["reaction"]["heal"]["ok"]
        assert flood["reaction"]["alert"]["ok"]  # a paused stage holds work back: said aloud
        assert report["stages"]["reconsolidate"]["paused"]
        assert report["severity"] == "warn"
        # Still paused on the next pass: the same condition, not alerted again.
        again = mem.admin.watch()
        assert again["stages"]["reconsolidate"]["paused"]
        assert journal_ops(mem).count("watchdog.alert") == 1
        assert mem.admin.resume_stage("reconsolidate", actor="rita") is True
        assert mem.admin.check()["stages"]["reconsolidate"]["paused"] is None
        mem.admin.watch()
        ops = journal_ops(mem)
        assert ops.count("watchdog.pause") == 1
        assert "watchdog.resume" in ops
        assert ops[-1] == "watchdog.cleared"  # the flood is over
        hits = mem.recall(
            "ops alert reconsolidate paused", bank="ops", agent="rita", scope="collective"
        )
        assert any("reconsolidate" in h.unit.text for h in hits)
    finally:
        mem.close()


def test_a_paused_worker_skips_its_passes_until_the_cool_down_ends(
    tmp_path: Path, clock: Clock
) -> None:
    mem = open_mem(
        str(tmp_path / "p.db"),
        clock,
        reconsolidate_every=0.02,
        watch_flood_per_pass=2,
        watch_pause_passes=1,
    )
    try:
        mem.admin.watch()
        flood_reconsolidation(mem, supporters=4)
        deadline = time.monotonic() + 20
        while not mem.admin.watch_status()["stages"]["reconsolidate"]["paused"]:
            assert time.monotonic() < deadline, "the flood was never seen"
            mem.admin.watch()
            time.sleep(0.02)
        runs = mem.admin.check()["stages"]["reconsolidate"]["runs"]
        while mem.admin.check()["stages"]["reconsolidate"]["skipped"] < 3:
            assert time.monotonic() < deadline, "the paused worker did not skip"
            time.sleep(0.02)
        assert mem.admin.check()["stages"]["reconsolidate"]["runs"] == runs
        mem.admin.watch()
        report = mem.admin.watch()  # the cool-down (one pass) is over
        assert report["stages"]["reconsolidate"]["paused"] is None
        assert "watchdog.resume" in journal_ops(mem)
    finally:
        mem.close()


def test_an_alert_is_recallable_and_not_repeated_by_a_second_process(
    tmp_path: Path, clock: Clock
) -> None:
    path = str(tmp_path / "a.db")
    mem = open_mem(path, clock, watch_db_bytes=1)
    try:
        report = mem.admin.watch()
        assert report["severity"] == "warn"
        assert finding(report, "db_size")["reaction"]["alert"]["ok"]
        hits = mem.recall("ops alert database size", bank="ops", agent="x", scope="collective")
        assert hits
        assert "database" in hits[0].unit.text
    finally:
        mem.close()
    again = open_mem(path, clock, watch_db_bytes=1)
    try:
        assert "alert" not in (finding(again.admin.watch(), "db_size")["reaction"])
        assert journal_ops(again).count("watchdog.alert") == 1
    finally:
        again.close()
    healthy = open_mem(path, clock, watch_db_bytes=0)
    try:
        assert healthy.admin.watch()["severity"] == "ok"
        assert journal_ops(healthy)[-1] == "watchdog.cleared"
    finally:
        healthy.close()


def test_the_hook_gets_the_finding_on_stdin_and_in_its_environment(
    tmp_path: Path, clock: Clock
) -> None:
    out = tmp_path / "hook.json"
    hook = f'cat > "{out}"; echo "$MNEME_WATCH_DETECTOR $MNEME_WATCH_SEVERITY" >> "{out}.env"'
    mem = open_mem(str(tmp_path / "h.db"), clock, watch_db_bytes=1, watch_hook=hook)
    try:
        report = mem.admin.watch()
        assert finding(report, "db_size")["reaction"]["hook"] == {"ok": True, "returncode": 0}
        sent = json.loads(out.read_text())
        assert sent["detector"] == "db_size"
        assert sent["evidence"]["limit"] == 1
        assert Path(f"{out}.env").read_text().strip() == "db_size warn"
        assert "watchdog.hook" in journal_ops(mem)
    finally:
        mem.close()


@pytest.mark.parametrize(
    ("hook", "timeout", "error"),
    [
        ("echo broken >&2; exit 3", 10.0, "broken"),
        ("sleep 30", 0.3, "timed out after 0.3 s"),
    ],
)
def test_a_hook_that_fails_or_hangs_is_journaled_and_the_pass_goes_on(
    tmp_path: Path, clock: Clock, hook: str, timeout: float, error: str
) -> None:
    mem = open_mem(
        str(tmp_path / "h.db"),
        clock,
        watch_db_bytes=1,
        watch_hook=hook,
        watch_hook_timeout=timeout,
    )
    try:
        started = time.monotonic()
        report = mem.admin.watch()
        assert time.monotonic() - started < 10
        ran = finding(report, "db_size")["reaction"]["hook"]
        assert ran["ok"] is False
        assert error in ran["error"]
        assert report["reactions"]["hook_failed"] == 1
        (entry,) = [e for e in mem.admin.watch_journal() if e["op"] == "watchdog.hook"]
        assert entry["entry"]["ok"] is False
        assert error in entry["entry"]["outcome"]["error"]
        assert mem.admin.audit_verify("ops")["ops"].ok  # the journal is a sound audit chain
    finally:
        mem.close()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("watch_wal_bytes", -1, "watch_wal_bytes must be 0 or more"),
        ("watch_every", "soon", "watch_every must be a number"),
        ("watch_hook_timeout", 0, "watch_hook_timeout must be more than 0"),
        ("watch_bank", "_ops", "watch_bank '_ops' is not a valid id"),
        ("watch_hook", "  ", "watch_hook must be a shell command"),
    ],
)
def test_a_bad_watchdog_setting_names_itself(
    tmp_path: Path, key: str, value: Any, message: str
) -> None:
    with pytest.raises(mneme.InvalidInput, match=message):
        mneme.Memory.open(str(tmp_path / "x.db"), embedder=HashingEmbedder(), **{key: value})
    assert not (tmp_path / "x.db").exists()
