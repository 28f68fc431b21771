"""Who may change what others see: one pure rule for every path that retires a memory.

A private memory is its author's alone. It may retire only a private memory of the same author.
It never retires a shared memory, which everyone else would then see retired, pointing at a
successor they cannot read. The write path's judgement, a caller's ``supersedes=``, the
settlement of a contradiction, a review decision and the reconsolidation sweeps all ask
:func:`may_retire` (issue 16).
"""

from __future__ import annotations

from mneme.core.model import Unit, Visibility


def may_retire(winner: Unit, loser: Unit) -> bool:
    """Whether ``winner`` may supersede ``loser``: not when a private memory would retire one
    that someone else can see."""
    if winner.visibility != Visibility.PRIVATE:
        return True
    return loser.visibility == Visibility.PRIVATE and loser.agent_id == winner.agent_id


REFUSAL = "a private memory cannot retire a shared one (or another agent's)"
