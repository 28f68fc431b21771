"""FastThink: isolated scratchpad sessions that touch memory only when a conclusion is committed."""

from mneme.core.thoughts import KINDS, IncompleteThought, ThinkStatus, Thought, ThoughtLink
from mneme.think.thinker import IDLE_TIMEOUT, Thinker

__all__ = [
    "IDLE_TIMEOUT",
    "KINDS",
    "IncompleteThought",
    "ThinkStatus",
    "Thinker",
    "Thought",
    "ThoughtLink",
]
