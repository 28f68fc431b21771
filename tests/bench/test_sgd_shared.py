"""bench.sgd.shared: which other conversations share a probe's bank."""

from __future__ import annotations

from bench.sgd.data import Dialogue
from bench.sgd.shared import companions


def _d(i: str, *services: str) -> Dialogue:
    return Dialogue(id=i, services=services, turns=())


def test_companions_are_the_next_dialogues_with_no_service_in_common_wrapping() -> None:
    ds = [_d("a", "Hotels"), _d("b", "Hotels", "Buses"), _d("c", "Movies"), _d("d", "Buses")]
    got = {k: [o.id for o in v] for k, v in companions(ds, 2).items()}
    assert got == {"a": ["c", "d"], "b": ["c"], "c": ["d", "a"], "d": ["a", "c"]}
    assert all(not v for v in companions(ds, 0).values())
