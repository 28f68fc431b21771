"""The behaviour suite end to end: the pinned dataset, every adapter, the scoring, the report.

Behaviour only: no score of mneme is asserted here (numbers belong to the benchmark). What is
asserted is that the suite runs, that every case is valid and answerable, that the scoring of
known predictions is right, and that the suite discriminates: each reference baseline loses
cases in every dimension.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from bench.overrides import recall_overrides

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from bench.behaviour import run  # noqa: E402
from bench.behaviour.adapters.baselines import transcript, window30  # noqa: E402
from bench.behaviour.adapters.command import CommandAdapter  # noqa: E402
from bench.behaviour.adapters.mneme import MnemeAdapter  # noqa: E402
from bench.behaviour.model import (  # noqa: E402
    CASES_DIR,
    DIMENSIONS,
    PINS,
    Case,
    CaseError,
    Prediction,
    by_dimension,
    check_pins,
    load_dataset,
)
from bench.behaviour.score import score_case, summarize  # noqa: E402

EXAMPLE = _ROOT / "bench" / "behaviour" / "examples" / "transcript_command.py"


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return load_dataset()


@pytest.fixture(scope="module")
def mneme_predictions(cases: list[Case]) -> list[Prediction]:
    adapter = MnemeAdapter(embedder="hashing")
    try:
        return [adapter.predict(c) for c in cases]
    finally:
        adapter.close()


def oracle(case: Case) -> Prediction:
    exp = case.expected
    return Prediction(
        answer=" ; ".join(exp.answer),
        citations=tuple(sorted(exp.citations or ())),
        contradictions=tuple(tuple(sorted(g)) for g in exp.contradictions or ()),
    )


def test_the_pinned_dataset_has_at_least_20_valid_cases_per_dimension(cases: list[Case]) -> None:
    counts = {d: len(cs) for d, cs in by_dimension(cases).items()}
    assert set(counts) == set(DIMENSIONS)
    assert min(counts.values()) >= 20, counts
    assert len({c.id for c in cases}) == len(cases)


def test_a_modified_added_or_removed_case_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "cases"
    shutil.copytree(CASES_DIR, copy)
    check_pins(copy)
    target = copy / "tombstone.jsonl"
    target.write_bytes(target.read_bytes().replace(b"8820", b"8821", 1))
    with pytest.raises(CaseError, match=r"tombstone\.jsonl: modified"):
        load_dataset(copy)
    target.unlink()
    (copy / "extra.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(CaseError) as err:
        check_pins(copy, PINS)
    assert "tombstone.jsonl: missing" in str(err.value)
    assert "extra.jsonl: not pinned" in str(err.value)


def test_the_expected_answer_of_every_case_scores_100(cases: list[Case]) -> None:
    """The dataset is consistent: no expected phrase is also forbidden, nothing is unscored."""
    low = [c.id for c in cases if score_case(c, oracle(c)).score != 100.0]
    assert low == []


def test_an_empty_prediction_scores_by_the_documented_rules(cases: list[Case]) -> None:
    for c in cases:
        s = score_case(c, Prediction(""))
        exp = c.expected
        parts = []
        if exp.answer or exp.forbidden:
            parts.append(0.0 if exp.answer else 1.0)
        if exp.citations is not None:
            parts.append(0.0 if exp.citations else 1.0)
        if exp.contradictions is not None:
            parts.append(0.0 if exp.contradictions else 1.0)
        assert s.score == pytest.approx(100 * sum(parts) / len(parts)), c.id


def test_mneme_answers_every_case_with_event_ids_only(
    cases: list[Case], mneme_predictions: list[Prediction]
) -> None:
    assert len(mneme_predictions) == len(cases)
    for c, p in zip(cases, mneme_predictions, strict=True):
        known = {e.event_id for e in c.events}
        assert set(p.citations) <= known, c.id
        assert {x for g in p.contradictions for x in g} <= known, c.id
        assert not [n for n in p.notes if "failed" in n], (c.id, p.notes)
        s = score_case(c, p)
        assert 0.0 <= s.score <= 100.0
    summary = summarize(score_case(c, p) for c, p in zip(cases, mneme_predictions, strict=True))
    assert set(summary.dimensions) == set(DIMENSIONS)


def test_mneme_never_answers_with_another_agents_private_memory(
    cases: list[Case], mneme_predictions: list[Prediction]
) -> None:
    """The one behaviour the suite checks that is a hard rule of the design, not a score."""
    for c, p in zip(cases, mneme_predictions, strict=True):
        private = {
            e.event_id for e in c.events if e.visibility == "private" and e.agent != c.query.agent
        }
        assert not private & set(p.citations), c.id


@pytest.mark.parametrize("make", [transcript, window30], ids=["transcript", "window30"])
def test_each_baseline_loses_cases_in_every_dimension(cases: list[Case], make: object) -> None:
    adapter = make()  # type: ignore[operator]
    lost = dict.fromkeys(DIMENSIONS, 0)
    for c in cases:
        if score_case(c, adapter.predict(c)).score < 100.0:
            lost[c.dimension] += 1
    assert all(n >= 1 for n in lost.values()), lost


def test_the_command_adapter_scores_an_external_system_like_the_in_process_one(
    cases: list[Case],
) -> None:
    sample: Sequence[Case] = [cs[0] for cs in by_dimension(cases).values()]
    command = CommandAdapter([sys.executable, str(EXAMPLE)])
    direct = transcript()
    for c in sample:
        via_command = command.predict(c)
        assert via_command.unsupported == (), via_command.notes
        assert score_case(c, via_command) == score_case(c, direct.predict(c))


def test_a_failing_command_scores_zero_and_says_why(cases: list[Case]) -> None:
    broken = CommandAdapter([sys.executable, "-c", "print('not json')"])
    p = broken.predict(cases[0])
    assert score_case(cases[0], p).score == 0.0
    assert "bad prediction" in p.notes[0]


def test_the_runner_writes_dated_markdown_and_json(tmp_path: Path) -> None:
    assert (
        run.main(["--adapter", "transcript", "--adapter", "window30", "--out", str(tmp_path)]) == 0
    )
    md = next(tmp_path.glob("behaviour-*.md")).read_text(encoding="utf-8")
    data = json.loads(next(tmp_path.glob("behaviour-*.json")).read_text(encoding="utf-8"))
    assert "| **overall** (mean of dimensions) |" in md
    assert "transcript †" in md
    assert data["adapters"]["window30"]["label"] == "reference_baseline_not_a_product"
    assert len(data["adapters"]["transcript"]["cases"]) == data["dataset"]["cases"]


def test_a_recall_override_is_an_ablation_named_in_the_result(tmp_path: Path) -> None:
    parsed = recall_overrides(["focus_weight=0", "present_window=0", "present_untyped=off"])
    assert parsed == {"focus_weight": 0.0, "present_window": 0, "present_untyped": False}
    assert [type(v) for v in parsed.values()] == [float, int, bool]
    with pytest.raises(ValueError, match="not true or false"):
        recall_overrides(["present_untyped=maybe"])
    with pytest.raises(ValueError, match="KEY=VALUE"):
        recall_overrides(["graph_kinds=EDGE"])  # not a number or a truth value
    with pytest.raises(ValueError, match="KEY=VALUE"):
        recall_overrides(["no_such_knob=1"])
    with pytest.raises(ValueError, match="not a number"):
        recall_overrides(["focus_weight=off"])
    with pytest.raises(SystemExit) as bad:  # argparse's usage error
        run.main(["--recall", "focus_weight", "--out", str(tmp_path)])
    assert bad.value.code == 2
    args = ["--adapter", "transcript", "--recall", "focus_weight=0", "--recall", "rrf_k=20.5"]
    assert run.main([*args, "--out", str(tmp_path)]) == 0
    (md,) = tmp_path.glob("behaviour-*-focus_weight=0-rrf_k=20.5.md")
    assert "`focus_weight=0`, `rrf_k=20.5`" in md.read_text(encoding="utf-8")
    (js,) = tmp_path.glob("behaviour-*-focus_weight=0-rrf_k=20.5.json")
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["mneme"]["recall"] == {"focus_weight": 0.0, "rrf_k": 20.5}
