"""What the SGD write-path benches share: a settable clock, and how they write what they found."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class Clock:
    """The store's clock, set to each turn's time as the dialogue is replayed."""

    def __init__(self) -> None:
        self.now = dt.datetime(2019, 3, 1, 9, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        return self.now


def verdict_lines(decisions: Iterable[Any]) -> list[str]:
    """One line per write decision: verdict, the unit it was judged against, why."""
    return [f"{d.verdict.value} {d.target_id}: {d.reason}" for d in decisions]


def write_results(out: Path, stem: str, text: str, report: dict[str, Any]) -> None:
    """``<out>/<stem>.md`` (the report as printed) and ``<out>/<stem>.json`` (its numbers)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / stem
    path.with_suffix(".md").write_text(text, encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(report, indent=2), encoding="utf-8")
