"""The ``reflect`` tool over a real in-process MCP client session: in its own group (never the
default profile), reviewers and admins only, idempotent (issue 19 item 5, ADR 0051)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session as connect

import mneme
from mneme.core.model import Network
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp import build_server
from mneme.surfaces.mcp.server import MnemeServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server(mem: mneme.Memory, role: str, tools: str = "core,reflect") -> MnemeServer:
    return build_server(mem, principal=Principal("tok", "b", "rita", role), tools_profile=tools)


async def call(client: ClientSession, name: str, args: dict[str, Any]) -> Any:
    res = await client.call_tool(name, args)
    return json.loads(res.content[0].text)  # type: ignore[union-attr]


def seed(mem: mneme.Memory) -> None:
    for i, text in enumerate(
        ("Oliver likes hiking.", "Oliver likes painting.", "Oliver lives in Lisbon.")
    ):
        mem.retain(text, bank="b", agent="a1", source_id=f"s-{i}")


async def test_a_reviewer_reflects_over_mcp_and_a_second_call_adds_nothing(
    mem: mneme.Memory,
) -> None:
    seed(mem)
    async with connect(server(mem, "reviewer")) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        first = await call(client, "reflect", {})
        again = await call(client, "reflect", {})
        strict = await call(client, "reflect", {"skepticism": 3})
        bad = await call(client, "reflect", {"skepticism": "3"})
    assert "reflect" in listed
    assert len(first["created"]) == 2
    assert first["evidence"] == 3
    assert again["created"] == again["revised"] == again["retired"] == []
    assert again["unchanged"] == 2
    assert strict["disposition"]["skepticism"] == 3
    assert len(strict["retired"]) == 1  # the topic of two statements no longer stands
    assert "error" in bad
    made = [u for u in mem.list_memories(bank="b") if u.network == Network.OBSERVATION]
    assert {u.agent_id for u in made} == {"rita"}


async def test_reflect_is_outside_the_default_profile_and_refused_to_an_agent(
    mem: mneme.Memory,
) -> None:
    seed(mem)
    async with connect(server(mem, "admin", tools="core")) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        outside = await call(client, "reflect", {})
    assert "reflect" not in listed
    assert outside["error"]["code"] == "not_found"
    assert "'reflect' group" in outside["error"]["message"]
    async with connect(server(mem, "agent")) as client:
        refused = await call(client, "reflect", {})
    assert refused["error"]["code"] == "forbidden"
    assert not [u for u in mem.list_memories(bank="b") if u.network == Network.OBSERVATION]
