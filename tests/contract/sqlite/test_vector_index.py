"""The vector index derives from embeddings stored with their model identity: it is rebuilt
when missing or stale, compares only vectors of one model, and `reembed` moves units."""

from __future__ import annotations

import mneme
from mneme.core.model import Scope, Viewer
from mneme.embed.hashing import HashingEmbedder
from mneme.store.protocol import Filters
from mneme.store.sqlite import SQLiteStore
from mneme.store.sqlite.engine import SQLiteEngine

V = Viewer("b1", "a1", Scope.COLLECTIVE)


def _sqlite(mem: mneme.Memory) -> SQLiteEngine:
    assert isinstance(mem._store, SQLiteStore)
    return mem._store.engine


def test_units_store_the_identity_of_the_model_that_embedded_them(mem):
    r = mem.retain("Kai restores old boats.", bank="b1", agent="a1")
    unit = mem.get(r.memory_ids[0])
    assert unit.embedding_model == "hashing-256"
    assert unit.embedding_dim == 256


def test_the_index_is_rebuilt_from_the_database_when_missing(mem, db_path):
    mem.retain("Kai restores old boats.", bank="b1", agent="a1")
    mem.close()
    again = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    assert not _sqlite(again)._indexes  # nothing in memory yet
    hits = again.recall("old boats", bank="b1", agent="a1")
    assert hits
    assert "boats" in hits[0].text
    assert ("b1", "hashing-256") in _sqlite(again)._indexes
    again.close()


def test_a_write_by_another_process_makes_the_index_stale_and_it_is_rebuilt(mem, db_path):
    mem.retain("Kai restores old boats.", bank="b1", agent="a1")
    assert mem.recall("old boats", bank="b1", agent="a1")  # builds the index
    other = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    other.retain("Lena restores vintage sailing boats.", bank="b1", agent="a1")
    other.close()
    vector = mem.embedder.embed(["vintage sailing boats"])[0]
    found = mem._store.channels.search_semantic(V, vector, "hashing-256", Filters(), 10)
    texts = [mem.get(s.unit_id).text for s in found]
    assert "Lena restores vintage sailing boats." in texts


def test_our_own_writes_keep_a_built_index_current_without_a_rebuild(mem):
    mem.retain("Kai restores old boats.", bank="b1", agent="a1")
    mem.recall("boats", bank="b1", agent="a1")
    index = _sqlite(mem)._indexes[("b1", "hashing-256")]
    mem.retain("Lena restores vintage sailing boats.", bank="b1", agent="a1")
    mem.recall("boats", bank="b1", agent="a1")
    assert _sqlite(mem)._indexes[("b1", "hashing-256")] is index
    assert len(index) == 2


def test_search_compares_only_vectors_of_the_same_model(mem, db_path):
    mem.retain("Kai restores old boats.", bank="b1", agent="a1")
    mem.close()
    wide = mneme.Memory.open(db_path, embedder=HashingEmbedder(dim=512))
    wide.retain("Lena restores vintage sailing boats.", bank="b1", agent="a1")
    vec512 = wide.embedder.embed(["boats"])[0]
    found = {
        wide.get(s.unit_id).text
        for s in wide._store.channels.search_semantic(V, vec512, "hashing-512", Filters(), 10)
    }
    assert found == {"Lena restores vintage sailing boats."}
    # recall still finds the older unit through the lexical channel
    assert any("Kai" in h.text for h in wide.recall("restores boats", bank="b1", agent="a1"))
    wide.close()


def test_reembed_moves_every_unit_to_the_configured_model(mem, db_path):
    mem.retain("Kai restores old boats. Mira sells sails.", bank="b1", agent="a1")
    mem.retain("Nils paints hulls.", bank="b2", agent="a1")
    mem.close()
    wide = mneme.Memory.open(db_path, embedder=HashingEmbedder(dim=512))
    assert wide.admin.reembed() == 3
    assert wide.admin.reembed() == 0  # idempotent
    for unit in wide.list_memories(bank="b1") + wide.list_memories(bank="b2"):
        assert unit.embedding_model == "hashing-512"
        assert unit.embedding_dim == 512
    vec = wide.embedder.embed(["old boats"])[0]
    found = wide._store.channels.search_semantic(V, vec, "hashing-512", Filters(), 10)
    assert {wide.get(s.unit_id).text for s in found} >= {"Kai restores old boats."}
    assert all(r.ok for r in wide.admin.audit_verify().values())
    wide.close()


def test_a_stale_index_catches_up_with_another_writers_new_units_and_status_changes(mem, db_path):
    keep = mem.retain("Kai restores old boats.", bank="b1", agent="a1").memory_ids[0]
    gone = mem.retain("Lena restores old sailing boats.", bank="b1", agent="a1").memory_ids[0]
    assert mem.recall("old boats", bank="b1", agent="a1")  # builds the index
    index = _sqlite(mem)._indexes[("b1", "hashing-256")]
    other = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    other.retain("Mara restores old canoes.", bank="b1", agent="a1")
    other.review.reject(gone, reason="duplicate", actor="rev1")
    other.close()
    vector = mem.embedder.embed(["restores old boats"])[0]
    live = Filters(statuses=frozenset({mneme.UnitStatus.ACTIVE}))
    found = {
        s.unit_id for s in mem._store.channels.search_semantic(V, vector, "hashing-256", live, 10)
    }
    assert _sqlite(mem)._indexes[("b1", "hashing-256")] is index  # caught up, not rebuilt
    assert keep in found
    assert gone not in found
    assert any(mem.get(u).text.startswith("Mara") for u in found)


def _no_full_catch_up(store: SQLiteEngine) -> None:
    def refuse(*_: object) -> bool:
        raise AssertionError("caught up by reading the whole bank, not the change log")

    store._refresh_all = refuse  # type: ignore[method-assign,assignment]


def test_catching_up_reads_only_the_units_the_change_log_names(mem, db_path):
    """ADR 0025: another writer's new units, status changes and new knowers reach this
    process's index through the change log, without reading every unit of the bank."""
    ids = [
        mem.retain(f"Crew {i} restores old boats in dock {i}.", bank="b1", agent="a1").memory_ids[0]
        for i in range(30)
    ]
    assert mem.recall("old boats", bank="b1", agent="a1")  # builds the index
    store = _sqlite(mem)
    index = store._indexes[("b1", "hashing-256")]
    _no_full_catch_up(store)
    other = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    new = other.retain("Mara restores old canoes.", bank="b1", agent="a1").memory_ids[0]
    other.review.reject(ids[3], reason="duplicate", actor="rev1")
    # The same fact from a second agent: a2 now knows ids[7] too (one fact, many knowers).
    other.retain("Crew 7 restores old boats in dock 7.", bank="b1", agent="a2")
    other.close()
    vector = mem.embedder.embed(["Crew 7 restores old boats in dock 7."])[0]
    live = Filters(statuses=frozenset({mneme.UnitStatus.ACTIVE}))
    found = {
        s.unit_id for s in mem._store.channels.search_semantic(V, vector, "hashing-256", live, 40)
    }
    assert store._indexes[("b1", "hashing-256")] is index
    assert new in found
    assert ids[3] not in found
    a2 = Viewer("b1", "a2", Scope.PERSONAL)
    mine = {
        s.unit_id for s in mem._store.channels.search_semantic(a2, vector, "hashing-256", live, 40)
    }
    assert mine == {ids[7]}
    # And a knower removed elsewhere is removed here: a purge deletes, so the index rebuilds.
    other = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    other.admin.purge(ids[7], actor="dpo", reason="erasure request")
    other.close()
    found = {
        s.unit_id for s in mem._store.channels.search_semantic(V, vector, "hashing-256", live, 40)
    }
    assert ids[7] not in found
    assert store._indexes[("b1", "hashing-256")] is not index


def test_an_index_further_behind_than_the_log_keeps_reads_the_whole_bank(mem, db_path, monkeypatch):
    from mneme.store.sqlite import changes

    monkeypatch.setattr(changes, "KEEP", 2)
    monkeypatch.setattr(changes, "PRUNE_EVERY", 1)
    first = mem.retain("Kai restores old boats.", bank="b1", agent="a1").memory_ids[0]
    assert mem.recall("old boats", bank="b1", agent="a1")
    store = _sqlite(mem)
    index = store._indexes[("b1", "hashing-256")]
    other = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    later = [
        other.retain(f"Boat {i} was restored by Lena.", bank="b1", agent="a1").memory_ids[0]
        for i in range(6)
    ]
    other.review.reject(first, reason="duplicate", actor="rev1")
    other.close()
    assert changes.since(store.db, "b1", index.change_seq) is None  # pruned past it
    vector = mem.embedder.embed(["restored boats"])[0]
    live = Filters(statuses=frozenset({mneme.UnitStatus.ACTIVE}))
    found = {
        s.unit_id for s in mem._store.channels.search_semantic(V, vector, "hashing-256", live, 20)
    }
    assert store._indexes[("b1", "hashing-256")] is index
    assert set(later) <= found
    assert first not in found
