"""Review decisions as a state machine over the two status axes (pure rules, no storage).

A claim has ``status`` (what the system holds) and ``review_status`` (what a person decided);
a unit has only its status. ``restore`` undoes the latest decision still in force, so a chain of
decisions can be unwound one step at a time, and history rebuilds from the events alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mneme.core.model import ReviewDecision


class NotApplicable(ValueError):
    """The decision does not apply to the current state; nothing is written."""


@dataclass(frozen=True, slots=True)
class State:
    status: str
    review_status: str | None  # None for units, which have one axis


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded decision: what it was, and the state before and after it."""

    decision: str
    prior: State
    new: State


DECISIONS: tuple[str, ...] = tuple(d.value for d in ReviewDecision)


def in_force(steps: Sequence[Step]) -> list[Step]:
    """The decisions not undone: each restore cancels the latest decision still in force."""
    stack: list[Step] = []
    for step in steps:
        if step.decision == "restore":
            if stack:
                stack.pop()
        else:
            stack.append(step)
    return stack


def decide(decision: str, current: State, steps: Sequence[Step]) -> State:
    """The state a decision leads to, or NotApplicable with the reason."""
    if decision not in DECISIONS:
        raise NotApplicable(f"unknown decision {decision!r}; use one of {', '.join(DECISIONS)}")
    claim = current.review_status is not None
    if decision == "restore":
        stack = in_force(steps)
        if not stack:
            raise NotApplicable("there is nothing to restore: no decision is in force")
        return stack[-1].prior
    if decision == "approve":
        if claim and current.review_status == "approved" and current.status == "active":
            raise NotApplicable("the claim is already approved")
        if not claim and current.status == "active":
            raise NotApplicable("the memory is already active")
        return State("active", "approved" if claim else None)
    if decision == "reject":
        if claim and current.status == "rejected" and current.review_status == "pending_review":
            # A rejected value said again is back in front of a person: rejecting it again
            # keeps it rejected and takes it off the queue.
            return State("rejected", "rejected")
        if current.status == "rejected":
            raise NotApplicable("it is already rejected")
        return State("rejected", "rejected" if claim else None)
    if current.status == "superseded":
        raise NotApplicable("it is already superseded")
    if current.status == "rejected":
        raise NotApplicable("a rejected value cannot be superseded; restore it first")
    return State("superseded", "superseded" if claim else None)
