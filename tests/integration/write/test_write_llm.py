"""The write path with an LLM configured, against a real local OpenAI-compatible server with
scripted replies: extraction with relations, validated verdicts, fallbacks that lose nothing,
and a read path that never calls the model."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.llm.llm_servers import (
    OPENAI_KEY,
    SERVED_MODEL,
    FakeServer,
    Reply,
    openai_json,
    serve,
)

import mneme
from mneme.core.model import EdgeType, Verdict

T0 = dt.datetime(2025, 3, 3, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serve() as s:
        yield s


@pytest.fixture
def llm_mem(tmp_path: Path, server: FakeServer) -> Iterator[mneme.Memory]:
    tier = {
        "provider": "openai",
        "model": SERVED_MODEL,
        "base_url": server.base_url + "/v1",
        "api_key_env": "MNEME_TEST_KEY",
        "timeout": 2.0,
        "max_retries": 0,
    }
    mem = mneme.Memory.open(
        str(tmp_path / "llm.db"), embedder="hashing", llm=[tier], env={"MNEME_TEST_KEY": OPENAI_KEY}
    )
    yield mem
    mem.close()


def facts(*items: dict[str, object]) -> Reply:
    return openai_json({"facts": list(items)})


def test_the_llm_splits_a_because_into_two_facts_and_an_edge(llm_mem, server):
    server.push(
        facts(
            {
                "text": "Sam missed the standup on 3 March 2025.",
                "type": "experience",
                "network": "world",
                "entities": ["Sam"],
                "occurred_start": "2025-03-03",
                "relations": [{"type": "BECAUSE", "target_index": 1}],
            },
            {
                "text": "Sam's train was cancelled on 3 March 2025.",
                "type": "fact",
                "network": "world",
                "entities": ["Sam"],
            },
        )
    )
    r = llm_mem.retain(
        "Sam missed the standup because his train was cancelled.",
        bank="b",
        agent="a1",
        occurred_at=T0,
    )
    assert r.metadata["extracted_by"] == "llm"
    assert len(r.memory_ids) == 2
    missed, cancelled = (llm_mem.get(i) for i in r.memory_ids)
    assert missed.text.startswith("Sam missed")
    edges = llm_mem.graph(missed.id).edges
    assert any(
        e.type == EdgeType.BECAUSE
        and e.src == missed.id
        and e.dst == cancelled.id
        and e.made_by == "llm"
        for e in edges
    )
    body = server.requests[0].body
    assert body["model"] == SERVED_MODEL
    assert server.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


def test_an_llm_verdict_is_validated_and_applied(llm_mem, server):
    server.push(facts({"text": "Vera lives in Oslo.", "type": "fact", "network": "world"}))
    first = llm_mem.retain("Vera lives in Oslo.", bank="b", agent="a1", occurred_at=T0)
    server.push(
        facts({"text": "Vera moved to Bergen.", "type": "fact", "network": "world"}),
        openai_json(
            {
                "verdict": "SUPERSEDE",
                "target_id": first.memory_ids[0],
                "reason": "she moved",
                "confidence": 0.9,
            }
        ),
    )
    r = llm_mem.retain(
        "Vera moved to Bergen.", bank="b", agent="a1", occurred_at=T0 + dt.timedelta(days=30)
    )
    assert r.decisions[0].verdict == Verdict.SUPERSEDE
    assert "llm" in r.decisions[0].reason
    assert llm_mem.get(first.memory_ids[0]).status == mneme.UnitStatus.SUPERSEDED


def test_an_unknown_verdict_never_reaches_the_store(llm_mem, server):
    server.push(facts({"text": "Vera lives in Oslo.", "type": "fact", "network": "world"}))
    first = llm_mem.retain("Vera lives in Oslo.", bank="b", agent="a1", occurred_at=T0)
    bad = openai_json(
        {
            "verdict": "OBLITERATE",
            "target_id": first.memory_ids[0],
            "reason": "x",
            "confidence": 0.9,
        }
    )
    server.push(
        facts({"text": "Vera lives in Tromso.", "type": "fact", "network": "world"}), bad, bad
    )  # the client re-asks once, then gives up
    r = llm_mem.retain("Vera lives in Tromso.", bank="b", agent="a1")
    assert r.decisions[0].verdict == Verdict.ADD
    assert any(q.conflict_type == "escalated" for q in r.questions)
    assert r.metadata.get("llm_errors")
    assert llm_mem.get(first.memory_ids[0]).status == mneme.UnitStatus.ACTIVE


def test_a_provider_returning_garbage_never_loses_the_callers_text(llm_mem, server):
    text = "Wim keeps the spare router in cabinet C-7."
    server.push(Reply(200, "<html>bad gateway</html>"), Reply(200, "{not json"))
    r = llm_mem.retain(text, bank="b", agent="a1")
    assert r.metadata["extracted_by"] == "rules"
    assert r.metadata.get("llm_errors")
    assert llm_mem.source(r.source_id).text == text
    hits = llm_mem.recall("Where is the spare router?", bank="b", agent="a1")
    assert hits
    assert "C-7" in hits[0].text


def test_an_unreachable_llm_falls_back_to_the_offline_engine(tmp_path):
    tier = {
        "provider": "openai",
        "model": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "K",
        "timeout": 0.5,
        "max_retries": 0,
    }
    mem = mneme.Memory.open(
        str(tmp_path / "down.db"), embedder="hashing", llm=[tier], env={"K": "secret-key"}
    )
    try:
        mem.retain("I live in Paris.", bank="b", agent="a1", occurred_at=T0)
        r = mem.retain(
            "I moved to Berlin last month.",
            bank="b",
            agent="a1",
            occurred_at=T0 + dt.timedelta(days=60),
        )
        assert any(d.verdict == Verdict.SUPERSEDE for d in r.decisions)
        assert "secret-key" not in repr(r.metadata)
    finally:
        mem.close()


def test_a_tier_without_credentials_is_skipped_with_a_warning(tmp_path):
    tier = {"provider": "anthropic", "model": "claude-x", "api_key_env": "NO_SUCH_KEY"}
    with pytest.warns(UserWarning, match="NO_SUCH_KEY|credential|key"):
        mem = mneme.Memory.open(str(tmp_path / "skip.db"), embedder="hashing", llm=[tier], env={})
    try:
        assert mem.llm is None
        assert mem.retain("Xena sings.", bank="b", agent="a1").memory_ids
    finally:
        mem.close()


def test_recall_never_calls_the_llm(llm_mem, server):
    server.push(facts({"text": "Yara fixes drones.", "type": "fact", "network": "world"}))
    llm_mem.retain("Yara fixes drones.", bank="b", agent="a1")
    before = len(server.requests)
    assert llm_mem.recall("Who fixes drones?", bank="b", agent="a1")
    assert len(server.requests) == before


def _blocked_plan(mem: mneme.Memory, server: FakeServer) -> tuple[str, str]:
    server.push(
        facts({"text": "I believe Kestrel is unreliable.", "type": "belief", "network": "opinion"})
    )
    belief = mem.retain("I believe Kestrel is unreliable.", bank="r", agent="a1").memory_ids[0]
    server.push(
        facts({"text": "Use Kestrel for billing.", "type": "action", "network": "world"}),
        openai_json({"verdict": "ADD", "target_id": None, "reason": "new", "confidence": 0.9}),
    )
    plan = mem.retain("Use Kestrel for billing.", bank="r", agent="a1").memory_ids[0]
    mem.review.decide(plan, "reject", "rev1", "not while unreliable", because=belief)
    mem.review.reject(belief, reason="they fixed it", actor="rev1")
    return belief, plan


def test_a_sweep_verdict_from_the_llm_is_validated_and_applied(llm_mem, server):
    belief, plan = _blocked_plan(llm_mem, server)
    review_id = llm_mem._store.trust.review_events("r", belief)[-1].id
    server.push(
        openai_json(
            {
                "verdict": "reaccept",
                "reason": "the belief was retracted",
                "evidence": [f"review:{review_id}"],
                "confidence": 0.95,
            }
        )
    )
    (report,) = llm_mem.beliefs.reconsolidate(bank="r")
    assert report.reaccepted == (plan,)
    assert "llm" in llm_mem._store.trust.review_events("r", plan)[-1].note


def test_a_sweep_verdict_citing_nothing_it_was_given_is_not_applied(llm_mem, server):
    _, plan = _blocked_plan(llm_mem, server)
    bogus = openai_json(
        {
            "verdict": "reaccept",
            "reason": "trust me",
            "evidence": ["review:made-up"],
            "confidence": 0.99,
        }
    )
    server.push(bogus, bogus)
    (report,) = llm_mem.beliefs.reconsolidate(bank="r")
    # the invented evidence is refused; the offline rules decide instead (and cite the record)
    assert report.reaccepted == (plan,)
    assert "llm" not in llm_mem._store.trust.review_events("r", plan)[-1].note


def test_the_llm_judges_live_statements_only(llm_mem, server):
    # ADR 0076: the rules read a retired statement for a value it still holds; the model is
    # never offered one as a neighbour to rewrite.
    turns = [
        "User: Can you make an appointment for March 6th at 4:45 pm?",
        "User: Can you change the time to 3:45 pm?",
        "User: Can you change the date to the 10th of March?",
    ]
    ids: list[str] = []
    for i, text in enumerate(turns):
        server.push(facts({"text": text, "type": "fact", "network": "world"}))
        if i == 1:
            server.push(
                openai_json(
                    {"verdict": "SUPERSEDE", "target_id": ids[0], "reason": "r", "confidence": 0.9}
                )
            )
        if i == 2:
            server.push(
                openai_json({"verdict": "ADD", "target_id": None, "reason": "r", "confidence": 0.9})
            )
        r = llm_mem.retain(
            text, bank="b", agent="a1", session="s", occurred_at=T0 + dt.timedelta(minutes=i)
        )
        ids += r.memory_ids
    assert llm_mem.get(ids[0]).status == mneme.UnitStatus.SUPERSEDED
    offered = server.requests[-1].body["messages"][1]["content"]
    assert ids[1] in offered
    assert ids[0] not in offered
