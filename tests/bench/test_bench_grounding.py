"""The claim-check bench (``bench.locomo.grounding``) on a hand-made conversation."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.locomo import data  # noqa: E402
from bench.locomo.grounding import KINDS, cases, measure, render  # noqa: E402

WHEN = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)


def turn(dia_id: str, speaker: str, text: str) -> data.Turn:
    return data.Turn("conv-x", dia_id, speaker, text, 1, WHEN, "8 May 2023")


CONVERSATION = data.Conversation(
    "conv-x",
    ("Caroline", "Melanie"),
    (
        turn("D1:1", "Caroline", "I went to the support group on 7 May with 3 friends."),
        turn("D1:2", "Melanie", "Painting with my kids is my favourite way to relax."),
        turn("D1:3", "Caroline", "Counselling courses start next month, I am excited."),
    ),
    (),
)


def test_every_kind_of_claim_is_made_and_the_check_sorts_them_as_it_should():
    made = list(cases([CONVERSATION]))
    assert {c.kind for c in made} == set(KINDS)
    result = measure([CONVERSATION])
    kept = result["kept"]
    assert isinstance(kept, dict)
    for disposition in ("literal", "compressed"):
        rows = kept[disposition]
        assert rows["verbatim"][0] == rows["verbatim"][1] == 3
        assert rows["part"][0] == rows["part"][1]
        assert rows["name swap"][0] == 0
        assert rows["number change"] == [0, 1]
        assert rows["wrong citation"][0] == 0
    assert kept["literal"]["added place"][0] == 0
    table = render(result)
    assert "| number change | 1 | 0/1 (0.000) | 0/1 (0.000) |" in table
