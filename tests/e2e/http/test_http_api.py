"""The HTTP API through an in-process ASGI transport: roles, scope, errors, and each route."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.surfaces.http import TokenStore, create_app
from mneme.surfaces.http.tokens import default_tokens_path


class Api:
    """A client with one token per role, and a shortcut for bank paths."""

    def __init__(self, client: TestClient, tokens: TokenStore) -> None:
        self.client = client
        self.tokens = tokens
        self.secrets: dict[str, str] = {}
        for name, bank, agent, role in (
            ("scout", "team", "scout", "agent"),
            ("critic", "team", "critic", "agent"),
            ("outsider", "other", "scout", "agent"),
            ("reviewer", "team", "rita", "reviewer"),
            ("admin", "*", "root", "admin"),
            ("team_admin", "team", "tess", "admin"),
        ):
            self.secrets[name], _ = tokens.create(bank=bank, agent=agent, role=role)

    def call(self, who: str | None, method: str, path: str, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.secrets[who]}"} if who else {}
        headers.update(kw.pop("headers", {}))
        return self.client.request(method, path, headers=headers, **kw)

    def get(self, who: str | None, path: str, **kw: Any) -> Any:
        return self.call(who, "GET", path, **kw)

    def post(self, who: str | None, path: str, body: Any = None, **kw: Any) -> Any:
        return self.call(who, "POST", path, json={} if body is None else body, **kw)


@pytest.fixture
def api(mem: mneme.Memory, tmp_path: Path) -> Iterator[Api]:
    tokens = TokenStore(tmp_path / "tokens.json")
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as client:
        yield Api(client, tokens)


@pytest.fixture
def seeded(mem: mneme.Memory) -> dict[str, str]:
    """Two agents disagree about Alice; scout also keeps a private note and a shared fact."""
    paris = mem.retain("Alice lives in Paris.", bank="team", agent="scout").memory_ids[0]
    berlin = mem.retain("Alice lives in Berlin.", bank="team", agent="critic").memory_ids[0]
    tea = mem.retain("Bob prefers tea over coffee.", bank="team", agent="scout").memory_ids[0]
    secret = mem.retain("My locker code is 4711.", bank="team", agent="scout", visibility="private")
    elsewhere = mem.retain("Carol works at the harbour.", bank="other", agent="scout")
    (conflict,) = mem.conflicts.list(bank="team")
    claims = {c.claim.value: c.id for c in mem.review.queue(bank="team")}
    return {
        "paris": paris,
        "berlin": berlin,
        "tea": tea,
        "private": secret.memory_ids[0],
        "private_source": secret.source_id or "",
        "elsewhere": elsewhere.memory_ids[0],
        "elsewhere_claim": mem.review.queue(bank="other")[0].id,
        "conflict": conflict.id,
        "paris_claim": claims["paris"],
    }


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["code"], str)
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error


def ids(hits: list[dict[str, Any]]) -> set[str]:
    return {h["id"] for h in hits}


# -- the document and authentication ------------------------------------------------------


def test_openapi_document_describes_every_route_and_the_bearer_scheme(api: Api) -> None:
    doc = api.get(None, "/openapi.json").json()
    assert doc["paths"]
    assert any(s.get("scheme") == "bearer" for s in doc["components"]["securitySchemes"].values())
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert op.get("summary"), (method, path)
            assert op.get("description"), (method, path)
            if path.startswith("/v1/"):
                assert op.get("security"), f"{method} {path} is not marked as needing a token"


def test_healthz_answers_without_a_token_and_says_little(api: Api) -> None:
    response = api.get(None, "/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/memories"),
        ("POST", "/v1/banks/team/memories"),
        ("POST", "/v1/banks/team/recall"),
        ("GET", "/v1/banks/team/review"),
        ("GET", "/v1/audit/verify"),
    ],
)
def test_a_route_without_a_token_is_401_with_www_authenticate(
    api: Api, method: str, path: str
) -> None:
    response = api.client.request(method, path, json={"text": "x", "query": "x"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert error_of(response)["code"] == "unauthorized"


@pytest.mark.parametrize(
    "header", ["Bearer mn_unknown", "Bearer ", "Basic dXNlcjpwYXNz", "mn_no_scheme", "Bearer x"]
)
def test_a_bad_or_unknown_token_is_401(api: Api, header: str) -> None:
    response = api.client.get("/v1/memories", headers={"Authorization": header})
    assert response.status_code == 401
    assert "www-authenticate" in response.headers


def test_a_revoked_token_stops_working_on_the_running_app(api: Api) -> None:
    assert api.get("scout", "/v1/whoami").status_code == 200
    record = next(r for r in api.tokens.records() if r.agent == "scout" and r.bank == "team")
    TokenStore(api.tokens.path).revoke(record.id)  # as `mneme token revoke` would, elsewhere
    assert api.get("scout", "/v1/whoami").status_code == 401


def test_tokens_file_keeps_only_digests_readable_by_its_owner(api: Api) -> None:
    text = api.tokens.path.read_text()
    for secret in api.secrets.values():
        assert secret not in text
    assert all(r["digest"].startswith("sha256:") for r in json.loads(text)["tokens"])
    assert stat.S_IMODE(os.stat(api.tokens.path).st_mode) == 0o600


def test_default_tokens_file_sits_next_to_the_database(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert default_tokens_path(str(tmp_path / "m.db"), env) == tmp_path / "m.tokens.json"
    pg = default_tokens_path("postgresql://h/db", env)
    assert pg == tmp_path / "cfg" / "mneme" / "tokens.json"


def test_whoami_names_the_tokens_bank_agent_and_role(api: Api) -> None:
    me = api.get("reviewer", "/v1/whoami").json()
    assert (me["bank"], me["agent"], me["role"]) == ("team", "rita", "reviewer")


def test_a_token_for_one_bank_cannot_touch_another(api: Api, seeded: dict[str, str]) -> None:
    for who in ("scout", "reviewer", "team_admin"):
        for method, path in (
            ("GET", "/v1/banks/other/memories"),
            ("POST", "/v1/banks/other/recall"),
            ("GET", f"/v1/banks/other/memories/{seeded['elsewhere']}"),
            ("GET", "/v1/banks/other/review"),
            ("GET", "/v1/memories?bank=other"),
        ):
            response = api.call(who, method, path, json={"query": "Carol"})
            assert response.status_code == 403, (who, method, path)
            assert error_of(response)["code"] == "forbidden"
    assert api.post("outsider", "/v1/banks/team/recall", {"query": "Alice"}).status_code == 403


def test_ids_of_another_bank_are_not_found_through_this_bank(
    api: Api, seeded: dict[str, str], mem: mneme.Memory
) -> None:
    assert api.get("admin", f"/v1/banks/team/memories/{seeded['elsewhere']}").status_code == 404
    path = f"/v1/banks/team/review/{seeded['elsewhere_claim']}/decide"
    decided = api.post("admin", path, {"decision": "approve"})
    assert decided.status_code == 404
    assert mem.review.queue(bank="other")[0].claim.review_status.value == "pending_review"
    rejected = api.post("admin", f"/v1/banks/team/memories/{seeded['elsewhere']}/reject")
    assert rejected.status_code == 404
    assert mem.get(seeded["elsewhere"]).status.value == "active"


# -- agents: their own bank, as themselves --------------------------------------------------


def test_an_agent_retains_as_the_token_agent(api: Api, mem: mneme.Memory) -> None:
    response = api.post("scout", "/v1/banks/team/memories", {"text": "Dana owns a red bike."})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert mem.get(body["memory_ids"][0]).agent_id == "scout"


def test_the_body_can_never_choose_the_agent(api: Api, mem: mneme.Memory) -> None:
    before = mem.admin.stats()
    response = api.post(
        "scout", "/v1/banks/team/memories", {"text": "Dana owns a bike.", "agent": "critic"}
    )
    assert response.status_code == 422
    assert error_of(response)["code"] == "invalid_request"
    assert mem.admin.stats() == before


def test_an_agent_never_sees_another_agents_private_memory(
    api: Api, seeded: dict[str, str]
) -> None:
    private = seeded["private"]
    for scope in ("personal", "collective"):
        hits = api.post(
            "critic", "/v1/banks/team/recall", {"query": "locker code 4711", "scope": scope}
        ).json()["hits"]
        assert private not in ids(hits)
    listed = api.get("critic", "/v1/banks/team/memories").json()["memories"]
    assert private not in {u["id"] for u in listed}
    assert private not in {u["id"] for u in api.get("critic", "/v1/memories").json()["memories"]}
    for path in (
        f"/v1/banks/team/memories/{private}",
        f"/v1/banks/team/memories/{private}/history",
        f"/v1/banks/team/memories/{private}/graph",
        f"/v1/banks/team/sources/{seeded['private_source']}",
    ):
        response = api.get("critic", path)
        assert response.status_code == 404, path
        assert "4711" not in response.text
    # Its author sees it.
    assert api.get("scout", f"/v1/banks/team/memories/{private}").status_code == 200
    mine = api.post(
        "scout", "/v1/banks/team/recall", {"query": "locker code 4711", "scope": "personal"}
    )
    assert private in ids(mine.json()["hits"])


def test_personal_scope_holds_only_what_the_agent_stated(api: Api, seeded: dict[str, str]) -> None:
    personal = api.post(
        "critic", "/v1/banks/team/recall", {"query": "Bob tea coffee", "scope": "personal"}
    )
    assert seeded["tea"] not in ids(personal.json()["hits"])
    collective = api.post(
        "critic", "/v1/banks/team/recall", {"query": "Bob tea coffee", "scope": "collective"}
    )
    assert seeded["tea"] in ids(collective.json()["hits"])
    listed = api.get("critic", "/v1/banks/team/memories", params={"scope": "personal"}).json()
    assert {u["agent_id"] for u in listed["memories"]} <= {"critic"}


def test_an_agent_cannot_recall_as_another_agent(api: Api, seeded: dict[str, str]) -> None:
    response = api.post(
        "critic",
        "/v1/banks/team/recall",
        {"query": "locker", "scope": "personal", "as_agent": "scout"},
    )
    assert response.status_code == 403


def test_reviewer_may_recall_as_an_agent_of_the_bank(api: Api, seeded: dict[str, str]) -> None:
    response = api.post(
        "reviewer",
        "/v1/banks/team/recall",
        {"query": "locker code 4711", "scope": "personal", "as_agent": "scout"},
    )
    assert seeded["private"] in ids(response.json()["hits"])


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/banks/team/review", None),
        ("POST", "/v1/banks/team/review/{paris_claim}/decide", {"decision": "approve"}),
        ("GET", "/v1/banks/team/conflicts", None),
        ("POST", "/v1/banks/team/conflicts/{conflict}/resolve", {"resolution": "not_conflict"}),
        ("POST", "/v1/banks/team/memories/{tea}/reject", {"reason": "no"}),
        ("POST", "/v1/banks/team/memories/{tea}/restore", {}),
        ("POST", "/v1/banks/team/rules", {"kind": "value", "decision": "confirm"}),
        ("GET", "/v1/banks/team/audit", None),
        ("GET", "/v1/audit/verify", None),
        ("GET", "/v1/stats", None),
    ],
)
def test_an_agent_token_is_refused_review_and_admin_routes(
    api: Api,
    seeded: dict[str, str],
    mem: mneme.Memory,
    method: str,
    path: str,
    body: dict[str, Any] | None,
) -> None:
    before = mem.admin.stats(), [c.claim.review_status for c in mem.review.queue(bank="team")]
    response = api.call("scout", method, path.format(**seeded), json=body)
    assert response.status_code == 403
    assert error_of(response)["code"] == "forbidden"
    assert (
        mem.admin.stats(),
        [c.claim.review_status for c in mem.review.queue(bank="team")],
    ) == before
    assert mem.get(seeded["tea"]).status.value == "active"
    assert mem.conflicts.list(bank="team")[0].status == "open"


# -- reviewers ------------------------------------------------------------------------------


def test_reviewer_reads_the_bank_as_its_owner(api: Api, seeded: dict[str, str]) -> None:
    unit = api.get("reviewer", f"/v1/banks/team/memories/{seeded['private']}")
    assert unit.status_code == 200
    assert unit.json()["visibility"] == "private"
    listed = api.get("reviewer", "/v1/banks/team/memories").json()["memories"]
    assert seeded["private"] in {u["id"] for u in listed}


def test_reviewer_writes_no_memories(api: Api, mem: mneme.Memory) -> None:
    before = mem.admin.stats()
    response = api.post("reviewer", "/v1/banks/team/memories", {"text": "Eve likes jazz."})
    assert response.status_code == 403
    assert api.post("reviewer", "/v1/banks/team/agents/heartbeat").status_code == 403
    assert mem.admin.stats() == before


def test_reviewer_works_the_queue(api: Api, seeded: dict[str, str], mem: mneme.Memory) -> None:
    queue = api.get("reviewer", "/v1/banks/team/review").json()["items"]
    assert seeded["paris_claim"] in {c["id"] for c in queue}
    path = f"/v1/banks/team/review/{seeded['paris_claim']}/decide"
    event = api.post("reviewer", path, {"decision": "approve", "note": "lease seen"})
    assert event.status_code == 200
    assert event.json()["actor"] == "rita"
    approved = mem.review.queue(bank="team", status="approved")
    assert [c.id for c in approved] == [seeded["paris_claim"]]
    assert approved[0].claim.review_note == "lease seen"
    again = api.post("reviewer", path, {"decision": "approve"})
    assert again.status_code == 409
    assert error_of(again)["code"] == "conflict"
    listed = api.get("reviewer", "/v1/banks/team/review", params={"status": "approved"})
    assert [c["id"] for c in listed.json()["items"]] == [seeded["paris_claim"]]


def test_reviewer_rejects_then_restores_a_memory(
    api: Api, seeded: dict[str, str], mem: mneme.Memory
) -> None:
    tea = seeded["tea"]
    stone = api.post("reviewer", f"/v1/banks/team/memories/{tea}/reject", {"reason": "made up"})
    assert stone.status_code == 200
    assert stone.json()["reason"] == "made up"
    assert mem.get(tea).status.value == "rejected"
    back = api.post("reviewer", f"/v1/banks/team/memories/{tea}/restore", {"note": "oops"})
    assert back.status_code == 200
    assert mem.get(tea).status.value == "active"
    nothing = api.post("reviewer", f"/v1/banks/team/memories/{tea}/restore")
    assert nothing.status_code == 409


def _contested_by(mem: mneme.Memory, unit_id: str) -> list[tuple[str, str]]:
    return [
        (e.dst, e.made_by)
        for e in mem.graph(unit_id).edges
        if e.src == unit_id and e.type == "CONTESTED_BECAUSE"
    ]


@pytest.mark.parametrize("route", ["reject", "decide"])
def test_reviewer_rejects_because_a_belief_and_an_unknown_belief_is_404(
    api: Api, seeded: dict[str, str], mem: mneme.Memory, route: str
) -> None:
    belief = mem.retain("I believe Bob only drinks coffee.", bank="team", agent="critic")
    belief_id = belief.memory_ids[0]
    tea = seeded["tea"]
    if route == "reject":
        path, body = f"/v1/banks/team/memories/{tea}/reject", {"reason": "he hates tea"}
    else:
        path, body = f"/v1/banks/team/review/{tea}/decide", {"decision": "reject", "note": "no"}
    for because in ("u_nothing_here", seeded["elsewhere"], seeded["paris_claim"]):
        missing = api.post("reviewer", path, {**body, "because": because})
        assert missing.status_code == 404, because
        assert error_of(missing)["code"] == "not_found"
    assert mem.get(tea).status.value == "active"
    assert mem._store.trust.review_events("team", tea) == []
    assert mem._store.trust.find_tombstones("team", unit_id=tea) == []
    # The actor is the token's agent: a body cannot name one.
    smuggled = api.post("reviewer", path, {**body, "because": belief_id, "actor": "mallory"})
    assert smuggled.status_code == 422
    done = api.post("reviewer", path, {**body, "because": belief_id})
    assert done.status_code == 200, done.text
    (event,) = mem._store.trust.review_events("team", tea)
    assert (event.decision, event.actor, event.metadata) == (
        "reject",
        "rita",
        {"because": belief_id},
    )
    assert _contested_by(mem, tea) == [(belief_id, "person:rita")]
    assert mem.get(tea).status.value == "rejected"


def test_the_review_listing_shows_each_claim_as_said(
    api: Api, seeded: dict[str, str], mem: mneme.Memory
) -> None:
    items = api.get("reviewer", "/v1/banks/team/review").json()["items"]
    paris = next(i for i in items if i["id"] == seeded["paris_claim"])
    assert paris["statement"] == paris["text"] == "Alice lives in Paris."
    assert paris["author"] == "scout"
    assert paris["unit_id"] == seeded["paris"]
    assert paris["source_id"] == mem.get(seeded["paris"]).evidence[0]
    assert paris["said_at"]
    assert paris["claim"]["id"] == seeded["paris_claim"]
    assert paris["claim"]["value"] == "paris"
    # A reviewer reads the bank as its owner: the private note's claim is there, as said.
    assert "My locker code is 4711." in {i["statement"] for i in items}


def test_reviewer_resolves_a_conflict_once(
    api: Api, seeded: dict[str, str], mem: mneme.Memory
) -> None:
    listed = api.get("reviewer", "/v1/banks/team/conflicts").json()["conflicts"]
    assert [c["id"] for c in listed] == [seeded["conflict"]]
    unknown = api.post("reviewer", "/v1/banks/team/conflicts/cfl_nope/resolve", {})
    assert unknown.status_code == 422  # no resolution given: the body is checked first
    unknown = api.post(
        "reviewer", "/v1/banks/team/conflicts/cfl_nope/resolve", {"resolution": "reject"}
    )
    assert (unknown.status_code, error_of(unknown)["message"]) == (
        404,
        "no conflict 'cfl_nope' in bank 'team'",
    )
    path = f"/v1/banks/team/conflicts/{seeded['conflict']}/resolve"
    no_scopes = api.post("reviewer", path, {"resolution": "scoped_exception"})
    assert no_scopes.status_code == 400
    assert mem.conflicts.list(bank="team")[0].status == "open"
    stranger = api.post("reviewer", path, {"resolution": "supersede", "winner": seeded["tea"]})
    assert stranger.status_code == 400
    done = api.post(
        "reviewer", path, {"resolution": "supersede", "winner": seeded["berlin"], "note": "moved"}
    )
    assert done.status_code == 200
    assert done.json()["resolution"] == "supersede"
    assert mem.get(seeded["paris"]).status.value == "superseded"
    assert api.post("reviewer", path, {"resolution": "not_conflict"}).status_code == 409
    resolved = api.get("reviewer", "/v1/banks/team/conflicts", params={"status": "resolved"})
    assert [c["id"] for c in resolved.json()["conflicts"]] == [seeded["conflict"]]


def test_reviewer_may_not_read_the_audit_log(api: Api) -> None:
    assert api.get("reviewer", "/v1/banks/team/audit").status_code == 403
    assert api.get("reviewer", "/v1/audit/verify").status_code == 403


# -- resolve_contradiction ----------------------------------------------------------------


def test_an_agent_answers_the_question_about_its_own_write(
    api: Api, seeded: dict[str, str], mem: mneme.Memory
) -> None:
    body = {"from_id": seeded["berlin"], "to_id": seeded["paris"], "decision": "confirm"}
    refused = api.post("scout", "/v1/banks/team/contradictions/resolve", body)
    assert refused.status_code == 403
    assert mem.conflicts.list(bank="team")[0].status == "open"
    settled = api.post("critic", "/v1/banks/team/contradictions/resolve", body)
    assert settled.status_code == 200
    assert settled.json()["conflict"]["status"] == "resolved"
    assert mem.get(seeded["paris"]).status.value == "superseded"


def test_an_agent_cannot_settle_its_private_memory_over_a_shared_one(
    api: Api, mem: mneme.Memory
) -> None:
    shared = mem.retain("Our standup is at 09:15.", bank="team", agent="scout").memory_ids[0]
    private = mem.retain(
        "According to my calendar, the standup is at 09:45.",
        bank="team",
        agent="critic",
        visibility="private",
    ).memory_ids[0]
    body = {"from_id": private, "to_id": shared, "decision": "confirm"}
    refused = api.post("critic", "/v1/banks/team/contradictions/resolve", body)
    # A private memory opens no contradiction with a shared one (ADR 0036): nothing to settle.
    assert refused.status_code == 404
    assert "no open conflict" in refused.json()["error"]["message"]
    assert mem.get(shared).status.value == "active"


# -- admins -------------------------------------------------------------------------------


def test_admin_verifies_the_audit_chain_and_reads_recent_records(
    api: Api, seeded: dict[str, str]
) -> None:
    verdict = api.get("admin", "/v1/audit/verify").json()
    assert verdict["ok"] is True
    assert {"team", "other"} <= set(verdict["banks"])
    only = api.get("team_admin", "/v1/audit/verify").json()
    assert set(only["banks"]) == {"team"}
    records = api.get("admin", "/v1/banks/team/audit", params={"limit": 5}).json()["records"]
    assert 0 < len(records) <= 5
    assert records[0]["seq"] > records[-1]["seq"]  # newest first
    stats = api.get("admin", "/v1/stats").json()
    assert stats["banks"] == 2
    banks = {b["id"] for b in api.get("admin", "/v1/banks").json()["banks"]}
    assert banks == {"team", "other"}
    assert {b["id"] for b in api.get("scout", "/v1/banks").json()["banks"]} == {"team"}


def test_an_admin_token_for_every_bank_must_name_one_to_list(
    api: Api, seeded: dict[str, str]
) -> None:
    assert api.get("admin", "/v1/memories").status_code == 400
    listed = api.get("admin", "/v1/memories", params={"bank": "other"}).json()
    assert [u["id"] for u in listed["memories"]] == [seeded["elsewhere"]]


# -- the other routes ---------------------------------------------------------------------


def test_one_memory_its_history_graph_and_source(api: Api, seeded: dict[str, str]) -> None:
    base = f"/v1/banks/team/memories/{seeded['berlin']}"
    unit = api.get("critic", base).json()
    assert unit["text"] == "Alice lives in Berlin."
    events = api.get("critic", f"{base}/history").json()["events"]
    assert events[0]["kind"] == "unit.put"
    graph = api.get("critic", f"{base}/graph", params={"depth": 2}).json()
    assert graph["center"] == seeded["berlin"]
    assert any(e["type"] == "CONTRADICTS" for e in graph["edges"])
    source = api.get("critic", f"/v1/banks/team/sources/{unit['evidence'][0]}").json()
    assert source["text"] == "Alice lives in Berlin."
    claim_history = api.get("reviewer", f"/v1/banks/team/memories/{seeded['paris_claim']}/history")
    assert claim_history.status_code == 200


def test_recall_by_query_parameters_with_filters(api: Api, seeded: dict[str, str]) -> None:
    response = api.get(
        "scout",
        "/v1/banks/team/recall",
        params={"query": "Alice", "scope": "collective", "types": ["fact"], "k": 5},
    )
    assert response.status_code == 200
    assert {seeded["paris"], seeded["berlin"]} <= ids(response.json()["hits"])
    none = api.get(
        "scout", "/v1/banks/team/recall", params={"query": "Alice", "types": ["goal"]}
    ).json()
    assert none["hits"] == []


def test_update_supersedes_the_memory(api: Api, seeded: dict[str, str], mem: mneme.Memory) -> None:
    response = api.post(
        "scout",
        f"/v1/banks/team/memories/{seeded['tea']}/update",
        {"text": "Bob drinks only water nowadays.", "reason": "he changed"},
    )
    assert response.status_code == 200
    new_id = response.json()["memory_ids"][0]
    assert mem.get(seeded["tea"]).superseded_by == new_id


def test_chain_connect_and_concept(api: Api, seeded: dict[str, str]) -> None:
    edge = api.post(
        "scout",
        "/v1/banks/team/connect",
        {"a": seeded["tea"], "b": seeded["paris"], "type": "RELATES_TO"},
    )
    assert edge.status_code == 200
    assert edge.json()["made_by"] == "agent:scout"
    chain = api.post("scout", "/v1/banks/team/chain", {"query": "Bob tea", "direction": "both"})
    assert chain.status_code == 200
    assert chain.json()["steps"]
    concept = api.get("scout", "/v1/banks/team/concepts/Alice").json()
    assert {seeded["paris"], seeded["berlin"]} <= {u["id"] for u in concept["memories"]}


def test_rules_are_readable_by_every_role(api: Api, seeded: dict[str, str]) -> None:
    rules = api.get("scout", "/v1/banks/team/rules").json()
    assert "charter" in rules
    assert set(rules["adopted"]) == {"team"}
    too_early = api.post(
        "reviewer", "/v1/banks/team/rules", {"kind": "value", "decision": "confirm"}
    )
    assert too_early.status_code == 409


def test_agents_announce_themselves_on_the_roster(api: Api, seeded: dict[str, str]) -> None:
    assert api.post("scout", "/v1/banks/team/agents/enroll", {"host": "lab-1"}).status_code == 200
    beat = api.post("critic", "/v1/banks/team/agents/heartbeat", {"status": "busy"})
    assert beat.json()["status"] == "busy"
    roster = api.get("reviewer", "/v1/banks/team/agents").json()
    assert {a["id"] for a in roster["live"]} >= {"scout", "critic"}
    assert api.post("critic", "/v1/banks/team/agents/farewell").json()["status"] == "departed"
    roster = api.get("scout", "/v1/banks/team/agents").json()
    assert "critic" not in {a["id"] for a in roster["live"]}


def test_a_slow_write_is_accepted_and_its_status_can_be_polled(api: Api, mem: mneme.Memory) -> None:
    response = api.post(
        "scout", "/v1/banks/team/memories", {"text": "Frank runs marathons.", "wait": 0}
    )
    assert response.status_code in (200, 202)
    body = response.json()
    if response.status_code == 202:
        pending = body["pending_id"]
        deadline = time.monotonic() + 20
        status = api.get("scout", f"/v1/banks/team/writes/{pending}").json()
        while status["status"] in ("pending", "processing") and time.monotonic() < deadline:
            time.sleep(0.05)
            status = api.get("scout", f"/v1/banks/team/writes/{pending}").json()
        assert status["status"] == "done"
        assert api.get("outsider", f"/v1/banks/other/writes/{pending}").status_code == 404
        assert api.get("scout", "/v1/banks/team/writes/p_nope").status_code == 404
    hits = mem.recall("marathons", bank="team", agent="scout")
    assert [h.text for h in hits][:1] == ["Frank runs marathons."]


# -- bad input: a clear error object, nothing written --------------------------------------


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"text": "x" * 100_001}, 422),
        ({"text": "nul \x00 byte"}, 422),
        ({"text": ""}, 422),
        ({"text": "   "}, 400),
        ({"text": 42}, 422),
        ({}, 422),
        ({"text": "ok", "occurred_at": "not a time at all"}, 400),
        ({"text": "ok", "trust": 2}, 422),
        ({"text": "ok", "visibility": "secret"}, 422),
        ({"text": "ok", "source_id": "bad id with spaces"}, 422),
        ({"text": "ok", "metadata": {"big": "y" * 30_000}}, 422),
        ({"text": "ok", "supersedes": ["u_" + "a" * 200]}, 422),
        (b'{"text": "lone \\ud800 surrogate"}', 422),  # valid JSON, invalid text
    ],
)
def test_bad_retain_input_is_a_clear_error_and_writes_nothing(
    api: Api, mem: mneme.Memory, body: dict[str, Any] | bytes, status: int
) -> None:
    before = mem.admin.stats()
    if isinstance(body, bytes):
        response = api.call(
            "scout",
            "POST",
            "/v1/banks/team/memories",
            content=body,
            headers={"Content-Type": "application/json"},
        )
    else:
        response = api.post("scout", "/v1/banks/team/memories", body)
    assert response.status_code == status, response.text
    error_of(response)
    assert mem.admin.stats() == before


@pytest.mark.parametrize(
    ("method", "path", "kw", "status"),
    [
        ("POST", "/v1/banks/team/recall", {"json": {"query": "q" * 8_001}}, 422),
        ("POST", "/v1/banks/team/recall", {"json": {"query": "a", "k": 0}}, 422),
        ("POST", "/v1/banks/team/recall", {"json": {"query": "a", "scope": "owner"}}, 422),
        ("POST", "/v1/banks/team/recall", {"json": {"query": "a", "time_from": "soon"}}, 400),
        ("POST", "/v1/banks/team/recall", {"json": {"query": "a", "types": ["nope"]}}, 422),
        ("POST", "/v1/banks/team/recall", {"content": b"{not json", "headers": {}}, 422),
        ("GET", "/v1/banks/team/recall", {"params": {"query": "a", "k": "many"}}, 422),
        ("GET", "/v1/banks/team/memories/" + "u" * 129, {}, 422),
        ("GET", "/v1/banks/team/memories/u_missing", {}, 404),
        ("GET", "/v1/banks/team/memories/u_missing/graph", {"params": {"depth": 9}}, 422),
        ("GET", "/v1/banks/bad%20bank/memories", {}, 422),
        ("GET", "/v1/banks/team/concepts/%00", {}, 400),
        ("GET", "/v1/nowhere", {}, 404),
        ("DELETE", "/v1/banks/team/memories", {}, 405),
    ],
)
def test_bad_requests_get_the_error_object_with_the_right_status(
    api: Api, method: str, path: str, kw: dict[str, Any], status: int
) -> None:
    headers = {"Authorization": f"Bearer {api.secrets['scout']}", **kw.pop("headers", {})}
    response = api.client.request(method, path, headers=headers, **kw)
    assert response.status_code == status, response.text
    error_of(response)


def test_an_unexpected_failure_is_a_500_error_object_without_internals(
    api: Api, monkeypatch: pytest.MonkeyPatch, mem: mneme.Memory
) -> None:
    def broken() -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(mem.admin, "stats", broken)
    response = api.get("admin", "/v1/stats")
    assert response.status_code == 500
    assert error_of(response)["code"] == "internal"
    assert "secret internals" not in response.text


def test_every_route_is_documented(api: Api) -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "http.md").read_text()
    for path, item in api.get(None, "/openapi.json").json()["paths"].items():
        for method in item:
            assert f"`{method.upper()} {path}" in docs, f"{method.upper()} {path}"


def test_the_type_filter_knows_every_memory_type() -> None:
    from typing import get_args

    from mneme.core.model import UnitType
    from mneme.surfaces.literals import MemoryType

    assert set(get_args(MemoryType)) == {t.value for t in UnitType}


def test_the_review_page_is_served_with_a_strict_content_policy(api: Api) -> None:
    page = api.client.get("/")
    assert page.status_code == 200
    assert "review" in page.text.lower()
    assert "default-src 'none'" in page.headers["content-security-policy"]
    for asset in ("app.js", "api.js", "style.css", "graph.js"):
        assert api.client.get(f"/static/{asset}").status_code == 200
    assert "http://" not in api.client.get("/static/app.js").text  # nothing from elsewhere


def test_recall_min_relevance_keeps_only_the_hits_at_or_above_it(
    api: Api, mem: mneme.Memory
) -> None:
    for i, text in enumerate(
        [
            "Quentin keeps the spare badge in drawer D-41.",
            "Quentin keeps his bike in the shed.",
            "The spare keys are with the front desk.",
            "Rosa painted the badge office blue.",
        ]
    ):
        mem.retain(text, bank="team", agent="scout", source_id=f"ev-{i}")
    question = {"query": "Where does Quentin keep the spare badge?"}
    every = api.post("scout", "/v1/banks/team/recall", question).json()["hits"]
    assert all(0.0 <= h["relevance"] <= 1.0 for h in every)
    top, second = sorted({h["relevance"] for h in every}, reverse=True)[:2]
    bar = (top + second) / 2
    kept = api.post("scout", "/v1/banks/team/recall", {**question, "min_relevance": bar})
    assert kept.status_code == 200, kept.text
    expected = [h["id"] for h in every if h["relevance"] >= bar]
    assert [h["id"] for h in kept.json()["hits"]] == expected
    by_query = api.get("scout", "/v1/banks/team/recall", params={**question, "min_relevance": bar})
    assert [h["id"] for h in by_query.json()["hits"]] == expected
    for bad in (1.5, -0.1, "high"):
        refused = api.post("scout", "/v1/banks/team/recall", {**question, "min_relevance": bad})
        assert refused.status_code == 422, refused.text
        assert "min_relevance" in error_of(refused)["message"]


@pytest.mark.parametrize(
    "field", [{"occurred_at": "0001-01-01T00:00:00Z"}, {"mentioned_at": "9999-12-31T23:59:59Z"}]
)
def test_a_time_outside_the_kept_range_is_a_clear_400_and_the_bank_stays_readable(
    api: Api, field: dict[str, str]
) -> None:
    assert api.post("scout", "/v1/banks/team/memories", {"text": "Dana owns a bike."}).is_success
    response = api.post("scout", "/v1/banks/team/memories", {"text": "An old note.", **field})
    assert response.status_code in (400, 422)
    assert "0100-01-01 to 8999-12-31" in response.text
    # Dates that far out in the text are no times: the write succeeds and the bank reads.
    far = {"text": "The vault opens on 9999-12-31, and it was sealed on 0001-01-01."}
    assert api.post("scout", "/v1/banks/team/memories", far).is_success
    listed = api.get("scout", "/v1/banks/team/memories")
    assert listed.status_code == 200
    assert len(listed.json()["memories"]) == 2


def test_store_statistics_need_an_admin_of_every_bank(api: Api) -> None:
    assert api.get("admin", "/v1/stats").status_code == 200
    refused = api.get("team_admin", "/v1/stats")
    assert refused.status_code == 403
    assert "bank '*'" in refused.json()["error"]["message"]


# -- banks are explicit (issue 18): a typo is a 404 naming the known banks, never a new bank --


def test_an_unknown_bank_is_a_404_naming_the_known_ones_and_writes_nothing(
    api: Api, mem: mneme.Memory
) -> None:
    mem.retain("Ada likes chess.", bank="team", agent="scout")
    before = mem.admin.stats()
    for method, path, body in (
        ("POST", "/v1/banks/teem/recall", {"query": "chess"}),
        ("GET", "/v1/banks/teem/memories", None),
        ("POST", "/v1/banks/teem/context", {"query": "chess"}),
        ("POST", "/v1/banks/teem/memories", {"text": "Ada likes go."}),
    ):
        kw: dict[str, Any] = {"json": body} if body is not None else {}
        response = api.call("admin", method, path, **kw)
        assert response.status_code == 404, (path, response.text)
        message = error_of(response)["message"]
        assert "no bank 'teem'" in message
        assert "'team'" in message
    assert mem.admin.stats() == before
    assert mem.admin.bank("teem") is None


def test_a_bank_is_made_explicitly(api: Api, mem: mneme.Memory) -> None:
    made = api.post("admin", "/v1/banks", {"id": "lab", "name": "The lab"})
    again = api.post("admin", "/v1/banks", {"id": "lab"})
    written = api.post(
        "admin", "/v1/banks/club/memories", {"text": "Ada likes go.", "create_bank": True}
    )
    refused = api.post("scout", "/v1/banks", {"id": "lab2"})
    assert made.status_code == 201
    assert made.json()["name"] == "The lab"
    assert again.status_code == 200
    assert written.status_code == 200
    assert refused.status_code == 403
    assert {b.id for b in mem.admin.banks()} >= {"lab", "club"}
    assert mem.admin.bank("lab2") is None
    events = mem.admin.audit_log("lab")
    assert any(
        e.op == "bank.create" and e.reason == "created explicitly" and e.actor == "root"
        for e in events
    )


def test_the_tokens_own_bank_exists_before_its_first_write(api: Api) -> None:
    # A token names its bank: that is configuration, not a typo.
    assert api.post("outsider", "/v1/banks/other/recall", {"query": "x"}).json()["hits"] == []
    assert api.post("outsider", "/v1/banks/other/memories", {"text": "Olga likes tea."}).is_success
