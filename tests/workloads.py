"""A write workload shared by tests: a conversation whose facts repeat, update and contradict."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any


def conversation(bank: str = "team") -> list[dict[str, Any]]:
    """The packaged sample conversation, then facts that repeat, update and contradict it
    and each other, from two agents, one of them privately: every verdict kind occurs."""
    lines = resources.files("mneme.data").joinpath("sample_conversation.jsonl").read_text("utf-8")
    items: list[dict[str, Any]] = [
        {
            "text": f"{row['speaker']}: {row['text']}",
            "bank": bank,
            "agent": "scribe",
            "source_id": f"{bank}:{row['source_id']}",
            "occurred_at": row["occurred_at"],
        }
        for row in map(json.loads, lines.splitlines())
    ]
    people = ["Alice", "Bruno", "Chen", "Dara", "Emeka", "Farah"]
    cities = ["Paris", "Berlin", "Lisbon", "Osaka", "Quito", "Tartu"]
    for i in range(60):
        who = people[i % len(people)]
        where = cities[(i * 5 + i // len(people)) % len(cities)]
        text = (
            f"{who} lives in {where}."
            if i % 3
            else f"{who} moved to {where} last month and works at the {where} office."
        )
        items.append(
            {
                "text": text,
                "bank": bank,
                "agent": "scout" if i % 4 == 1 else "scribe",
                "visibility": "private" if i % 7 == 3 else "shared",
                "source_id": f"{bank}:fact-{i}",
                "occurred_at": f"2024-0{2 + i // 20}-{1 + i % 20:02d}T09:00:00+00:00",
            }
        )
        if i % 5 == 0:  # an exact repeat of an earlier fact, from the other agent
            items.append({**items[-3], "source_id": f"{bank}:again-{i}", "agent": "scout"})
    return items


def stores_per_setting(
    prefix: str, embedder: Any, key: str, values: Iterable[Any], **kw: Any
) -> Iterator[tuple[Any, Any]]:
    """One fresh store per value of one recall setting, each closed before the next opens:
    how a test shows what a knob changes (``(value, memory)`` pairs)."""
    import mneme

    for value in values:
        path = f"{prefix}.{value}"
        with mneme.Memory.open(path, embedder=embedder, recall={key: value}, **kw) as mem:
            yield value, mem


def outcome(path: Any, results: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """What a run of writes into the SQLite file at ``path`` decided and wrote: the decisions
    in order (unit ids replaced by their texts) and the units written. Two ways of writing
    the same items that should change nothing compare equal on it."""
    with sqlite3.connect(path) as con:
        text = dict(con.execute("SELECT id, text FROM units"))
        units = sorted(con.execute("SELECT text, status, visibility, agent_id FROM units"))
    decisions = [
        (d.verdict, d.text, text.get(d.target_id or ""), d.reason)
        for r in results
        for d in r.decisions
    ]
    return decisions, units
