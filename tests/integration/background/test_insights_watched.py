"""The background insight stage is one the watchdog watches: what its passes write is counted
for the flood detector, which may pause the stage (ADR 0054, ADR 0056)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.insights.run import feed, load

import mneme


def test_background_insight_passes_are_counted_for_the_flood_detector(
    tmp_path: Path, minilm: Any
) -> None:
    chain = [r for r in load() if r["fixture"] == "chain"]
    with mneme.Memory.open(tmp_path / "w.db", embedder=minilm) as mem:
        feed(mem, chain, "b")
        mem.reconfigure(mem.config.replace(insights_every=0.05))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            stage = mem.admin.check()["stages"]["insights"]
            if stage["produced"]:
                break
            time.sleep(0.05)
        assert stage["produced"] == 1  # the chain's one insight, written by a background pass
        assert stage["runs"] >= 1
        assert [len(i.metadata["insight"]["witnesses"]) for i in mem.insights.list("b")] == [5]
        assert mem.admin.resume_stage("insights", actor="ops") is False  # it was not paused
