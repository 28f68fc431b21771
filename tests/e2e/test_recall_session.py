"""Recall and context scoped to one session (ADR 0109), on every surface: in a bank shared
by many conversations, "what is the current ...?" about one of them answers from it alone,
with scope still enforced inside the store's queries."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from tests.conftest import Clock

import mneme
from mneme.errors import InvalidInput
from mneme.surfaces.cli.main import cli
from mneme.surfaces.http import TokenStore, create_app

T0 = dt.datetime(2019, 3, 1, 9, 0, tzinfo=dt.UTC)
#: (session, text): a restaurant booking changed once, then an unrelated flight, said later.
SAID = (
    ("rest", "User: I want a table for two at Sino on March 5th."),
    ("rest", "User: Actually, make it March 7th."),
    ("flight", "User: I want to fly to New York on March 12th."),
    ("flight", "User: Make it a window seat on March 12th."),
)
ASK = "What is the current date in March?"


def _fill(mem: mneme.Memory, clock: Clock) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for i, (session, text) in enumerate(SAID):
        clock.now = T0 + dt.timedelta(minutes=10 * i)
        r = mem.retain(text, bank="b", agent="user", session=session, occurred_at=clock.now)
        ids.setdefault(session, []).extend(r.memory_ids)
    return ids


@pytest.fixture
def filled(mem: mneme.Memory, clock: Clock) -> dict[str, list[str]]:
    return _fill(mem, clock)


def test_recall_keeps_to_the_session_named(mem: mneme.Memory, filled: dict[str, list[str]]) -> None:
    # Unscoped, the later conversation's date answers the question about now.
    everywhere = mem.recall(ASK, bank="b", agent="user", k=10)
    assert everywhere[0].unit.id in filled["flight"]
    hits = mem.recall(ASK, bank="b", agent="user", k=10, session="rest")
    assert hits
    assert {h.unit.id for h in hits} <= set(filled["rest"])
    assert "March 7th" in hits[0].unit.text  # the present answer of that conversation
    block = mem.context(ASK, bank="b", agent="user", session="rest")
    assert "March 7th" in block.text
    assert "New York" not in block.text


def test_a_session_holds_only_what_the_viewer_may_see(
    mem: mneme.Memory, filled: dict[str, list[str]], clock: Clock
) -> None:
    clock.now = T0 + dt.timedelta(hours=2)
    private = mem.retain(
        "User: My card for Sino is 4111 2222.",
        bank="b",
        agent="user",
        session="rest",
        visibility="private",
    ).memory_ids
    seen = {h.unit.id for h in mem.recall("Sino card", bank="b", agent="other", session="rest")}
    assert seen.isdisjoint(private)
    assert seen <= set(filled["rest"])
    mine = {h.unit.id for h in mem.recall("Sino card", bank="b", agent="user", session="rest")}
    assert mine & set(private)


def test_an_empty_or_bad_session_answers_nothing_or_says_why(
    mem: mneme.Memory, filled: dict[str, list[str]]
) -> None:
    assert mem.recall(ASK, bank="b", agent="user", session="never-said") == []
    with pytest.raises(InvalidInput, match="session 'no spaces please' is not a valid id"):
        mem.recall(ASK, bank="b", agent="user", session="no spaces please")


@pytest.fixture
def http(mem: mneme.Memory, filled: dict[str, list[str]], tmp_path: Path) -> Iterator[Any]:
    tokens = TokenStore(tmp_path / "tokens.json")
    secret = tokens.create(bank="b", agent="user", role="agent")[0]
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {secret}"
        yield client


def test_over_http_recall_and_context_take_a_session(
    http: TestClient, filled: dict[str, list[str]]
) -> None:
    posted = http.post("/v1/banks/b/recall", json={"query": ASK, "session": "rest"})
    assert posted.status_code == 200, posted.text
    ids = [h["id"] for h in posted.json()["hits"]]
    assert ids
    assert set(ids) <= set(filled["rest"])
    got = http.get("/v1/banks/b/recall", params={"query": ASK, "session": "rest"})
    assert [h["id"] for h in got.json()["hits"]] == ids
    block = http.post("/v1/banks/b/context", json={"query": ASK, "session": "rest"})
    assert block.status_code == 200, block.text
    assert "New York" not in block.json()["text"]
    bad = http.post("/v1/banks/b/recall", json={"query": ASK, "session": "no spaces"})
    assert bad.status_code == 422


@pytest.mark.anyio
async def test_over_mcp_search_and_context_take_a_session(
    mem: mneme.Memory, filled: dict[str, list[str]]
) -> None:
    from mcp.shared.memory import create_connected_server_and_client_session as connect

    from mneme.surfaces.authority import Principal
    from mneme.surfaces.mcp import build_server

    async def call(client: Any, tool: str, args: dict[str, Any]) -> Any:
        res = await client.call_tool(tool, args)
        assert not res.isError, res.content[0].text
        return json.loads(res.content[0].text)

    server = build_server(mem, principal=Principal("tok_u", "b", "user", "agent"))
    async with connect(server) as client:
        hits = (await call(client, "search_memory", {"query": ASK, "session": "rest"}))["hits"]
        assert hits
        assert {h["id"] for h in hits} <= set(filled["rest"])
        block = await call(client, "get_context", {"query": ASK, "session": "rest"})
        assert "New York" not in block["text"]


def test_the_cli_search_and_context_take_a_session(tmp_path: Path) -> None:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    db = str(tmp_path / "cli.db")

    def run(*args: str) -> Any:
        result = runner.invoke(
            cli, ["--db", db, "--embedder", "hashing", *args], catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        return result

    run("banks", "create", "b")
    for session, text in SAID:
        run("add", text, "--bank", "b", "--agent", "user", "--session", session)
    found = json.loads(
        run("search", ASK, "--bank", "b", "--agent", "user", "--session", "rest", "--json").stdout
    )
    assert found["hits"]
    assert all("New York" not in h["text"] for h in found["hits"])
    block = run("context", ASK, "--bank", "b", "--agent", "user", "--session", "flight").stdout
    assert "Sino" not in block


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
