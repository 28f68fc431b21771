"""The LoCoMo dating bench: answers read as days, occurrences judged against them (no store)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.locomo.dating import _days, gold_span, judge  # noqa: E402

D = dt.date


@pytest.mark.parametrize(
    ("answer", "span"),
    [
        ("7 May 2023", (D(2023, 5, 7), D(2023, 5, 7))),
        ("19 January, 2023", (D(2023, 1, 19), D(2023, 1, 19))),
        ("Januarty 5, 2023", (D(2023, 1, 5), D(2023, 1, 5))),  # the data set's spelling
        ("June 2023", (D(2023, 6, 1), D(2023, 6, 30))),
        ("February, 2023", (D(2023, 2, 1), D(2023, 2, 28))),
        ("2022", (D(2022, 1, 1), D(2022, 12, 31))),
        ("In 2013", (D(2013, 1, 1), D(2013, 12, 31))),
        # 25 May 2023 is a Thursday: the Sunday before is the 21st
        ("The sunday before 25 May 2023", (D(2023, 5, 21), D(2023, 5, 21))),
        ("The Friday before 14September, 2023", (D(2023, 9, 8), D(2023, 9, 8))),
        # loose: the Monday of the week before through the day before
        ("The week before 9 June 2023", (D(2023, 5, 29), D(2023, 6, 8))),
        ("the week before March 13th, 2023.", (D(2023, 3, 6), D(2023, 3, 12))),
        ("The week of 23 August 2023", (D(2023, 8, 21), D(2023, 8, 27))),
        ("The weekend before 17 July 2023", (D(2023, 7, 15), D(2023, 7, 16))),
        ("two weekends before 17 July 2023", (D(2023, 7, 8), D(2023, 7, 9))),
        ("The weekend after 3June, 2022.", (D(2022, 6, 4), D(2022, 6, 5))),
        ("last week of September 2023", (D(2023, 9, 24), D(2023, 9, 30))),
        ("the summer of 2022", (D(2022, 6, 1), D(2022, 8, 31))),
    ],
)
def test_an_answer_is_read_as_the_days_it_names(answer: str, span: tuple[D, D]) -> None:
    assert gold_span(answer) == span


@pytest.mark.parametrize("answer", ["4 years", "10 years ago", "Since 2016", "UK", "13 August"])
def test_an_answer_naming_no_dated_day_is_left_out(answer: str) -> None:
    assert gold_span(answer) is None


def test_an_occurrence_is_half_open_and_judged_within_overlapping_or_outside() -> None:
    utc = dt.UTC
    yesterday = SimpleNamespace(
        occurred_start=dt.datetime(2023, 5, 7, tzinfo=utc),
        occurred_end=dt.datetime(2023, 5, 8, tzinfo=utc),
    )
    assert _days(yesterday, D(2023, 5, 8)) == (D(2023, 5, 7), D(2023, 5, 7))
    undated = SimpleNamespace(occurred_start=None, occurred_end=None)
    assert _days(undated, D(2023, 5, 8)) == (D(2023, 5, 8), D(2023, 5, 8))
    gold = (D(2023, 5, 7), D(2023, 5, 7))
    assert judge(gold, [(D(2023, 5, 8), D(2023, 5, 8)), (D(2023, 5, 7), D(2023, 5, 7))]) == "right"
    assert judge(gold, [(D(2023, 5, 1), D(2023, 5, 31))]) == "overlaps"
    assert judge(gold, [(D(2023, 5, 8), D(2023, 5, 8))]) == "wrong"
    assert judge(gold, []) == "undated"
