"""The span-end bench reads SGD's slot names as truth and mneme's reading of the span."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.sgd.names import is_name_span
from bench.sgd.roles import _read, _truth, main


def test_slot_names_say_which_end_a_value_fills() -> None:
    assert _truth("return_date") == "end"
    assert _truth("pickup_date") == "start"
    assert _truth("appointment_time") == "moment"
    assert _truth("city") is None


def test_the_reading_is_the_role_of_the_value_under_the_span() -> None:
    text = "I'm leaving on the 3rd from Boston, returning on the 9th."
    assert _read(text, "the 3rd") == "moment"
    assert _read(text, "the 9th") == "end"
    assert _read("I need it until March 9th.", "March 9th") == "end"
    assert _read("I need it from March 9th.", "March 9th") == "start"
    assert _read("I need it in Boston.", "Boston") is None


def test_a_run_reports_both_splits_without_writing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["--no-write", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| dev | end |" in out
    assert "| test | end |" in out
    assert not list(tmp_path.iterdir())


def test_the_names_bench_scores_multi_word_capitalized_spans() -> None:
    assert is_name_span("Best Western Plus Sutter House")
    assert not is_name_span("Fresno")
    assert not is_name_span("March 9th")
    assert not is_name_span("the 9th of March")
