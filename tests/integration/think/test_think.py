"""FastThink: a scratchpad that touches no memory until commit, then persists one conclusion
with SUPPORTS edges from what it cites; an idle session is saved as an incomplete thought."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.shared.memory import create_connected_server_and_client_session as connect

import mneme
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp import build_server


def footprint(mem: mneme.Memory) -> tuple[Any, ...]:
    """Everything a write would change: counts, audit records, conflicts, review queue."""
    audit = sum(r.records for r in mem.admin.audit_verify().values())
    return (mem.admin.stats(), audit, tuple(mem.admin.banks()))


@pytest.fixture
def facts(mem: mneme.Memory) -> dict[str, str]:
    ids = {}
    for key, text in {
        "badge": "Quentin keeps the spare badge in drawer D-41.",
        "drawer": "Drawer D-41 is in the east office.",
        "lunch": "The team eats lunch at noon.",
    }.items():
        ids[key] = mem.retain(text, bank="b", agent="a1").memory_ids[0]
    return ids


def test_nothing_reaches_memory_before_commit_and_discard_leaves_nothing(mem, facts):
    before = footprint(mem)
    sid = mem.think.start("b", "a1", "Where is the spare badge?")
    h = mem.think.add(sid, "Maybe in a drawer.", "hypothesis")
    mem.think.add(sid, "Is the east office locked?", "question", supports=[h.id])
    found = mem.think.recall(sid, "spare badge drawer", k=3)
    mem.think.conclude(sid, "The spare badge is in drawer D-41 in the east office.")
    assert found
    assert footprint(mem) == before
    held = mem.think.discard(sid)
    assert len(held.thoughts) == 2 + len(found) + 1
    assert footprint(mem) == before
    with pytest.raises(NotFound):
        mem.think.status(sid)


def test_commit_persists_one_conclusion_with_supports_edges_from_the_cited_evidence(mem, facts):
    sid = mem.think.start("b", "a1", "Where is the spare badge?")
    hits = {t.memory_id: t for t in mem.think.recall(sid, "spare badge drawer D-41", k=3)}
    assert {facts["badge"], facts["drawer"]} <= set(hits)
    hyp = mem.think.add(sid, "It is in the east office.", "hypothesis")
    mem.think.add(sid, "The drawer is there.", "evidence", supports=[hyp.id])
    # The conclusion cites the badge fact directly and the hypothesis; the hypothesis rests
    # on nothing from memory, so only the badge fact is cited (not the unrelated lunch fact).
    mem.think.conclude(
        sid, "The spare badge is in the east office.", evidence=[hits[facts["badge"]].id, hyp.id]
    )
    stats = mem.admin.stats()
    result = mem.think.commit(sid)
    after = mem.admin.stats()
    assert after.sources == stats.sources + 1
    (unit_id,) = result.memory_ids
    assert result.metadata["evidence"] == [facts["badge"]]
    supports = [e for e in mem.graph(unit_id).edges if e.type == "SUPPORTS"]
    assert [(e.src, e.dst) for e in supports] == [(facts["badge"], unit_id)]
    assert mem.source(result.source_id or "").kind == "thought"
    chain = mem.chain(
        "The spare badge is in the east office.", bank="b", agent="a1", direction="causal"
    )
    assert facts["badge"] in {s.unit.id for s in chain}
    with pytest.raises(NotFound):
        mem.think.status(sid)  # the session closed with the commit


def test_a_conclusion_cites_transitively_and_by_default_everything_recall_found(mem, facts):
    sid = mem.think.start("b", "a1", "Where is drawer D-41?")
    found = mem.think.recall(sid, "drawer D-41 east office", k=2)
    hyp = mem.think.add(sid, "East side.", "hypothesis")
    mem.think.add(sid, "Found by recall.", "evidence", supports=[hyp.id])
    # Supporting a thought that supports the conclusion counts too.
    ev = next(t for t in found if t.memory_id == facts["drawer"])
    mem.think.add(sid, "Backs the hypothesis.", "observation", supports=[hyp.id])
    mem.think.conclude(sid, "Drawer D-41 is on the east side.", evidence=[hyp.id])
    assert mem.think.status(sid).cited_memory_ids == ()
    mem.think.conclude(sid, "Drawer D-41 is on the east side.", evidence=[hyp.id, ev.id])
    assert mem.think.status(sid).cited_memory_ids == (facts["drawer"],)
    previous = mem.think.status(sid).conclusion_id
    with pytest.raises(NotFound, match="to cite"):  # a conclusion cannot rest on the last one
        mem.think.conclude(sid, "Circular.", evidence=[previous])
    mem.think.conclude(sid, "Drawer D-41 is on the east side.")
    status = mem.think.status(sid)
    assert set(status.cited_memory_ids) == {t.memory_id for t in found}
    assert [t.kind for t in status.thoughts].count("conclusion") == 1


def test_a_unit_id_given_as_evidence_must_be_visible_to_the_agent(mem, facts):
    secret = mem.retain("Ada's locker code is 4417.", bank="b", agent="a2", visibility="private")
    sid = mem.think.start("b", "a1", "Locker codes")
    with pytest.raises(NotFound):
        mem.think.conclude(sid, "I know Ada's code.", evidence=[secret.memory_ids[0]])
    c = mem.think.conclude(sid, "The badge is in D-41.", evidence=[facts["badge"]])
    assert c.kind == "conclusion"
    assert mem.think.status(sid).cited_memory_ids == (facts["badge"],)


def test_a_failed_commit_writes_nothing_and_keeps_the_session(mem, facts, monkeypatch):
    sid = mem.think.start("b", "a1", "Where is the spare badge?")
    mem.think.recall(sid, "spare badge", k=1)
    mem.think.conclude(sid, "The spare badge is in drawer D-41, says Quentin.")
    before = footprint(mem)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the edge write failed")

    monkeypatch.setattr(mem, "connect", broken)
    with pytest.raises(RuntimeError):
        mem.think.commit(sid)
    assert footprint(mem) == before
    monkeypatch.undo()
    assert mem.think.commit(sid).memory_ids


def test_commit_needs_a_conclusion_and_bad_input_is_refused(mem, facts):
    sid = mem.think.start("b", "a1", "Nothing yet")
    before = footprint(mem)
    with pytest.raises(Conflict, match="conclude first"):
        mem.think.commit(sid)
    with pytest.raises(InvalidInput, match="kind"):
        mem.think.add(sid, "x", "musing")
    with pytest.raises(InvalidInput, match="think_conclude"):
        mem.think.add(sid, "x", "conclusion")
    with pytest.raises(NotFound, match="t99"):
        mem.think.add(sid, "x", "evidence", supports=["t99"])
    with pytest.raises(InvalidInput):
        mem.think.add(sid, "   ", "observation")
    with pytest.raises(InvalidInput):
        mem.think.start("b", "a1", "g" * 5_000)
    with pytest.raises(InvalidInput):
        mem.think.start("not a bank", "a1", "goal")
    assert footprint(mem) == before
    assert len(mem.think.status(sid).thoughts) == 0


def test_another_agent_can_neither_see_nor_touch_a_session(mem, facts):
    sid = mem.think.start("b", "a1", "Mine")
    mem.think.add(sid, "A private thought.", bank="b", agent="a1")
    mem.think.conclude(sid, "Done.", bank="b", agent="a1")
    for bank, agent in (("b", "a2"), ("other", "a1")):
        with pytest.raises(NotFound):
            mem.think.status(sid, bank=bank, agent=agent)
        with pytest.raises(NotFound):
            mem.think.add(sid, "Sneaky.", bank=bank, agent=agent)
        with pytest.raises(NotFound):
            mem.think.recall(sid, "badge", bank=bank, agent=agent)
        with pytest.raises(NotFound):
            mem.think.commit(sid, bank=bank, agent=agent)
        with pytest.raises(NotFound):
            mem.think.discard(sid, bank=bank, agent=agent)
    assert mem.think.sessions(bank="b", agent="a2") == []
    assert [s.session_id for s in mem.think.sessions(bank="b", agent="a1")] == [sid]
    assert len(mem.think.status(sid, bank="b", agent="a1").thoughts) == 2


def test_an_idle_session_is_saved_as_an_incomplete_thought_and_found_again(mem, facts, clock):
    sid = mem.think.start("b", "a1", "Plan the office move")
    mem.think.add(sid, "The east office needs new shelving.", "observation")
    mem.think.recall(sid, "east office", k=1)
    clock.advance(minutes=29)
    mem.think.status(sid)  # activity keeps it alive
    clock.advance(minutes=29)
    assert mem.think.status(sid).session_id == sid
    before = mem.admin.stats()
    clock.advance(minutes=31)
    found = mem.think.incomplete("office move", "b", "a1")  # this call sweeps
    with pytest.raises(NotFound, match="incomplete thought"):
        mem.think.status(sid)
    assert mem.admin.stats().sources == before.sources + 1
    (item,) = found
    assert item.session_id == sid
    assert item.goal == "Plan the office move"
    assert item.reason == "timeout"
    assert item.agent_id == "a1"
    assert [t["kind"] for t in item.thoughts] == ["observation", "evidence"]
    # A query on a thought (not the goal) finds it too; no query lists the newest.
    assert [i.session_id for i in mem.think.incomplete("shelving", "b", "a1")] == [sid]
    assert [i.session_id for i in mem.think.incomplete(None, "b", "a1")] == [sid]
    # It is private to its agent: nobody else finds it, by search or recall.
    assert mem.think.incomplete("office move", "b", "a2") == []
    hits = mem.recall("Plan the office move", bank="b", agent="a2", scope="collective")
    assert all("Incomplete thought" not in h.text for h in hits)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_timed_out_session_is_found_by_the_search_incomplete_thoughts_tool(
    mem, facts, clock, anyio_backend
):
    ab = {"bank": "b"}
    principal = Principal("tok_test", "b", "a1", "agent")
    async with connect(build_server(mem, principal=principal, tools_profile="full")) as client:
        started = await client.call_tool("think_start", {**ab, "goal": "Audit the badge log"})
        sid = json.loads(started.content[0].text)["session_id"]  # type: ignore[union-attr]
        await client.call_tool("think_add", {"session_id": sid, **ab, "text": "Check D-41."})
        clock.advance(minutes=45)
        res = await client.call_tool("search_incomplete_thoughts", {**ab, "query": "badge log"})
        gone = await client.call_tool("think_status", {"session_id": sid, **ab})
    (item,) = json.loads(res.content[0].text)  # type: ignore[union-attr]
    assert item["session_id"] == sid
    assert item["thoughts"][0]["text"] == "Check D-41."
    assert gone.isError
    assert "incomplete" in gone.content[0].text  # type: ignore[union-attr]
