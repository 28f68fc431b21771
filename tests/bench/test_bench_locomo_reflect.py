"""The reflect bench's ceiling row: the observation that cites most of a question's evidence."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any, cast

from bench.locomo.reflect import _ceiling, best_covering, measure, random_groups
from bench.locomo.run import ReplayClock


def unit(uid: str, *turns: str) -> SimpleNamespace:
    return SimpleNamespace(id=uid, evidence=list(turns))


def test_the_observation_citing_most_evidence_leads() -> None:
    wide = unit("o1", "D1:1", "D2:3", "D3:4", "D9:9")
    narrow = unit("o2", "D2:3", "D3:4")
    other = unit("o3", "D5:5")
    assert best_covering([wide, narrow, other], {"D2:3", "D3:4"}) == ["D2:3", "D3:4"]
    assert best_covering([wide, narrow, other], {"D1:1", "D2:3", "D3:4"}) == wide.evidence


def test_no_observation_citing_evidence_leads_nothing() -> None:
    assert best_covering([unit("o1", "D5:5")], {"D1:1"}) == []
    assert best_covering([], {"D1:1"}) == []


def test_the_ceiling_line_is_shown_only_when_measured() -> None:
    assert _ceiling({}) == []
    line = _ceiling(
        {
            "ceiling_turn_budget": {
                "headline": 0.8,
                "category_1": 0.7,
                "category_2": 0.9,
                "category_3": 0.5,
                "category_4": 0.85,
            }
        }
    )
    assert len(line) == 1
    assert "c1 0.700" in line[0]
    assert "not a system" in line[0]


def test_the_control_line_follows_the_ceiling_when_measured() -> None:
    per = {"headline": 0.8, "category_1": 0.7, "category_2": 0.9, "category_3": 0.5}
    lines = _ceiling(
        {
            "ceiling_turn_budget": {**per, "category_4": 0.85},
            "control_turn_budget": {**per, "category_1": 0.4, "category_4": 0.8},
        }
    )
    assert len(lines) == 2
    assert "c1 0.400" in lines[1]
    assert "random groups" in lines[1]


def test_random_groups_keep_the_sizes_and_the_turns() -> None:
    held = [unit("o2", "D1:1", "D2:3", "D3:4"), unit("o1", "D5:5", "D1:1"), unit("o3", "D9:9")]
    groups = random_groups(held, seed=3)
    assert sorted(len(g.evidence) for g in groups) == [1, 2, 3]
    pool = {"D1:1", "D2:3", "D3:4", "D5:5", "D9:9"}
    assert all(set(g.evidence) <= pool and len(set(g.evidence)) == len(g.evidence) for g in groups)
    assert random_groups(held, seed=3) == groups  # seeded: the same control every run
    assert random_groups(list(reversed(held)), seed=3) == groups  # not the listing's order
    assert random_groups([]) == []


class _Store:
    """A store as the bench reads it: one bank, an observation citing two turns."""

    def __init__(self) -> None:
        self.observation = SimpleNamespace(
            id="o1", evidence=["D1:1", "D3:2"], network="observation"
        )

    def list_memories(self, **_: object) -> list[SimpleNamespace]:
        return [self.observation, SimpleNamespace(id="u1", evidence=["D2:1"], network="world")]

    def recall(self, *_: object, **__: object) -> list[SimpleNamespace]:
        return [
            SimpleNamespace(evidence_source_ids=["D2:1"], unit=SimpleNamespace(network="world")),
            SimpleNamespace(evidence_source_ids=["D1:1"], unit=SimpleNamespace(network="world")),
        ]


def test_measure_reports_the_ceiling_beside_the_pool() -> None:
    questions = [
        SimpleNamespace(question="Where?", category=c, evidence=["D1:1", "D3:2"])
        for c in (1, 2, 3, 4)
    ]
    conv = SimpleNamespace(
        sample_id="conv-1",
        questions=questions,
        last_session_at=dt.datetime(2023, 5, 1, tzinfo=dt.UTC),
    )
    dataset = cast(Any, SimpleNamespace(conversations=[conv]))
    result = measure(_Store(), dataset, ReplayClock(), ceiling=True)
    assert result["turn_budget"]["category_1"] == 0.5  # D1:1 found, D3:2 not
    assert result["ceiling_turn_budget"]["category_1"] == 1.0  # the observation cites both
    # one random group of two from the only two cited turns: the same turns
    assert result["control_turn_budget"]["category_1"] == 1.0
    assert result["observations_in_top10"] == 0.0
