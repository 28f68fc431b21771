"""The reflect bench's ceiling row: the observation that cites most of a question's evidence."""

from __future__ import annotations

from types import SimpleNamespace

from bench.locomo.reflect import _ceiling, best_covering


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
