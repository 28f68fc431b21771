"""Compose observations with an LLM when one is configured, else offline (ADR 0058).

Reflect decides offline which observations to write (``core.observations``: groups, periods,
skepticism, content keys), so what is written, revised or retired does not depend on a model.
Only the *text* of an observation about to be written may come from an LLM: one schema-checked
call per group (``llm.summarize``) for short claims, each citing evidence units; every claim is
checked against the evidence it cites (``core.grounding``) and dropped with the reason when it
is not supported. The observation then rests on the evidence the surviving claims cite. When
nothing usable survives (no claim, or claims citing fewer units than the bank's skepticism), or
the model fails (unreachable, a 5xx, a timeout, not JSON, not the schema), the group keeps its
offline composition and the reason is recorded. After the model is found unreachable, the
rest of the pass is composed offline without asking again.

A pass asks at most ``max_calls`` times (``Config.reflect_llm_max_calls``). A group beyond the
cap is *deferred*: written with its offline text and marked (``deferred`` in its record), and a
later pass, within its own cap, asks for it again (``pending``: a deferred observation whose
evidence has not changed). A pending group the cap or an unreachable model keeps from the model
again stays as it is: nothing is rewritten for it.

Every call happens before reflect's transaction: a failure can leave nothing half-written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mneme.core.grounding import Grounding, check
from mneme.core.observations import Disposition, Evidence, Observation, from_claims
from mneme.llm.protocol import LLM, LLMError, LLMUnavailable
from mneme.llm.summarize import LLMSummarizer


@dataclass(frozen=True, slots=True)
class Composed:
    """One observation to write, and how its text was made (``metadata.observation.composed``):
    ``{"by": "offline"}``, ``{"by": "llm", provider, model, claims, dropped}``, or offline with
    ``fallback`` (why the model's answer was not used)."""

    observation: Observation
    record: Mapping[str, Any]

    @property
    def fallback(self) -> str | None:
        why = self.record.get("fallback")
        return str(why) if why is not None else None

    @property
    def deferred(self) -> bool:
        """Whether the cap (or, for a pending group, an unreachable model) kept it from the
        model: a later pass asks for it."""
        return "deferred" in self.record


def compose(
    todo: Sequence[Observation],
    evidence: Mapping[str, Evidence],
    disposition: Disposition,
    llm: LLM | None,
    *,
    max_calls: int,
    pending: frozenset[str] = frozenset(),
) -> list[Composed]:
    """Each observation of ``todo`` as it will be written (see the module docstring), in the
    order of ``todo``, which is the order the calls are made in. ``pending``: keys of groups
    whose stored observation was deferred by an earlier pass's cap."""
    if llm is None or max_calls <= 0:
        return [Composed(obs, {"by": "offline"}) for obs in todo]
    summarizer = LLMSummarizer(llm)
    down: str | None = None
    calls = 0
    out: list[Composed] = []
    for obs in todo:
        if calls >= max_calls:
            why = f"the pass's cap of {max_calls} LLM call(s) was reached"
            out.append(Composed(obs, {"by": "offline", "deferred": why}))
            continue
        if down is not None:
            # A deferred group waits for a model that answers; a new one is written offline.
            kind = "deferred" if obs.key in pending else "fallback"
            out.append(Composed(obs, {"by": "offline", kind: down}))
            continue
        calls += 1
        members = [evidence[uid] for uid in obs.evidence_ids]
        try:
            summary = summarizer.summarize(
                obs.label,
                [(e.unit_id, e.when.date().isoformat(), e.text) for e in members],
                literal=disposition.literalism,
            )
        except LLMError as exc:
            why = f"the LLM gave no usable summary: {exc.describe()}"
            kind = "fallback"
            if isinstance(exc, LLMUnavailable):
                down = f"the LLM was unavailable earlier in this pass: {exc.describe()}"
                kind = "deferred" if obs.key in pending else "fallback"
            out.append(Composed(obs, {"by": "offline", kind: why}))
            continue
        found = check(
            summary.claims, {e.unit_id: e.text for e in members}, literal=disposition.literalism
        )
        who = {"provider": summary.provider, "model": summary.model}
        dropped = _dropped(found)
        cited = set(found.cited)
        kept_members = [e for e in members if e.unit_id in cited]
        if not found.kept:
            why = "no claim of the LLM's summary is supported by the evidence it cites"
            out.append(Composed(obs, {"by": "offline", "fallback": why, **who, "dropped": dropped}))
            continue
        if len(kept_members) < disposition.skepticism:
            why = (
                f"the supported claims cite {len(kept_members)} evidence unit(s), fewer than "
                f"the bank's skepticism ({disposition.skepticism})"
            )
            out.append(Composed(obs, {"by": "offline", "fallback": why, **who, "dropped": dropped}))
            continue
        made = from_claims(obs, kept_members, [c.text for c in found.kept])
        record = {
            "by": "llm",
            **who,
            "claims": [{"text": c.text, "evidence": list(c.cites)} for c in found.kept],
            "dropped": dropped,
        }
        if summary.errors:
            record["errors"] = list(summary.errors)
        out.append(Composed(made, record))
    return out


def _dropped(found: Grounding) -> list[dict[str, Any]]:
    return [
        {"text": d.claim.text, "evidence": list(d.claim.cites), "why": d.why} for d in found.dropped
    ]
