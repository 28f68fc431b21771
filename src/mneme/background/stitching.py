"""Causal stitching: BECAUSE edges between memories, hypothesis-grade (ADR 0056, ADR 0058).

Offline, always: a memory that states a cause with an explicit connective, and another memory
sharing an entity that says it (``core.causal.stitch``). With an LLM configured: at most
``JUDGE_LIMIT`` pairs a pass of memories naming a common entity and saying a common word
(``core.causal.pairs``) go to the judge (``llm.causal_judge``); only a "yes" at or above
``JUDGE_BAR`` makes an edge, and every pair asked is marked on the later memory
(``metadata.causal_judged``) so no pass asks about it again. A failure of the model stops the
judging for the pass (offline stitching still runs), with the reason recorded; a pair whose
question failed is not marked, so a later pass asks it again.

Every model call happens before the one transaction that writes the edges and the marks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mneme.core.causal import Said, pairs, stitch
from mneme.core.model import Edge, EdgeType, Unit
from mneme.ids import new_id
from mneme.llm.causal_judge import LLMCausalJudge
from mneme.llm.protocol import LLM, LLMError

STITCH_LIMIT = 50
#: Pairs one pass asks the LLM judge about (one call each).
JUDGE_LIMIT = 10
#: The judge's confidence a "yes" needs to become an edge: conservative, as the issue asks.
JUDGE_BAR = 0.8
#: A hypothesis's confidence: it rests on a link no one stated.
HYPOTHESIS_CONFIDENCE = 0.5
#: Metadata key of a memory: the earlier memories the judge was asked to pair it with.
JUDGED = "causal_judged"


@dataclass(frozen=True, slots=True)
class Stitched:
    """The edges a pass proposes, the marks to write (unit id -> ids judged with it), and
    what the judge did (``record``: {} when no judge was asked)."""

    edges: tuple[Edge, ...] = ()
    marks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


def propose(
    units: Sequence[Unit],
    held: set[tuple[str, str]],
    llm: LLM | None,
    *,
    bank: str,
    made_by: str,
    now: dt.datetime,
    order: Mapping[str, tuple[object, ...]],
) -> Stitched:
    """BECAUSE edges (effect, cause) not in ``held``, offline and, with ``llm``, judged."""
    said = [Said(u.id, u.text, u.entities, order[u.id]) for u in units]
    edges: list[Edge] = []
    seen = set(held)

    def add(effect: str, cause: str, metadata: dict[str, Any]) -> bool:
        if (effect, cause) in seen or (cause, effect) in seen:
            return False
        seen.add((effect, cause))
        edges.append(
            Edge(
                id=new_id("e_"),
                bank_id=bank,
                src=effect,
                dst=cause,
                type=EdgeType.BECAUSE,
                made_by=made_by,
                created_at=now,
                confidence=HYPOTHESIS_CONFIDENCE,
                metadata={"grade": "hypothesis", **metadata},
            )
        )
        return True

    for b in stitch(said, STITCH_LIMIT):
        add(b.effect, b.cause, {"connective": b.connective, "shared": list(b.shared)})
    if llm is None:
        return Stitched(tuple(edges))
    by_id = {u.id: u for u in units}
    judged = {
        u.id: frozenset(str(x) for x in u.metadata.get(JUDGED, ()))
        for u in units
        if isinstance(u.metadata.get(JUDGED), list)
    }
    judge = LLMCausalJudge(llm)
    marks: dict[str, list[str]] = {}
    record: dict[str, Any] = {"asked": 0, "because": [], "no": 0}
    for pair in pairs(said, judged, JUDGE_LIMIT):
        try:
            verdict = judge.judge(by_id[pair.first].text, by_id[pair.second].text)
        except LLMError as exc:
            record["fallback"] = f"the LLM judge stopped: {exc.describe()}"
            break
        record["asked"] += 1
        record.update(provider=verdict.provider, model=verdict.model)
        marks.setdefault(pair.second, []).append(pair.first)
        if not verdict.causes or verdict.confidence < JUDGE_BAR:
            record["no"] += 1
            continue
        effect, cause = (
            (pair.second, pair.first)
            if verdict.direction == "first_causes_second"
            else (pair.first, pair.second)
        )
        if add(
            effect,
            cause,
            {
                "judge": "llm",
                "provider": verdict.provider,
                "model": verdict.model,
                "judge_confidence": verdict.confidence,
                "reason": verdict.reason,
                "entities": list(pair.entities),
            },
        ):
            record["because"].append([effect, cause])
    full = {uid: tuple(sorted({*judged.get(uid, frozenset()), *ids})) for uid, ids in marks.items()}
    return Stitched(tuple(edges), full, record)
