"""``POST /v1/banks/{bank}/reflect`` through the ASGI app: the report, idempotence, the
disposition overrides, and who may run it (issue 19 item 5, ADR 0051)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.core.model import Network
from mneme.surfaces.http import TokenStore, create_app

Client = tuple[TestClient, dict[str, str]]


@pytest.fixture
def client(mem: mneme.Memory, tmp_path: Path) -> Iterator[Client]:
    for i, text in enumerate(
        ("Oliver likes hiking.", "Oliver likes painting.", "Oliver lives in Lisbon.")
    ):
        mem.retain(text, bank="team", agent="scout", source_id=f"s-{i}")
    tokens = TokenStore(tmp_path / "tokens.json")
    auth = {
        role: {"Authorization": f"Bearer {tokens.create(bank='team', agent=agent, role=role)[0]}"}
        for role, agent in (("agent", "scout"), ("reviewer", "rita"), ("admin", "tess"))
    }
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as c:
        yield c, {role: h["Authorization"] for role, h in auth.items()}


def test_a_reviewer_reflects_and_a_second_call_writes_nothing(
    client: Client, mem: mneme.Memory
) -> None:
    c, tokens = client
    first = c.post("/v1/banks/team/reflect", json={}, headers={"Authorization": tokens["reviewer"]})
    assert first.status_code == 200, first.text
    report = first.json()
    assert report["bank"] == "team"
    assert report["evidence"] == 3
    assert len(report["created"]) == 2
    assert report["disposition"] == {"skepticism": 2, "literalism": True, "max_cited": 8}
    made = mem.get(report["created"][0])
    assert made.network == Network.OBSERVATION
    assert made.agent_id == "rita"  # the caller, never a body field
    again = c.post("/v1/banks/team/reflect", json={}, headers={"Authorization": tokens["admin"]})
    assert again.json()["created"] == again.json()["retired"] == []
    assert again.json()["unchanged"] == 2


def test_overrides_apply_to_the_pass_and_bad_ones_are_refused(
    client: Client, mem: mneme.Memory
) -> None:
    c, tokens = client
    h = {"Authorization": tokens["admin"]}
    strict = c.post(
        "/v1/banks/team/reflect", json={"skepticism": 3, "literalism": False}, headers=h
    )
    assert strict.status_code == 200, strict.text
    assert strict.json()["disposition"]["skepticism"] == 3
    assert len(strict.json()["created"]) == 1
    for bad, status in (
        ({"skepticism": "3"}, 422),  # strict types: no string for a number
        ({"skepticism": 0}, 422),
        ({"agent": "root"}, 422),  # unknown fields refused: no impersonation
        ({"skepticism": 9, "max_cited": 8}, 400),  # the core's rule: skepticism <= max_cited
    ):
        r = c.post("/v1/banks/team/reflect", json=bad, headers=h)
        assert r.status_code == status, (bad, r.text)
    assert mem.admin.reflect_disposition("team")["skepticism"] == 2  # the bank's own unchanged


def test_an_agent_may_not_reflect_and_an_unknown_bank_is_not_found(
    client: Client, mem: mneme.Memory
) -> None:
    c, tokens = client
    refused = c.post("/v1/banks/team/reflect", json={}, headers={"Authorization": tokens["agent"]})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"
    assert not [u for u in mem.list_memories(bank="team") if u.network == Network.OBSERVATION]
