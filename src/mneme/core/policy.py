"""Who may change what others see: one pure rule for every path that retires a memory.

A private memory is its author's alone. It may retire only a private memory of the same author.
It never retires a shared memory, which everyone else would then see retired, pointing at a
successor they cannot read. The write path's judgement, a caller's ``supersedes=``, the
settlement of a contradiction, a review decision and the reconsolidation sweeps all ask
:func:`may_retire` (issue 16).
"""

from __future__ import annotations

from mneme.core.model import Unit, Visibility


def may_touch(visibility: Visibility, agent_id: str, target: Unit) -> bool:
    """Whether a write of this visibility by this agent may leave a trace on ``target``: a
    knower, an evidence id, a status, a conflict, a history event. A private write touches only
    its author's private memories; anything else would tell others it exists."""
    if visibility != Visibility.PRIVATE:
        return True
    return target.visibility == Visibility.PRIVATE and target.agent_id == agent_id


def may_retire(winner: Unit, loser: Unit) -> bool:
    """Whether ``winner`` may supersede ``loser``: not when a private memory would retire one
    that someone else can see."""
    return may_touch(winner.visibility, winner.agent_id, loser)


REFUSAL = "a private memory cannot retire a shared one (or another agent's)"

#: Why a private write left a memory others see alone.
KEPT_APART = (
    "a private memory leaves no trace on a shared one (or another agent's): kept apart, "
    "nothing was recorded on it"
)
