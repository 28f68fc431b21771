"""The insight pass with an LLM (ADR 0058), on a real SQLite file against a real local
OpenAI-compatible server with scripted replies: minted categories named by the model where
its name passes the checks, pairs of memories judged for a cause conservatively, and every
failure of the model leaving the offline rules' result, with the reason recorded."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from tests.integration.background.conftest import Opener, tier
from tests.integration.llm.llm_servers import (
    SERVED_MODEL,
    Reply,
    openai_error,
    openai_json,
    openai_message,
    serve,
)

import mneme
from mneme.core.model import EdgeType

BANK = "news"
DAY = dt.datetime(2026, 6, 1, 9, tzinfo=dt.UTC)

DROUGHT = "Weeks without rain have left Iowa in a severe drought this summer."
FARMERS = "Farmers in Iowa expect the corn harvest to shrink by a third."
DRIED = "The drought in Iowa has dried out the fields."
POOR = "Farmers in Iowa expect a poor corn harvest from the dry fields."


def write(opener: Opener, *texts: str, start: int = 0) -> list[str]:
    """Memories written offline (the write path asks no model), a day apart."""
    mem = opener()
    ids = []
    for i, text in enumerate(texts, start=start):
        r = mem.retain(
            text, bank=BANK, agent="a1", occurred_at=DAY + dt.timedelta(days=i),
            source_id=f"s{i}", session=f"session-{i}",
        )  # fmt: skip
        ids.append(r.memory_ids[0])
    mem.close()
    return ids


def names(*pairs: tuple[str, str]) -> Reply:
    return openai_json({"names": [{"phrase": p, "name": n} for p, n in pairs]})


def verdict(causes: bool, direction: str, confidence: float) -> Reply:
    return openai_json(
        {"causes": causes, "direction": direction, "confidence": confidence, "reason": "r"}
    )


def vocabulary(mem: mneme.Memory) -> dict[str, Any]:
    return {c.name: c for c in mem.insights.categories(BANK)}


def because(mem: mneme.Memory, unit_id: str) -> list[Any]:
    return [e for e in mem.graph(unit_id).edges if e.type == EdgeType.BECAUSE]


# -- naming ----------------------------------------------------------------------------------


def test_minted_categories_take_the_llms_names_that_pass_and_keep_the_phrase(opener, server):
    drought, farmers = write(opener, DROUGHT, FARMERS)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(
        names(
            ("drought", "severe drought"),  # grounded: renamed, "drought" kept as an alias
            ("week", "general topic"),  # broad
            ("rain", "weather"),  # a hypernym the memory does not say
            ("summer", "Summer!"),  # not letters
            ("harvest", "corn harvests"),  # singularised
            ("farmer", "corn harvest"),  # folds into the category just renamed
        )
    )
    report = mem.insights.run(BANK, agent="me")
    cat = report.categorized
    assert dict(cat.named) == {
        "drought": "severe drought",
        "harvest": "corn harvest",
        "farmer": "corn harvest",
    }
    refused = dict(cat.refused)
    assert "too broad" in refused["week"]
    assert "names nothing the memory says" in refused["rain"]
    assert "not words of letters" in refused["summer"]
    assert cat.naming_fallback is None
    vocab = vocabulary(mem)
    assert vocab["severe drought"].made_by == "llm"
    assert vocab["severe drought"].aliases == ("drought",)
    assert set(vocab["corn harvest"].aliases) == {"harvest", "farmer"}
    assert {"week", "rain", "summer"} <= set(vocab)
    assert vocab["week"].made_by == "rule"
    assert "drought" not in vocab
    assert mem.get(drought).categories.count("severe drought") == 1
    assert mem.get(farmers).categories.count("corn harvest") == 1
    assert "farmer" not in mem.get(farmers).categories
    record = [r for r in mem.admin.audit_log(BANK) if r.op == "categorize.name"][-1]
    assert record.after["model"] == SERVED_MODEL
    # The memories were shown to the model as data.
    system = server.requests[0].body["messages"][0]["content"]
    assert "data, not instructions" in system


def test_a_name_already_in_the_vocabulary_folds_the_new_category_into_it(opener, server):
    write(opener, DROUGHT, FARMERS)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names(("harvest", "corn harvest")))
    mem.insights.run(BANK, agent="me")
    mem.close()
    (later,) = write(opener, "Harvest machines in Iowa sit idle.", start=5)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    # Every phrase the rule may mint from the new memory is named "corn harvest", which it
    # grounds ("Harvest machines") and the vocabulary already holds.
    server.push(names(*((p, "corn harvest") for p in ("machine", "harvest machine", "idle"))))
    report = mem.insights.run(BANK, agent="me")
    folded = dict(report.categorized.named)
    assert set(folded.values()) == {"corn harvest"}
    assert "corn harvest" in mem.get(later).categories
    vocab = vocabulary(mem)
    assert set(folded) <= set(vocab["corn harvest"].aliases)
    assert not set(folded) & set(vocab)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (openai_message("drought, harvest, farmers"), "LLMInvalid"),
        (openai_json({"names": [{"phrase": "drought"}]}), "LLMInvalid"),
        (openai_error(500, "upstream exploded"), "LLMUnavailable"),
    ],
    ids=["malformed-json", "schema-violation", "http-500"],
)
def test_a_failing_namer_leaves_the_rules_names_with_the_reason(opener, server, reply, expected):
    drought, _ = write(opener, DROUGHT, FARMERS)
    server.default = reply
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    report = mem.insights.run(BANK, agent="me")
    cat = report.categorized
    assert cat.naming_fallback is not None
    assert expected in cat.naming_fallback
    assert cat.named == ()
    assert cat.tagged == 2
    assert {c.made_by for c in vocabulary(mem).values()} == {"rule"}
    assert "drought" in mem.get(drought).categories
    record = [r for r in mem.admin.audit_log(BANK) if r.op == "categorize.name"][-1]
    assert expected in record.after["fallback"]


def test_a_namer_that_is_down_leaves_the_rules_names(opener):
    write(opener, DROUGHT, FARMERS)
    with serve() as gone:
        url = gone.base_url
    mem = opener(llm=[tier(url)], insights_llm=True)
    report = mem.insights.run(BANK, agent="me")
    assert report.categorized.naming_fallback is not None
    assert "LLMUnavailable" in report.categorized.naming_fallback
    assert "drought" in vocabulary(mem)
    assert report.judge_fallback is None  # no pair to judge: nothing asked after the failure


def test_a_vocabulary_at_its_cap_mints_nothing_so_nothing_is_named(opener, server):
    write(opener, DROUGHT)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names(("drought", "severe drought")))
    mem.insights.run(BANK, agent="me")
    held = len(vocabulary(mem))
    mem.close()
    write(opener, FARMERS, start=3)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    store = mem._store
    with store.transaction():
        store.banks.set_bank_config(
            BANK, {"insights": {"cap": held}}, actor="owner", reason="vocabulary capped"
        )
    asked = len(server.requests)
    report = mem.insights.run(BANK, agent="me")
    assert report.categorized.minted == ()
    assert report.categorized.misses
    assert len(server.requests) == asked  # no minted category, no naming call
    assert len(vocabulary(mem)) == held


def test_the_llm_is_not_asked_unless_insights_llm_is_on(opener, server):
    write(opener, DROUGHT, FARMERS, DRIED, POOR)
    mem = opener(llm=[tier(server.base_url)])
    report = mem.insights.run(BANK, agent="me")
    assert server.requests == []
    assert report.categorized.named == ()
    assert report.judged == 0


# -- the causal judge --------------------------------------------------------------------------


def test_a_confident_yes_is_a_hypothesis_grade_because_edge_and_a_rerun_asks_nothing(
    opener, server
):
    dried, poor = write(opener, DRIED, POOR)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names(), verdict(True, "first_causes_second", 0.9))
    report = mem.insights.run(BANK, agent="me")
    assert report.judged == 1
    assert report.because == 1
    (edge,) = because(mem, poor)
    assert (edge.src, edge.dst) == (poor, dried)  # the poor harvest BECAUSE the dried fields
    assert edge.confidence == 0.5
    assert edge.metadata["grade"] == "hypothesis"
    assert edge.metadata["judge"] == "llm"
    assert edge.metadata["model"] == SERVED_MODEL
    assert edge.metadata["judge_confidence"] == 0.9
    asked = server.requests[-1].body["messages"][-1]["content"]
    assert DRIED in asked
    assert POOR in asked
    record = [r for r in mem.admin.audit_log(BANK) if r.op == "causal.judge"][-1]
    assert record.after["because"] == [[poor, dried]]
    count = len(server.requests)
    again = mem.insights.run(BANK, agent="me")
    assert again.judged == 0
    assert again.because == 0
    assert len(server.requests) == count


@pytest.mark.parametrize(
    ("causes", "direction", "confidence"),
    [(True, "first_causes_second", 0.6), (False, "neither", 0.95)],
    ids=["unsure-yes", "confident-no"],
)
def test_anything_but_a_confident_yes_makes_no_edge_and_is_not_asked_again(
    opener, server, causes, direction, confidence
):
    dried, poor = write(opener, DRIED, POOR)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names(), verdict(causes, direction, confidence))
    report = mem.insights.run(BANK, agent="me")
    assert report.judged == 1
    assert report.because == 0
    assert because(mem, poor) == []
    assert mem.get(poor).metadata["causal_judged"] == [dried]
    count = len(server.requests)
    assert mem.insights.run(BANK, agent="me").judged == 0
    assert len(server.requests) == count


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (openai_message("yes, clearly"), "LLMInvalid"),
        (openai_json({"causes": True, "confidence": 0.9, "reason": "r"}), "LLMInvalid"),
        (verdict(True, "neither", 0.9), "LLMInvalid"),
        (openai_error(500, "upstream exploded"), "LLMUnavailable"),
    ],
    ids=["malformed-json", "schema-violation", "yes-without-direction", "http-500"],
)
def test_a_failing_judge_leaves_offline_stitching_and_asks_again_later(
    opener, server, reply, expected
):
    dried, poor = write(opener, DRIED, POOR)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names())
    server.default = reply
    report = mem.insights.run(BANK, agent="me")
    assert report.judge_fallback is not None
    assert expected in report.judge_fallback
    assert because(mem, poor) == []
    assert "causal_judged" not in mem.get(poor).metadata  # not marked: asked again later
    record = [r for r in mem.admin.audit_log(BANK) if r.op == "causal.judge"][-1]
    assert expected in record.after["fallback"]
    # Later (a new process: an unreachable tier is benched for its cool-down in this one).
    mem.close()
    server.default = None
    server.push(verdict(True, "first_causes_second", 0.9))  # all tagged: no naming call
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    again = mem.insights.run(BANK, agent="me")
    assert again.judged >= 1
    assert [e.dst for e in because(mem, poor)] == [dried]


def test_offline_connectives_still_make_edges_when_the_judge_is_down(opener):
    cause, effect = write(
        opener,
        "A strike at the Iowa grain depot began on Monday.",
        "The Iowa grain depot closed because of the strike.",
    )
    with serve() as gone:
        url = gone.base_url
    mem = opener(llm=[tier(url)], insights_llm=True)
    report = mem.insights.run(BANK, agent="me")
    assert report.because == 1
    (edge,) = because(mem, effect)
    assert (edge.src, edge.dst) == (effect, cause)
    assert edge.metadata["connective"] == "because of"
    assert "judge" not in edge.metadata
    assert report.categorized.naming_fallback is not None


def test_an_empty_bank_and_a_bank_with_one_memory_ask_the_model_nothing(opener, server):
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    mem.admin.create_bank(BANK)
    empty = mem.insights.run(BANK, agent="me")
    assert empty.reason is not None
    assert "no memories" in empty.reason
    mem.close()
    write(opener, DRIED)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names())
    one = mem.insights.run(BANK, agent="me")
    assert one.judged == 0
    assert one.created == ()
    assert len(server.requests) == 1  # the naming of its categories; no pair to judge


def test_a_memory_purged_while_the_judge_answers_gets_no_edge_and_no_mark(
    opener, server, monkeypatch
):
    from mneme.llm.causal_judge import LLMCausalJudge

    dried, poor = write(opener, DRIED, POOR)
    mem = opener(llm=[tier(server.base_url)], insights_llm=True)
    server.push(names(), verdict(True, "first_causes_second", 0.9))
    original = LLMCausalJudge.judge

    def judge(self: LLMCausalJudge, first: str, second: str) -> Any:
        answer = original(self, first, second)
        mem.admin.purge(dried, actor="dpo", reason="art. 17")  # meanwhile, elsewhere
        return answer

    monkeypatch.setattr(LLMCausalJudge, "judge", judge)
    report = mem.insights.run(BANK, agent="me")
    assert report.judged == 1
    assert report.because == 0
    assert because(mem, poor) == []
    record = [r for r in mem.admin.audit_log(BANK) if r.op == "causal.judge"][-1]
    assert record.after["skipped"] == [[poor, dried, "a memory changed during the pass"]]
    assert mem.get(poor).metadata["causal_judged"] == [dried]
