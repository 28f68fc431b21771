"""Re-embedding after a model change streams batch by batch and resumes (issue 20, item 3):
an interrupted run keeps the batches it committed, and the next run does only the rest."""

from __future__ import annotations

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder


class _Stop(Exception):
    pass


def test_an_interrupted_reembed_keeps_its_batches_and_the_next_run_does_the_rest(
    mem: mneme.Memory, db_path: str
) -> None:
    for n in range(7):
        mem.retain(f"Boat {n} was restored by Kai in spring.", bank="b1", agent="a1")
    units = mem.admin.stats().units
    mem.close()
    wide = mneme.Memory.open(db_path, embedder=HashingEmbedder(dim=512))
    seen: list[int] = []

    def stop_after_two_batches(n: int) -> None:
        seen.append(n)
        if len(seen) == 2:
            raise _Stop

    with pytest.raises(_Stop):
        wide.admin.reembed(batch=2, progress=stop_after_two_batches)
    assert wide.admin.stats().embeddings_by_model.get("hashing-512") == 4
    assert wide.admin.reembed(batch=2) == units - 4
    assert wide.admin.stats().embeddings_by_model["hashing-512"] == units
    assert all(r.ok for r in wide.admin.audit_verify().values())
    wide.close()
