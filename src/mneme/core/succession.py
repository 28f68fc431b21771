"""What a retired statement still holds: the kinds of value no successor in its line says.

A change of one value retires the whole statement ("Book a table for Friday at 7 pm." / "Make
it 8 pm instead."), yet it stays the newest word on its other values (the day) until a later
successor says them ("Make it Saturday at 9 pm"). Recall reads a superseded candidate as an
answer for those kinds (ADR 0075); the write path judges a later change of one of them against
it (ADR 0076).

Pure: the caller supplies the read of the successors (one batched read per step of the line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from mneme.core.model import Unit
from mneme.core.statements import analyze
from mneme.core.values import Kind

#: Successors followed down a retired statement's line (each step one read).
SUCCESSION_STEPS = 4
#: The metadata key of a retired unit naming the later statements that changed a value it
#: still held (each retired it for that value too; ``superseded_by`` keeps the first).
ALSO_SUPERSEDED_BY = "also_superseded_by"


def successors(unit: Unit) -> tuple[str, ...]:
    """What retired the unit: its first successor, then each later change of a value it
    still held."""
    later = unit.metadata.get(ALSO_SUPERSEDED_BY, ())
    first = (unit.superseded_by,) if unit.superseded_by else ()
    return first + tuple(str(u) for u in later if isinstance(u, str))


def still_held(
    retired: Mapping[str, tuple[frozenset[Kind], Unit]],
    read: Callable[[Iterable[str]], Mapping[str, Unit]],
    steps: int = SUCCESSION_STEPS,
) -> dict[str, frozenset[Kind]]:
    """For each retired unit, given as (the kinds in question, the unit), the kinds no
    successor in its lines says anything of (:func:`successors`, then each successor's own
    line). A successor out of sight (``read`` does not return it) ends its line: what it says
    is not known, so what is left stays held. Lines longer than ``steps`` keep what is left
    after ``steps`` successors."""
    held = {uid: kinds for uid, (kinds, _) in retired.items()}
    at = [(uid, sid) for uid, (kinds, u) in retired.items() if kinds for sid in successors(u)]
    for _ in range(steps):
        if not at:
            break
        after = read(sid for _, sid in at)
        step: list[tuple[str, str]] = []
        for uid, sid in at:
            successor = after.get(sid)
            if successor is None:
                continue
            held[uid] = held[uid] - {v.kind for v in analyze(successor.text).values}
            if successor.superseded_by:
                step.append((uid, successor.superseded_by))
        at = [(uid, sid) for uid, sid in step if held[uid]]
    return held
