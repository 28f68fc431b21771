"""One authority on every surface: the role table walked over the HTTP API and MCP alike.

For every operation in ``authority.OPERATIONS`` and every kind of caller, the HTTP route (an
in-process ASGI client with the caller's bearer token) and the MCP tool or resource (a real
in-process MCP client session acting as the same principal) agree: both allow it or both
refuse it (403 / ``forbidden``), and what they do matches the table. Refusals change nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from mcp.shared.exceptions import McpError
from mcp.shared.memory import create_connected_server_and_client_session as connect
from pydantic import AnyUrl

import mneme
from mneme.surfaces.authority import OPERATIONS, Principal, may
from mneme.surfaces.http import TokenStore, create_app
from mneme.surfaces.mcp import build_server
from mneme.surfaces.mcp.resources import OPERATIONS as RESOURCE_OPERATIONS
from mneme.surfaces.mcp.tools import specs

pytestmark = pytest.mark.anyio

#: (name, bank, agent, role): one caller of each kind, plus an agent of another bank.
CALLERS = [
    ("agent", "team", "scout", "agent"),
    ("reviewer", "team", "rita", "reviewer"),
    ("bank_admin", "team", "tess", "admin"),
    ("root", "*", "root", "admin"),
    ("outsider", "other", "olga", "agent"),
]

#: Each operation on HTTP: method, path and JSON body ({ids} filled from the seeded bank).
HTTP: dict[str, tuple[str, str, dict[str, Any] | None]] = {
    "retain": ("POST", "/v1/banks/team/memories", {"text": "Dana runs the Tuesday standup."}),
    "create_bank": ("POST", "/v1/banks", {"id": "team"}),
    "update": ("POST", "/v1/banks/team/memories/{tea}/update", {"text": "Bob prefers cocoa."}),
    "connect": ("POST", "/v1/banks/team/connect", {"a": "{paris}", "b": "{tea}"}),
    "add_status": ("GET", "/v1/banks/team/writes/pend_nothing", None),
    "recall": ("POST", "/v1/banks/team/recall", {"query": "Where does Alice live?"}),
    "list": ("GET", "/v1/banks/team/memories", None),
    "get": ("GET", "/v1/banks/team/memories/{paris}", None),
    "history": ("GET", "/v1/banks/team/memories/{paris}/history", None),
    "graph": ("GET", "/v1/banks/team/memories/{paris}/graph", None),
    "source": ("GET", "/v1/banks/team/sources/{paris_source}", None),
    "chain": ("POST", "/v1/banks/team/chain", {"query": "Alice"}),
    "concept": ("GET", "/v1/banks/team/concepts/Alice", None),
    "resolve_contradiction": (
        "POST",
        "/v1/banks/team/contradictions/resolve",
        {"from_id": "{paris}", "to_id": "{berlin}", "decision": "preference"},
    ),
    "review_queue": ("GET", "/v1/banks/team/review", None),
    "review_decide": (
        "POST",
        "/v1/banks/team/review/{paris_claim}/decide",
        {"decision": "approve"},
    ),
    "reject": ("POST", "/v1/banks/team/memories/{tea}/reject", {"reason": "wrong"}),
    "restore": ("POST", "/v1/banks/team/memories/{tea}/restore", {}),
    "conflicts": ("GET", "/v1/banks/team/conflicts", None),
    "resolve_conflict": (
        "POST",
        "/v1/banks/team/conflicts/{conflict}/resolve",
        {"resolution": "not_conflict"},
    ),
    "rules": ("GET", "/v1/banks/team/rules", None),
    "adopt_rule": (
        "POST",
        "/v1/banks/team/rules",
        {"kind": "contradiction", "decision": "preference"},
    ),
    "reflect": ("POST", "/v1/banks/team/reflect", {}),
    "insights": ("GET", "/v1/banks/team/insights", None),
    "insights_run": ("POST", "/v1/banks/team/insights/run", {}),
    "roster": ("GET", "/v1/banks/team/agents", None),
    "enroll": ("POST", "/v1/banks/team/agents/enroll", {}),
    "heartbeat": ("POST", "/v1/banks/team/agents/heartbeat", {}),
    "farewell": ("POST", "/v1/banks/team/agents/farewell", {}),
    "audit": ("GET", "/v1/banks/team/audit", None),
    "audit_verify": ("GET", "/v1/audit/verify?bank=team", None),
    "stats": ("GET", "/v1/stats", None),
    "sensitive_policy": ("GET", "/v1/banks/team/sensitive", None),
    "set_sensitive_policy": ("PUT", "/v1/banks/team/sensitive", {"rules": {"email": "store"}}),
}

#: Each operation over MCP: a tool and its arguments, or a resource (``memory://...``).
MCP: dict[str, tuple[str, dict[str, Any]]] = {
    "retain": ("add_memory", {"text": "Dana runs the Tuesday standup."}),
    "update": ("update_memory", {"memory_id": "{tea}", "text": "Bob prefers cocoa."}),
    "connect": ("connect_memories", {"a": "{paris}", "b": "{tea}"}),
    "add_status": ("get_add_status", {"pending_id": "pend_nothing"}),
    "recall": ("search_memory", {"query": "Where does Alice live?"}),
    "list": ("list_memories", {}),
    "banks": ("list_banks", {}),
    "source": ("get_source", {"source_id": "{paris_source}"}),
    "get": ("get_memory", {"memory_id": "{paris}"}),
    "history": ("history", {"object_id": "{paris}"}),
    "graph": ("get_memory_graph", {"memory_id": "{paris}"}),
    "chain": ("search_reasoning_chain", {"query": "Alice"}),
    "concept": ("search_by_concept", {"name": "Alice"}),
    "resolve_contradiction": (
        "resolve_contradiction",
        {"from_id": "{paris}", "to_id": "{berlin}", "decision": "preference"},
    ),
    "review_queue": ("review_queue", {}),
    "review_decide": ("review_decide", {"target_id": "{paris_claim}", "decision": "approve"}),
    "reject": ("reject", {"memory_id": "{tea}", "reason": "wrong"}),
    "restore": ("restore", {"memory_id": "{tea}"}),
    "conflicts": ("list_conflicts", {}),
    "resolve_conflict": (
        "resolve_conflict",
        {"conflict_id": "{conflict}", "resolution": "not_conflict"},
    ),
    "reflect": ("reflect", {}),
    "insights": ("list_insights", {}),
    "insights_run": ("run_insights", {}),
    "rules": ("memory://rules", {}),
    "roster": ("list_agents", {}),
    "enroll": ("enroll_agent", {}),
    "heartbeat": ("agent_heartbeat", {}),
    "farewell": ("agent_farewell", {}),
    "swarm_status": ("swarm_status", {}),
    "think": ("think_start", {"goal": "Where does Alice live?"}),
    "config": ("memory://config", {}),
    "status": ("memory://status", {}),
}


RESOURCES = {op for op, (name, _) in MCP.items() if name.startswith("memory://")}


@dataclass
class World:
    mem: mneme.Memory
    http: TestClient
    secrets: dict[str, str]
    principals: dict[str, Principal]
    ids: dict[str, str]

    def fill(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.format(**self.ids)
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        return value

    def http_call(self, who: str, operation: str) -> int:
        method, path, body = HTTP[operation]
        response = self.http.request(
            method,
            self.fill(path),
            json=self.fill(body),
            headers={"Authorization": f"Bearer {self.secrets[who]}"},
        )
        status: int = response.status_code
        if status == 403:
            assert response.json()["error"]["code"] == "forbidden"
        return status

    async def mcp_call(self, who: str, operation: str) -> str | None:
        """None when the call passed the authority check, else its error code."""
        name, args = MCP[operation]
        server = build_server(self.mem, principal=self.principals[who], tools_profile="full")
        async with connect(server) as client:
            if name.startswith("memory://"):
                try:
                    await client.read_resource(AnyUrl(name))
                except McpError as exc:
                    return exc.error.message.split(":", 1)[0]
                return None
            result = await client.call_tool(name, {"bank": "team", **self.fill(args)})
        if not result.isError:
            return None
        code: str = json.loads(result.content[0].text)["error"]["code"]  # type: ignore[union-attr]
        return code


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def world(mem: mneme.Memory, tmp_path: Path) -> Iterator[World]:
    """Two agents disagree about Alice in bank team; scout also states a fact about Bob."""
    paris = mem.retain("Alice lives in Paris.", bank="team", agent="scout")
    berlin = mem.retain("Alice lives in Berlin.", bank="team", agent="critic")
    tea = mem.retain("Bob prefers tea over coffee.", bank="team", agent="scout")
    mem.retain("Carol works at the harbour.", bank="other", agent="olga")
    (conflict,) = mem.conflicts.list(bank="team")
    claims = {c.claim.value: c.id for c in mem.review.queue(bank="team")}
    ids = {
        "paris": paris.memory_ids[0],
        "paris_source": paris.source_id or "",
        "berlin": berlin.memory_ids[0],
        "tea": tea.memory_ids[0],
        "conflict": conflict.id,
        "paris_claim": claims["paris"],
    }
    tokens = TokenStore(tmp_path / "tokens.json")
    secrets: dict[str, str] = {}
    principals: dict[str, Principal] = {}
    for name, bank, agent, role in CALLERS:
        secrets[name], _ = tokens.create(bank=bank, agent=agent, role=role)
        found = tokens.lookup(secrets[name])
        assert found is not None
        principals[name] = found  # the very principal the token stands for
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as client:
        yield World(mem, client, secrets, principals, ids)


def expected(who: Principal, operation: str, *, in_team: bool = True) -> bool:
    """What the table says: the role allows it, in bank team when the call names it (a
    resource names no bank: it reads the caller's own, or the store's)."""
    return may(who, operation) and (who.may_use_bank("team") or not in_team)


# -- the table covers every surface ----------------------------------------------------------


def test_every_operation_is_offered_and_every_tool_resource_and_route_names_one(
    mem: mneme.Memory, tmp_path: Path
) -> None:
    assert set(HTTP) | set(MCP) == set(OPERATIONS)
    tools = {fn.__name__: operation for fn, _, operation in specs("full")}
    for operation, (name, _) in MCP.items():
        # The tool or resource walked for an operation is one that declares it.
        declared = RESOURCE_OPERATIONS if name.startswith("memory://") else tools
        assert declared[name] == operation, name
    assert set(tools.values()) | set(RESOURCE_OPERATIONS.values()) <= set(MCP)
    app = create_app(mem, TokenStore(tmp_path / "t.json"))
    for route in app.routes:
        if isinstance(route, APIRoute) and route.path.startswith("/v1/banks/{bank}"):
            names = {d.call.__name__ for d in route.dependant.dependencies if d.call}
            checked = {n.removeprefix("may_") for n in names if n.startswith("may_")}
            assert len(checked) == 1, route.path
            assert checked <= set(HTTP), route.path


# -- the matrix ------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
async def test_http_and_mcp_allow_and_refuse_each_operation_alike(
    world: World, operation: str
) -> None:
    for who, *_ in CALLERS:
        principal = world.principals[who]
        allowed = expected(principal, operation)
        if operation in HTTP:
            status = world.http_call(who, operation)
            assert (status != 403) == allowed, (operation, who, "HTTP", status)
            assert status != 401, (operation, who)
        if operation in MCP:
            code = await world.mcp_call(who, operation)
            allowed = expected(principal, operation, in_team=operation not in RESOURCES)
            assert (code != "forbidden") == allowed, (operation, who, "MCP", code)
            assert code != "unauthorized", (operation, who)


async def test_a_refused_call_changes_nothing_on_either_surface(world: World) -> None:
    before = (
        world.mem.admin.stats(),
        world.mem.conflicts.list(bank="team"),
        world.mem.review.queue(bank="team"),
    )
    for operation in ("review_decide", "resolve_conflict", "reject", "restore"):
        assert world.http_call("agent", operation) == 403
        assert await world.mcp_call("agent", operation) == "forbidden"
    for operation in ("retain", "update", "connect", "enroll"):
        assert world.http_call("reviewer", operation) == 403
        assert await world.mcp_call("reviewer", operation) == "forbidden"
    assert await world.mcp_call("reviewer", "think") == "forbidden"
    after = (
        world.mem.admin.stats(),
        world.mem.conflicts.list(bank="team"),
        world.mem.review.queue(bank="team"),
    )
    assert after == before


# -- the attacks of issue 16 -----------------------------------------------------------------


async def test_an_agent_settles_no_dispute_between_two_other_agents_on_either_surface(
    world: World, tmp_path: Path
) -> None:
    tokens: TokenStore = world.http.app.state.tokens  # type: ignore[attr-defined]
    secret, _ = tokens.create(bank="team", agent="mallory", role="agent")
    mallory = tokens.lookup(secret)
    assert mallory is not None
    answer = {"from_id": world.ids["berlin"], "to_id": world.ids["paris"], "decision": "confirm"}
    http = world.http.post(
        "/v1/banks/team/contradictions/resolve",
        json=answer,
        headers={"Authorization": f"Bearer {secret}"},
    )
    async with connect(build_server(world.mem, principal=mallory, tools_profile="full")) as client:
        mcp = await client.call_tool("resolve_contradiction", answer)
    assert http.status_code == 403
    assert mcp.isError
    error = json.loads(mcp.content[0].text)["error"]  # type: ignore[union-attr]
    assert error == http.json()["error"]
    assert error["message"] == "an agent may settle only questions about its own memories"
    assert world.mem.conflicts.list(bank="team", status="open")


async def test_the_actor_of_a_decision_is_the_caller_never_an_argument(world: World) -> None:
    claim = world.ids["paris_claim"]
    async with connect(
        build_server(world.mem, principal=world.principals["reviewer"], tools_profile="full")
    ) as c:
        ceo = await c.call_tool(
            "review_decide", {"target_id": claim, "decision": "approve", "actor": "the-ceo"}
        )
        same = await c.call_tool(
            "review_decide", {"target_id": claim, "decision": "approve", "actor": "rita"}
        )
    assert json.loads(ceo.content[0].text)["error"]["code"] == "forbidden"  # type: ignore[union-attr]
    assert "the-ceo" in ceo.content[0].text  # type: ignore[union-attr]
    assert not same.isError
    (event,) = world.mem._store.trust.review_events("team", claim)
    assert event.actor == "rita"
    http = world.http.post(
        f"/v1/banks/team/review/{claim}/decide",
        json={"decision": "restore", "actor": "the-ceo"},
        headers={"Authorization": f"Bearer {world.secrets['reviewer']}"},
    )
    assert http.status_code == 422  # HTTP bodies refuse an actor too: it is no field


async def test_a_pending_write_is_found_only_in_its_bank_and_by_whom_may_see_it(
    world: World,
) -> None:
    pending = world.mem.retain(
        "Erin's desk is by the window.", bank="team", agent="scout", visibility="private", wait=0
    )
    assert pending.pending_id
    world.mem.get_add_status(pending.pending_id)  # it exists
    principals = world.principals
    codes = {}
    for who in ("agent", "outsider"):
        async with connect(
            build_server(world.mem, principal=principals[who], tools_profile="full")
        ) as client:
            result = await client.call_tool(
                "get_add_status", {"pending_id": pending.pending_id, "bank": principals[who].bank}
            )
        codes[who] = (
            json.loads(result.content[0].text)["error"]["code"]  # type: ignore[union-attr]
            if result.isError
            else "ok"
        )
    critic = Principal("tok_critic", "team", "critic", "agent")
    async with connect(build_server(world.mem, principal=critic, tools_profile="full")) as client:
        theirs = await client.call_tool("get_add_status", {"pending_id": pending.pending_id})
    assert codes == {"agent": "ok", "outsider": "not_found"}
    assert json.loads(theirs.content[0].text)["error"]["code"] == "not_found"  # type: ignore[union-attr]
