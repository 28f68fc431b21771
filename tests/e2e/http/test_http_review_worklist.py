"""The review worklist and bulk decisions over HTTP (ADR 0048), and ``/docs`` offline."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.core.model import ClaimRecord
from mneme.surfaces.http import TokenStore, create_app


@pytest.fixture
def desk(mem: mneme.Memory, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    mem.retain("Alice lives in Paris.", bank="team", agent="scout", source_id="ev-1")
    mem.retain("Alice lives in Berlin.", bank="team", agent="critic", source_id="ev-2")
    mem.retain("Bob prefers tea over coffee.", bank="team", agent="scout")
    for who in ("Dan", "Erin"):
        mem.retain(f"{who}'s birthday is 3 March.", bank="team", agent="scout")
    claims = {i.claim.subject.split()[0].lower(): i.id for i in mem.review.queue(bank="team")}
    for who in ("dan", "erin"):
        mem.review.reject(claims[who], "wrong date", "rev0")
        mem.retain(f"{who.title()}'s birthday is 3 March.", bank="team", agent="critic")
    mem.retain("Zed is tall.", bank="other", agent="scout")
    tokens = TokenStore(tmp_path / "tokens.json")
    secrets = {
        "reviewer": tokens.create(bank="team", agent="rita", role="reviewer")[0],
        "agent": tokens.create(bank="team", agent="scout", role="agent")[0],
        "admin": tokens.create(bank="*", agent="root", role="admin")[0],
    }
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {secrets['reviewer']}"
        yield client, {**secrets, **claims}


def _claim(mem: mneme.Memory, claim_id: str) -> ClaimRecord:
    claim = mem._store.trust.get_claim("team", claim_id)
    assert claim is not None
    return claim


WORKLIST = "/v1/banks/team/review/worklist"
BULK = "/v1/banks/team/review/bulk"


def test_the_worklist_answers_cards_counts_and_filters(desk: Any) -> None:
    client, ids = desk
    page = client.get(WORKLIST).json()
    assert page["counts"] == {"question": 1, "contested": 0, "reasserted": 2, "proposal": 0}
    assert page["total"] == 3
    assert ids["bob"] not in {i["id"] for i in page["items"]}
    question = next(i for i in page["items"] if i["kind"] == "question")
    assert question["said"]["text"] == "Alice lives in Berlin."
    assert question["said"]["source_ids"] == ["ev-2"]
    assert question["other"]["author"] == "scout"
    assert {"occurred_at", "recorded_at"} <= set(question["said"])
    assert question["actions"] == ["supersede", "reject", "not_conflict", "scoped_exception"]
    only = client.get(WORKLIST, params={"kind": ["question"], "sort": "most_contested"}).json()
    assert [i["kind"] for i in only["items"]] == ["question"]
    assert client.get(WORKLIST, params={"text": "berlin"}).json()["total"] == 1
    assert client.get(WORKLIST, params={"author": "nobody"}).json()["total"] == 0
    paged = client.get(WORKLIST, params={"limit": 1, "offset": 1}).json()
    assert (len(paged["items"]), paged["offset"], paged["total"]) == (1, 1, 3)


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"kind": "gossip"}, 422),
        ({"sort": "loudest"}, 422),
        ({"limit": "many"}, 422),
        ({"limit": 0}, 422),
        ({"offset": -1}, 422),
        ({"text": "x" * 201}, 422),
        ({"author": "not an id!"}, 422),
    ],
)
def test_bad_worklist_parameters_are_clear_errors(desk: Any, params: Any, status: int) -> None:
    client, _ = desk
    response = client.get(WORKLIST, params=params)
    assert response.status_code == status
    assert response.json()["error"]["message"]


def test_the_worklist_of_an_unknown_bank_is_not_found_and_agents_may_not_read_it(
    desk: Any,
) -> None:
    client, ids = desk
    admin = {"Authorization": f"Bearer {ids['admin']}"}
    assert client.get("/v1/banks/nowhere/review/worklist", headers=admin).status_code == 404
    agent = {"Authorization": f"Bearer {ids['agent']}"}
    assert client.get(WORKLIST, headers=agent).status_code == 403
    assert client.post(BULK, json={"ids": [ids["dan"]], "decision": "approve"},
                       headers=agent).status_code == 403  # fmt: skip


def test_bulk_approve_answers_one_result_per_id(desk: Any, mem: mneme.Memory) -> None:
    client, ids = desk
    response = client.post(BULK, json={"ids": [ids["dan"], ids["erin"], "clm_gone"],
                                       "decision": "approve"})  # fmt: skip
    assert response.status_code == 200
    results = response.json()["results"]
    assert [(r["id"], r["ok"], r["code"]) for r in results] == [
        (ids["dan"], True, ""), (ids["erin"], True, ""), ("clm_gone", False, "not_found")
    ]  # fmt: skip
    for who in ("dan", "erin"):
        assert _claim(mem, ids[who]).review_status.value == "approved"
    assert _claim(mem, ids["dan"]).reviewed_by == "rita"


def test_bulk_reject_needs_a_reason_and_decides_nothing_without_one(
    desk: Any, mem: mneme.Memory
) -> None:
    client, ids = desk
    for body in ({"ids": [ids["dan"]], "decision": "reject"},
                 {"ids": [ids["dan"]], "decision": "reject", "reason": "  "}):  # fmt: skip
        response = client.post(BULK, json=body)
        assert response.status_code == 400
        assert "reason" in response.json()["error"]["message"]
    assert _claim(mem, ids["dan"]).review_status.value == "pending_review"
    for bad in ({"ids": [], "decision": "approve"}, {"ids": ids["dan"], "decision": "approve"},
                {"ids": [ids["dan"]], "decision": "supersede"},
                {"ids": [ids["dan"]], "decision": "approve", "extra": 1}):  # fmt: skip
        assert client.post(BULK, json=bad).status_code == 422
    done = client.post(BULK, json={"ids": [ids["dan"]], "decision": "reject", "reason": "no"})
    assert done.json()["results"][0]["ok"] is True


def test_decide_refuses_a_supersede_with_nothing_to_supersede_and_a_reasonless_reject(
    desk: Any, mem: mneme.Memory
) -> None:
    client, ids = desk
    path = f"/v1/banks/team/review/{ids['bob']}/decide"
    refused = client.post(path, json={"decision": "supersede"})
    assert refused.status_code == 409
    assert "nothing supersedes it" in refused.json()["error"]["message"]
    assert client.post(path, json={"decision": "reject"}).status_code == 400
    tomb = client.post(f"/v1/banks/team/memories/{ids['bob']}/reject", json={})
    assert tomb.status_code == 400
    assert mem._store.trust.review_events("team", ids["bob"]) == []


def test_docs_name_no_other_host_and_their_assets_are_served(desk: Any) -> None:
    client, _ = desk
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        assert not re.findall(r"https?://", html), page
        for asset in re.findall(r'(?:src|href)="([^"]+)"', html):
            served = client.get(asset)
            assert served.status_code == 200, asset
            assert len(served.content) > 100, asset
