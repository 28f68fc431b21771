"""``MnemeSession``: an OpenAI Agents SDK ``Session`` kept in mneme (ADR 0049;
docs/adapters/openai-agents.md).

A conversation is a run of sources (``mneme.adapters.sequence``) per (agent, session id), in
one bank, as one agent: ``add_items`` retains each item as the next source, with the item
exactly as given in the source's metadata (``get_items`` returns it unchanged) and its text
(a message's role and words, a tool call's name and arguments) as what mneme remembers. The
mneme session of those sources is the SDK's session id when it is a valid mneme id, else a
digest of it, so ``Memory.recall`` finds what was said in the conversation like any memory.

``pop_item`` and ``clear_session`` append a removal (kind ``retraction``, private to the agent)
and never delete: they change the conversation the SDK reads back, not what mneme remembers of
it (what was said stays said; use ``Memory.invalidate`` or a review to retire a memory).
An item whose text the bank's policy would redact is refused whole (``InvalidInput``, nothing
kept): the exact item could not be kept without the secret.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

try:
    from agents.memory.session import SessionABC
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "mneme's OpenAI Agents session needs the 'openai-agents' extra: "
        "pip install 'mneme[openai-agents]'"
    ) from exc

from mneme import validate
from mneme.adapters.sequence import Run, digest
from mneme.errors import InvalidInput
from mneme.memory import Memory

#: The metadata key of the record a source holds for the session.
RECORD = "openai_agents"


class MnemeSession(SessionABC):
    """The conversation ``session_id`` of ``agent`` in ``bank``.

    ``visibility``: ``"private"`` keeps the conversation's memories from every other agent.
    """

    session_settings = None

    def __init__(
        self,
        session_id: str,
        memory: Memory,
        *,
        bank: str,
        agent: str,
        visibility: str = "shared",
    ) -> None:
        if not isinstance(session_id, str) or not session_id or "\x00" in session_id:
            raise InvalidInput(f"a session id is a non-empty string, not {session_id!r}")
        self.session_id = session_id
        self.memory = memory
        self.bank = validate.ident(bank, "bank")
        self.agent = validate.ident(agent, "agent")
        self.visibility = validate.visibility(visibility).value
        self._run = Run(
            memory, bank=self.bank, agent=self.agent, prefix=f"oa:{digest(agent, session_id)}"
        )
        try:
            self.mneme_session = validate.ident(session_id, "session")
        except InvalidInput:
            self.mneme_session = f"oa.{digest(session_id)}"

    # -- the Session protocol (async: the core is synchronous, so each runs in a thread) --

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The conversation, oldest first; with ``limit``, its last ``limit`` items."""
        return await asyncio.to_thread(self.items, limit)

    async def add_items(self, items: list[Any]) -> None:
        """Append items (each checked before any is written)."""
        await asyncio.to_thread(self.add, items)

    async def pop_item(self) -> Any | None:
        """Take the last item off the conversation and return it (None when it is empty)."""
        return await asyncio.to_thread(self.pop)

    async def clear_session(self) -> None:
        """Empty the conversation; what mneme remembers of it stays."""
        await asyncio.to_thread(self.clear)

    # -- the same, synchronous --------------------------------------------------------

    def items(self, limit: int | None = None) -> list[Any]:
        """The conversation, oldest first; with ``limit``, its last ``limit`` items."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidInput(f"limit must be a whole number or None, not {limit!r}")
        held = [item for _, item in self._held()]
        if limit is None:
            return held
        return held[-limit:] if limit > 0 else []

    def add(self, items: list[Any]) -> None:
        """Append items (each checked before any is written)."""
        if not isinstance(items, list):
            raise InvalidInput(f"items must be a list, not {type(items).__name__}")
        checked = [(_item(i), _text(_item(i))) for i in items]
        for item, text in checked:
            self._append(text, {"item": item}, kind="session_item", visibility=self.visibility)

    def pop(self) -> Any | None:
        """Take the last item off the conversation and return it (None when it is empty)."""
        held = self._held()
        if not held:
            return None
        n, item = held[-1]
        self._append("Took the last item off the conversation.", {"pop": n})
        return item

    def clear(self) -> None:
        """Empty the conversation; what mneme remembers of it stays."""
        if self._held():
            self._append("Cleared the conversation.", {"clear": True})

    # -- the run ----------------------------------------------------------------------

    def _append(
        self,
        text: str,
        change: Mapping[str, Any],
        *,
        kind: str = "retraction",
        visibility: str = "private",
    ) -> None:
        self._run.append(
            text,
            {RECORD: {"session_id": self.session_id, **change}},
            kind=kind,
            session=self.mneme_session,
            visibility=visibility,
        )

    def _held(self) -> list[tuple[int, Any]]:
        """The items the conversation holds now, with their entry numbers, oldest first."""
        held: list[tuple[int, Any]] = []
        for n, src in enumerate(self._run.entries(), start=1):
            record = src.metadata.get(RECORD, {})
            if "item" in record:
                held.append((n, record["item"]))
            elif "pop" in record:
                held = [(m, item) for m, item in held if m != record["pop"]]
            elif record.get("clear"):
                held = []
        return held


def _item(item: Any) -> dict[str, Any]:
    """An item as plain JSON, equal to what was given.

    Raises:
        InvalidInput: not a mapping of JSON values.
    """
    if not isinstance(item, Mapping):
        raise InvalidInput(f"a session item is a mapping, not {type(item).__name__}")
    try:
        plain = json.loads(json.dumps(item, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"a session item must be plain JSON: {exc}") from exc
    validate.metadata(plain)
    if plain != item:
        raise InvalidInput("a session item must be plain JSON (string keys, lists, no tuples)")
    return dict(plain)


def _text(item: Mapping[str, Any]) -> str:
    """What mneme remembers of an item: a message's role and words, a tool call's name and
    arguments, a tool's output; else the item as JSON."""
    content = item.get("content")
    if isinstance(content, list):
        content = "\n".join(
            str(part["text"])
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    role = item.get("role")
    if isinstance(content, str) and content.strip():
        return f"{role}: {content}" if isinstance(role, str) else content
    if item.get("type") == "function_call":
        return f"called {item.get('name')}({item.get('arguments', '')})"
    output = item.get("output")
    if isinstance(output, str) and output.strip():
        return f"tool output: {output}"
    return json.dumps(item, ensure_ascii=False, sort_keys=True)
