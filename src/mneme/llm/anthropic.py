"""An Anthropic Messages API client for structured (JSON) output.

JSON comes through a forced tool call, not through a "{" prefill: the request declares one
tool, ``reply``, whose ``input_schema`` is the caller's schema, and sets ``tool_choice`` to
it, so the answer arrives as the tool call's ``input`` object. Tool use works on every
current Claude model, where prefilling the assistant turn is refused by some, and the API
shapes the input to the schema. The object is still validated here like any other provider's,
and a text answer (a proxy or model that ignores ``tool_choice``) is read as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mneme.llm.protocol import LLMInvalid, LLMRefused, LLMReply, LLMUnavailable
from mneme.llm.structured import Turn, complete_structured
from mneme.llm.transport import (
    RETRY_STATUSES,
    HTTPClient,
    JSONTransport,
    check_common,
    check_max_tokens,
)

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_BASE_URL = "https://api.anthropic.com"
_TOOL = "reply"
# 529 is Anthropic's "overloaded_error": temporary, like a 503.
_RETRY_STATUSES = RETRY_STATUSES | {529}


class AnthropicChat(HTTPClient):
    """Structured completions from the Anthropic Messages API, synchronous, over httpx.

    ``base_url`` has no API prefix (default ``https://api.anthropic.com``); requests go to
    ``{base_url}/v1/messages`` with the ``x-api-key`` and ``anthropic-version`` headers. Each
    request is retried up to ``max_retries`` times on 429, 5xx, 529 (overloaded), timeouts and
    connection errors; ``timeout`` bounds each connect, read and write. A reply that is not a
    schema-valid object is re-asked up to ``repair_attempts`` times. ``name`` identifies this
    tier in replies and error trails (default ``"anthropic:<model>"``). Thread-safe.
    """

    def __init__(
        self,
        model: str,
        api_key: str | None,
        *,
        base_url: str = DEFAULT_BASE_URL,
        name: str | None = None,
        timeout: float = 20.0,
        max_retries: int = 2,
        repair_attempts: int = 1,
        temperature: float | None = 0.0,
        backoff: float = 0.2,
    ) -> None:
        check_common(model, repair_attempts)
        self.model = model
        self.name = name or f"anthropic:{model}"
        self.repair_attempts = repair_attempts
        self.temperature = temperature
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        self._http = JSONTransport(
            base_url.rstrip("/") + "/v1/messages",
            provider=self.name,
            headers=headers,
            secret=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            retry_statuses=_RETRY_STATUSES,
        )

    def complete_json(
        self,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int = 1024,
    ) -> LLMReply:
        """Ask for one JSON object satisfying ``schema``; see ``mneme.llm.protocol.LLM``.

        Raises:
            LLMUnavailable: unreachable, timed out, or an error status (after retries).
            LLMRefused: ``stop_reason`` "refusal", or an answer with no content.
            LLMInvalid: no schema-valid JSON object after ``repair_attempts`` re-asks.
        """
        check_max_tokens(max_tokens)

        def exchange(system_prompt: str, prompt: str, tokens: int) -> Turn:
            return self._exchange(system_prompt, prompt, tokens, schema)

        return complete_structured(
            exchange,
            provider=self.name,
            system=system,
            user=user,
            schema=schema,
            max_tokens=max_tokens,
            repair_attempts=self.repair_attempts,
        )

    def _exchange(
        self, system: str, user: str, max_tokens: int, tool_schema: Mapping[str, Any]
    ) -> Turn:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "tools": [
                {
                    "name": _TOOL,
                    "description": "Give the answer: call this exactly once.",
                    "input_schema": dict(tool_schema),
                }
            ],
            "tool_choice": {"type": "tool", "name": _TOOL},
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return self._read(self._http.post(body))

    def _read(self, payload: Any) -> Turn:
        def bad(why: str) -> LLMUnavailable:
            return LLMUnavailable(
                f"{self._http.shown_url} sent a malformed Messages response: {why}",
                provider=self.name,
            )

        if not isinstance(payload, dict):
            raise bad("the body is not an object")
        if payload.get("type") == "error":
            # An error inside a 200 (some proxies do this): name it, as for a status error.
            error = payload.get("error")
            if not isinstance(error, dict):
                error = {}
            raise LLMUnavailable(
                f"{self._http.shown_url} answered an error: {error.get('type')}: "
                f"{self._http.redact(str(error.get('message', '')))[:300]}",
                provider=self.name,
            )
        content = payload.get("content")
        if not isinstance(content, list):
            raise bad('no "content" list')
        model = payload.get("model") if isinstance(payload.get("model"), str) else self.model
        stop = payload.get("stop_reason")
        if stop == "refusal":
            raise LLMRefused("the model refused (stop_reason 'refusal')", provider=self.name)
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                arguments = block.get("input")
                if not isinstance(arguments, dict):
                    raise bad("a tool_use block has no input object")
                return Turn(json.dumps(arguments, ensure_ascii=False), str(model))
        text = "".join(
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
        if not text.strip():
            raise LLMRefused(
                f"the model answered with no content (stop_reason {stop!r})", provider=self.name
            )
        if stop == "max_tokens" and not text.rstrip().endswith("}"):
            raise LLMInvalid(
                "the answer was cut off at max_tokens before the JSON object closed",
                provider=self.name,
            )
        return Turn(self._http.redact(text), str(model))
