"""FastThink: an isolated scratchpad per (bank, agent) that touches no memory until commit.

A session is a small thought graph held in this process. ``recall`` reads memory (never writes)
and records what it finds as evidence thoughts; ``conclude`` states the conclusion and what it
rests on; ``commit`` persists that one conclusion with ``Memory.retain`` (source kind
``thought``) plus a SUPPORTS edge from every memory unit it cites, in one transaction;
``discard`` drops the session. A session idle for longer than ``idle_timeout`` is saved as an
incomplete thought (see ``mneme.think.incomplete``), lazily: every call on the Thinker sweeps.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from mneme import validate
from mneme.core.model import RetainResult
from mneme.core.thoughts import (
    KINDS,
    MAX_GOAL_CHARS,
    MAX_THOUGHT_CHARS,
    MAX_THOUGHTS,
    IncompleteThought,
    Session,
    ThinkStatus,
    Thought,
    ThoughtLink,
)
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.ids import new_id
from mneme.think import incomplete
from mneme.think.host import Host

log = logging.getLogger("mneme.think")

#: A session idle this long is saved as an incomplete thought on the next sweep.
IDLE_TIMEOUT = dt.timedelta(minutes=30)
#: Open sessions one process holds at most (scratchpads live in RAM).
MAX_SESSIONS = 1_000
#: A session whose incomplete save failed this often is dropped (logged), not retried forever.
MAX_SAVE_FAILURES = 3


class Thinker:
    """``Memory.think``: start, add, recall, conclude, commit, discard, status, incomplete.

    ``bank`` and ``agent`` on each call name the caller: a session answers only to the
    (bank, agent) that started it, and looks "not found" to anyone else. Leaving them out is
    the store owner's access (a local Python caller).
    """

    def __init__(
        self,
        memory: Host,
        transaction: Callable[[], AbstractContextManager[None]],
        *,
        idle_timeout: dt.timedelta = IDLE_TIMEOUT,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.memory = memory
        # A commit writes its conclusion and its SUPPORTS edges in one transaction of the
        # memory's store, which the Memory keeps to itself.
        self._transaction = transaction
        self.idle_timeout = idle_timeout
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def now(self) -> dt.datetime:
        return (self._clock or self.memory.clock)()

    # -- the session ----------------------------------------------------------------------

    def start(self, bank: str, agent: str, goal: str) -> str:
        """Open a scratchpad for ``agent`` in ``bank``; returns its session id."""
        bank = validate.ident(bank, "bank")
        agent = validate.ident(agent, "agent")
        goal = validate.text(goal, what="goal", max_chars=MAX_GOAL_CHARS)
        self.sweep()
        now = self.now()
        session = Session(new_id("think_"), bank, agent, goal, now, now)
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                raise Conflict(
                    f"{MAX_SESSIONS} thinking sessions are open; commit or discard some first"
                )
            self._sessions[session.id] = session
        return session.id

    def add(
        self,
        session_id: str,
        text: str,
        kind: str = "observation",
        supports: Iterable[str] | None = None,
        *,
        bank: str | None = None,
        agent: str | None = None,
    ) -> Thought:
        """Add a thought; ``supports`` names thoughts of this session it supports."""
        text = validate.text(text, what="thought", max_chars=MAX_THOUGHT_CHARS)
        if kind not in KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if kind == "conclusion":
            raise InvalidInput("state the conclusion with conclude (think_conclude), not add")
        targets = _ids(supports, "supports")
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            self._check_room(session, 1)
            missing = [t for t in targets if t not in session.thoughts]
            if missing:
                raise NotFound(f"no thought {missing[0]!r} in session {session_id}")
            return session.put(
                Thought(session.new_thought_id(), kind, text, self.now()), tuple(targets)
            )

    def recall(
        self,
        session_id: str,
        query: str,
        k: int = 5,
        *,
        bank: str | None = None,
        agent: str | None = None,
        scope: str = "collective",
    ) -> list[Thought]:
        """Search memory (read-only) and record each hit as an evidence thought."""
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            owner = (session.bank_id, session.agent_id)
        hits = self.memory.recall(query, bank=owner[0], agent=owner[1], scope=scope, k=k)
        out: list[Thought] = []
        with self._lock:
            session = self._open(session_id, bank, agent)
            fresh = [h for h in hits if session.evidence_for(h.unit.id) is None]
            self._check_room(session, len(fresh))
            for hit in hits:
                known = session.evidence_for(hit.unit.id)
                out.append(
                    known
                    or session.put(
                        Thought(
                            session.new_thought_id(),
                            "evidence",
                            hit.unit.text,
                            self.now(),
                            memory_id=hit.unit.id,
                            score=round(float(hit.score), 6),
                        )
                    )
                )
        return out

    def conclude(
        self,
        session_id: str,
        text: str,
        evidence: Iterable[str] | None = None,
        *,
        bank: str | None = None,
        agent: str | None = None,
    ) -> Thought:
        """State the conclusion (replacing an earlier one) and what supports it.

        ``evidence`` holds thought ids of this session or memory unit ids; leaving it out cites
        every evidence thought that stands for a memory unit (everything ``recall`` found).
        """
        text = validate.text(text, what="conclusion", max_chars=MAX_THOUGHT_CHARS)
        refs = _ids(evidence, "evidence") if evidence is not None else None
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            owner = (session.bank_id, session.agent_id)
        units = [r for r in refs or () if r.startswith("u_")]
        # A cited memory must exist and be visible to the session's agent (read outside the lock).
        texts = {
            uid: self.memory.get(uid, bank=owner[0], agent=owner[1], scope="collective").text
            for uid in units
        }
        with self._lock:
            session = self._open(session_id, bank, agent)
            thought_refs = [r for r in refs or () if not r.startswith("u_")]
            missing = [
                t for t in thought_refs if t not in session.thoughts or t == session.conclusion_id
            ]
            if missing:
                raise NotFound(f"no thought {missing[0]!r} to cite in session {session_id}")
            self._check_room(session, 1 + len(units))
            session.drop_conclusion()
            for uid in units:
                if session.evidence_for(uid) is None:
                    session.put(
                        Thought(session.new_thought_id(), "evidence", texts[uid], self.now(), uid)
                    )
            if refs is None:
                cited = [t.id for t in session.thoughts.values() if t.memory_id]
            else:
                by_unit = {t.memory_id: t.id for t in session.thoughts.values() if t.memory_id}
                cited = [*thought_refs, *(by_unit[u] for u in units)]
            conclusion = session.put(
                Thought(session.new_thought_id(), "conclusion", text, self.now())
            )
            session.links.extend(ThoughtLink(tid, conclusion.id) for tid in dict.fromkeys(cited))
            session.conclusion_id = conclusion.id
            return conclusion

    def commit(
        self,
        session_id: str,
        *,
        bank: str | None = None,
        agent: str | None = None,
        private: bool = False,
    ) -> RetainResult:
        """Persist the conclusion (one retain, source kind ``thought``) and its SUPPORTS edges.

        Everything is written in one transaction; the session closes only when it succeeded.

        Raises:
            Conflict: there is no conclusion yet, or the session is being committed already.
        """
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            if session.conclusion_id is None:
                raise Conflict(f"session {session_id} has no conclusion yet: conclude first")
            if session.committing:
                raise Conflict(f"session {session_id} is being committed already")
            session.committing = True
            conclusion = session.thoughts[session.conclusion_id]
            cited = session.cited_memory_ids()
        try:
            result = self._persist(session, conclusion.text, cited, private)
        except BaseException:
            with self._lock:
                session.committing = False
            raise
        with self._lock:
            self._sessions.pop(session.id, None)
        return result

    def _persist(
        self, session: Session, text: str, cited: tuple[str, ...], private: bool
    ) -> RetainResult:
        mem = self.memory
        for uid in cited:  # still there and visible: nothing is written if one is gone
            mem.get(uid, bank=session.bank_id, agent=session.agent_id, scope="collective")
        with self._transaction():
            result = mem.retain(
                text,
                bank=session.bank_id,
                agent=session.agent_id,
                session=session.id,
                source_kind="thought",
                visibility="private" if private else "shared",
                metadata={
                    "think_session": session.id,
                    "goal": session.goal,
                    "evidence": list(cited),
                    "thoughts": len(session.thoughts),
                },
            )
            targets = list(dict.fromkeys([*result.memory_ids, *result.deduped]))
            edges = [
                mem.connect(
                    uid,
                    target,
                    bank=session.bank_id,
                    agent=session.agent_id,
                    type="SUPPORTS",
                    note=f"think session {session.id}",
                )
                for uid in cited
                for target in targets
                if uid != target
            ]
        return dataclasses.replace(
            result,
            metadata={
                **result.metadata,
                "think_session": session.id,
                "evidence": list(cited),
                "supports": [e.id for e in edges],
            },
        )

    def discard(
        self, session_id: str, *, bank: str | None = None, agent: str | None = None
    ) -> ThinkStatus:
        """Drop the session; nothing of it was ever written. Returns what it held."""
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            if session.committing:
                raise Conflict(f"session {session_id} is being committed")
            self._sessions.pop(session.id, None)
            return session.view(self._expiry(session))

    def status(
        self, session_id: str, *, bank: str | None = None, agent: str | None = None
    ) -> ThinkStatus:
        """The session's goal, thoughts, links, conclusion and when it expires."""
        self.sweep()
        with self._lock:
            session = self._open(session_id, bank, agent)
            return session.view(self._expiry(session))

    def sessions(self, *, bank: str, agent: str) -> list[ThinkStatus]:
        """The open sessions of one agent in one bank, oldest first."""
        self.sweep()
        with self._lock:
            return [
                s.view(self._expiry(s))
                for s in sorted(self._sessions.values(), key=lambda s: s.started_at)
                if s.bank_id == bank and s.agent_id == agent
            ]

    def open_count(self) -> int:
        with self._lock:
            return len(self._sessions)

    # -- incomplete thoughts --------------------------------------------------------------

    def incomplete(
        self, query: str | None, bank: str, agent: str, k: int = 10
    ) -> list[IncompleteThought]:
        """Sessions of this agent that timed out and were saved, best match first."""
        self.sweep()
        return incomplete.search(self.memory, query, bank=bank, agent=agent, k=k)

    def sweep(self) -> list[str]:
        """Save every session idle past the timeout as an incomplete thought; their ids."""
        now = self.now()
        with self._lock:
            expired = [
                s
                for s in self._sessions.values()
                if not s.committing and now - s.last_active_at >= self.idle_timeout
            ]
            for s in expired:
                del self._sessions[s.id]
        saved = []
        for s in expired:
            try:
                incomplete.save(self.memory, s, reason="timeout", at=now)
                saved.append(s.id)
            except Exception:
                s.save_failures += 1
                log.exception("could not save the idle thinking session %s", s.id)
                if s.save_failures < MAX_SAVE_FAILURES:
                    with self._lock:
                        self._sessions.setdefault(s.id, s)
        return saved

    # -- internals ------------------------------------------------------------------------

    def _open(self, session_id: str, bank: str | None, agent: str | None) -> Session:
        """The caller's live session, touched. The caller holds the lock and swept before."""
        validate.ident(session_id, "session_id")
        if bank is not None:
            validate.ident(bank, "bank")
        if agent is not None:
            validate.ident(agent, "agent")
        now = self.now()
        session = self._sessions.get(session_id)
        if session is not None and now - session.last_active_at >= self.idle_timeout:
            session = None  # expired since the caller's sweep: the next sweep saves it
        if (
            session is None
            or (bank is not None and session.bank_id != bank)
            or (agent is not None and session.agent_id != agent)
        ):
            raise NotFound(
                f"no open thinking session {session_id!r}"
                + (f" for agent {agent!r}" if agent else "")
                + (f" in bank {bank!r}" if bank else "")
                + ": it was committed or discarded, or it sat idle for "
                f"{int(self.idle_timeout.total_seconds() // 60)} minutes and was saved as an "
                "incomplete thought (search_incomplete_thoughts finds it)"
            )
        session.last_active_at = now
        return session

    def _expiry(self, session: Session) -> dt.datetime:
        return session.last_active_at + self.idle_timeout

    @staticmethod
    def _check_room(session: Session, more: int) -> None:
        if len(session.thoughts) + more > MAX_THOUGHTS:
            raise Conflict(
                f"session {session.id} holds {len(session.thoughts)} thoughts; the limit is "
                f"{MAX_THOUGHTS}: conclude and commit, or start a new session"
            )


def _ids(values: Iterable[str] | None, what: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out = [validate.ident(v, f"{what} id") for v in values]
    if len(out) > MAX_THOUGHTS:
        raise InvalidInput(f"{what} lists {len(out)} ids; at most {MAX_THOUGHTS}")
    return list(dict.fromkeys(out))
