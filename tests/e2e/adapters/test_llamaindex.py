"""The LlamaIndex memory block (mneme.adapters.llamaindex, ADR 0049): a real LlamaIndex
``Memory`` flushes its short-term chat into the block, and its prompt then holds what mneme
recalls; no LLM, no network (a whitespace tokenizer: LlamaIndex's default would fetch one)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory as ChatMemory
from sqlalchemy.ext.asyncio import create_async_engine

import mneme
from mneme.adapters.llamaindex import MnemeMemoryBlock
from mneme.errors import InvalidInput


async def _converse(block: MnemeMemoryBlock, said: list[str]) -> list[ChatMessage]:
    """Put each message into a LlamaIndex Memory (short-term chat on its own engine, closed at
    the end) and return the prompt it builds."""
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    try:
        chat = ChatMemory.from_defaults(
            session_id="s1",
            token_limit=40,
            chat_history_token_ratio=0.5,
            token_flush_size=10,
            memory_blocks=[block],
            tokenizer_fn=str.split,
            async_engine=engine,
        )
        for text in said:
            await chat.aput(ChatMessage(role="user", content=text))
        return await chat.aget()
    finally:
        await engine.dispose()


def test_flushed_messages_are_retained_and_recalled_into_the_prompt(mem: mneme.Memory) -> None:
    block = MnemeMemoryBlock(memory=mem, bank="acme", agent="helper")
    said = [
        "My sister Ana lives in Porto near the river.",
        *(f"Filler message number {i} about nothing." for i in range(5)),
        "Where does Ana live?",
    ]

    prompt = asyncio.run(_converse(block, said))

    assert prompt[0].role.value == "system"
    assert "- user: My sister Ana lives in Porto near the river." in (prompt[0].content or "")
    hits = mem.recall("Ana Porto", bank="acme", agent="helper")
    assert hits[0].unit.text == "user: My sister Ana lives in Porto near the river."
    assert mem.source(hits[0].evidence_source_ids[0]).session_id == "s1"


def test_the_block_reads_nothing_for_no_messages_and_answers_async(mem: mneme.Memory) -> None:
    block = MnemeMemoryBlock(memory=mem, bank="acme", agent="helper")
    asyncio.run(block.aput([ChatMessage(role="user", content="The boiler was serviced in March.")]))

    assert asyncio.run(block.aget([])) == ""
    got = asyncio.run(
        block.aget([ChatMessage(role="user", content="When was the boiler serviced?")])
    )
    assert got == "- user: The boiler was serviced in March."


def test_one_agent_s_block_never_recalls_another_s_private_messages(mem: mneme.Memory) -> None:
    alice = MnemeMemoryBlock(memory=mem, bank="acme", agent="alice", visibility="private")
    bob = MnemeMemoryBlock(memory=mem, bank="acme", agent="bob", scope="collective")
    asyncio.run(alice.aput([ChatMessage(role="user", content="Alice's door code is 2580.")]))

    got = asyncio.run(bob.aget([ChatMessage(role="user", content="What is the door code?")]))

    assert "2580" not in got
    other = MnemeMemoryBlock(memory=mem, bank="elsewhere", agent="alice")
    assert asyncio.run(other.aget([ChatMessage(role="user", content="door code")])) == ""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bank": "not a bank", "agent": "a"}, "bank"),
        ({"bank": "acme", "agent": "-a"}, "agent"),
        ({"bank": "acme", "agent": "a", "scope": "owner"}, "scope"),
        ({"bank": "acme", "agent": "a", "k": 0}, "k"),
    ],
)
def test_a_block_it_cannot_map_is_refused(
    mem: mneme.Memory, kwargs: dict[str, Any], message: str
) -> None:
    # pydantic reports the InvalidInput (a ValueError) as a ValidationError naming the field
    with pytest.raises(ValueError, match=message):
        MnemeMemoryBlock(memory=mem, **kwargs)


def test_a_flush_with_one_bad_message_writes_none_of_them(mem: mneme.Memory) -> None:
    block = MnemeMemoryBlock(memory=mem, bank="acme", agent="helper")
    good = ChatMessage(role="user", content="The meeting moved to Thursday.")
    bad = ChatMessage(role="user", content="a NUL \x00 byte")

    with pytest.raises(InvalidInput, match="NUL"):
        asyncio.run(block.aput([good, bad]))
    with pytest.raises(InvalidInput, match="ChatMessage"):
        block.retain(["not a message"])  # type: ignore[list-item]

    assert mem.admin.stats().sources == 0
