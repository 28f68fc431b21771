"""The default MCP surface an agent pays for: the core tool profile, compact hits, context
blocks, sources, banks, and the size budgets of issue 18 (through a real client session)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session as connect

import mneme
from mneme.errors import InvalidInput
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp import build_server
from mneme.surfaces.mcp.reference import DOCS, updated
from mneme.surfaces.mcp.server import MnemeServer
from mneme.surfaces.tool_profiles import GROUP_NAMES, GROUPS, groups_of

pytestmark = pytest.mark.anyio

#: Issue 18's budgets, counted as characters / 4 of compact JSON.
TOOL_LIST_TOKENS = 2_500
SEARCH_OVERHEAD_CHARS = 1_500
CORE = {
    "add_memory",
    "search_memory",
    "get_context",
    "get_memory",
    "get_source",
    "update_memory",
    "reject",
    "resolve_contradiction",
    "list_conflicts",
    "history",
    "list_banks",
    "get_add_status",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server(
    mem: mneme.Memory, *, bank: str = "b", role: str = "admin", tools: str = "core"
) -> MnemeServer:
    return build_server(mem, principal=Principal("tok", bank, "a1", role), tools_profile=tools)


async def call(client: ClientSession, name: str, args: dict[str, Any]) -> Any:
    res = await client.call_tool(name, args)
    body = json.loads(res.content[0].text)  # type: ignore[union-attr]
    assert bool(res.isError) == ("error" in body and set(body) == {"error"})
    return body


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def test_the_default_profile_lists_the_core_tools_within_its_token_budget(
    mem: mneme.Memory,
) -> None:
    async with connect(server(mem)) as client:
        tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == CORE
    size = len(compact([t.model_dump(exclude_none=True, mode="json") for t in tools])) / 4
    assert size <= TOOL_LIST_TOKENS, f"the default tool list is {size:.0f} tokens"
    for tool in tools:
        assert "title" not in json.dumps(tool.inputSchema), tool.name
        assert "bank" not in tool.inputSchema.get("required", []), tool.name


async def test_full_and_group_profiles_list_more_and_a_tool_outside_is_named(
    mem: mneme.Memory,
) -> None:
    async with connect(server(mem, tools="full")) as client:
        full = {t.name for t in (await client.list_tools()).tools}
    async with connect(server(mem, tools="core,review")) as client:
        review = {t.name for t in (await client.list_tools()).tools}
        outside = await call(client, "think_start", {"goal": "x"})
    assert full == set(GROUPS)
    assert len(full) >= 30
    assert review == CORE | {n for n, g in GROUPS.items() if g == "review"}
    assert outside["error"]["code"] == "not_found"
    assert "'think' group" in outside["error"]["message"]
    with pytest.raises(InvalidInput, match="unknown MCP tool profile"):
        groups_of("core,typo")
    assert set(GROUPS.values()) == set(GROUP_NAMES)


async def test_a_ten_hit_search_is_compact_within_its_budget(mem: mneme.Memory) -> None:
    for i in range(14):
        mem.retain(
            f"Quentin stored spare badge number {i} in drawer D-{40 + i}.",
            bank="b",
            agent="a1",
            source_id=f"ev-{i}",
            occurred_at=f"2024-03-{i + 1:02d}",
        )
    async with connect(server(mem)) as client:
        found = await call(client, "search_memory", {"query": "Where is the spare badge?"})
    hits = found["hits"]
    assert len(hits) == 10
    overhead = len(compact(found)) - sum(len(h["text"]) for h in hits)
    assert overhead <= SEARCH_OVERHEAD_CHARS, f"{overhead} characters beyond the texts"
    assert all(h["source_ids"] and h["occurred"].startswith("2024-03") for h in hits)
    assert all(set(h) <= {"id", "text", "relevance", "occurred", "source_ids"} for h in hits)


async def test_search_takes_as_of_and_types_and_marks_a_superseded_hit(
    mem: mneme.Memory, clock: Any
) -> None:
    first = mem.retain("Alice lives in Berlin.", bank="b", agent="a1", source_id="ev-1")
    clock.advance(days=30)
    mem.update(first.memory_ids[0], "Alice lives in Munich.", agent="a1")
    async with connect(server(mem)) as client:
        now = await call(client, "search_memory", {"query": "Where does Alice live?"})
        typed = await call(
            client, "search_memory", {"query": "Where does Alice live?", "types": ["goal"]}
        )
        bad = await call(client, "search_memory", {"query": "x", "types": ["nonsense"]})
    old = next(h for h in now["hits"] if h["id"] == first.memory_ids[0])
    assert old["superseded_by"]
    assert typed["hits"] == []
    assert bad["error"]["code"] == "invalid_input"


async def test_get_context_returns_a_cited_block_within_its_budget(mem: mneme.Memory) -> None:
    mem.retain("Alice lives in Berlin.", bank="b", agent="a1", source_id="ev-1")
    mem.retain("Bob drinks green tea every morning.", bank="b", agent="a1", source_id="ev-2")
    async with connect(server(mem)) as client:
        block = await call(client, "get_context", {"query": "Where does Alice live?"})
        tiny = await call(client, "get_context", {"query": "Alice", "max_tokens": 16})
        zero = await call(client, "get_context", {"query": "Alice", "max_tokens": 0})
        huge = await call(client, "get_context", {"query": "Alice", "max_tokens": 10**9})
    assert "Alice lives in Berlin. [ev-1]" in block["text"]
    assert block["tokens"] <= block["max_tokens"] == 800
    assert tiny["tokens"] <= 16
    assert zero["error"]["code"] == huge["error"]["code"] == "invalid_input"


async def test_get_source_reads_the_evidence_within_scope(mem: mneme.Memory) -> None:
    mem.retain("Rosa keeps the keys.", bank="b", agent="a1", source_id="ev-7")
    mem.retain("My PIN hint is blue.", bank="b", agent="a2", source_id="ev-8", visibility="private")
    async with connect(server(mem, role="agent")) as client:
        src = await call(client, "get_source", {"source_id": "ev-7"})
        hidden = await call(client, "get_source", {"source_id": "ev-8"})
    assert src["text"] == "Rosa keeps the keys."
    assert src["agent_id"] == "a1"
    assert hidden["error"]["code"] == "not_found"


async def test_banks_are_explicit_and_a_typo_names_the_known_ones(mem: mneme.Memory) -> None:
    mem.retain("Ada likes chess.", bank="team", agent="a1")
    before = mem.admin.stats()
    async with connect(server(mem, bank="*")) as client:
        banks = await call(client, "list_banks", {})
        read = await call(client, "search_memory", {"query": "chess", "bank": "teem"})
        write = await call(client, "add_memory", {"text": "Ada likes go.", "bank": "teem"})
        assert mem.admin.stats() == before  # the typo wrote nothing
        made = await call(
            client, "add_memory", {"text": "Ada likes go.", "bank": "club", "create_bank": True}
        )
        found = await call(client, "search_memory", {"query": "go", "bank": "club"})
    assert banks == {"banks": ["team"]}
    for refused in (read, write):
        assert refused["error"]["code"] == "not_found"
        assert "no bank 'teem'" in refused["error"]["message"]
        assert "'team'" in refused["error"]["message"]
    assert made["status"] == "ok"
    assert found["hits"]
    assert mem.admin.bank("club") is not None
    async with connect(server(mem, bank="team", role="agent")) as client:
        own = await call(client, "list_banks", {})
    assert own == {"banks": ["team"]}


def test_the_tool_reference_in_the_docs_is_written_from_the_tools() -> None:
    text = DOCS.read_text()
    assert updated(text) == text, "run: python -m mneme.surfaces.mcp.reference"
    assert Path(DOCS).name == "mcp.md"
