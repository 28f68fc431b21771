"""What a retired statement still holds: the kinds of value no successor in its line says.

A change of one value retires the whole statement ("Book a table for Friday at 7 pm." / "Make
it 8 pm instead."), yet it stays the newest word on its other values (the day) until a later
successor says them ("Make it Saturday at 9 pm"). Recall reads a superseded candidate as an
answer for those kinds (ADR 0075); the write path judges a later change of one of them against
it (ADR 0076).

Pure: the caller supplies the read of the successors (one batched read per step of the line).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

from mneme.core.model import Unit
from mneme.core.slots import kinds_in_roles
from mneme.core.statements import Statement, analyze
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


_K = TypeVar("_K", bound=Hashable)
#: A kind of value in a role ("from Los Angeles": a name in "from").
Role = tuple[Kind, str | None]


def kinds_said(successor: Statement, held: frozenset[Kind]) -> frozenset[Kind]:
    """Of the held kinds, those a successor says a value of."""
    return held & successor.kinds()


def roles_said(successor: Statement, held: frozenset[Role]) -> frozenset[Role]:
    """Of the held kinds in roles, those a successor says: a kind in a role the retired one
    held it in takes that role only ("to San Diego" leaves "from LAX" held); a kind said in
    a role it held none in takes every role of the kind (which one it replaced is not said)."""
    out: set[Role] = set()
    for kind, role in kinds_in_roles(successor):
        own = {(k, r) for k, r in held if k == kind}
        out |= {(kind, role)} & own or own
    return frozenset(out)


def still_held(
    retired: Mapping[str, tuple[frozenset[_K], Unit]],
    read: Callable[[Iterable[str]], Mapping[str, Unit]],
    said: Callable[[Statement, frozenset[_K]], frozenset[_K]],
    steps: int = SUCCESSION_STEPS,
) -> dict[str, frozenset[_K]]:
    """For each retired unit, given as (the keys in question, the unit), the keys (kinds with
    :func:`kinds_said`, kinds in roles with :func:`roles_said`) no successor in its lines says
    anything of (:func:`successors`, then each successor's own line). A successor out of sight
    (``read`` does not return it) ends its line: what it says is not known, so what is left
    stays held. Lines longer than ``steps`` keep what is left after ``steps`` successors."""
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
            held[uid] = held[uid] - said(analyze(successor.text), held[uid])
            if successor.superseded_by:
                step.append((uid, successor.superseded_by))
        at = [(uid, sid) for uid, sid in step if held[uid]]
    return held
