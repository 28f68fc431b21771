"""An ordered fallback chain of LLM tiers, built from config, with a cool-down per tier.

Tiers are tried in order. A tier that is unavailable (``LLMUnavailable``: down, timing out,
rate-limited, refusing the key) is benched for ``cooldown`` seconds, so one dead endpoint
does not add its timeout to every write; after the cool-down the primary is tried first
again. A refusal or an invalid answer is about that request, not the tier's health: the
next tier is tried, and no tier is benched. Every failure on the way is kept, in the reply's
``errors`` when some tier answered, in ``LLMUnavailable.trail`` when none did.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from mneme.errors import InvalidInput
from mneme.llm.anthropic import DEFAULT_BASE_URL as ANTHROPIC_BASE_URL
from mneme.llm.anthropic import AnthropicChat
from mneme.llm.openai import OpenAIChat
from mneme.llm.protocol import LLM, LLMError, LLMInvalid, LLMReply, LLMUnavailable

OPENAI_BASE_URL = "https://api.openai.com/v1"
PROVIDERS = ("openai", "anthropic")


class LLMTierSkipped(UserWarning):
    """A configured tier was left out of the chain (its API key is not in the environment)."""


@dataclass(frozen=True, slots=True)
class TierSpec:
    """One tier as configured.

    ``api_key_env`` names the environment variable holding the key. When absent it defaults
    to ``ANTHROPIC_API_KEY`` for anthropic, to ``OPENAI_API_KEY`` for openai without a
    ``base_url`` (the OpenAI API itself), and to no key at all for openai with a ``base_url``
    (a local server: vLLM, llama.cpp, Ollama, LM Studio). Use ``""`` to say "no key".
    """

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    name: str | None = None
    timeout: float = 20.0
    max_retries: int = 2
    repair_attempts: int = 1

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise InvalidInput(
                f"unknown LLM provider {self.provider!r}; valid: {', '.join(PROVIDERS)}"
            )
        if not isinstance(self.model, str) or not self.model:
            raise InvalidInput(f"LLM tier {self.provider!r} needs a non-empty model name")

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> TierSpec:
        """A spec from config, e.g. ``{"provider": "openai", "model": "gpt-4o-mini"}``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise InvalidInput(
                f"unknown LLM tier field(s) {unknown}; valid fields: {sorted(known)}"
            )
        if "provider" not in spec or "model" not in spec:
            raise InvalidInput(f"an LLM tier needs 'provider' and 'model', got {dict(spec)}")
        return cls(**spec)

    @property
    def key_env(self) -> str:
        """The environment variable that must hold the key; ``""`` when none is needed."""
        if self.api_key_env is not None:
            return self.api_key_env
        if self.provider == "anthropic":
            return "ANTHROPIC_API_KEY"
        return "OPENAI_API_KEY" if self.base_url is None else ""

    @property
    def label(self) -> str:
        return self.name or f"{self.provider}:{self.model}"

    def build(self, env: Mapping[str, str]) -> LLM | None:
        """The client for this tier, or None when its key is not in ``env``."""
        key: str | None = None
        if self.key_env:
            key = env.get(self.key_env) or None
            if key is None:
                return None
        options: dict[str, Any] = {
            "name": self.label,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "repair_attempts": self.repair_attempts,
        }
        if self.provider == "anthropic":
            return AnthropicChat(
                self.model, key, base_url=self.base_url or ANTHROPIC_BASE_URL, **options
            )
        return OpenAIChat(self.base_url or OPENAI_BASE_URL, self.model, key, **options)


class FallbackChain:
    """Try LLM tiers in order; see the module docstring. Itself an ``LLM``; thread-safe.

    ``tiers`` are clients or ``TierSpec``s; a spec is built with keys from ``env`` (given
    explicitly, never read from ``os.environ`` here), and a spec whose key is missing is
    skipped with an ``LLMTierSkipped`` warning and listed in ``skipped``. ``clock`` returns
    seconds (monotonic) and is injectable for tests. A chain with no tier is valid and falsy:
    every call raises ``LLMUnavailable``.
    """

    def __init__(
        self,
        tiers: Sequence[LLM | TierSpec],
        *,
        env: Mapping[str, str] | None = None,
        cooldown: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if cooldown < 0:
            raise InvalidInput(f"cooldown must be 0 or more, got {cooldown}")
        built: list[LLM] = []
        skipped: list[str] = []
        for tier in tiers:
            if not isinstance(tier, TierSpec):
                built.append(tier)
                continue
            client = tier.build(env or {})
            if client is None:
                message = (
                    f"LLM tier {tier.label} skipped: no API key in ${tier.key_env} "
                    "(set it, or remove the tier from the config)"
                )
                warnings.warn(message, LLMTierSkipped, stacklevel=2)
                skipped.append(message)
            else:
                built.append(client)
        self.tiers: tuple[LLM, ...] = tuple(built)
        self.skipped: tuple[str, ...] = tuple(skipped)
        self.cooldown = cooldown
        self.name = "chain[" + ", ".join(tier.name for tier in self.tiers) + "]"
        self._clock = clock
        self._lock = threading.Lock()
        self._benched_until: list[float | None] = [None] * len(self.tiers)

    def __repr__(self) -> str:
        return f"FallbackChain({self.name}, cooldown={self.cooldown})"

    def __enter__(self) -> FallbackChain:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self.tiers)

    def close(self) -> None:
        """Close every tier that holds a connection pool."""
        for tier in self.tiers:
            close = getattr(tier, "close", None)
            if callable(close):
                close()

    def benched(self) -> dict[str, float]:
        """Tiers on cool-down now, by name, with the seconds left."""
        now = self._clock()
        with self._lock:
            return {
                tier.name: until - now
                for tier, until in zip(self.tiers, self._benched_until, strict=True)
                if until is not None and until > now
            }

    def complete_json(
        self,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int = 1024,
    ) -> LLMReply:
        """The first tier's answer that works; earlier failures are in the reply's ``errors``.

        Raises:
            LLMUnavailable: every tier failed or is cooling down; ``trail`` lists each one.
        """
        trail: list[str] = []
        answered_badly = False
        for index, tier in enumerate(self.tiers):
            left = self._cooling(index)
            if left is not None:
                trail.append(
                    f"{tier.name}: skipped: cooling down after a failure ({left:.1f} s left)"
                )
                continue
            try:
                reply = tier.complete_json(system, user, schema, max_tokens=max_tokens)
            except LLMError as exc:
                trail.append(exc.describe() if exc.provider else f"{tier.name}: {exc.describe()}")
                if isinstance(exc, LLMUnavailable):
                    self._bench(index)
                answered_badly = answered_badly or isinstance(exc, LLMInvalid)
                continue
            self._restore(index)
            return LLMReply(
                reply.data, reply.provider, reply.model, reply.raw, (*trail, *reply.errors)
            )
        if not self.tiers:
            raise LLMUnavailable("no LLM tier is configured", trail=self.skipped)
        if answered_badly:
            # A model did answer, unusably: the caller's "unparseable" path (ADD + escalate),
            # not its "unreachable" one.
            raise LLMInvalid(
                "no LLM tier gave a usable answer: " + " | ".join(trail), trail=tuple(trail)
            )
        raise LLMUnavailable(
            f"every LLM tier failed ({len(self.tiers)}): " + " | ".join(trail),
            trail=tuple(trail),
        )

    def _cooling(self, index: int) -> float | None:
        with self._lock:
            until = self._benched_until[index]
            if until is None:
                return None
            left = until - self._clock()
            if left <= 0:
                return None  # served its time: try it again (it stays benched until it works)
            return left

    def _bench(self, index: int) -> None:
        with self._lock:
            self._benched_until[index] = self._clock() + self.cooldown

    def _restore(self, index: int) -> None:
        with self._lock:
            self._benched_until[index] = None


def build_chain(
    specs: Sequence[Mapping[str, Any]],
    env: Mapping[str, str],
    *,
    cooldown: float = 30.0,
    clock: Callable[[], float] = time.monotonic,
) -> FallbackChain:
    """A ``FallbackChain`` from config tier mappings, with keys looked up in ``env``.

    Each mapping holds ``provider`` ("openai" | "anthropic") and ``model``, and optionally
    ``base_url``, ``api_key_env``, ``name``, ``timeout``, ``max_retries``, ``repair_attempts``.
    A tier whose key is missing from ``env`` is skipped with an ``LLMTierSkipped`` warning.

    Raises:
        InvalidInput: a mapping names an unknown provider or field, or lacks a model.
    """
    if isinstance(specs, Mapping | str):
        raise InvalidInput("build_chain() takes a sequence of tier mappings")
    parsed = [TierSpec.from_mapping(spec) for spec in specs]
    return FallbackChain(parsed, env=env, cooldown=cooldown, clock=clock)
