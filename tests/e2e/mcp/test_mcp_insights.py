"""The insight tools over a real in-process MCP client session: in the ``reflect`` group
(never the default profile); reviewers and admins run and verify, any token of the bank
lists (issue 19 item 5, ADR 0056)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.insights.run import feed, load
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session as connect

import mneme
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp import build_server
from mneme.surfaces.mcp.server import MnemeServer

pytestmark = pytest.mark.anyio
TOOLS = {"list_insights", "run_insights", "verify_insights"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def real(tmp_path: Path, minilm: Any) -> Any:
    m = mneme.Memory.open(tmp_path / "insights.db", embedder=minilm)
    feed(m, [r for r in load() if r["fixture"] == "chain"], "b")
    yield m
    m.close()


def server(mem: mneme.Memory, role: str, tools: str = "core,reflect") -> MnemeServer:
    return build_server(mem, principal=Principal("tok", "b", "rita", role), tools_profile=tools)


async def call(client: ClientSession, name: str, args: dict[str, Any]) -> Any:
    res = await client.call_tool(name, args)
    return json.loads(res.content[0].text)  # type: ignore[union-attr]


async def test_a_reviewer_runs_lists_and_verifies_insights_over_mcp(real: mneme.Memory) -> None:
    async with connect(server(real, "reviewer")) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        first = await call(client, "run_insights", {})
        again = await call(client, "run_insights", {})
        verified = await call(client, "list_insights", {"state": "verified"})
        one = await call(client, "verify_insights", {"insight": first["created"][0]})
        missing = await call(client, "verify_insights", {"insight": "u_nope"})
        bad = await call(client, "list_insights", {"limit": "3"})
    assert listed >= TOOLS
    assert len(first["created"]) == 1
    assert again["created"] == []
    assert [u["id"] for u in verified] == first["created"]
    assert one["verified"] == []  # nothing changed since the second pass verified it
    assert missing["error"]["code"] == "not_found"
    assert "error" in bad


async def test_insight_tools_are_outside_the_default_profile_and_an_agent_only_lists(
    real: mneme.Memory,
) -> None:
    async with connect(server(real, "admin", tools="core")) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        outside = await call(client, "run_insights", {})
    assert not listed & TOOLS
    assert outside["error"]["code"] == "not_found"
    async with connect(server(real, "agent")) as client:
        refused = await call(client, "run_insights", {})
        refused_verify = await call(client, "verify_insights", {})
        readable = await call(client, "list_insights", {})
    assert refused["error"]["code"] == refused_verify["error"]["code"] == "forbidden"
    assert readable == []
    assert real.insights.list("b") == []
