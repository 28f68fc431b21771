"""FallbackChain and build_chain over real scripted OpenAI and Anthropic servers."""

from __future__ import annotations

import threading
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
    openai_message,
    serve,
)

from mneme.errors import InvalidInput
from mneme.llm import (
    FallbackChain,
    LLMReply,
    LLMTierSkipped,
    LLMUnavailable,
    OpenAIChat,
    TierSpec,
    build_chain,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "string"}},
}
ENV = {"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
FAST: dict[str, Any] = {"timeout": 0.3, "max_retries": 0}


class Seconds:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def primary() -> Iterator[FakeServer]:
    with serve() as fake:
        yield fake


@pytest.fixture
def secondary() -> Iterator[FakeServer]:
    with serve() as fake:
        yield fake


@pytest.fixture
def clock() -> Seconds:
    return Seconds()


@pytest.fixture
def chain(primary: FakeServer, secondary: FakeServer, clock: Seconds) -> Iterator[FallbackChain]:
    specs = [
        {
            "provider": "openai",
            "model": "gpt-test",
            "base_url": primary.base_url + "/v1",
            "api_key_env": "OPENAI_API_KEY",
            "name": "primary",
            **FAST,
        },
        {
            "provider": "anthropic",
            "model": "claude-test",
            "base_url": secondary.base_url,
            "name": "secondary",
            **FAST,
        },
    ]
    built = build_chain(specs, ENV, cooldown=30.0, clock=clock)
    yield built
    built.close()


def ask(chain: FallbackChain) -> LLMReply:
    return chain.complete_json("s", "u", SCHEMA)


def test_the_primary_answers_when_it_is_up(chain, primary, secondary):
    primary.push(openai_json({"answer": "from primary"}))
    reply = ask(chain)
    assert reply.data == {"answer": "from primary"}
    assert reply.provider == "primary"
    assert reply.errors == ()
    assert secondary.requests == []
    assert primary.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"


def test_the_secondary_answers_when_the_primary_is_down_and_the_trail_says_why(
    chain, primary, secondary
):
    primary.default = Reply(503, {"error": "primary is down"})
    secondary.push(anthropic_tool({"answer": "from secondary"}))
    reply = ask(chain)
    assert reply.data == {"answer": "from secondary"}
    assert reply.provider == "secondary"
    (entry,) = reply.errors
    assert entry.startswith("primary: LLMUnavailable: ")
    assert "503" in entry
    assert "primary is down" in entry
    (request,) = secondary.requests
    assert request.headers["x-api-key"] == ANTHROPIC_KEY
    assert request.body["model"] == "claude-test"


def test_a_failed_primary_cools_down_then_is_tried_first_again(chain, primary, secondary, clock):
    primary.push(Reply(500, {"error": "down"}))
    secondary.default = anthropic_tool({"answer": "from secondary"})
    assert ask(chain).provider == "secondary"
    assert "primary" in chain.benched()

    # Inside the cool-down the primary is not even asked.
    clock.now += 29.0
    reply = ask(chain)
    assert reply.provider == "secondary"
    assert len(primary.requests) == 1
    assert "cooling down" in reply.errors[0]

    # After it, the primary (recovered) is tried first and used; the secondary is left alone.
    clock.now += 2.0
    primary.push(openai_json({"answer": "primary again"}))
    asked_secondary = len(secondary.requests)
    reply = ask(chain)
    assert reply.provider == "primary"
    assert reply.errors == ()
    assert len(secondary.requests) == asked_secondary
    assert chain.benched() == {}


def test_a_primary_still_down_after_its_cool_down_is_benched_again(
    chain, primary, secondary, clock
):
    primary.default = Reply(500, {"error": "down"})
    secondary.default = anthropic_tool({"answer": "from secondary"})
    ask(chain)
    clock.now += 31.0
    ask(chain)
    assert len(primary.requests) == 2
    clock.now += 10.0
    ask(chain)
    assert len(primary.requests) == 2


def test_a_refusal_falls_through_without_benching_the_tier(chain, primary, secondary):
    primary.push(openai_message(None, refusal="no"), openai_json({"answer": "primary"}))
    secondary.push(anthropic_tool({"answer": "secondary"}))
    first = ask(chain)
    assert first.provider == "secondary"
    assert first.errors[0].startswith("primary: LLMRefused: ")
    assert ask(chain).provider == "primary"


def test_every_tier_down_raises_unavailable_with_the_full_trail(chain, primary, secondary):
    primary.default = Reply(500, {"error": "primary down"})
    secondary.default = Reply(529, {"type": "error", "error": {"type": "overloaded_error"}})
    with pytest.raises(LLMUnavailable) as caught:
        ask(chain)
    trail = caught.value.trail
    assert len(trail) == 2
    assert trail[0].startswith("primary: LLMUnavailable: ")
    assert trail[1].startswith("secondary: LLMUnavailable: ")
    assert "overloaded_error" in trail[1]
    assert "every LLM tier failed" in str(caught.value)

    # Both are now cooling down: the next call fails fast, without a request.
    asked = len(primary.requests), len(secondary.requests)
    with pytest.raises(LLMUnavailable, match="cooling down"):
        ask(chain)
    assert (len(primary.requests), len(secondary.requests)) == asked


def test_a_tier_without_credentials_is_skipped_with_a_warning(primary, secondary):
    specs = [
        {"provider": "anthropic", "model": "claude-test", "base_url": secondary.base_url},
        {"provider": "openai", "model": "gpt-test", "base_url": primary.base_url + "/v1"},
    ]
    with pytest.warns(LLMTierSkipped, match=r"anthropic:claude-test skipped.*ANTHROPIC_API_KEY"):
        chain = build_chain(specs, {"UNRELATED": "x"})
    with chain:
        assert len(chain) == 1
        assert len(chain.skipped) == 1
        assert "ANTHROPIC_API_KEY" in chain.skipped[0]
        primary.push(openai_json({"answer": "local"}))
        assert ask(chain).provider == "openai:gpt-test"
        assert "authorization" not in primary.requests[0].headers  # local server: no key
    assert secondary.requests == []


def test_a_chain_with_every_tier_skipped_is_empty_and_unavailable():
    with pytest.warns(LLMTierSkipped):
        chain = build_chain([{"provider": "openai", "model": "gpt-4o-mini"}], {})
    assert not chain
    with pytest.raises(LLMUnavailable, match="no LLM tier is configured") as caught:
        ask(chain)
    assert "OPENAI_API_KEY" in caught.value.trail[0]


def test_bad_tier_specs_are_refused():
    with pytest.raises(InvalidInput, match="unknown LLM provider 'gemini'"):
        build_chain([{"provider": "gemini", "model": "x"}], ENV)
    with pytest.raises(InvalidInput, match="unknown LLM tier field"):
        build_chain([{"provider": "openai", "model": "x", "api_key": "sk-inline"}], ENV)
    with pytest.raises(InvalidInput, match="needs 'provider' and 'model'"):
        build_chain([{"provider": "openai"}], ENV)
    with pytest.raises(InvalidInput, match="sequence of tier mappings"):
        build_chain({"provider": "openai", "model": "x"}, ENV)  # type: ignore[arg-type]


def test_clients_and_specs_mix_in_one_chain(primary, secondary):
    direct = OpenAIChat(primary.base_url + "/v1", "direct", **FAST)
    spec = TierSpec("anthropic", "claude-test", base_url=secondary.base_url, **FAST)
    primary.default = Reply(500, {"error": "down"})
    secondary.push(anthropic_tool({"answer": "ok"}))
    with FallbackChain([direct, spec], env=ENV) as chain:
        assert chain.name == "chain[openai:direct, anthropic:claude-test]"
        assert ask(chain).provider == "anthropic:claude-test"


def test_concurrent_calls_all_fall_back_and_bench_the_primary_once(chain, primary, secondary):
    primary.default = Reply(500, {"error": "down"})
    secondary.default = anthropic_tool({"answer": "ok"})
    replies: list[LLMReply] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            reply = ask(chain)
        except BaseException as exc:
            with lock:
                failures.append(exc)
        else:
            with lock:
                replies.append(reply)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert failures == []
    assert len(replies) == 8
    assert {reply.provider for reply in replies} == {"secondary"}
    assert 1 <= len(primary.requests) <= 8
    assert list(chain.benched()) == ["primary"]
