"""The MCP tools and resources, through the SDK's in-process client (a real client session).

Every tool is called with valid arguments and its answer checked; every tool refuses a missing
argument, a wrong type and an over-long string with an ``invalid_input`` error object and writes
nothing; mneme's own errors keep their code; a crash is ``internal`` without its details. Each
server acts as one principal (as ``mneme mcp`` does); the role matrix itself is walked in
tests/e2e/test_authority.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session as connect
from mcp.types import TextResourceContents
from pydantic import AnyUrl

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp import build_server as _build_server
from mneme.surfaces.mcp.server import MnemeServer
from mneme.surfaces.mcp.tools import specs

pytestmark = pytest.mark.anyio
DOCS = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"
TOOL_NAMES = [fn.__name__ for fn, _, _ in specs("full")]


def build_server(
    memory: Any, *, agent: str = "a1", role: str = "admin", bank: str = "b", tools: str = "full"
) -> MnemeServer:
    """A server acting as one principal: by default an admin of bank b, agent a1, listing
    every tool (the default profile is tested on its own)."""
    return _build_server(
        memory, principal=Principal("tok_test", bank, agent, role), tools_profile=tools
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def call(client: ClientSession, name: str, args: dict[str, Any]) -> Any:
    res = await client.call_tool(name, args)
    assert not res.isError, res.content[0].text  # type: ignore[union-attr]
    return json.loads(res.content[0].text)  # type: ignore[union-attr]


async def fail(client: ClientSession, name: str, args: dict[str, Any]) -> dict[str, str]:
    res = await client.call_tool(name, args)
    assert res.isError, f"{name} should have failed"
    body = json.loads(res.content[0].text)  # type: ignore[union-attr]
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    return body["error"]  # type: ignore[no-any-return]


async def read(client: ClientSession, uri: str) -> str:
    (content,) = (await client.read_resource(AnyUrl(uri))).contents
    assert isinstance(content, TextResourceContents)
    return content.text


def snapshot(mem: mneme.Memory) -> tuple[Any, ...]:
    return (mem.admin.stats(), mem.think.open_count(), len(mem.admin.audit_verify()))


AB = {"bank": "b"}


async def add(client: ClientSession, text: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = await call(client, "add_memory", {"text": text, **AB, **extra})
    return out


# -- the catalogue ---------------------------------------------------------------------------


async def test_every_tool_is_listed_with_a_typed_schema_and_an_actionable_description(mem):
    async with connect(build_server(mem)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert len(tools) >= 30
    assert set(TOOL_NAMES) == set(tools)
    for tool in tools.values():
        assert tool.description, tool.name
        assert len(tool.description) > 40, tool.name
        assert "{QUOTED}" not in tool.description, tool.name
        schema = tool.inputSchema
        assert schema["type"] == "object", tool.name
        # Who acts is the caller's principal, never an argument.
        assert not {"agent", "actor"} & set(schema["properties"]), tool.name
        assert "bank" not in schema.get("required", []), tool.name
        for prop, spec in schema["properties"].items():
            assert "type" in spec or "anyOf" in spec or "enum" in spec, (tool.name, prop)
    assert tools["search_memory"].annotations.readOnlyHint is True  # type: ignore[union-attr]
    assert tools["add_memory"].annotations.readOnlyHint is False  # type: ignore[union-attr]


def test_every_tool_is_documented() -> None:
    docs = DOCS.read_text()
    for name in TOOL_NAMES:
        assert re.search(rf"^### `?{name}`?$", docs, re.M), f"{name} is not in docs/mcp.md"
    for uri in ("memory://rules", "memory://config", "memory://status"):
        assert uri in docs


# -- memories --------------------------------------------------------------------------------


async def test_add_then_search_finds_it_with_its_evidence(mem):
    async with connect(build_server(mem)) as client:
        added = await add(client, "Quentin keeps the spare badge in drawer D-41.", source_id="ev-1")
        assert added["status"] == "ok"
        assert added["source_id"] == "ev-1"
        found = await call(client, "search_memory", {"query": "Where is the spare badge?", **AB})
        full = await call(
            client, "search_memory", {"query": "Where is the spare badge?", **AB, "detail": "full"}
        )
    # Compact by default: what an answer needs, and only the flags that are set.
    assert set(found) == {"hits"}
    top = found["hits"][0]
    assert set(top) == {"id", "text", "relevance", "occurred", "source_ids"}
    assert "D-41" in top["text"]
    assert top["source_ids"] == ["ev-1"]
    assert top["id"] == added["memory_ids"][0]
    assert full["mode"] == "contextual"
    assert full["graph_depth"] == 0
    assert full["hits"][0]["evidence_source_ids"] == ["ev-1"]
    assert full["hits"][0]["unit"]["id"] == top["id"]


async def test_add_with_wait_goes_through_the_buffer_and_get_add_status_follows_it(mem):
    async with connect(build_server(mem)) as client:
        first = await add(client, "Ines waters the ferns on Mondays.", wait=0.0)
        assert first["status"] == "accepted"
        assert first["pending_id"]
        status = await call(client, "get_add_status", {"pending_id": first["pending_id"]})
        assert status["status"] in ("pending", "processing", "done")
        # The buffer works oldest first: once a later write is done, the first one is too.
        second = await add(client, "Ines feeds the cat on Fridays.", wait=30.0)
        assert second["status"] == "ok"
        status = await call(client, "get_add_status", {"pending_id": first["pending_id"]})
        assert status["status"] == "done"
        assert status["result"]["memory_ids"]
        missing = await fail(client, "get_add_status", {"pending_id": "pend_nope"})
    assert missing["code"] == "not_found"


async def test_update_memory_supersedes_and_keeps_the_old_one_in_history(mem):
    async with connect(build_server(mem)) as client:
        old = (await add(client, "The staging server is called Birch."))["memory_ids"][0]
        new = await call(
            client,
            "update_memory",
            {
                "memory_id": old,
                "text": "The staging server is called Cedar.",
                **AB,
                "reason": "renamed",
            },
        )
        # A correction of a one-valued slot is applied and also asked about (the charter).
        assert new["status"] in ("ok", "needs_clarification")
        unit = await call(client, "get_memory", {"memory_id": old, **AB})
        events = await call(client, "history", {"object_id": old, **AB})
        listed = await call(client, "list_memories", {**AB, "limit": 10})
        before = snapshot(mem)
        gone = await fail(
            client, "update_memory", {"memory_id": "u_missing", "text": "x y z.", **AB}
        )
    assert unit["status"] == "superseded"
    assert unit["superseded_by"] in new["memory_ids"]
    assert len(events) >= 2
    assert events[0]["at"] <= events[-1]["at"]
    assert {u["id"] for u in listed} >= {old, *new["memory_ids"]}
    assert gone["code"] == "not_found"
    assert snapshot(mem) == before


async def test_search_modes_set_the_time_window_and_the_graph_depth(mem, clock):
    async with connect(build_server(mem)) as client:
        await add(client, "Pia painted the boathouse green.", occurred_at="2024-05-01")
        await add(client, "Pia painted the garden shed blue.")
        recent = await call(
            client,
            "search_memory",
            {"query": "What did Pia paint?", **AB, "mode": "recent", "detail": "full"},
        )
        full = await call(
            client,
            "search_memory",
            {"query": "What did Pia paint?", **AB, "mode": "full", "detail": "full"},
        )
        wide = await call(
            client,
            "search_memory",
            {"query": "What did Pia paint?", **AB, "mode": "recent", "temporal_days": 90},
        )
    assert recent["graph_depth"] == 0
    assert recent["time_from"].startswith("2024-06-24")
    assert recent["hits"][0]["text"] == "Pia painted the garden shed blue."
    # Anything older comes back only as a flagged flashback, pulled in by an edge.
    assert all(h["flashback"] for h in recent["hits"][1:])
    assert full["k"] == 50
    assert full["graph_depth"] == 3
    assert full["time_from"] is None
    assert {h["text"] for h in full["hits"]} >= {
        "Pia painted the boathouse green.",
        "Pia painted the garden shed blue.",
    }
    assert len(wide["hits"]) == 2


# -- reasoning -------------------------------------------------------------------------------


async def test_connect_chain_concept_and_graph(mem):
    async with connect(build_server(mem)) as client:
        cause = (await add(client, "The cooling fan in rack 7 failed."))["memory_ids"][0]
        effect = (await add(client, "Rack 7 overheated on Tuesday."))["memory_ids"][0]
        edge = await call(
            client,
            "connect_memories",
            {"a": "the cooling fan failed", "b": effect, **AB, "type": "CAUSES"},
        )
        chain = await call(
            client,
            "search_reasoning_chain",
            {"query": "Rack 7 overheated on Tuesday.", **AB, "direction": "causal"},
        )
        graph = await call(client, "get_memory_graph", {"memory_id": effect, **AB, "depth": 1})
        concept = await call(client, "search_by_concept", {"name": "Tuesday", **AB})
        self_link = await fail(client, "connect_memories", {"a": cause, "b": cause, **AB})
    assert edge["src"] == cause
    assert edge["dst"] == effect
    assert edge["type"] == "CAUSES"
    steps = {s["depth"]: s for s in chain}
    assert steps[0]["unit"]["id"] == effect
    assert steps[-1]["unit"]["id"] == cause
    assert steps[-1]["via_edge"] == "CAUSES"
    assert len(chain) == 2
    assert graph["center"] == effect
    assert cause in graph["units"]
    assert any(e["type"] == "CAUSES" for e in graph["edges"])
    assert isinstance(concept, list)
    assert self_link["code"] == "invalid_input"


async def test_resolve_contradiction_answers_the_question_add_memory_raised(mem):
    async with connect(build_server(mem)) as client:
        await add(client, "I work at Acme Robotics.", occurred_at="2024-02-01")
        second = await add(client, "I work at Globex Labs.", occurred_at="2024-03-01")
        (conflict,) = await call(client, "list_conflicts", {"bank": "b"})
        settled = await call(
            client,
            "resolve_contradiction",
            {
                "from_id": conflict["b_unit"],
                "to_id": conflict["a_unit"],
                "decision": "confirm",
                **AB,
            },
        )
        again = await fail(
            client,
            "resolve_contradiction",
            {
                "from_id": conflict["b_unit"],
                "to_id": conflict["a_unit"],
                "decision": "confirm",
                **AB,
            },
        )
        other_bank = await fail(
            client,
            "resolve_contradiction",
            {
                "from_id": conflict["b_unit"],
                "to_id": conflict["a_unit"],
                "decision": "retract",
                "bank": "elsewhere",
            },
        )
    assert conflict["b_unit"] in second["memory_ids"]
    assert settled["decision"] == "confirm"
    assert settled["conflict"]["status"] == "resolved"
    assert again["code"] == "not_found"
    assert other_bank["code"] == "forbidden"
    assert "elsewhere" in other_bank["message"]


# -- review and conflicts --------------------------------------------------------------------


async def test_review_queue_decide_conflicts_reject_and_restore(mem):
    mem.retain("I work at Acme Robotics.", bank="b", agent="a1", occurred_at="2024-02-01")
    mem.retain("I work at Globex Labs.", bank="b", agent="a1", occurred_at="2024-03-01")
    async with connect(build_server(mem, agent="rev1", role="reviewer")) as client:
        queue = await call(client, "review_queue", {"bank": "b"})
        assert len(queue) == 2
        decided = await call(
            client,
            "review_decide",
            {"target_id": queue[0]["id"], "decision": "approve", "bank": "b"},
        )
        twice = await fail(
            client,
            "review_decide",
            {"target_id": queue[0]["id"], "decision": "approve", "bank": "b"},
        )
        (conflict,) = await call(client, "list_conflicts", {"bank": "b", "status": "open"})
        scoped = await fail(
            client,
            "resolve_conflict",
            {
                "conflict_id": conflict["id"],
                "resolution": "scoped_exception",
                "bank": "b",
                "scope_a": "at home",
            },
        )
        resolved = await call(
            client,
            "resolve_conflict",
            {
                "conflict_id": conflict["id"],
                "resolution": "supersede",
                "bank": "b",
                "winner": conflict["b_unit"],
            },
        )
        tomb = await call(
            client,
            "reject",
            {"memory_id": conflict["b_unit"], "reason": "typo", "bank": "b"},
        )
        back = await call(client, "restore", {"memory_id": conflict["b_unit"], "bank": "b"})
        every = await call(client, "list_conflicts", {"bank": "b", "status": "all"})
    assert decided["new_review_status"] == "approved"
    assert twice["code"] == "conflict"
    assert "scope" in scoped["message"]
    assert scoped["code"] == "invalid_input"
    assert resolved["resolution"] == "supersede"
    assert tomb["reason"] == "typo"
    assert back["new_status"] == "active"
    assert len(every) == 1
    assert {e.actor for e in mem._store.trust.review_events("b", conflict["b_unit"])} == {"rev1"}


async def test_review_queue_items_are_statements_as_said_and_a_reviewer_sees_them_all(mem):
    mem.retain("Alice lives in Paris.", bank="b", agent="a1", source_id="ev-1")
    mem.retain("The vault code is 4711.", bank="b", agent="a1", visibility="private")
    async with connect(build_server(mem, agent="rita", role="reviewer")) as client:
        owner = await call(client, "review_queue", {})
    async with connect(build_server(mem, agent="a2", role="agent")) as client:
        refused = await fail(client, "review_queue", {"bank": "b"})
    paris = next(i for i in owner if i["statement"] == "Alice lives in Paris.")
    assert refused["code"] == "forbidden"
    assert (paris["statement"], paris["author"], paris["source_id"]) == (
        "Alice lives in Paris.",
        "a1",
        "ev-1",
    )
    assert paris["text"] == "Alice lives in Paris."
    assert paris["said_at"]
    assert paris["claim"]["value"] == "paris"
    # A reviewer reads the bank as its owner: the private claim is there too.
    assert {i["statement"] for i in owner} == {"Alice lives in Paris.", "The vault code is 4711."}


@pytest.mark.parametrize("tool", ["reject", "review_decide"])
async def test_reject_because_a_belief_and_an_unknown_belief_is_not_found(mem, tool):
    belief = mem.retain("I believe Kestrel Payments is unreliable.", **AB, agent="a1").memory_ids[0]
    plan = mem.retain("Use Kestrel Payments for billing.", **AB, agent="a1").memory_ids[0]
    elsewhere = mem.retain("I think Kestrel is fine.", bank="b2", agent="a1").memory_ids[0]
    if tool == "reject":
        args = {"memory_id": plan, "reason": "Kestrel is unreliable", "bank": "b"}
    else:
        args = {"target_id": plan, "decision": "reject", "note": "unreliable", "bank": "b"}
    async with connect(build_server(mem, agent="rev1", role="reviewer")) as client:
        missing = [
            await fail(client, tool, {**args, "because": because})
            for because in ("u_nothing_here", elsewhere)
        ]
        assert mem.get(plan).status.value == "active"
        assert mem._store.trust.review_events("b", plan) == []
        await call(client, tool, {**args, "because": belief})
    assert [m["code"] for m in missing] == ["not_found", "not_found"]
    (event,) = mem._store.trust.review_events("b", plan)
    assert (event.decision, event.actor, event.metadata) == ("reject", "rev1", {"because": belief})
    assert [
        (e.dst, e.made_by)
        for e in mem.graph(plan).edges
        if e.src == plan and e.type == "CONTESTED_BECAUSE"
    ] == [(belief, "person:rev1")]


# -- swarm -----------------------------------------------------------------------------------


async def test_roster_presence_and_swarm_status(mem):
    async with connect(build_server(mem)) as client:
        await add(client, "Deploys happen on Thursdays.")
    async with connect(build_server(mem, agent="a2", role="agent")) as client:
        enrolled = await call(client, "enroll_agent", {"host": "h2"})
        beat = await call(client, "agent_heartbeat", {"status": "busy"})
        roster = await call(client, "list_agents", {})
        bye = await call(client, "agent_farewell", {})
        status = await call(client, "swarm_status", {"bank": "b"})
    async with connect(build_server(mem, agent="a2", role="admin", bank="*")) as client:
        unknown = await fail(client, "enroll_agent", {"bank": "nobank"})
        everything = await call(client, "swarm_status", {"bank": "b"})
    assert enrolled["id"] == "a2"
    assert enrolled["host"] == "h2"
    assert beat["status"] == "busy"
    assert {a["id"] for a in roster["live"]} == {"a1", "a2"}
    assert bye["status"] == "departed"
    assert [a["id"] for a in status["roster"]["live"]] == ["a1"]
    assert status["roster"]["departed"] == 1
    # Store-wide counts are for an admin of every bank only (as /v1/stats).
    assert status["stats"] is None
    assert everything["stats"]["units"] >= 1
    assert status["open_conflicts"] == 0
    assert status["pending_review"] >= 0
    assert unknown["code"] == "not_found"


# -- think -----------------------------------------------------------------------------------


async def test_think_tools_reason_privately_then_commit_one_conclusion(mem):
    async with connect(build_server(mem)) as client:
        fact = (await add(client, "Quentin keeps the spare badge in drawer D-41."))["memory_ids"][0]
        before = snapshot(mem)
        sid = (await call(client, "think_start", {**AB, "goal": "Find the spare badge"}))[
            "session_id"
        ]
        hyp = await call(
            client,
            "think_add",
            {"session_id": sid, **AB, "text": "It is in a drawer.", "kind": "hypothesis"},
        )
        hits = await call(
            client, "think_recall", {"session_id": sid, **AB, "query": "spare badge", "k": 3}
        )
        ev = next(t for t in hits if t["memory_id"] == fact)
        await call(
            client,
            "think_add",
            {
                "session_id": sid,
                **AB,
                "text": "Quentin said so.",
                "kind": "evidence",
                "supports": [hyp["id"]],
            },
        )
        concl = await call(
            client,
            "think_conclude",
            {
                "session_id": sid,
                **AB,
                "text": "The spare badge is in drawer D-41.",
                "evidence": [ev["id"], hyp["id"]],
            },
        )
        status = await call(client, "think_status", {"session_id": sid, **AB})
        async with connect(build_server(mem, agent="a2")) as other_agent:
            intruder = await fail(other_agent, "think_status", {"session_id": sid})
            stolen = await fail(other_agent, "think_commit", {"session_id": sid})
        untouched = mem.admin.stats()
        committed = await call(client, "think_commit", {"session_id": sid, **AB})
        closed = await fail(client, "think_status", {"session_id": sid, **AB})
        other = (await call(client, "think_start", {**AB, "goal": "scratch"}))["session_id"]
        dropped = await call(client, "think_discard", {"session_id": other, **AB})
        nothing = await call(client, "search_incomplete_thoughts", {**AB, "query": "scratch"})
    assert untouched == before[0]
    assert concl["kind"] == "conclusion"
    assert status["cited_memory_ids"] == [fact]
    assert intruder["code"] == stolen["code"] == closed["code"] == "not_found"
    assert committed["status"] == "ok"
    assert committed["metadata"]["evidence"] == [fact]
    (unit_id,) = committed["memory_ids"]
    edges = mem.graph(unit_id).edges
    assert [(e.src, e.dst, e.type) for e in edges if e.type == "SUPPORTS"] == [
        (fact, unit_id, "SUPPORTS")
    ]
    assert dropped["goal"] == "scratch"
    assert nothing == []


# -- resources -------------------------------------------------------------------------------


async def test_resources_give_rules_redacted_config_and_status(tmp_path):
    memory = mneme.Memory.open(
        str(tmp_path / "r.db"), embedder=HashingEmbedder(), embedder_api_key="sk-very-secret"
    )
    try:
        async with connect(build_server(memory, bank="*")) as client:
            listed = {str(r.uri) for r in (await client.list_resources()).resources}
            rules = json.loads(await read(client, "memory://rules"))
            raw = await read(client, "memory://config")
            status = json.loads(await read(client, "memory://status"))
    finally:
        memory.close()
    assert listed == {"memory://rules", "memory://config", "memory://status"}
    assert "charter" in rules
    assert "adopted" in rules
    assert "sk-very-secret" not in raw
    assert json.loads(raw)["embedder_api_key"] == "***"
    assert status["ok"] is True
    assert status["schema_version"] >= 1
    assert "stats" in status


# -- bad input -------------------------------------------------------------------------------


def _valid_args(schema: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for name in schema.get("required", []):
        spec = schema["properties"][name]
        if "enum" in spec:
            args[name] = spec["enum"][0]
        elif spec.get("type") == "integer":
            args[name] = 1
        elif spec.get("type") == "array":
            args[name] = ["x1"]
        else:
            args[name] = "x1"
    return args


def _max_length(spec: dict[str, Any]) -> int:
    found = [spec, *spec.get("anyOf", [])]
    return next((int(s["maxLength"]) for s in found if "maxLength" in s), 0)


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_bad_arguments_are_clear_errors_and_write_nothing(mem, name):
    async with connect(build_server(mem)) as client:
        await add(client, "Seed memory so the bank exists.")
        schema = next(t for t in (await client.list_tools()).tools if t.name == name).inputSchema
        before = snapshot(mem)
        required = schema.get("required", [])
        missing = await fail(client, name, {}) if required else None
        # The required strings, else the optional bank (every tool takes one).
        strings = [
            p
            for p in required
            if schema["properties"][p].get("type") == "string"
            and "enum" not in schema["properties"][p]
        ]
        strings = strings or ["bank"]
        wrong = await fail(client, name, {**_valid_args(schema), strings[0]: 12345})
        capped = next((p for p in strings if _max_length(schema["properties"][p])), "bank")
        too_long = "y" * (_max_length(schema["properties"][capped]) + 1)
        long = await fail(client, name, {**_valid_args(schema), capped: too_long})
        extra = await fail(client, name, {**_valid_args(schema), "no_such_argument": 1})
        assert snapshot(mem) == before
    assert wrong["code"] == long["code"] == extra["code"] == "invalid_input"
    if missing is not None:
        assert missing["code"] == "invalid_input"
        assert "Field required" in missing["message"]
    assert strings[0] in wrong["message"]
    assert "valid string" in wrong["message"]
    assert capped in long["message"]
    assert too_long not in long["message"]
    assert "no_such_argument" in extra["message"]


async def test_strict_types_refuse_numbers_as_strings_and_an_unknown_tool(mem):
    async with connect(build_server(mem)) as client:
        await add(client, "Seed memory so the bank exists.")
        before = snapshot(mem)
        k = await fail(client, "search_memory", {"query": "seed", **AB, "k": "5"})
        trust = await fail(client, "add_memory", {"text": "A thing.", **AB, "trust": True})
        mode = await fail(client, "search_memory", {"query": "seed", **AB, "mode": "wild"})
        bad_id = await fail(client, "add_memory", {"text": "A thing.", "bank": "no spaces"})
        unknown = await fail(client, "no_such_tool", {})
        assert snapshot(mem) == before
    assert k["code"] == trust["code"] == mode["code"] == "invalid_input"
    assert bad_id["code"] == "invalid_input"
    assert "bank" in bad_id["message"]
    assert unknown["code"] == "not_found"


async def test_an_unexpected_failure_is_internal_and_leaks_nothing(mem, monkeypatch):
    def boom() -> None:
        raise RuntimeError("secret detail from deep inside")

    mem.admin.create_bank("b")
    monkeypatch.setattr(mem.admin, "stats", boom)
    async with connect(build_server(mem, bank="*")) as client:
        err = await fail(client, "swarm_status", {"bank": "b"})
    assert err["code"] == "internal"
    assert "secret" not in err["message"]


async def test_a_factory_opens_one_memory_for_every_connection_and_closes_it_after(tmp_path):
    opened: list[mneme.Memory] = []

    def factory() -> mneme.Memory:
        opened.append(mneme.Memory.open(str(tmp_path / "f.db"), embedder=HashingEmbedder()))
        return opened[-1]

    server = build_server(factory, role="agent")
    async with connect(server) as one, connect(server) as two:
        await call(one, "add_memory", {"text": "Ada likes chess.", **AB})
        found = await call(two, "search_memory", {"query": "chess", **AB})
        assert found["hits"]
    assert len(opened) == 1
    async with connect(server) as three:
        err = await call(three, "list_memories", {})
    assert len(opened) == 2
    assert len(err) == 1


async def test_search_min_relevance_keeps_only_the_hits_at_or_above_it(mem):
    question = {"query": "Where does Quentin keep the spare badge?", **AB}
    async with connect(build_server(mem)) as client:
        for i, text in enumerate(
            [
                "Quentin keeps the spare badge in drawer D-41.",
                "Quentin keeps his bike in the shed.",
                "The spare keys are with the front desk.",
                "Rosa painted the badge office blue.",
            ]
        ):
            await add(client, text, source_id=f"ev-{i}")
        every = (await call(client, "search_memory", question))["hits"]
        top, second = sorted({h["relevance"] for h in every}, reverse=True)[:2]
        bar = (top + second) / 2
        kept = (await call(client, "search_memory", {**question, "min_relevance": bar}))["hits"]
        bad = await fail(client, "search_memory", {**question, "min_relevance": 1.5})
    assert all(0.0 <= h["relevance"] <= 1.0 for h in every)
    assert [h["id"] for h in kept] == [h["id"] for h in every if h["relevance"] >= bar]
    assert [h["source_ids"] for h in kept] == [["ev-0"]]
    assert bad["code"] == "invalid_input"
    assert "min_relevance" in bad["message"]


async def test_review_worklist_lists_only_what_waits_and_bulk_answers_per_item(mem):
    async with connect(build_server(mem, agent="rev1", role="admin")) as client:
        await add(client, "I work at Acme Robotics.", occurred_at="2025-02-01")
        await add(client, "I work at Globex Labs.", occurred_at="2025-03-01")
        work = await call(client, "review_worklist", {**AB})
        before = snapshot(mem)
        no_reason = await fail(
            client, "review_bulk", {**AB, "ids": ["clm_nope"], "decision": "reject"}
        )
        assert snapshot(mem) == before
        stale = await call(
            client, "review_bulk", {**AB, "ids": ["clm_nope"], "decision": "approve"}
        )
    assert work["counts"]["question"] >= 1
    assert work["total"] == len(work["items"]) >= 1
    question = next(i for i in work["items"] if i["kind"] == "question")
    assert question["actions"]
    assert {question["said"]["text"], question["other"]["text"]} == {
        "I work at Acme Robotics.",
        "I work at Globex Labs.",
    }
    assert no_reason["code"] == "invalid_input"
    assert [r["ok"] for r in stale] == [False]
