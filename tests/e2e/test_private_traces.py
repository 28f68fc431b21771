"""A private write leaves no trace others can see (issue 16 item 3): no knower, no evidence id,
no history event, no status change and no id on a shared memory, whether the private write
copies, restates, contradicts or corrects it, or repeats a rejected value. Through the Python
API and over HTTP with agent tokens."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.surfaces.http import TokenStore, create_app

SHARED = "The Falcon standup is at 09:15 in room Maple."
#: What agent "a2" says privately about it: a copy, a restatement, more, a contradiction,
#: a correction.
PRIVATE = (
    "The Falcon standup is at 09:15 in room Maple.",
    "The Falcon standup is at 9:15 in room Maple",
    "The Falcon standup is at 09:15 in room Maple, every weekday.",
    "The Falcon standup is at 09:45 in room Maple.",
    "Actually, the Falcon standup moved to 10:30 in room Maple.",
)


def _seen_by_others(mem: mneme.Memory, unit_id: str) -> dict[str, Any]:
    unit = mem.get(unit_id, bank="b", agent="a3")
    return {
        "status": unit.status.value,
        "knowers": unit.knowers,
        "evidence": unit.evidence,
        "superseded_by": unit.superseded_by,
        "contradictions": unit.contradictions,
        "history": [(e.kind, e.detail) for e in mem.history(unit_id, bank="b", agent="a3")],
        "edges": [
            (e.src, e.dst, e.type) for e in mem.graph(unit_id, 1, bank="b", agent="a3").edges
        ],
        "conflicts": [
            c.id
            for c in mem.conflicts.list(bank="b", status=None)
            if unit_id in (c.a_unit, c.b_unit)
        ],
    }


def test_a_private_write_changes_nothing_another_agent_sees(mem: mneme.Memory) -> None:
    shared = mem.retain(SHARED, bank="b", agent="a1", source_id="pub-1").memory_ids[0]
    before = _seen_by_others(mem, shared)
    private_ids: set[str] = set()
    for i, text in enumerate(PRIVATE):
        r = mem.retain(text, bank="b", agent="a2", visibility="private", source_id=f"priv-{i}")
        private_ids.update(r.memory_ids)
        assert shared not in r.memory_ids  # never merged into the shared memory
        assert _seen_by_others(mem, shared) == before, text
    # and no other agent's recall or listing shows a private id
    hits = mem.recall("When is the Falcon standup?", bank="b", agent="a3", scope="collective")
    assert {h.unit.id for h in hits} == {shared}
    listed = {u.id for u in mem.list_memories(bank="b", agent="a3", scope="collective")}
    assert not listed & private_ids


def test_the_author_is_told_what_its_private_memory_disputes(mem: mneme.Memory) -> None:
    shared = mem.retain(SHARED, bank="c", agent="a1").memory_ids[0]
    told = mem.retain(PRIVATE[3], bank="c", agent="a2", visibility="private")
    (decision,) = [d for d in told.decisions if d.target_id == shared]
    assert decision.verdict.value == "CONTRADICT"
    assert "no trace" in decision.reason
    assert mem.conflicts.list(bank="c") == []
    assert mem.get(shared, bank="c", agent="a3").status.value == "active"


def test_a_private_repeat_of_a_rejected_value_stays_rejected_and_leaves_the_tombstone(
    mem: mneme.Memory,
) -> None:
    wrong = mem.retain("The vault is in Building C.", bank="b", agent="a1").memory_ids[0]
    stone = mem.review.reject(wrong, "it was never there", "rev1")
    again = mem.retain("The vault is in Building C.", bank="b", agent="a2", visibility="private")
    (unit,) = [mem.get(u, bank="b", agent="a2") for u in again.memory_ids]
    assert unit.status.value == "rejected"  # rejections stay rejected, privately too
    after = mem._store.trust.find_tombstones("b", unit_id=wrong)
    assert [t.evidence for t in after if t.id == stone.id] == [stone.evidence]


class _Http:
    def __init__(self, client: TestClient, tokens: TokenStore) -> None:
        self.client = client
        self.secret = {
            a: tokens.create(bank="b", agent=a, role="agent")[0] for a in ("a1", "a2", "a3")
        }

    def call(self, agent: str, method: str, path: str, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.secret[agent]}"}
        return self.client.request(method, f"/v1/banks/b{path}", headers=headers, **kw)


@pytest.fixture
def http(mem: mneme.Memory, tmp_path: Path) -> Iterator[_Http]:
    tokens = TokenStore(tmp_path / "tokens.json")
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as client:
        yield _Http(client, tokens)


def test_over_http_a_private_write_leaves_the_shared_memory_as_it_was(http: _Http) -> None:
    made = http.call("a1", "POST", "/memories", json={"text": SHARED, "source_id": "pub-1"})
    assert made.status_code in (200, 201), made.text
    (shared,) = made.json()["memory_ids"]

    def seen() -> tuple[Any, Any]:
        unit = http.call("a3", "GET", f"/memories/{shared}")
        history = http.call("a3", "GET", f"/memories/{shared}/history")
        assert unit.status_code == 200
        assert history.status_code == 200
        return unit.json(), history.json()

    before = seen()
    for i, text in enumerate(PRIVATE):
        r = http.call(
            "a2",
            "POST",
            "/memories",
            json={"text": text, "visibility": "private", "source_id": f"priv-{i}"},
        )
        assert r.status_code in (200, 201), r.text
        assert seen() == before, text
    # another agent cannot read the private source ids either, in the words an absent id gets
    hidden = http.call("a3", "GET", "/sources/priv-0")
    absent = http.call("a3", "GET", "/sources/never-was")
    assert hidden.status_code == absent.status_code == 404
    said = [r.json()["error"]["message"] for r in (hidden, absent)]
    assert said[0].replace("priv-0", "X") == said[1].replace("never-was", "X")


def test_over_http_a_private_source_id_is_no_oracle(http: _Http) -> None:
    """Writing under an id another agent holds privately is answered as under an unused one
    (ADR 0107): no 409 tells that it exists."""
    kept = http.call(
        "a2",
        "POST",
        "/memories",
        json={"text": PRIVATE[3], "visibility": "private", "source_id": "p-9"},
    )
    assert kept.status_code in (200, 201), kept.text
    taken = http.call("a1", "POST", "/memories", json={"text": SHARED, "source_id": "p-9"})
    unused = http.call("a1", "POST", "/memories", json={"text": SHARED, "source_id": "never-9"})
    assert taken.status_code == unused.status_code, taken.text
    assert taken.json()["status"] == unused.json()["status"]
    mine = http.call("a2", "GET", "/sources/p-9").json()
    theirs = http.call("a3", "GET", "/sources/p-9").json()
    assert (mine["text"], theirs["text"]) == (PRIVATE[3], SHARED)


@pytest.mark.anyio
async def test_over_mcp_a_private_write_leaves_the_shared_memory_as_it_was(
    mem: mneme.Memory,
) -> None:
    import json

    from mcp.shared.memory import create_connected_server_and_client_session as connect

    from mneme.surfaces.authority import Principal
    from mneme.surfaces.mcp import build_server

    def as_agent(agent: str) -> Any:
        return connect(
            build_server(
                mem, principal=Principal(f"tok_{agent}", "b", agent, "agent"), tools_profile="full"
            )
        )

    async def call(client: Any, tool: str, args: dict[str, Any]) -> Any:
        res = await client.call_tool(tool, args)
        assert not res.isError, res.content[0].text
        return json.loads(res.content[0].text)

    async with as_agent("a1") as a1, as_agent("a2") as a2, as_agent("a3") as a3:
        made = await call(a1, "add_memory", {"text": SHARED, "source_id": "pub-1"})
        (shared,) = made["memory_ids"]

        async def seen() -> tuple[Any, Any]:
            unit = await call(a3, "get_memory", {"memory_id": shared})
            history = await call(a3, "history", {"object_id": shared})
            return unit, history

        before = await seen()
        for i, text in enumerate(PRIVATE):
            await call(a2, "add_memory", {"text": text, "private": True, "source_id": f"priv-{i}"})
            assert await seen() == before, text
        found = await call(
            a3, "search_memory", {"query": "When is the Falcon standup?", "scope": "collective"}
        )
        assert {h["unit"]["id"] if "unit" in h else h["id"] for h in found["hits"]} == {shared}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
