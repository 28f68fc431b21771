"""The CrewAI storage backend (mneme.adapters.crewai, ADR 0049): a real CrewAI ``Memory`` keeps
its records in mneme and searches them with mneme's recall; no LLM (every field given, CrewAI's
consolidation off, shallow recall), no network (the storage's own embedder)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from crewai.memory.storage.backend import StorageBackend
from crewai.memory.types import MemoryRecord
from crewai.memory.unified_memory import Memory as CrewMemory

import mneme
from mneme.adapters.crewai import MnemeStorage, ScopeNotMapped
from mneme.errors import InvalidInput


def _crew_memory(storage: MnemeStorage) -> CrewMemory:
    # llm: a name CrewAI never resolves here (it would only for analysis, which every field
    # given skips); consolidation_threshold 1.0: mneme merges on its own write path.
    return CrewMemory(
        storage=storage, embedder=storage.embedder, llm="no-llm", consolidation_threshold=1.0
    )


def _remember(
    cm: CrewMemory,
    text: str,
    scope: str = "/crew",
    categories: list[str] | None = None,
    **kw: Any,
) -> MemoryRecord:
    record = cm.remember(text, scope=scope, categories=categories or [], importance=0.5, **kw)
    assert record is not None
    return record


def test_a_crewai_memory_saves_into_mneme_and_recalls_with_mneme(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    cm = _crew_memory(storage)
    assert isinstance(storage, StorageBackend)

    saved = _remember(
        cm, "Ana's sister lives in Porto near the river.", "/crew/research", metadata={"turn": 3}
    )
    _remember(cm, "The boiler was serviced in March.", "/crew/home")
    found = cm.recall("Where does Ana's sister live?", depth="shallow", limit=1)

    assert [m.record.content for m in found] == ["Ana's sister lives in Porto near the river."]
    assert found[0].record.id == saved.id
    assert found[0].record.metadata == {"turn": 3}
    assert found[0].record.scope == "/crew/research"
    assert storage.get_record(saved.id) == found[0].record
    hit = mem.recall("Ana sister Porto", bank="acme", agent="researcher")[0]
    assert hit.unit.text == "Ana's sister lives in Porto near the river."
    source = mem.source(hit.evidence_source_ids[0])
    assert source.kind == "crewai_memory"
    assert source.metadata["crewai"]["id"] == saved.id
    cm.close()


def test_scopes_categories_and_counts_answer_from_the_records(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    cm = _crew_memory(storage)
    _remember(cm, "Ana's sister lives in Porto.", "/crew/research", categories=["family"])
    _remember(cm, "The boiler was serviced in March.", "/crew/home", categories=["house"])
    _remember(cm, "The roof leaks when it rains.", "/crew/home/roof", categories=["house"])

    assert cm.list_scopes("/crew") == ["/crew/home", "/crew/research"]
    assert cm.list_scopes() == ["/crew"]
    assert cm.list_categories() == {"family": 1, "house": 2}
    info = cm.info("/crew/home")
    assert (info.record_count, info.categories, info.child_scopes) == (
        2,
        ["house"],
        ["/crew/home/roof"],
    )
    assert storage.count("/crew/home") == 2
    assert [r.content for r in cm.list_records("/crew/home")] == [
        "The roof leaks when it rains.",
        "The boiler was serviced in March.",
    ]
    only_home = cm.recall("boiler serviced", scope="/crew/research", depth="shallow")
    assert all(m.record.scope == "/crew/research" for m in only_home)
    cm.close()


def test_an_update_is_a_new_version_that_recall_answers(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    cm = _crew_memory(storage)
    record = _remember(cm, "Ana's sister lives in Porto.")

    cm.update(record.id, content="Ana's sister moved to Lisbon.")

    found = cm.recall("Where does Ana's sister live?", depth="shallow", limit=1)
    assert [m.record.content for m in found] == ["Ana's sister moved to Lisbon."]
    assert found[0].record.id == record.id
    assert [r.content for r in cm.list_records()] == ["Ana's sister moved to Lisbon."]
    old = mem.recall("Ana sister Porto", bank="acme", agent="researcher")
    assert any(h.superseded for h in old if "Porto" in h.unit.text)
    cm.close()


def test_forget_and_reset_retract_the_records_and_erase_nothing(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    cm = _crew_memory(storage)
    kept = _remember(cm, "Ana's sister lives in Porto.", "/crew/research")
    gone = _remember(cm, "The boiler was serviced in March.", "/crew/home")
    hit = mem.recall("boiler March", bank="acme", agent="researcher")[0]
    source_id = hit.evidence_source_ids[0]

    assert cm.forget(scope="/crew/home") == 1

    assert storage.get_record(gone.id) is None
    assert storage.get_record(kept.id) is not None
    assert all(m.record.id != gone.id for m in cm.recall("boiler March", depth="shallow"))
    assert mem.source(source_id).text == "The boiler was serviced in March."  # still there
    unit = next(
        u for u in mem.list_memories(bank="acme") if u.text == "The boiler was serviced in March."
    )
    assert unit.valid_until is not None  # no longer valid, not deleted

    cm.reset()

    assert cm.list_records() == []
    assert storage.get_record(kept.id) is None
    assert cm.recall("Where does Ana's sister live?", depth="shallow") == []
    kinds = {mem.source(e).kind for u in mem.list_memories(bank="acme") for e in u.evidence}
    assert kinds == {"crewai_memory", "retraction"}
    cm.close()


def test_agents_and_banks_keep_their_records_apart(mem: mneme.Memory) -> None:
    researcher = _crew_memory(MnemeStorage(mem, bank="acme", agent="researcher"))
    writer = _crew_memory(MnemeStorage(mem, bank="acme", agent="writer"))
    elsewhere = _crew_memory(MnemeStorage(mem, bank="globex", agent="researcher"))
    _remember(researcher, "Ana's sister lives in Porto.")
    _remember(researcher, "The launch code is kept in the blue folder.", private=True)

    assert writer.recall("Ana sister Porto", depth="shallow") == []
    assert elsewhere.recall("Ana sister Porto", depth="shallow") == []
    assert writer.list_records() == []
    assert elsewhere.list_records() == []
    # A private CrewAI record is a private mneme source: no other agent reads it.
    shared = mem.recall("blue folder", bank="acme", agent="writer", scope="collective")
    assert all("blue folder" not in h.unit.text for h in shared)
    assert any(
        "blue folder" in h.unit.text
        for h in mem.recall("blue folder", bank="acme", agent="researcher")
    )
    assert [m.record.content for m in researcher.recall("Porto", depth="shallow", limit=1)] == [
        "Ana's sister lives in Porto."
    ]
    for cm in (researcher, writer, elsewhere):
        cm.close()


@pytest.mark.parametrize(
    ("bank", "agent"), [("acme", "has space"), ("", "researcher"), ("acme", None)]
)
def test_a_bank_or_agent_mneme_cannot_name_is_refused(
    mem: mneme.Memory, bank: str, agent: str | None
) -> None:
    with pytest.raises(ScopeNotMapped, match="not a valid id"):
        MnemeStorage(mem, bank=bank, agent=agent)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"scope": "crew/research"}, "absolute path"),
        ({"scope": "/crew/../home"}, "label"),
        ({"scope": "/crew\x00"}, "absolute path"),
        ({"metadata": {"seen": {1, 2}}}, "JSON"),
        ({"content": "   "}, "no content"),
    ],
)
def test_a_record_that_cannot_be_mapped_writes_nothing_of_its_batch(
    mem: mneme.Memory, change: dict[str, object], why: str
) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    good = MemoryRecord(content="Ana's sister lives in Porto.", scope="/crew")
    bad = MemoryRecord(content="The boiler was serviced.", scope="/crew").model_copy(update=change)

    with pytest.raises(ScopeNotMapped, match=why):
        storage.save([good, bad])

    assert mem.list_memories(bank="acme") == []
    assert storage.get_record(good.id) is None


def test_a_search_by_a_vector_of_another_embedder_is_refused(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    storage.save([MemoryRecord(content="Ana's sister lives in Porto.")])

    with pytest.raises(InvalidInput, match=r"embedder=storage\.embedder"):
        storage.search([0.1] * 32)
    with pytest.raises(ScopeNotMapped):
        storage.search(storage.embedder(["Porto"])[0], scope_prefix="/a/../b")


def test_the_async_methods_answer_as_the_sync_ones(mem: mneme.Memory) -> None:
    storage = MnemeStorage(mem, bank="acme", agent="researcher")
    record = MemoryRecord(content="The boiler was serviced in March.", scope="/home")

    async def run() -> tuple[list[tuple[MemoryRecord, float]], int]:
        await storage.asave([record])
        found = await storage.asearch(storage.embedder(["boiler serviced"])[0], limit=3)
        return found, await storage.adelete(record_ids=[record.id])

    found, deleted = asyncio.run(run())

    assert [r.id for r, _ in found] == [record.id]
    assert 0 < found[0][1] <= 1
    assert deleted == 1
    assert storage.get_record(record.id) is None
