"""The LLM contract: a system and a user prompt in, one schema-checked JSON object out.

LLMs are optional in mneme and only ever used on the write side and in background passes,
never on recall. Every caller has a deterministic offline path to fall back to, so every
failure here is an ``LLMError`` the caller catches, never a crash and never lost input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mneme.errors import BackendUnavailable, MnemeError


@dataclass(frozen=True, slots=True)
class LLMReply:
    """One structured answer.

    ``data`` is the JSON object, already validated against the schema that was asked for.
    ``provider`` and ``model`` name who answered (the model as the server reported it).
    ``raw`` is the model's text the object was read from. ``errors`` is the trail of what
    failed before this answer: earlier tiers of a fallback chain, repaired replies; each
    entry reads ``"<provider>: <ErrorClass>: <message>"``.
    """

    data: Mapping[str, Any]
    provider: str
    model: str
    raw: str
    errors: tuple[str, ...] = ()


class LLMError(MnemeError):
    """An LLM could not give a usable answer. Callers catch this and take the offline path.

    ``provider`` names the client that failed (``None`` for a chain), ``status`` is the HTTP
    status when there was one, and ``trail`` lists every failure that led here, oldest first.
    """

    code = "llm_error"

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        trail: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.trail = trail

    def describe(self) -> str:
        """One trail entry for this error: ``"<provider>: <ErrorClass>: <message>"``."""
        return f"{self.provider or 'llm'}: {type(self).__name__}: {self.message}"


class LLMUnavailable(LLMError, BackendUnavailable):
    """The model cannot be reached or will not serve: network, timeout, 5xx, 429, 4xx, auth."""

    code = "llm_unavailable"


class LLMRefused(LLMError):
    """The model declined: a refusal, a safety or content-filter stop, or an empty answer."""

    code = "llm_refused"


class LLMInvalid(LLMError):
    """The answer is not a JSON object that fits the schema, even after repair attempts."""

    code = "llm_invalid"


class LLM(Protocol):
    #: Who this is, for logs and error trails, e.g. "openai:gpt-4o-mini".
    name: str

    def complete_json(
        self,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int = 1024,
    ) -> LLMReply:
        """Ask for one JSON object that satisfies ``schema`` (the subset ``structured`` checks).

        Raises:
            LLMUnavailable: the endpoint is unreachable, times out, or answers an error.
            LLMRefused: the model refused or stopped on a safety filter, or said nothing.
            LLMInvalid: no schema-valid JSON object could be read from the answer.
        """
        ...
