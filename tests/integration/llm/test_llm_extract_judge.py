"""LLMExtractor and LLMJudge over real scripted OpenAI and Anthropic servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.integration.llm.llm_servers import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    FakeServer,
    Reply,
    anthropic_tool,
    openai_json,
    serve,
)

from mneme.core.model import EdgeType, Network, UnitType, Verdict
from mneme.errors import InvalidInput
from mneme.llm import (
    AnthropicChat,
    ExtractedFact,
    FallbackChain,
    LLMExtractor,
    LLMInvalid,
    LLMJudge,
    LLMUnavailable,
    OpenAIChat,
    Relation,
)

ANCHOR = "2024-03-05T10:00:00+00:00"
FAST: dict[str, Any] = {"timeout": 0.3, "max_retries": 0, "backoff": 0.0}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serve() as fake:
        yield fake


@pytest.fixture
def openai(server: FakeServer) -> Iterator[OpenAIChat]:
    with OpenAIChat(server.base_url + "/v1", "gpt-test", OPENAI_KEY, **FAST) as llm:
        yield llm


def fact(
    text: str, type_: str = "experience", network: str = "experience", **more: Any
) -> dict[str, Any]:
    return {"text": text, "type": type_, "network": network, **more}


# Extraction -------------------------------------------------------------------------------


def test_a_because_sentence_becomes_two_linked_facts(server, openai):
    server.push(
        openai_json(
            {
                "facts": [
                    fact(
                        "Alice quit her job at Acme.",
                        entities=["Alice", "Acme", "Alice"],
                        occurred_start="2024-03-04",
                        occurred_end=None,
                        relations=[{"type": "because", "target_index": 1}],
                    ),
                    fact("Alice's manager at Acme shouted at her.", "fact", "world"),
                ]
            }
        )
    )
    facts = LLMExtractor(openai).extract(
        "I quit my job yesterday because my manager shouted at me.",
        anchor_iso=ANCHOR,
        speaker="Alice",
    )
    assert list(facts) == [
        ExtractedFact(
            "Alice quit her job at Acme.",
            UnitType.EXPERIENCE,
            Network.EXPERIENCE,
            ("Alice", "Acme"),
            "2024-03-04",
            None,
            (Relation(EdgeType.BECAUSE, 1),),
        ),
        ExtractedFact("Alice's manager at Acme shouted at her.", UnitType.FACT, Network.WORLD),
    ]
    assert facts.errors == ()
    assert facts.provider == "openai:gpt-test"
    system, user = server.requests[0].body["messages"]
    assert "BECAUSE" in system["content"]
    assert "atomic" in system["content"]
    assert ANCHOR in user["content"]
    assert "Speaker: Alice" in user["content"]
    assert "I quit my job yesterday because my manager shouted at me." in user["content"]


def test_facts_with_unknown_type_or_network_are_dropped_and_relations_remapped(server, openai):
    server.push(
        openai_json(
            {
                "facts": [
                    fact("Bob likes tea.", "gossip", "world"),
                    fact("Bob lives in Porto.", "fact", "hearsay"),
                    fact("Bob moved to Porto.", relations=[{"type": "CAUSES", "target_index": 3}]),
                    fact(
                        "Bob got a job in Porto.",
                        relations=[
                            {"type": "BECAUSE", "target_index": 0},
                            {"type": "TELEPORTS", "target_index": 2},
                            {"type": "IMPLIES", "target_index": 3},
                        ],
                    ),
                ]
            }
        )
    )
    facts = LLMExtractor(openai).extract("...", anchor_iso=ANCHOR, speaker=None)
    assert [f.text for f in facts] == ["Bob moved to Porto.", "Bob got a job in Porto."]
    assert facts[0].relations == (Relation(EdgeType.CAUSES, 1),)  # index 3 is now 1
    assert facts[1].relations == ()
    joined = " | ".join(facts.errors)
    assert "fact 0 dropped: unknown type 'gossip'" in joined
    assert "fact 1 dropped: unknown network 'hearsay'" in joined
    assert "relation type 'TELEPORTS' unknown" in joined
    assert "BECAUSE relation to 0 points at no kept fact" in joined
    assert "IMPLIES relation to 3 points at itself" in joined
    assert "Speaker: unknown" in server.requests[0].body["messages"][1]["content"]


def test_a_bad_time_is_dropped_but_the_fact_is_kept(server, openai):
    server.push(
        openai_json(
            {
                "facts": [
                    fact("Carol ran a marathon.", occurred_start="last spring"),
                    fact("Dan flew home.", occurred_start="2024-03-04", occurred_end="2024-03-01"),
                ]
            }
        )
    )
    facts = LLMExtractor(openai).extract("...", anchor_iso=ANCHOR, speaker="Carol")
    assert facts[0].occurred_start is None
    assert (facts[1].occurred_start, facts[1].occurred_end) == ("2024-03-04", None)
    assert len(facts.errors) == 2


def test_nothing_worth_remembering_is_an_empty_list(server, openai):
    server.push(openai_json({"facts": []}))
    assert LLMExtractor(openai).extract("hi!", anchor_iso=ANCHOR, speaker=None) == []


def test_facts_given_but_none_valid_raise_so_the_caller_falls_back(server, openai):
    server.push(openai_json({"facts": [fact("x", "gossip", "world"), fact(" ", "fact", "world")]}))
    with pytest.raises(LLMInvalid, match="2 fact\\(s\\), none valid"):
        LLMExtractor(openai).extract("...", anchor_iso=ANCHOR, speaker=None)


def test_a_schema_invalid_extraction_raises_invalid(server, openai):
    server.default = openai_json({"facts": {"text": "not a list"}})
    with pytest.raises(LLMInvalid, match=r"\$\.facts: expected array, got object"):
        LLMExtractor(openai).extract("...", anchor_iso=ANCHOR, speaker=None)
    assert len(server.requests) == 2  # the answer and one repair re-ask


def test_an_unreachable_model_raises_unavailable_from_extract(server, openai):
    server.default = Reply(500, {"error": "down"})
    with pytest.raises(LLMUnavailable):
        LLMExtractor(openai).extract("...", anchor_iso=ANCHOR, speaker=None)


def test_extraction_through_anthropic_uses_the_schema_as_tool_input(server):
    server.push(
        anthropic_tool({"facts": [fact("Eve prefers green tea.", "preference", "opinion")]})
    )
    with AnthropicChat("claude-test", ANTHROPIC_KEY, base_url=server.base_url, **FAST) as llm:
        facts = LLMExtractor(llm).extract("I prefer green tea", anchor_iso=ANCHOR, speaker="Eve")
    assert facts == [ExtractedFact("Eve prefers green tea.", UnitType.PREFERENCE, Network.OPINION)]
    tool = server.requests[0].body["tools"][0]
    assert tool["input_schema"]["required"] == ["facts"]


# Judging ------------------------------------------------------------------------------------

NEIGHBOURS = [("u1", "Alice lives in Lisbon."), ("u2", "Alice works at Acme.")]


def verdict(kind: str, target: str | None, confidence: float = 0.9) -> dict[str, Any]:
    return {
        "verdict": kind,
        "target_id": target,
        "reason": "moved  house",
        "confidence": confidence,
    }


def test_a_valid_verdict_about_a_neighbour_is_returned(server, openai):
    server.push(openai_json(verdict("SUPERSEDE", "u1")))
    result = LLMJudge(openai).judge("Alice lives in Porto now.", NEIGHBOURS)
    assert (result.verdict, result.target_id, result.reason) == (
        Verdict.SUPERSEDE,
        "u1",
        "moved house",
    )
    assert result.confidence == 0.9
    assert result.provider == "openai:gpt-test"
    user = server.requests[0].body["messages"][1]["content"]
    assert "Alice lives in Porto now." in user
    assert json.dumps({"id": "u2", "text": "Alice works at Acme."}) in user


def test_an_unknown_verdict_never_comes_back(server, openai):
    server.default = openai_json(verdict("MERGE", "u1"))
    with pytest.raises(LLMInvalid, match="'MERGE' is not one of"):
        LLMJudge(openai).judge("Alice lives in Porto.", NEIGHBOURS)


def test_a_target_that_is_not_a_neighbour_is_invalid(server, openai):
    server.push(openai_json(verdict("UPDATE", "u9")))
    with pytest.raises(LLMInvalid, match="target_id 'u9' is not one of the neighbours"):
        LLMJudge(openai).judge("Alice lives in Porto.", NEIGHBOURS)


def test_a_verdict_that_needs_a_target_without_one_is_invalid(server, openai):
    server.push(openai_json(verdict("CONTRADICT", None)))
    with pytest.raises(LLMInvalid, match="CONTRADICT needs a target_id"):
        LLMJudge(openai).judge("Alice lives in Porto.", NEIGHBOURS)


def test_a_confidence_out_of_range_is_invalid(server, openai):
    server.default = openai_json(verdict("NOOP", "u1", confidence=1.5))
    with pytest.raises(LLMInvalid, match="above the maximum 1"):
        LLMJudge(openai).judge("Alice lives in Lisbon.", NEIGHBOURS)


def test_add_drops_a_stray_target(server, openai):
    server.push(openai_json(verdict("ADD", "u1")))
    result = LLMJudge(openai).judge("Alice has a cat.", NEIGHBOURS)
    assert (result.verdict, result.target_id) == (Verdict.ADD, None)


def test_no_neighbours_is_add_without_asking(server, openai):
    result = LLMJudge(openai).judge("Alice has a cat.", [])
    assert result.verdict is Verdict.ADD
    assert server.requests == []


def test_duplicate_neighbour_ids_are_refused(server, openai):
    with pytest.raises(InvalidInput, match="distinct"):
        LLMJudge(openai).judge("x", [("u1", "a"), ("u1", "b")])


def test_judging_through_a_chain_keeps_the_trail(server):
    with serve() as backup:
        backup.push(anthropic_tool(verdict("NOOP", "u2")))
        primary = OpenAIChat(server.base_url + "/v1", "gpt-test", OPENAI_KEY, **FAST)
        secondary = AnthropicChat("claude-test", ANTHROPIC_KEY, base_url=backup.base_url, **FAST)
        server.default = Reply(502, {"error": "bad gateway"})
        with FallbackChain([primary, secondary]) as chain:
            result = LLMJudge(chain).judge("Alice works at Acme.", NEIGHBOURS)
    assert (result.verdict, result.target_id) == (Verdict.NOOP, "u2")
    assert result.provider == "anthropic:claude-test"
    assert result.errors[0].startswith("openai:gpt-test: LLMUnavailable: ")
