"""The OpenAI Agents session (mneme.adapters.openai_agents, ADR 0049): the SDK's ``Session``
contract, checked against the SDK's own ``SQLiteSession`` on the same operations; items kept
exact, their text recallable through mneme, scope kept, bad input refused with nothing written."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import SQLiteSession
from agents.memory import Session

import mneme
from mneme.adapters.openai_agents import MnemeSession
from mneme.errors import InvalidInput

ITEMS: list[Any] = [
    {"role": "user", "content": "I moved to Lisbon last spring."},
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Lisbon is lovely in May.", "annotations": []}],
    },
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Lisbon"}',
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "Sunny, 24 C"},
    {"role": "user", "content": "Book me a table for two."},
]


def _counts(mem: mneme.Memory) -> tuple[int, int]:
    stats = mem.admin.stats()
    return stats.sources, stats.units


async def _script(session: Any) -> list[Any]:
    """The same operations on any Session; what each read returned."""
    seen: list[Any] = []
    await session.add_items(ITEMS[:3])
    await session.add_items(ITEMS[3:])
    seen.append(await session.get_items())
    seen.append(await session.get_items(limit=2))
    seen.append(await session.pop_item())
    seen.append(await session.get_items())
    await session.clear_session()
    seen.append(await session.get_items())
    seen.append(await session.pop_item())
    await session.add_items([ITEMS[0]])
    seen.append(await session.get_items())
    return seen


def test_the_session_answers_as_the_sdk_s_own_sqlite_session_does(mem: mneme.Memory) -> None:
    ours = MnemeSession("chat-1", mem, bank="acme", agent="concierge")

    assert isinstance(ours, Session)
    assert asyncio.run(_script(ours)) == asyncio.run(_script(SQLiteSession("chat-1")))


def test_what_was_said_is_recallable_through_mneme_and_stays_after_clear(
    mem: mneme.Memory,
) -> None:
    session = MnemeSession("chat-1", mem, bank="acme", agent="concierge")
    asyncio.run(session.add_items(ITEMS))
    asyncio.run(session.clear_session())

    hits = mem.recall("where did I move", bank="acme", agent="concierge")

    assert hits[0].unit.text == "user: I moved to Lisbon last spring."
    source = mem.source(hits[0].evidence_source_ids[0])
    assert source.session_id == "chat-1"
    assert source.metadata["openai_agents"]["item"] == ITEMS[0]
    assert asyncio.run(session.get_items()) == []


def test_a_session_id_that_is_no_mneme_id_still_keys_its_conversation(mem: mneme.Memory) -> None:
    odd = MnemeSession("user 42 / thread #7", mem, bank="acme", agent="concierge")
    other = MnemeSession("user 42 / thread #8", mem, bank="acme", agent="concierge")
    asyncio.run(odd.add_items(ITEMS[:1]))

    assert asyncio.run(odd.get_items()) == ITEMS[:1]
    assert asyncio.run(other.get_items()) == []
    assert odd.mneme_session.startswith("oa.")


def test_two_agents_keep_apart_conversations_of_the_same_id(mem: mneme.Memory) -> None:
    alice = MnemeSession("chat-1", mem, bank="acme", agent="alice", visibility="private")
    bob = MnemeSession("chat-1", mem, bank="acme", agent="bob")
    asyncio.run(alice.add_items([{"role": "user", "content": "My PIN hint is the cat's name."}]))

    assert asyncio.run(bob.get_items()) == []
    assert asyncio.run(bob.pop_item()) is None
    hits = mem.recall("PIN hint", bank="acme", agent="bob", scope="collective")
    assert all("PIN" not in h.unit.text for h in hits)
    other_bank = MnemeSession("chat-1", mem, bank="elsewhere", agent="alice")
    assert asyncio.run(other_bank.get_items()) == []


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ({"role": "user", "content": "not a list"}, "list"),
        ([{"role": "user", "content": "fine"}, "not a mapping"], "mapping"),
        ([{"role": "user", "content": "fine"}, {"role": "user", "content": {1, 2}}], "plain JSON"),
        ([{"role": "user", "content": "fine"}, {"role": ("user",), "content": "x"}], "plain JSON"),
        ([{"role": "user", "content": "fine"}, {"role": "user", "content": "a\x00b"}], "NUL"),
    ],
)
def test_items_it_cannot_keep_are_refused_and_nothing_is_written(
    mem: mneme.Memory, items: Any, message: str
) -> None:
    session = MnemeSession("chat-1", mem, bank="acme", agent="concierge")
    asyncio.run(session.add_items(ITEMS[:1]))
    before = _counts(mem)

    with pytest.raises(InvalidInput, match=message):
        asyncio.run(session.add_items(items))

    assert _counts(mem) == before
    assert asyncio.run(session.get_items()) == ITEMS[:1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"session_id": "", "bank": "acme", "agent": "a"}, "session id"),
        ({"session_id": "s", "bank": "not a bank", "agent": "a"}, "bank"),
        ({"session_id": "s", "bank": "acme", "agent": None}, "agent"),
        ({"session_id": "s", "bank": "acme", "agent": "a", "visibility": "public"}, "visibility"),
    ],
)
def test_a_session_it_cannot_map_is_refused_before_anything_is_written(
    mem: mneme.Memory, kwargs: dict[str, Any], message: str
) -> None:
    session_id = kwargs.pop("session_id")

    with pytest.raises(InvalidInput, match=message):
        MnemeSession(session_id, mem, **kwargs)

    assert _counts(mem) == (0, 0)


def test_a_bad_limit_is_refused(mem: mneme.Memory) -> None:
    session = MnemeSession("chat-1", mem, bank="acme", agent="concierge")

    with pytest.raises(InvalidInput, match="limit"):
        asyncio.run(session.get_items(limit="3"))  # type: ignore[arg-type]


def test_an_item_holding_a_secret_the_bank_redacts_is_refused_whole(mem: mneme.Memory) -> None:
    session = MnemeSession("chat-1", mem, bank="acme", agent="concierge")
    secret = {"role": "user", "content": "my key is AKIAIOSFODNN7EXAMPLE, keep it"}

    with pytest.raises(InvalidInput, match="redacts"):
        asyncio.run(session.add_items([secret]))

    assert asyncio.run(session.get_items()) == []
    assert _counts(mem) == (0, 0)
