"""An OpenAI-compatible ``/chat/completions`` client for structured (JSON) output.

Works with OpenAI, vLLM, llama.cpp server, Ollama, LM Studio, DeepSeek and OpenRouter. The
request asks for ``response_format={"type": "json_object"}``; servers that reject an optional
parameter with a 400 naming it get the request again without it (or, for OpenAI's newer
models, with ``max_completion_tokens`` instead of ``max_tokens``), and the client remembers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme.llm.protocol import LLMInvalid, LLMRefused, LLMReply, LLMUnavailable
from mneme.llm.structured import Turn, complete_structured
from mneme.llm.transport import HTTPClient, JSONTransport, check_common, check_max_tokens

_REFUSAL_REASONS = frozenset({"content_filter"})


class OpenAIChat(HTTPClient):
    """Structured completions from an OpenAI-compatible chat endpoint, synchronous, over httpx.

    ``base_url`` includes the API prefix, e.g. ``https://api.openai.com/v1`` or
    ``http://127.0.0.1:11434/v1``; requests go to ``{base_url}/chat/completions``. ``api_key``
    is sent as a bearer token when given (local servers often need none). Each request is
    retried up to ``max_retries`` times on 429, 5xx, timeouts and connection errors;
    ``timeout`` bounds each connect, read and write. A reply that is not a schema-valid JSON
    object is re-asked up to ``repair_attempts`` times. ``name`` identifies this tier in
    replies and error trails (default ``"openai:<model>"``). Thread-safe; ``close()`` it.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        name: str | None = None,
        timeout: float = 20.0,
        max_retries: int = 2,
        repair_attempts: int = 1,
        temperature: float | None = 0.0,
        backoff: float = 0.2,
    ) -> None:
        check_common(model, repair_attempts)
        self.model = model
        self.name = name or f"openai:{model}"
        self.repair_attempts = repair_attempts
        self.temperature = temperature
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = JSONTransport(
            base_url.rstrip("/") + "/chat/completions",
            provider=self.name,
            headers=headers,
            secret=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
        )
        # Optional request parameters a server has rejected once; set-only flags, so a race
        # between threads costs at most one more 400.
        self._json_mode = True
        self._send_temperature = temperature is not None
        self._tokens_field = "max_tokens"

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
            LLMRefused: a ``refusal``, a ``content_filter`` stop, or empty content.
            LLMInvalid: no schema-valid JSON object after ``repair_attempts`` re-asks.
        """
        check_max_tokens(max_tokens)
        return complete_structured(
            self._exchange,
            provider=self.name,
            system=system,
            user=user,
            schema=schema,
            max_tokens=max_tokens,
            repair_attempts=self.repair_attempts,
        )

    def _exchange(self, system: str, user: str, max_tokens: int) -> Turn:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        while True:
            body: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                self._tokens_field: max_tokens,
            }
            if self._send_temperature:
                body["temperature"] = self.temperature
            if self._json_mode:
                body["response_format"] = {"type": "json_object"}
            try:
                payload = self._http.post(body)
            except LLMUnavailable as exc:
                if exc.status == 400 and self._adapt(exc.message):
                    continue
                raise
            return self._read(payload)

    def _adapt(self, message: str) -> bool:
        """Drop or rename the optional parameter a 400 names; False if there is none."""
        lowered = message.lower()
        if self._json_mode and "response_format" in lowered:
            self._json_mode = False
        elif self._send_temperature and "temperature" in lowered:
            self._send_temperature = False
        elif self._tokens_field == "max_tokens" and "max_completion_tokens" in lowered:
            self._tokens_field = "max_completion_tokens"
        else:
            return False
        return True

    def _read(self, payload: Any) -> Turn:
        def bad(why: str) -> LLMUnavailable:
            return LLMUnavailable(
                f"{self._http.shown_url} sent a malformed chat completion: {why}",
                provider=self.name,
            )

        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise bad('no "choices" list')
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise bad('choices[0] has no "message" object')
        model = payload.get("model") if isinstance(payload.get("model"), str) else self.model
        refusal = message.get("refusal")
        if refusal:
            raise LLMRefused(f"the model refused: {str(refusal)[:300]}", provider=self.name)
        reason = choice.get("finish_reason")
        if reason in _REFUSAL_REASONS:
            raise LLMRefused(
                f"the answer was stopped (finish_reason {reason!r})", provider=self.name
            )
        content = _text_of(message.get("content"))
        if content is None:
            raise bad("message.content is neither text nor a list of text parts")
        if not content.strip():
            raise LLMRefused(
                f"the model answered with empty content (finish_reason {reason!r})",
                provider=self.name,
            )
        if reason == "length" and not content.rstrip().endswith("}"):
            # Cut off mid-object: a re-ask with the same budget will be cut off again.
            raise LLMInvalid(
                "the answer was cut off at max_tokens before the JSON object closed",
                provider=self.name,
            )
        return Turn(self._http.redact(content), str(model))


def _text_of(content: Any) -> str | None:
    """Message content as text: a string, or the text parts of a content-part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(parts)
    return None
