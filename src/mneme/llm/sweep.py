"""The LLM's verdict for one reconsolidation pair, validated before the sweep may use it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mneme.llm.protocol import LLM, LLMInvalid

VERDICTS = ("reaccept", "recontest", "contradicts", "unsupported", "keep")

SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "required": ["verdict", "reason", "evidence", "confidence"],
    "properties": {
        "verdict": {"type": "string", "enum": list(VERDICTS)},
        "reason": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
}

SYSTEM = """\
A belief in a memory store changed. Decide what that means for one memory that depended on it.
- If the memory was held back (contested) because of the belief and the belief no longer
  holds: "reaccept". If the belief holds again: "recontest".
- If the memory supported the belief: "contradicts" when it contradicts the belief's
  successor, "unsupported" when nothing supports it any more.
- Otherwise "keep".
Cite in "evidence" the ids you rely on, copied exactly from the list given. Answer JSON only."""


@dataclass(frozen=True, slots=True)
class LLMSweepVerdict:
    """The LLM's answer for one memory of a sweep (the sweep validates it like its own)."""

    verdict: str
    reason: str
    evidence: tuple[str, ...]
    confidence: float
    provider: str


class LLMSweepJudge:
    def __init__(self, llm: LLM, *, max_tokens: int = 400) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    def verdict(
        self,
        *,
        relation: str,
        memory: str,
        belief: str,
        belief_status: str,
        successor: str | None,
        evidence: Sequence[str],
    ) -> LLMSweepVerdict:
        """Raises LLMError (LLMInvalid when the answer cites nothing it was given)."""
        user = "\n".join(
            [
                f"relation: the memory {relation} the belief",
                f"memory: {memory}",
                f"belief ({belief_status}): {belief}",
                f"successor belief: {successor or '(none)'}",
                f"evidence ids: {', '.join(evidence)}",
            ]
        )
        reply = self.llm.complete_json(SYSTEM, user, SCHEMA, max_tokens=self.max_tokens)
        data = reply.data
        cited = tuple(str(e) for e in data["evidence"])
        if not cited or not set(cited) <= set(evidence):
            raise LLMInvalid(
                f"{reply.provider} cited evidence it was not given: {cited}",
                provider=reply.provider,
                trail=reply.errors,
            )
        return LLMSweepVerdict(
            str(data["verdict"]),
            str(data["reason"]),
            cited,
            float(data["confidence"]),
            reply.provider,
        )
