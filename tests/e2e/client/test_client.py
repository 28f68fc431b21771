"""The typed client against the real app: sync and async, in process (ASGI) and over a real
socket (uvicorn on 127.0.0.1), writes found by searches, and each failure as its error class."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, get_type_hints

import httpx
import pytest
from tests.e2e.client.conftest import Api, InProcess

from mneme.client import (
    ApiError,
    ApiInvalidInput,
    ApiNotFound,
    ApiRefused,
    ApiSchemaMismatch,
    ApiUnauthorized,
    ApiUnavailable,
    AsyncMnemeClient,
    MnemeClient,
)
from mneme.client.api import Health, Identity
from mneme.client.wire import DEFAULT_TIMEOUT
from mneme.errors import BackendUnavailable, InvalidInput, NotFound, Refused, SchemaMismatch

Call = Callable[..., Awaitable[Any]]
Connect = Callable[[str], AbstractAsyncContextManager[Call]]
MODES = ["sync-asgi", "sync-live", "async-asgi", "async-live"]


@pytest.fixture(params=MODES)
def connect(request: pytest.FixtureRequest, api: Api) -> Connect:
    """Opens a client of the mode for a role's token, as one awaitable ``call(method, ...)``."""
    mode: str = request.param
    url = request.getfixturevalue("live") if mode.endswith("live") else "http://testserver"

    @asynccontextmanager
    async def opened(role: str) -> AsyncIterator[Call]:
        token = api.tokens.get(role, role)  # an unknown role is taken as a (bad) token
        if mode.startswith("async"):
            asgi = httpx.ASGITransport(api.app) if mode == "async-asgi" else None
            async with AsyncMnemeClient(url, token=token, transport=asgi) as client:

                async def call_async(name: str, *args: Any, **kwargs: Any) -> Any:
                    return await getattr(client, name)(*args, **kwargs)

                yield call_async
            assert client.http.is_closed
            return
        in_process = InProcess(api.app) if mode == "sync-asgi" else None
        with MnemeClient(url, token=token, transport=in_process) as sync:

            async def call_sync(name: str, *args: Any, **kwargs: Any) -> Any:
                return getattr(sync, name)(*args, **kwargs)

            yield call_sync
        assert sync.http.is_closed

    return opened


def test_a_write_is_found_by_a_search_and_read_back(connect: Connect) -> None:
    async def scenario() -> None:
        async with connect("scout") as call:
            written = await call(
                "retain", "team", text="Staging moved to eu-west-2 on Monday.", source_id="evt-1"
            )
            assert written["status"] == "ok"
            (memory_id,) = written["memory_ids"]
            found = await call("recall", "team", query="where is staging?", k=5)
            assert found["hits"][0]["id"] == memory_id
            by_get = await call("recall_get", "team", query="where is staging?", types=["fact"])
            assert [h["id"] for h in by_get["hits"]] == [memory_id]
            unit = await call("get_memory", "team", memory_id)
            assert unit["text"] == "Staging moved to eu-west-2 on Monday."
            assert written["source_id"] in unit["evidence"]

    asyncio.run(scenario())


def test_each_failure_raises_its_class_which_is_also_the_python_apis(connect: Connect) -> None:
    async def scenario() -> None:
        async with connect("scout") as call:
            with pytest.raises(ApiNotFound) as missing:
                await call("get_memory", "team", "u_nothing_here")
            assert isinstance(missing.value, NotFound)
            assert (missing.value.status, missing.value.code) == (404, "not_found")

            with pytest.raises(ApiInvalidInput) as wrong_type:
                await call("recall", "team", query="staging", k="five")
            assert isinstance(wrong_type.value, InvalidInput)
            assert (wrong_type.value.status, wrong_type.value.field) == (422, "k")
            assert "k: Input should be a valid integer" in str(wrong_type.value)

            with pytest.raises(ApiInvalidInput) as too_long:
                await call("retain", "team", text="x" * 100_001)
            assert too_long.value.field == "text"
            assert "at most 100000 characters" in str(too_long.value)

            with pytest.raises(ApiRefused) as other_bank:
                await call("recall", "elsewhere", query="staging")
            assert isinstance(other_bank.value, Refused)
            assert "'elsewhere'" in str(other_bank.value)

        async with connect("not-a-token") as call:
            with pytest.raises(ApiUnauthorized) as stranger:
                await call("whoami")
            assert stranger.value.status == 401
            assert "unknown or was revoked" in str(stranger.value)

    asyncio.run(scenario())


def test_a_reviewer_settles_the_queue_and_a_conflict(connect: Connect, api: Api) -> None:
    api.mem.retain("Alice lives in Paris.", bank="team", agent="scout")
    api.mem.retain("Alice lives in Berlin.", bank="team", agent="critic")

    async def scenario() -> None:
        async with connect("reviewer") as call:
            queue = await call("queue", "team")
            paris = next(i for i in queue["items"] if i["claim"]["value"] == "paris")
            event = await call("decide", "team", paris["id"], decision="approve", note="seen")
            assert event["decision"] == "approve"
            with pytest.raises(ApiInvalidInput) as claim_because:  # the server's own 400
                await call("decide", "team", paris["id"], decision="approve", because="u_none")
            assert claim_because.value.status == 400
            assert claim_because.value.field is None
            (conflict,) = (await call("list_conflicts", "team"))["conflicts"]
            await call("resolve", "team", conflict["id"], resolution="not_conflict")
            assert (await call("list_conflicts", "team"))["conflicts"] == []
            with pytest.raises(ApiRefused):
                await call("stats")  # an admin of every bank only

    asyncio.run(scenario())


def test_a_callers_own_httpx_client_is_used_and_left_open(api: Api, live: str) -> None:
    # The client's own timeout, not httpx's 5 s default: a loaded host answered the first call
    # of this test after more than 5 s once (a fresh-clone CI beside a benchmark).
    with httpx.Client(base_url=live, timeout=DEFAULT_TIMEOUT) as http:
        with MnemeClient(token=api.tokens["scout"], http=http) as client:
            assert client.whoami()["agent"] == "scout"
        assert not http.is_closed
        assert http.get("/healthz").json() == {"status": "ok"}  # and still works


def test_declared_answers_have_exactly_the_keys_of_their_types(api: Api) -> None:
    with api.client("admin") as client:
        me: Identity = client.whoami()
        health: Health = client.healthz()
    assert me == {"token_id": me["token_id"], "bank": "*", "agent": "root", "role": "admin"}
    assert set(me) == set(get_type_hints(Identity))
    assert health == {"status": "ok"}
    assert set(health) == set(get_type_hints(Health))


def _refuse_every_request(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"nothing should be sent, yet {request.url} was")


def test_an_empty_path_argument_is_refused_before_anything_is_sent() -> None:
    client = MnemeClient("http://mneme.test", transport=httpx.MockTransport(_refuse_every_request))
    with client, pytest.raises(ApiInvalidInput, match="memory_id must be a non-empty string"):
        client.get_memory("team", "")


def test_ids_holding_a_slash_are_reached_through_their_routes(connect: Connect) -> None:
    """The API accepts "/" in an id (``source_id="docs/setup.md"``, a bank "eu/team"); the
    client sends it as %2F, and the server routes it to the id's own route, in process and
    through uvicorn on a socket."""

    async def scenario() -> None:
        async with connect("scout") as call:
            written = await call(
                "retain",
                "team",
                text="The setup guide pins Python 3.12.",
                source_id="docs/setup.md",
            )
            (memory_id,) = written["memory_ids"]
            source = await call("source", "team", "docs/setup.md")
            assert source["id"] == "docs/setup.md"
            assert (await call("get_memory", "team", memory_id))["evidence"] == ["docs/setup.md"]
        async with connect("admin") as call:
            made = await call("create_bank", id="eu/team")
            assert made["id"] == "eu/team"
            await call("retain", "eu/team", text="The Lisbon office opens at 08:30.")
            found = await call("recall", "eu/team", query="When does the Lisbon office open?")
            assert "08:30" in found["hits"][0]["text"]
            with pytest.raises(ApiNotFound):
                await call("source", "eu/team", "docs/setup.md")  # another bank's source

    asyncio.run(scenario())


def test_an_id_cannot_reach_another_route(api: Api) -> None:
    """A slash in an id is quoted with it: the route stays the one called (a 404, not a 405)."""
    with api.client("scout") as client, pytest.raises(ApiNotFound):
        client.get_memory("team", "u_1/history")


def test_a_server_that_does_not_answer_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nothing listens on the port now: the connection is refused at once.
    client = MnemeClient(f"http://127.0.0.1:{port}", timeout=5)
    with client, pytest.raises(ApiUnavailable) as down:
        client.healthz()
    assert isinstance(down.value, BackendUnavailable)
    assert (down.value.status, down.value.code) == (None, "unreachable")
    assert f"127.0.0.1:{port}" in str(down.value)


def _answer(status: int, **kwargs: Any) -> httpx.MockTransport:
    return httpx.MockTransport(lambda _request: httpx.Response(status, **kwargs))


def test_an_answer_that_is_not_the_apis_error_object_still_raises_by_its_status() -> None:
    page = "<html><body><h1>502 Bad Gateway</h1></body></html>"
    client = MnemeClient("http://mneme.test", transport=_answer(502, text=page))
    with client, pytest.raises(ApiError) as proxy:
        client.whoami()
    assert type(proxy.value) is ApiError
    assert proxy.value.status == 502
    assert "502 Bad Gateway" in str(proxy.value)

    body = {"error": {"code": "schema_mismatch", "message": "written by a newer mneme"}}
    client = MnemeClient("http://mneme.test", transport=_answer(409, json=body))
    with client, pytest.raises(ApiSchemaMismatch) as newer:
        client.stats()
    assert isinstance(newer.value, SchemaMismatch)
    assert str(newer.value) == "written by a newer mneme"


def test_a_client_needs_a_url_or_an_httpx_client_of_its_own() -> None:
    with pytest.raises(InvalidInput, match="base_url must start with http"):
        MnemeClient("127.0.0.1:8765")
    with httpx.Client() as http, pytest.raises(InvalidInput, match="not both"):
        MnemeClient("http://127.0.0.1:8765", http=http)


def test_the_python_api_and_the_client_raise_the_same_not_found(api: Api) -> None:
    with pytest.raises(NotFound) as direct:
        api.mem.get("u_nothing_here", bank="team")
    with api.client("admin") as client, pytest.raises(NotFound) as remote:
        client.get_memory("team", "u_nothing_here")
    assert direct.value.code == remote.value.code == "not_found"
