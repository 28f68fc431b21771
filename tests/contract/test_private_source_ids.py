"""A private source's id is its writer's (ADR 0107), on every backend: another agent writing
under that id is answered exactly as under an unused one, each agent reads its own source of
the id, and the audit seals, a portable copy and a purge keep both sources apart."""

from __future__ import annotations

from pathlib import Path

import pytest

import mneme
from mneme.errors import Conflict, NotFound

PRIVATE = "Hal's locker code is 4412."
SHARED = "The Falcon standup is at 09:15."


def _open(target: str, tmp_path: Path) -> mneme.Memory:
    return mneme.Memory.open(target, embedder="hashing:15", audit_key_file=str(tmp_path / "k.key"))


def test_another_agents_private_id_takes_nothing_and_tells_nothing(
    target: str, tmp_path: Path
) -> None:
    mem = _open(target, tmp_path)
    try:
        mine = mem.retain(PRIVATE, bank="b", agent="a2", source_id="x-1", visibility="private")
        # a1 cannot tell x-1 from an id nobody used: the write succeeds, nothing is replayed
        theirs = mem.retain(SHARED, bank="b", agent="a1", source_id="x-1")
        fresh = mem.retain("The Falcon retro is on Fridays.", bank="b", agent="a1", source_id="y")
        assert theirs.status == fresh.status == mneme.RetainStatus.OK
        assert not theirs.metadata.get("replayed")
        assert set(theirs.memory_ids).isdisjoint(mine.memory_ids)

        # each reads its own source of the id; a third agent the shared one only
        assert mem.source("x-1", bank="b", agent="a2").text == PRIVATE
        assert mem.source("x-1", bank="b", agent="a1").text == SHARED
        assert mem.source("x-1", bank="b", agent="a3").text == SHARED
        for agent in ("a1", "a3"):
            for h in mem.recall("What is Hal's locker code?", bank="b", agent=agent, k=20):
                assert "4412" not in h.unit.text

        # its history tells a reader of the sources it sees only
        def writers(agent: str) -> set[str]:
            events = mem.history("x-1", bank="b", agent=agent)
            return {e.actor for e in events if e.kind.startswith("source.")}

        assert writers("a1") == writers("a3") == {"a1"}
        assert writers("a2") == {"a1", "a2"}
        # a unit cites the id once, and a2's own memory still rests on its own text
        (private_unit,) = mine.memory_ids
        assert mem.get(private_unit, bank="b", agent="a2").evidence == ("x-1",)
        (shared_unit,) = theirs.memory_ids
        assert mem.get(shared_unit, bank="b", agent="a3").evidence == ("x-1",)

        # replays stay idempotent for both writers; other text under a seen id is refused
        assert mem.retain(
            PRIVATE, bank="b", agent="a2", source_id="x-1", visibility="private"
        ).metadata.get("replayed")
        assert mem.retain(SHARED, bank="b", agent="a1", source_id="x-1").metadata.get("replayed")
        with pytest.raises(Conflict):
            mem.retain("The Falcon standup is at 10:00.", bank="b", agent="a1", source_id="x-1")
        with pytest.raises(Conflict):  # a2 sees the shared x-1 too
            mem.retain("Hal's locker code is 9.", bank="b", agent="a2", source_id="x-1")
        # two agents' private sources of one id are each its writer's
        mem.retain(
            "I park on level 2.", bank="b", agent="a2", source_id="z-1", visibility="private"
        )
        mem.retain(
            "I park on level 3.", bank="b", agent="a3", source_id="z-1", visibility="private"
        )
        assert mem.source("z-1", bank="b", agent="a2").text == "I park on level 2."
        assert mem.source("z-1", bank="b", agent="a3").text == "I park on level 3."
        with pytest.raises(NotFound):
            mem.source("z-1", bank="b", agent="a1")

        # the seals hold with several rows of one id
        assert all(r.ok for r in mem.admin.audit_verify().values())
    finally:
        mem.close()


def test_a_portable_copy_keeps_both_sources_and_a_purge_erases_every_source_of_the_id(
    target: str, tmp_path: Path
) -> None:
    mem = _open(target, tmp_path)
    try:
        mem.retain(PRIVATE, bank="b", agent="a2", source_id="x-1", visibility="private")
        mem.retain(SHARED, bank="b", agent="a1", source_id="x-1")
        mem.admin.export(str(tmp_path / "all.jsonl.gz"))
        copy = mneme.Memory.open(str(tmp_path / "copy.db"), embedder="hashing:15")
        try:
            copy.admin.import_archive(
                str(tmp_path / "all.jsonl.gz"),
                audit_key_file=str(tmp_path / "all.jsonl.gz.audit-key"),
            )
            assert copy.source("x-1", bank="b", agent="a2").text == PRIVATE
            assert copy.source("x-1", bank="b", agent="a1").text == SHARED
        finally:
            copy.close()

        # an erasure of an id is an erasure of what anyone said under it in the bank
        plan = mem.admin.purge("x-1", actor="dpo", reason="art. 17", dry_run=True, bank="b")
        assert plan.sources == ("x-1",)
        assert len(plan.units) == 2
        mem.admin.purge("x-1", actor="dpo", reason="art. 17", bank="b")
        for agent in ("a1", "a2"):
            with pytest.raises(NotFound):
                mem.source("x-1", bank="b", agent=agent)
        assert all(r.ok for r in mem.admin.audit_verify().values())
    finally:
        mem.close()
