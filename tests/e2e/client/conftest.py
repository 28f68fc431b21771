"""The app the client tests call: one store, a token per role, in process or on a socket."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.from_thread
import httpx
import pytest
from tests.e2e.live_server import LiveServer

import mneme
from mneme.client import MnemeClient
from mneme.surfaces.http import TokenStore, create_app


class InProcess(httpx.BaseTransport):
    """A sync httpx transport that calls an ASGI app in process: httpx's own ASGITransport,
    run on an event loop in a portal thread (httpx has no sync transport for ASGI)."""

    def __init__(self, app: Any) -> None:
        self.asgi = httpx.ASGITransport(app)
        self._portal = anyio.from_thread.start_blocking_portal()
        self.portal = self._portal.__enter__()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def send() -> httpx.Response:
            response = await self.asgi.handle_async_request(request)
            content = await response.aread()
            return httpx.Response(response.status_code, headers=response.headers, content=content)

        return self.portal.call(send)

    def close(self) -> None:
        self._portal.__exit__(None, None, None)


@dataclass
class Api:
    """The app over ``mem``, and a bearer token per role (agent scout of bank team, ...)."""

    app: Any
    mem: mneme.Memory
    tokens: dict[str, str]

    def client(self, role: str) -> MnemeClient:
        """A sync client of the app in process, with the role's token."""
        return MnemeClient(
            "http://testserver", token=self.tokens[role], transport=InProcess(self.app)
        )


@pytest.fixture
def api(mem: mneme.Memory, tmp_path: Path) -> Api:
    store = TokenStore(tmp_path / "tokens.json")
    tokens = {}
    for name, bank, agent, role in (
        ("scout", "team", "scout", "agent"),
        ("critic", "team", "critic", "agent"),
        ("reviewer", "team", "rita", "reviewer"),
        ("admin", "*", "root", "admin"),
    ):
        tokens[name], _ = store.create(bank=bank, agent=agent, role=role)
    return Api(create_app(mem, store), mem, tokens)


@pytest.fixture
def live(api: Api) -> Iterator[str]:
    """The app on a real socket on 127.0.0.1: its base URL."""
    with LiveServer(api.app) as server:
        yield server.url
