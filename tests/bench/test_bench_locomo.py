"""The LoCoMo benchmark's loader and scoring, on tiny hand-made samples (no model, no store)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

# The benchmark package lives at the repository root, next to src/ (python -m pytest adds it;
# a bare `pytest` only adds tests/).
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from bench.locomo import data  # noqa: E402
from bench.locomo.baselines import BM25Index, tokenize, word_tokenize  # noqa: E402
from bench.locomo.run import hits_to_turns, retain_items  # noqa: E402
from bench.locomo.scoring import (  # noqa: E402
    all_at,
    first_unique,
    hit_at,
    percentile,
    recall_at,
    score_question,
    summarize,
)

KNOWN = ["D1:1", "D1:2", "D8:6", "D9:17", "D11:26", "D30:5"]


# -- evidence normalization ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:1"], ("D1:1",)),
        (["D8:6; D9:17"], ("D8:6", "D9:17")),  # a ;-separated list in one string
        (["D1:1 D1:2"], ("D1:1", "D1:2")),  # a space-separated list
        (["D:11:26"], ("D11:26",)),  # the stray colon
        (["D30:05"], ("D30:5",)),  # the leading zero
        (["D1:1", "D1:1", "D1:2"], ("D1:1", "D1:2")),  # a turn counts once
        ([" D1:2 ;D1:1 "], ("D1:2", "D1:1")),  # order kept, blanks ignored
    ],
)
def test_normalize_evidence_repairs_what_the_readme_lists(
    raw: list[str], expected: tuple[str, ...]
) -> None:
    ids, dropped, _ = data.normalize_evidence(raw, KNOWN)
    assert ids == expected
    assert dropped == ()


def test_normalize_evidence_drops_and_reports_ids_that_name_no_turn() -> None:
    ids, dropped, repaired = data.normalize_evidence(["D", "D10:19", "D1:1", ""], KNOWN)
    assert ids == ("D1:1",)
    assert dropped == ("D", "D10:19")
    assert repaired == 0


def test_normalize_evidence_counts_repairs() -> None:
    _, _, repaired = data.normalize_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D1:1"], KNOWN)
    assert repaired == 4  # two from the split list, one colon, one leading zero


def _sample() -> dict[str, Any]:
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_2_date_time": "9:05 am on 3 June, 2023",
            "session_2": [
                {"speaker": "Bob", "dia_id": "D2:1", "text": "Back from Lisbon."},
            ],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob!"},
                {
                    "speaker": "Bob",
                    "dia_id": "D1:2",
                    "text": "Look at this.",
                    "blip_caption": "a photo of a red bike",
                    "img_url": ["http://example.invalid/x.jpg"],
                },
            ],
            # A date with no session (conv-26 has these): ignored.
            "session_3_date_time": "10:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "Where was Bob?", "answer": "Lisbon", "evidence": ["D2:1"], "category": 4},
            {
                "question": "What did Bob show?",
                "answer": 7,
                "evidence": ["D1:2; D2:1", "D9:9"],
                "category": 1,
            },
            {"question": "Why?", "answer": "?", "evidence": [], "category": 3},
            {
                "question": "Did Ann go to Lisbon?",
                "adversarial_answer": "yes",
                "evidence": ["D2:01"],
                "category": 5,
            },
        ],
    }


def test_loader_orders_sessions_parses_dates_and_builds_turn_text() -> None:
    ds = data.from_samples([_sample()])
    (conv,) = ds.conversations
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert [t.session for t in conv.turns] == [1, 1, 2]
    assert conv.turns[0].date_time == dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    assert conv.turns[2].date_time == dt.datetime(2023, 6, 3, 9, 5, tzinfo=dt.UTC)
    assert conv.last_session_at == conv.turns[2].date_time  # the lone session_3 date is ignored
    assert conv.turns[0].indexed_text == "Ann: Hi Bob!"
    assert (
        conv.turns[1].indexed_text == "Bob: Look at this. [shares a photo: a photo of a red bike]"
    )
    assert conv.turns[1].source_id == "conv-x:D1:2"


def test_loader_normalizes_evidence_and_reports_drops_and_empties() -> None:
    ds = data.from_samples([_sample()])
    qs = ds.questions
    assert qs[0].evidence == ("conv-x:D2:1",)
    assert qs[1].evidence == ("conv-x:D1:2", "conv-x:D2:1")
    assert qs[1].dropped == ("D9:9",)
    assert qs[1].answer == "7"  # integer answers become strings
    assert qs[2].evidence == ()
    assert qs[3].evidence == ("conv-x:D2:1",)  # leading zero
    assert qs[3].answer == "yes"  # category 5 carries adversarial_answer
    rep = ds.report
    assert (rep.conversations, rep.turns, rep.questions) == (1, 3, 4)
    assert rep.dropped == (("conv-x", 1, "D9:9"),)
    assert rep.empty_evidence == (("conv-x", 2, 3),)


def test_dia_ids_are_keyed_per_conversation() -> None:
    other = _sample()
    other["sample_id"] = "conv-y"
    ds = data.from_samples([_sample(), other])
    ids = [t.source_id for c in ds.conversations for t in c.turns]
    assert len(ids) == len(set(ids)) == 6


def test_retain_items_carry_ids_times_and_metadata() -> None:
    (conv,) = data.from_samples([_sample()]).conversations
    items = retain_items(conv)
    assert [i["source_id"] for i in items] == ["conv-x:D1:1", "conv-x:D1:2", "conv-x:D2:1"]
    assert items[2]["occurred_at"] == dt.datetime(2023, 6, 3, 9, 5, tzinfo=dt.UTC)
    assert items[2]["bank"] == "conv-x"
    assert items[2]["session"] == "conv-x:S2"
    assert items[1]["metadata"]["speaker"] == "Bob"


def test_the_real_file_matches_its_readme() -> None:
    if not data.DEFAULT_DATA.is_file():
        pytest.skip(f"{data.DEFAULT_DATA} is not on this machine")
    ds = data.load(data.DEFAULT_DATA)
    rep = ds.report
    assert (rep.conversations, rep.turns, rep.questions) == (5, 2760, 999)
    assert len(rep.empty_evidence) == 2
    assert {(s, tok) for s, _, tok in rep.dropped} == {("conv-42", "D10:19"), ("conv-42", "D")}
    scored = [q for q in ds.questions if q.evidence and q.category in data.HEADLINE_CATEGORIES]
    assert len(scored) == 760


# -- scoring ----------------------------------------------------------------------------------


def test_recall_is_fractional_and_cut_at_k() -> None:
    ev = ["a", "b", "c", "d"]
    ranked = ["x", "a", "y", "c"]
    assert recall_at(ev, ranked, 1) == 0.0
    assert recall_at(ev, ranked, 2) == 0.25
    assert recall_at(ev, ranked, 4) == 0.5
    assert recall_at(ev, ranked, 20) == 0.5
    assert hit_at(ev, ranked, 1) == 0.0
    assert hit_at(ev, ranked, 2) == 1.0
    assert all_at(ev, ranked, 4) == 0.0
    assert all_at(["a", "c"], ranked, 4) == 1.0


def test_recall_of_empty_evidence_is_refused_not_perfect() -> None:
    with pytest.raises(ValueError, match="skip"):
        recall_at([], ["a"], 10)


def test_a_turn_counts_once() -> None:
    assert first_unique(["a", "a", "b", "a", "c"]) == ["a", "b", "c"]
    assert first_unique(["a", "a", "b", "c"], 2) == ["a", "b"]
    # Duplicates in a ranking do not push evidence out of the top k.
    s = score_question(4, ["b"], ["a", "a", "b"])
    assert s.recall[2] == 1.0


def test_summary_is_question_weighted_over_categories_one_to_four() -> None:
    rows = [
        score_question(1, ["a"], ["a"]),  # 1.0
        score_question(4, ["a"], ["x"]),  # 0.0
        score_question(4, ["a"], ["x"]),  # 0.0
        score_question(4, ["a", "b"], ["a"]),  # 0.5
        score_question(5, ["a"], ["a"]),  # category 5: reported apart, not in the headline
    ]
    s: dict[str, Any] = summarize(rows)
    assert s["headline"]["n"] == 4
    assert s["headline"]["recall@10"] == pytest.approx(1.5 / 4)  # not the macro mean 0.667
    assert s["category_1"]["recall@10"] == 1.0
    assert s["category_4"]["recall@10"] == pytest.approx(0.5 / 3)
    assert s["category_5"]["n"] == 1
    assert s["headline"]["hit@10"] == pytest.approx(2 / 4)
    assert s["headline"]["all@10"] == pytest.approx(1 / 4)
    assert s["curve"][1] == pytest.approx(1.5 / 4)


def test_percentile_matches_numpy() -> None:
    xs = [5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0]
    for p in (0, 50, 95, 99, 100):
        assert percentile(xs, p) == pytest.approx(float(np.percentile(xs, p)))
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)


def test_hits_map_to_their_evidence_turns_first_unique() -> None:
    hits = [
        SimpleNamespace(evidence_source_ids=("c:D1:1",)),
        SimpleNamespace(evidence_source_ids=("c:D1:1", "c:D2:2")),  # a deduplicated unit
        SimpleNamespace(evidence_source_ids=("c:D3:3",)),
    ]
    assert hits_to_turns(hits) == ["c:D1:1", "c:D2:2", "c:D3:3"]
    assert hits_to_turns(hits, 2) == ["c:D1:1", "c:D2:2"]


# -- the BM25 floor ---------------------------------------------------------------------------


def test_bm25_tokenizer_is_plain_lowercase_whitespace_split() -> None:
    assert tokenize("Ann: I LOVE Lisbon!") == ["ann:", "i", "love", "lisbon!"]
    assert word_tokenize("Ann: I LOVE Lisbon!") == ["ann", "i", "love", "lisbon"]


def test_bm25_ranks_the_matching_turn_first() -> None:
    index = BM25Index(
        ["t1", "t2", "t3", "t4"],
        ["Ann: hello there", "Bob: I moved to lisbon last year", "Ann: nice", "Bob: ok then"],
    )
    assert index.search("when did bob move to lisbon", 2)[0] == "t2"
