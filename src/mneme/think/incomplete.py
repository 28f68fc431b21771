"""Incomplete thoughts: a scratchpad that sat idle is kept, not lost, and can be found again.

It is saved with ``Memory.retain`` into its own bank as one private memory (only its agent ever
sees it), from a source of kind ``incomplete_thought`` whose metadata holds the whole thought
graph and ``incomplete: true``. No schema change is needed: finding them again means reading
that source kind back.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from mneme import validate
from mneme.core.model import Unit
from mneme.core.thoughts import IncompleteThought, Session
from mneme.errors import NotFound
from mneme.serialize import to_jsonable
from mneme.think.host import Host

SOURCE_KIND = "incomplete_thought"
#: How many of the agent's newest memories a search also scans for saved sessions, so that a
#: query matching a thought (not the saved text) still finds its session.
SCAN_LIMIT = 1_000
_WORD = re.compile(r"\w+")


def save(memory: Host, session: Session, *, reason: str, at: dt.datetime) -> str:
    """Persist an unfinished session as a private memory; returns its source id."""
    view = session.view(at)
    result = memory.retain(
        f"Incomplete thought: {session.goal}",
        bank=session.bank_id,
        agent=session.agent_id,
        session=session.id,
        source_kind=SOURCE_KIND,
        visibility="private",
        metadata={
            "incomplete": True,
            "think_session": session.id,
            "goal": session.goal,
            "reason": reason,
            "saved_at": at.isoformat(),
            "started_at": session.started_at.isoformat(),
            "last_active_at": session.last_active_at.isoformat(),
            "thoughts": to_jsonable(view.thoughts),
            "links": to_jsonable(view.links),
            "conclusion_id": session.conclusion_id,
        },
    )
    return result.source_id or ""


def search(
    memory: Host, query: str | None, *, bank: str, agent: str, k: int = 10
) -> list[IncompleteThought]:
    """The agent's saved sessions: recall's best matches first, then any whose thoughts match.

    Without a query, the newest first.
    """
    bank = validate.ident(bank, "bank")
    agent = validate.ident(agent, "agent")
    k = validate.positive_int(k, "k", high=100)
    found: dict[str, IncompleteThought] = {}
    words: set[str] = set()
    if query is not None:
        query = validate.text(query, what="query", max_chars=8_192)
        words = {w.lower() for w in _WORD.findall(query) if len(w) > 2}
        for hit in memory.recall(query, bank=bank, agent=agent, scope="personal", k=100):
            item = _as_incomplete(memory, hit.unit, agent, hit.score)
            if item is not None and item.session_id not in found:
                found[item.session_id] = item
    rest: list[tuple[int, IncompleteThought]] = []
    for unit in memory.list_memories(bank=bank, agent=agent, scope="personal", limit=SCAN_LIMIT):
        if not str(unit.metadata.get("session_id", "")).startswith("think_"):
            continue
        item = _as_incomplete(memory, unit, agent, None)
        if item is None or item.session_id in found:
            continue
        overlap = len(words & _words_of(item)) if words else 1
        if overlap:
            rest.append((overlap, item))
    rest.sort(key=lambda pair: (-pair[0], -pair[1].saved_at.timestamp()))
    return [*found.values(), *(item for _, item in rest)][:k]


def _words_of(item: IncompleteThought) -> set[str]:
    text = " ".join([item.goal, *(str(t.get("text", "")) for t in item.thoughts)])
    return {w.lower() for w in _WORD.findall(text)}


def _as_incomplete(
    memory: Host, unit: Unit, agent: str, score: float | None
) -> IncompleteThought | None:
    if not unit.evidence or not str(unit.metadata.get("session_id", "")).startswith("think_"):
        return None
    try:
        src = memory.source(unit.evidence[0], bank=unit.bank_id, agent=agent, scope="personal")
    except NotFound:
        return None
    meta: dict[str, Any] = dict(src.metadata)
    if src.kind != SOURCE_KIND or meta.get("incomplete") is not True:
        return None
    saved = meta.get("saved_at")
    return IncompleteThought(
        memory_id=unit.id,
        source_id=src.id,
        session_id=str(meta.get("think_session", "")),
        bank_id=src.bank_id,
        agent_id=src.agent_id,
        goal=str(meta.get("goal", "")),
        saved_at=dt.datetime.fromisoformat(saved) if isinstance(saved, str) else src.recorded_at,
        reason=str(meta.get("reason", "")),
        thoughts=tuple(t for t in meta.get("thoughts", ()) if isinstance(t, dict)),
        score=None if score is None else round(float(score), 6),
    )
