"""One root error and the few that callers catch. Each carries a stable ``code`` for surfaces."""

from __future__ import annotations


class MnemeError(Exception):
    """Root of every error mneme raises on purpose."""

    code = "error"
    exit_code = 1
    #: More than ``str(error)`` says, for the operator of the machine only (a file's path, an
    #: OS error): a CLI or a server log may show it, an answer to a remote client never does.
    operator_detail: str | None = None


class InvalidInput(MnemeError, ValueError):
    """The caller's input is unusable (empty text, NUL bytes, bad time, bad id...)."""

    code = "invalid_input"
    exit_code = 2
    #: In a batch (``retain_many``), the position of the offending item.
    index: int | None = None


class NotFound(MnemeError, LookupError):
    """No such bank, unit, source or claim, or it is outside the caller's scope."""

    code = "not_found"
    exit_code = 3


class Conflict(MnemeError):
    """The request contradicts the current state (a decision that does not apply, a reused id)."""

    code = "conflict"
    exit_code = 4


class Refused(MnemeError):
    """The caller's role or bank does not allow the operation (HTTP 403, MCP ``forbidden``)."""

    code = "forbidden"
    exit_code = 1


class SchemaMismatch(MnemeError):
    """The database is not a mneme store, is corrupt, or was written by a newer mneme."""

    code = "schema_mismatch"
    exit_code = 4


class BackendUnavailable(MnemeError):
    """The store or a model cannot be reached (server down, read-only file, missing extension)."""

    code = "backend_unavailable"
    exit_code = 5
