"""The FastThink thought graph: thoughts and the SUPPORTS links between them, held in memory.

Pure data and rules (no I/O, no clock reads): the ``Thinker`` service (``mneme.think``) owns
the sessions, the clock and the store; this module only says what a session holds and what its
conclusion cites. The surfaces read its caps to bound their inputs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

#: What a thought can be. ``conclusion`` is set by ``conclude``, never by ``add``.
KINDS = ("observation", "hypothesis", "evidence", "question", "conclusion")
#: Caps that keep one scratchpad small: it is a notepad, not a second memory.
MAX_THOUGHTS = 500
MAX_THOUGHT_CHARS = 20_000
MAX_GOAL_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class Thought:
    id: str  # "t1", "t2"... unique within its session
    kind: str
    text: str
    at: dt.datetime
    memory_id: str | None = None  # the memory unit an evidence thought stands for
    score: float | None = None  # its recall score, for evidence gathered by think_recall


@dataclass(frozen=True, slots=True)
class ThoughtLink:
    """``src`` SUPPORTS ``dst`` (the only link kind a scratchpad needs)."""

    src: str
    dst: str
    type: str = "SUPPORTS"


@dataclass(frozen=True, slots=True)
class ThinkStatus:
    """A read-only view of one open session."""

    session_id: str
    bank_id: str
    agent_id: str
    goal: str
    started_at: dt.datetime
    last_active_at: dt.datetime
    expires_at: dt.datetime
    thoughts: tuple[Thought, ...]
    links: tuple[ThoughtLink, ...]
    conclusion_id: str | None
    cited_memory_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IncompleteThought:
    """A session that timed out, as it was saved into the bank (a private memory)."""

    memory_id: str
    source_id: str
    session_id: str
    bank_id: str
    agent_id: str
    goal: str
    saved_at: dt.datetime
    reason: str
    thoughts: tuple[dict[str, object], ...]
    score: float | None = None


@dataclass
class Session:
    """One agent's open scratchpad. Mutated only under the ``Thinker``'s lock."""

    id: str
    bank_id: str
    agent_id: str
    goal: str
    started_at: dt.datetime
    last_active_at: dt.datetime
    thoughts: dict[str, Thought] = field(default_factory=dict)
    links: list[ThoughtLink] = field(default_factory=list)
    conclusion_id: str | None = None
    committing: bool = False
    save_failures: int = 0
    _counter: int = 0

    def new_thought_id(self) -> str:
        self._counter += 1
        return f"t{self._counter}"

    def put(self, thought: Thought, supports: tuple[str, ...] = ()) -> Thought:
        self.thoughts[thought.id] = thought
        self.links.extend(ThoughtLink(thought.id, target) for target in supports)
        return thought

    def evidence_for(self, memory_id: str) -> Thought | None:
        return next((t for t in self.thoughts.values() if t.memory_id == memory_id), None)

    def drop_conclusion(self) -> None:
        if self.conclusion_id is None:
            return
        cid = self.conclusion_id
        self.thoughts.pop(cid, None)
        self.links = [link for link in self.links if cid not in (link.src, link.dst)]
        self.conclusion_id = None

    def cited_memory_ids(self) -> tuple[str, ...]:
        """Memory units the conclusion rests on: every thought that supports it, transitively.

        Ordered by thought id so the same session always cites in the same order.
        """
        if self.conclusion_id is None:
            return ()
        supporters: dict[str, list[str]] = {}
        for link in self.links:
            supporters.setdefault(link.dst, []).append(link.src)
        seen: set[str] = set()
        frontier = [self.conclusion_id]
        while frontier:
            node = frontier.pop()
            for src in supporters.get(node, []):
                if src not in seen:
                    seen.add(src)
                    frontier.append(src)
        cited: list[str] = []
        for tid in sorted(seen, key=_thought_order):
            mid = self.thoughts[tid].memory_id if tid in self.thoughts else None
            if mid and mid not in cited:
                cited.append(mid)
        return tuple(cited)

    def view(self, expires_at: dt.datetime) -> ThinkStatus:
        return ThinkStatus(
            session_id=self.id,
            bank_id=self.bank_id,
            agent_id=self.agent_id,
            goal=self.goal,
            started_at=self.started_at,
            last_active_at=self.last_active_at,
            expires_at=expires_at,
            thoughts=tuple(sorted(self.thoughts.values(), key=lambda t: _thought_order(t.id))),
            links=tuple(self.links),
            conclusion_id=self.conclusion_id,
            cited_memory_ids=self.cited_memory_ids(),
        )


def _thought_order(thought_id: str) -> int:
    return int(thought_id[1:]) if thought_id[1:].isdigit() else 0
