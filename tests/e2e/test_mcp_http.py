"""MCP over streamable HTTP: the ASGI app served by a real uvicorn on a free local port, and
the SDK's streamable HTTP client in a real session."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.mcp import streamable_http_app

TIMEOUT = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, list[mneme.Memory]]]:
    """The app under uvicorn in a thread; it stops itself (and closes the store) at teardown."""
    opened: list[mneme.Memory] = []

    def factory() -> mneme.Memory:
        opened.append(mneme.Memory.open(str(tmp_path / "h.db"), embedder=HashingEmbedder()))
        return opened[-1]

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            streamable_http_app(factory),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
        )
    )
    thread = threading.Thread(target=server.run, name="uvicorn-mcp", daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:  # bounded wait for the socket to listen
        assert thread.is_alive(), "the server died while starting"
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/mcp", opened
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "the server did not stop"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_client_session_over_streamable_http_lists_adds_searches_and_refuses_bad_types(
    served: tuple[str, list[mneme.Memory]], anyio_backend: str
) -> None:
    url, opened = served
    ab = {"bank": "team", "agent": "agent-1"}
    with anyio.fail_after(TIMEOUT):
        async with streamable_http_client(url) as (r, w, _), ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            added = await s.call_tool(
                "add_memory", {"text": "Quentin keeps the spare badge in drawer D-41.", **ab}
            )
            found = await s.call_tool("search_memory", {"query": "Where is the spare badge?", **ab})
            bad = await s.call_tool("search_memory", {"query": 12345, **ab})
            missing = await s.call_tool("get_memory", {"memory_id": "u_nope", **ab})
        # A second session shares the same open store (one Memory for the app's life).
        async with streamable_http_client(url) as (r, w, _), ClientSession(r, w) as s:
            await s.initialize()
            again = await s.call_tool("list_memories", ab)
    assert len(tools) >= 30
    assert not added.isError
    assert not found.isError
    assert "D-41" in found.content[0].text  # type: ignore[union-attr]
    assert bad.isError
    assert json.loads(bad.content[0].text)["error"]["code"] == "invalid_input"  # type: ignore[union-attr]
    assert json.loads(missing.content[0].text)["error"]["code"] == "not_found"  # type: ignore[union-attr]
    assert len(json.loads(again.content[0].text)) == 1  # type: ignore[union-attr]
    assert len(opened) == 1
