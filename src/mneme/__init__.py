"""mneme: long-term memory for AI agents."""

from mneme.config import Config
from mneme.core.context_block import ContextBlock, ContextItem
from mneme.core.model import (
    Bank,
    Decision,
    Edge,
    Entity,
    HistoryEvent,
    Hit,
    Network,
    Question,
    RetainResult,
    RetainStatus,
    Scope,
    Source,
    Unit,
    UnitStatus,
    UnitType,
    Verdict,
    Visibility,
)
from mneme.errors import (
    BackendUnavailable,
    Conflict,
    InvalidInput,
    MnemeError,
    NotFound,
    SchemaMismatch,
)
from mneme.memory import Memory

__all__ = [
    "BackendUnavailable",
    "Bank",
    "Config",
    "Conflict",
    "ContextBlock",
    "ContextItem",
    "Decision",
    "Edge",
    "Entity",
    "HistoryEvent",
    "Hit",
    "InvalidInput",
    "Memory",
    "MnemeError",
    "Network",
    "NotFound",
    "Question",
    "RetainResult",
    "RetainStatus",
    "SchemaMismatch",
    "Scope",
    "Source",
    "Unit",
    "UnitStatus",
    "UnitType",
    "Verdict",
    "Visibility",
]
