"""``MnemeMemoryBlock``: a LlamaIndex memory block kept in mneme (ADR 0049;
docs/adapters/llamaindex.md).

LlamaIndex's ``Memory`` keeps the short-term chat and hands the messages it flushes to its
long-term blocks. This block retains each flushed message (its role and text) as a source of
``agent`` in ``bank``, all of one flush in one transaction (``Memory.retain_many``: a bad
message writes none of them), and answers the block's turn in the prompt with what
``Memory.recall`` finds for the latest messages, one memory per line. No model call on either
side but the embedding of the query (DESIGN.md: the read path makes none).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.base.llms.types import ChatMessage, TextBlock
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.memory import BaseMemoryBlock
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "mneme's LlamaIndex memory block needs the 'llamaindex' extra: "
        "pip install 'mneme[llamaindex]'"
    ) from exc

from mneme import validate
from mneme.adapters.sequence import digest
from mneme.errors import InvalidInput
from mneme.memory import Memory


class MnemeMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory for a LlamaIndex ``Memory``: recall on get, retain on put."""

    memory: Memory = Field(description="The mneme Memory the block reads and writes.")
    bank: str = Field(description="The mneme bank.")
    agent: str = Field(description="The mneme agent the block reads and writes as.")
    name: str = Field(default="mneme", description="The name of the memory block.")
    scope: str = Field(default="personal", description="Recall's scope: personal or collective.")
    k: int = Field(default=5, description="How many memories to put in the prompt at most.")
    context_window: int = Field(
        default=3, description="How many of the latest messages make the recall query."
    )
    visibility: str = Field(default="shared", description="shared, or private to the agent.")

    def model_post_init(self, context: Any, /) -> None:
        validate.ident(self.bank, "bank")
        validate.ident(self.agent, "agent")
        validate.scope(self.scope)
        validate.visibility(self.visibility)
        validate.positive_int(self.k, "k", high=1000)
        validate.positive_int(self.context_window, "context_window", high=1000)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """What mneme recalls for the latest messages, one memory per line ("" for none)."""
        return await asyncio.to_thread(self.recall, messages or [])

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Retain the messages LlamaIndex flushed from its short-term memory."""
        await asyncio.to_thread(self.retain, messages)

    def recall(self, messages: Sequence[ChatMessage]) -> str:
        """What mneme recalls for the latest messages, one memory per line ("" for none)."""
        query = " ".join(t for m in messages[-self.context_window :] if (t := _text(m)))
        if not query.strip():
            return ""
        hits = self.memory.recall(
            query, bank=self.bank, agent=self.agent, scope=self.scope, k=self.k
        )
        return "\n".join(f"- {h.unit.text}" for h in hits)

    def retain(self, messages: Sequence[ChatMessage]) -> None:
        """Retain each message with text as a source: all of them, or none on bad input."""
        if not isinstance(messages, Sequence) or not all(
            isinstance(m, ChatMessage) for m in messages
        ):
            raise InvalidInput("a memory block takes a list of LlamaIndex ChatMessage")
        items = [
            {
                "text": f"{m.role.value}: {text}",
                "bank": self.bank,
                "agent": self.agent,
                "session": _session(m.additional_kwargs.get("session_id")),
                "visibility": self.visibility,
            }
            for m in messages
            if (text := _text(m))
        ]
        if items:
            self.memory.retain_many(items)


def _text(message: ChatMessage) -> str:
    return " ".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()


def _session(session_id: Any) -> str | None:
    """LlamaIndex's session id as a mneme session: itself when it is a valid id."""
    if session_id is None:
        return None
    try:
        return validate.ident(session_id, "session")
    except InvalidInput:
        return f"li.{digest(str(session_id))}"
