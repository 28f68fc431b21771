"""MCP over streamable HTTP: the HTTP app (``/v1`` and ``/mcp``, as ``mneme serve`` builds it)
served by a real uvicorn on a free local port, and the SDK's streamable HTTP client in real
sessions, each with its own bearer token.

The token is the caller, as on ``/v1``: no token is a 401 whatever the bind address, the bank,
agent and role come from the token, and a decision names the token's agent as its actor.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.authority import Principal
from mneme.surfaces.http import TokenStore, create_app
from mneme.surfaces.mcp import streamable_http_app

TIMEOUT = 30
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(app: ASGIApp) -> Iterator[str]:
    """``app`` under uvicorn in a thread; it stops itself at teardown. Yields the base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, name="uvicorn-mcp", daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:  # bounded wait for the socket to listen
        assert thread.is_alive(), "the server died while starting"
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "the server did not stop"


@dataclass
class Served:
    base: str
    mem: mneme.Memory
    secrets: dict[str, str]

    @asynccontextmanager
    async def session(self, who: str | None) -> AsyncIterator[ClientSession]:
        headers = {"Authorization": f"Bearer {self.secrets[who]}"} if who else {}
        async with (
            httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(TIMEOUT)) as http,
            streamable_http_client(f"{self.base}/mcp", http_client=http) as (r, w, _),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            yield s


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The HTTP app with MCP at /mcp, as ``mneme serve`` builds it, and a token per role."""
    mem = mneme.Memory.open(str(tmp_path / "h.db"), embedder=HashingEmbedder())
    tokens = TokenStore(tmp_path / "tokens.json")
    secrets = {
        name: tokens.create(bank=bank, agent=agent, role=role)[0]
        for name, bank, agent, role in (
            ("scout", "team", "scout", "agent"),
            ("critic", "team", "critic", "agent"),
            ("rita", "team", "rita", "reviewer"),
            ("root", "*", "root", "admin"),
        )
    }
    app = create_app(mem, tokens, mcp_app=streamable_http_app(mem, tools_profile="full"))
    try:
        with serve(app) as base:
            yield Served(base, mem, secrets)
    finally:
        mem.close()


def body(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_mcp_over_http_needs_a_bearer_token_even_on_loopback(served: Served) -> None:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
        accept = {"Accept": "application/json, text/event-stream"}
        bare = await http.post(f"{served.base}/mcp", json=initialize, headers=accept)
        wrong = await http.post(
            f"{served.base}/mcp",
            json=initialize,
            headers={**accept, "Authorization": "Bearer mn_not-a-token"},
        )
    assert bare.status_code == wrong.status_code == 401
    assert bare.headers["WWW-Authenticate"].startswith("Bearer")
    assert bare.json()["error"]["code"] == "unauthorized"
    assert "bearer token" in bare.json()["error"]["message"]
    assert "unknown" in wrong.json()["error"]["message"]


async def test_a_session_acts_as_its_token_bank_agent_and_role(served: Served) -> None:
    with anyio.fail_after(TIMEOUT):
        async with served.session("scout") as s:
            tools = {t.name for t in (await s.list_tools()).tools}
            added = await s.call_tool(
                "add_memory", {"text": "Quentin keeps the spare badge in drawer D-41."}
            )
            secret = await s.call_tool(
                "add_memory", {"text": "My locker code is 4711.", "private": True}
            )
            found = await s.call_tool("search_memory", {"query": "Where is the spare badge?"})
            bad = await s.call_tool("search_memory", {"query": 12345})
            elsewhere = await s.call_tool("list_memories", {"bank": "other"})
            posing = await s.call_tool("add_memory", {"text": "I am root.", "agent": "root"})
            review = await s.call_tool("review_queue", {})
        async with served.session("critic") as s:
            theirs = await s.call_tool("list_memories", {})
        async with served.session("rita") as s:
            owner = await s.call_tool("list_memories", {})
            queue = await s.call_tool("review_queue", {})
            claim = body(queue)[0]["id"]
            decided = await s.call_tool(
                "review_decide", {"target_id": claim, "decision": "approve"}
            )
            ceo = await s.call_tool(
                "review_decide", {"target_id": claim, "decision": "reject", "actor": "the-ceo"}
            )
            writes = await s.call_tool("add_memory", {"text": "Reviewers write nothing."})
    assert len(tools) >= 30
    assert not added.isError
    assert not secret.isError
    assert "D-41" in found.content[0].text  # type: ignore[union-attr]
    assert body(bad)["error"]["code"] == "invalid_input"
    (unit_id,) = body(added)["memory_ids"]
    assert served.mem.get(unit_id).agent_id == "scout"  # the author is the token's agent
    for refused in (elsewhere, posing, review, ceo, writes):
        assert refused.isError
        assert body(refused)["error"]["code"] == "forbidden"
    assert "other" in body(elsewhere)["error"]["message"]
    assert "scout" in body(posing)["error"]["message"]
    # Another agent of the bank never sees scout's private memory; the reviewer does.
    # (Texts, not the whole reply: a timestamp's microseconds may read "...471172...".)
    assert not any("4711" in m["text"] for m in body(theirs))
    assert any("4711" in m["text"] for m in body(owner))
    assert not decided.isError
    (event,) = served.mem._store.trust.review_events("team", claim)
    assert event.actor == "rita"


async def test_an_admin_of_every_bank_names_the_bank_and_reads_store_wide_resources(
    served: Served,
) -> None:
    from pydantic import AnyUrl

    with anyio.fail_after(TIMEOUT):
        async with served.session("root") as s:
            unnamed = await s.call_tool("list_memories", {})
            typo = await s.call_tool("add_memory", {"text": "Ada likes chess.", "bank": "teem"})
            named = await s.call_tool(
                "add_memory", {"text": "Ada likes chess.", "bank": "team", "create_bank": True}
            )
            status = await s.read_resource(AnyUrl("memory://status"))
        async with served.session("scout") as s:
            with pytest.raises(Exception, match="forbidden"):
                await s.read_resource(AnyUrl("memory://status"))
    assert body(unnamed)["error"]["code"] == "invalid_input"
    assert "name one" in body(unnamed)["error"]["message"]
    assert body(typo)["error"]["code"] == "not_found"
    assert "no bank 'teem'" in body(typo)["error"]["message"]
    assert not named.isError
    assert json.loads(status.contents[0].text)["stats"]["units"] == 1  # type: ignore[union-attr]


async def test_without_tokens_the_app_runs_as_its_one_principal_and_one_memory(
    tmp_path: Path,
) -> None:
    """``serve --no-auth``'s MCP app: a fixed principal, one Memory for the app's life."""
    opened: list[mneme.Memory] = []

    def factory() -> mneme.Memory:
        opened.append(mneme.Memory.open(str(tmp_path / "n.db"), embedder=HashingEmbedder()))
        return opened[-1]

    local = Principal("no-auth", "*", "local", "admin")
    app = streamable_http_app(factory, principal=local, tools_profile="full")
    with serve(app) as base:
        with anyio.fail_after(TIMEOUT):
            async with (
                streamable_http_client(f"{base}/mcp") as (r, w, _),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                await s.call_tool(
                    "add_memory", {"text": "Rosa keeps the keys.", "bank": "b", "create_bank": True}
                )
            async with (
                streamable_http_client(f"{base}/mcp") as (r, w, _),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                again = await s.call_tool("list_memories", {"bank": "b"})
    assert len(body(again)) == 1
    assert body(again)[0]["agent_id"] == "local"
    assert len(opened) == 1


async def test_an_mcp_app_served_without_tokens_or_a_principal_refuses_every_call(
    tmp_path: Path,
) -> None:
    mem = mneme.Memory.open(str(tmp_path / "bare.db"), embedder=HashingEmbedder())
    try:
        with serve(streamable_http_app(mem)) as base:
            with anyio.fail_after(TIMEOUT):
                async with (
                    streamable_http_client(f"{base}/mcp") as (r, w, _),
                    ClientSession(r, w) as s,
                ):
                    await s.initialize()
                    refused = await s.call_tool("list_memories", {"bank": "b"})
    finally:
        mem.close()
    assert body(refused)["error"]["code"] == "unauthorized"
