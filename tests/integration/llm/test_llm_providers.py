"""OpenAIChat and AnthropicChat against real scripted HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from tests.integration.llm.llm_servers import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    SERVED_MODEL,
    FakeServer,
    Reply,
    anthropic_error,
    anthropic_message,
    anthropic_text,
    anthropic_tool,
    openai_error,
    openai_json,
    openai_message,
    serve,
)

from mneme.errors import BackendUnavailable, InvalidInput
from mneme.llm import (
    AnthropicChat,
    LLMInvalid,
    LLMRefused,
    LLMUnavailable,
    OpenAIChat,
)
from mneme.llm.protocol import LLM

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["city", "stars"],
    "properties": {"city": {"type": "string"}, "stars": {"type": "integer"}},
}
GOOD = {"city": "Lisbon", "stars": 4}
FAST: dict[str, Any] = {"timeout": 0.3, "backoff": 0.0}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serve() as fake:
        yield fake


@dataclass
class Dialect:
    """One provider protocol: how to build its client and its scripted replies."""

    name: str
    make: Callable[..., Any]
    ok: Callable[[Any], Reply]
    text: Callable[[str], Reply]
    overloaded: Reply
    path: str


def make_openai(server: FakeServer, **options: Any) -> OpenAIChat:
    return OpenAIChat(server.base_url + "/v1", "gpt-test", OPENAI_KEY, **{**FAST, **options})


def make_anthropic(server: FakeServer, **options: Any) -> AnthropicChat:
    opts = {**FAST, **options}
    return AnthropicChat("claude-test", ANTHROPIC_KEY, base_url=server.base_url, **opts)


OPENAI = Dialect(
    "openai",
    make_openai,
    openai_json,
    openai_message,
    openai_error(503, "overloaded"),
    "/v1/chat/completions",
)
ANTHROPIC = Dialect(
    "anthropic",
    make_anthropic,
    anthropic_tool,
    anthropic_text,
    anthropic_error(529, "overloaded_error", "Overloaded"),
    "/v1/messages",
)


@pytest.fixture(params=[OPENAI, ANTHROPIC], ids=lambda d: d.name)
def dialect(request: pytest.FixtureRequest) -> Dialect:
    dialect: Dialect = request.param
    return dialect


@pytest.fixture
def client(dialect: Dialect, server: FakeServer) -> Iterator[Callable[..., Any]]:
    made: list[Any] = []

    def make(**options: Any) -> Any:
        llm = dialect.make(server, **options)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        llm.close()


# Behaviour both protocols share -----------------------------------------------------------


def test_a_valid_answer_comes_back_as_a_validated_reply(dialect, server, client):
    server.push(dialect.ok(GOOD))
    llm: LLM = client()
    reply = llm.complete_json("You rate cities.", "Rate Lisbon.", SCHEMA, max_tokens=200)
    assert reply.data == GOOD
    assert reply.provider == llm.name
    assert reply.model == SERVED_MODEL
    assert json.loads(reply.raw) == GOOD
    assert reply.errors == ()
    (request,) = server.requests
    assert request.path == dialect.path
    assert request.headers["content-type"] == "application/json"
    assert request.body["max_tokens"] == 200


def test_a_server_error_then_success_is_retried(dialect, server, client):
    server.push(Reply(500, {"error": "boom"}), dialect.ok(GOOD))
    reply = client().complete_json("s", "u", SCHEMA)
    assert reply.data == GOOD
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


def test_a_persistent_server_error_gives_up_after_the_retries(dialect, server, client):
    server.default = Reply(500, {"error": "still broken"})
    with pytest.raises(LLMUnavailable) as caught:
        client(max_retries=2).complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 3
    assert caught.value.status == 500
    assert "500" in str(caught.value)
    assert "still broken" in str(caught.value)
    assert "3 attempts" in str(caught.value)
    assert isinstance(caught.value, BackendUnavailable)


def test_rate_limits_and_overload_are_retried(dialect, server, client):
    server.push(Reply(429, {"error": "slow down"}), dialect.overloaded, dialect.ok(GOOD))
    assert client().complete_json("s", "u", SCHEMA).data == GOOD
    assert len(server.requests) == 3


def test_a_server_slower_than_the_timeout_is_unavailable(dialect, server, client):
    server.default = Reply(delay=5.0)
    with pytest.raises(LLMUnavailable, match="timed out") as caught:
        client(max_retries=1).complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 2
    assert caught.value.status is None


def test_a_refused_key_fails_at_once_and_never_echoes_the_key(dialect, server, client):
    key = OPENAI_KEY if dialect is OPENAI else ANTHROPIC_KEY
    server.default = Reply(401, {"error": {"message": f"invalid key {key}"}})
    with pytest.raises(LLMUnavailable, match="check the API key") as caught:
        client().complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1
    assert caught.value.status == 401
    assert key not in str(caught.value)


def test_an_error_body_echoing_the_key_is_redacted(dialect, server, client):
    key = OPENAI_KEY if dialect is OPENAI else ANTHROPIC_KEY
    server.default = Reply(500, {"error": f"upstream rejected {key}"})
    with pytest.raises(LLMUnavailable) as caught:
        client(max_retries=0).complete_json("s", "u", SCHEMA)
    assert key not in str(caught.value)
    assert "***" in str(caught.value)


def test_fenced_json_with_prose_around_it_is_read(dialect, server, client):
    text = 'Sure! Here it is:\n```json\n{"city": "Porto", "stars": 5}\n```\nAnything else?'
    server.push(dialect.text(text))
    assert client().complete_json("s", "u", SCHEMA).data == {"city": "Porto", "stars": 5}


def test_the_first_balanced_object_is_taken_from_prose(dialect, server, client):
    text = 'I think {maybe} the answer is {"city": "Faro {old town}", "stars": 3} - done. {}'
    server.push(dialect.text(text))
    assert client().complete_json("s", "u", SCHEMA).data == {"city": "Faro {old town}", "stars": 3}


def test_malformed_json_is_repaired_by_a_re_ask(dialect, server, client):
    server.push(dialect.text('{"city": "Lisbon", "stars": 4'), dialect.ok(GOOD))
    reply = client().complete_json("s", "Rate Lisbon.", SCHEMA)
    assert reply.data == GOOD
    assert len(server.requests) == 2
    assert len(reply.errors) == 1
    assert "LLMInvalid" in reply.errors[0]
    second = json.dumps(server.requests[1].body)
    assert "could not be used" in second
    assert "Rate Lisbon." in second


def test_schema_invalid_output_is_invalid_after_the_repair_attempts(dialect, server, client):
    server.default = dialect.ok({"city": 7})
    with pytest.raises(LLMInvalid) as caught:
        client(repair_attempts=2).complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "$.city: expected string, got integer" in message
    assert "missing required field 'stars'" in message
    assert len(caught.value.trail) == 3


def test_persistently_malformed_json_is_invalid(dialect, server, client):
    server.default = dialect.text("no json here, sorry")
    with pytest.raises(LLMInvalid, match="no JSON object found"):
        client(repair_attempts=0).complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1


def test_an_unreachable_server_is_unavailable(dialect, server, client):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server.base_url = f"http://127.0.0.1:{port}"  # nothing listens there now
    with pytest.raises(LLMUnavailable, match="unreachable"):
        client(max_retries=1).complete_json("s", "u", SCHEMA)


def test_bad_arguments_are_refused_before_any_request(dialect, server, client):
    with pytest.raises(InvalidInput, match="max_tokens"):
        client().complete_json("s", "u", SCHEMA, max_tokens=0)
    with pytest.raises(InvalidInput, match="timeout"):
        client(timeout=0)
    assert server.requests == []


# OpenAI specifics ---------------------------------------------------------------------------


@pytest.fixture
def openai(server: FakeServer) -> Iterator[OpenAIChat]:
    with make_openai(server) as llm:
        yield llm


def test_openai_request_is_a_well_formed_json_mode_chat_completion(server, openai):
    server.push(openai_json(GOOD))
    openai.complete_json("You rate cities.", "Rate Lisbon.", SCHEMA, max_tokens=64)
    (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    body = request.body
    assert body["model"] == "gpt-test"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 64
    system, user = body["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("You rate cities.")
    assert "JSON" in system["content"]  # json_object mode requires the word in the prompt
    assert json.dumps(SCHEMA, separators=(",", ":")) in system["content"]
    assert user == {"role": "user", "content": "Rate Lisbon."}


def test_openai_without_a_key_sends_no_authorization(server):
    server.push(openai_json(GOOD))
    with OpenAIChat(server.base_url + "/v1", "local", **FAST) as llm:
        llm.complete_json("s", "u", SCHEMA)
    assert "authorization" not in server.requests[0].headers


def test_openai_refusal_field_is_a_refusal_and_not_retried(server, openai):
    server.push(openai_message(None, refusal="I can't help with that."))
    with pytest.raises(LLMRefused, match="can't help"):
        openai.complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1


def test_openai_content_filter_stop_is_a_refusal(server, openai):
    server.push(openai_message("", finish_reason="content_filter"))
    with pytest.raises(LLMRefused, match="content_filter"):
        openai.complete_json("s", "u", SCHEMA)


def test_openai_empty_content_is_a_refusal(server, openai):
    server.push(openai_message("   "))
    with pytest.raises(LLMRefused, match="empty content"):
        openai.complete_json("s", "u", SCHEMA)


def test_openai_server_rejecting_response_format_is_asked_again_without_it(server, openai):
    rejected = openai_error(400, "Unrecognized request argument: response_format", param="x")
    server.push(rejected, openai_json(GOOD), openai_json(GOOD))
    assert openai.complete_json("s", "u", SCHEMA).data == GOOD
    assert openai.complete_json("s", "u", SCHEMA).data == GOOD
    first, second, third = (request.body for request in server.requests)
    assert "response_format" in first
    assert "response_format" not in second
    assert "response_format" not in third  # remembered


def test_openai_newer_models_get_max_completion_tokens(server, openai):
    rejected = openai_error(
        400, "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."
    )
    server.push(rejected, openai_json(GOOD))
    openai.complete_json("s", "u", SCHEMA, max_tokens=99)
    assert server.requests[1].body["max_completion_tokens"] == 99
    assert "max_tokens" not in server.requests[1].body


def test_openai_other_bad_requests_are_not_retried(server, openai):
    server.push(openai_error(400, "model 'gpt-test' does not exist"))
    with pytest.raises(LLMUnavailable, match="does not exist") as caught:
        openai.complete_json("s", "u", SCHEMA)
    assert caught.value.status == 400
    assert len(server.requests) == 1


def test_openai_content_parts_and_thinking_are_handled(server, openai):
    parts = [{"type": "text", "text": "<think>{not this}</think>"}, {"type": "text", "text": "{"}]
    parts.append({"type": "text", "text": '"city": "Braga", "stars": 2}'})
    server.push(openai_message(parts))
    assert openai.complete_json("s", "u", SCHEMA).data == {"city": "Braga", "stars": 2}


def test_openai_answer_cut_off_at_max_tokens_is_invalid(server, openai):
    server.push(openai_message('{"city": "Lis', finish_reason="length"))
    with pytest.raises(LLMInvalid, match="cut off"):
        openai.complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1


def test_openai_malformed_completion_is_unavailable(server, openai):
    server.push(Reply(200, {"object": "chat.completion"}))
    with pytest.raises(LLMUnavailable, match='no "choices" list'):
        openai.complete_json("s", "u", SCHEMA)


# Anthropic specifics ------------------------------------------------------------------------


@pytest.fixture
def anthropic(server: FakeServer) -> Iterator[AnthropicChat]:
    with make_anthropic(server) as llm:
        yield llm


def test_anthropic_request_is_a_well_formed_forced_tool_call(server, anthropic):
    server.push(anthropic_tool(GOOD))
    anthropic.complete_json("You rate cities.", "Rate Lisbon.", SCHEMA, max_tokens=64)
    (request,) = server.requests
    assert request.headers["x-api-key"] == ANTHROPIC_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    body = request.body
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 64
    assert body["system"].startswith("You rate cities.")
    assert body["messages"] == [{"role": "user", "content": "Rate Lisbon."}]
    (tool,) = body["tools"]
    assert tool["name"] == "reply"
    assert tool["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "reply"}


def test_anthropic_refusal_stop_is_a_refusal_and_not_retried(server, anthropic):
    server.push(anthropic_message([], stop_reason="refusal"))
    with pytest.raises(LLMRefused, match="refusal"):
        anthropic.complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1


def test_anthropic_empty_content_is_a_refusal(server, anthropic):
    server.push(anthropic_message([]))
    with pytest.raises(LLMRefused, match="no content"):
        anthropic.complete_json("s", "u", SCHEMA)


def test_anthropic_persistent_overload_is_unavailable(server, anthropic):
    server.default = anthropic_error(529, "overloaded_error", "Overloaded")
    with pytest.raises(LLMUnavailable, match="overloaded_error") as caught:
        anthropic.complete_json("s", "u", SCHEMA)
    assert caught.value.status == 529
    assert len(server.requests) == 3


def test_anthropic_invalid_request_is_not_retried(server, anthropic):
    server.push(anthropic_error(400, "invalid_request_error", "max_tokens: too large"))
    with pytest.raises(LLMUnavailable, match="invalid_request_error"):
        anthropic.complete_json("s", "u", SCHEMA)
    assert len(server.requests) == 1


def test_anthropic_schema_invalid_tool_input_is_repaired(server, anthropic):
    server.push(anthropic_tool({"city": "Lisbon", "stars": "four"}), anthropic_tool(GOOD))
    reply = anthropic.complete_json("s", "u", SCHEMA)
    assert reply.data == GOOD
    assert "$.stars: expected integer, got string" in reply.errors[0]
    assert "$.stars" in server.requests[1].body["messages"][0]["content"]


def test_a_schema_that_is_not_an_object_is_refused_before_any_request(dialect, server, client):
    with pytest.raises(InvalidInput, match="must describe an object"):
        client().complete_json("s", "u", {"type": "array"})
    assert server.requests == []
