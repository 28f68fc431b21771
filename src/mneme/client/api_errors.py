"""The HTTP API's error answers as Python exceptions, each also the ``mneme.errors`` class a
caller of ``mneme.Memory`` catches for the same failure.

The API answers every failure as ``{"error": {"code", "message", "fields"?}}`` with its status
(``mneme.surfaces.http.problems``). The client raises the class of that status (or of its
code, where one status carries two: 409 ``schema_mismatch``), so ``except NotFound`` works
the same on ``Memory`` and on the client, and ``except ApiError`` catches every answer of the
API with its status, code, message and, for a request that does not match its schema, the
invalid fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mneme.errors import (
    BackendUnavailable,
    Conflict,
    InvalidInput,
    MnemeError,
    NotFound,
    Refused,
    SchemaMismatch,
)


class ApiError(MnemeError):
    """An error answer of the HTTP API (or no answer at all: ``status`` is None then).

    ``fields`` lists each invalid field of a request that does not match its schema (422):
    ``{"loc": ["body", "text"], "msg": ..., "type": ...}``; ``field`` names the first one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        fields: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        # An instance attribute: the API's own code, which may be finer than the class's.
        self.code = code
        self.fields = [dict(f) for f in fields]

    @property
    def field(self) -> str | None:
        """The first invalid field, dotted and without its place (``text``, ``k``), if any."""
        if not self.fields:
            return None
        loc = [str(p) for p in self.fields[0].get("loc", ())]
        if loc and loc[0] in ("body", "query", "path", "header"):
            loc = loc[1:]
        return ".".join(loc) or None


class ApiInvalidInput(ApiError, InvalidInput):
    """400, 405, 413, 415 or 422: the request is unusable or does not match its schema."""


class ApiUnauthorized(ApiError):
    """401: no bearer token, or one the server does not know (or revoked)."""


class ApiRefused(ApiError, Refused):
    """403: the token's role or bank does not allow the operation."""


class ApiNotFound(ApiError, NotFound):
    """404: no such object, or it is outside the caller's scope."""


class ApiConflict(ApiError, Conflict):
    """409: the request contradicts the current state."""


class ApiSchemaMismatch(ApiError, SchemaMismatch):
    """409 ``schema_mismatch``: the server's store is not one its mneme can use."""


class ApiUnavailable(ApiError, BackendUnavailable):
    """503, or no answer: the server's store is unavailable, or the server cannot be reached."""


_BY_CODE: dict[str, type[ApiError]] = {"schema_mismatch": ApiSchemaMismatch}
_BY_STATUS: dict[int, type[ApiError]] = {
    400: ApiInvalidInput,
    401: ApiUnauthorized,
    403: ApiRefused,
    404: ApiNotFound,
    405: ApiInvalidInput,
    409: ApiConflict,
    413: ApiInvalidInput,
    415: ApiInvalidInput,
    422: ApiInvalidInput,
    503: ApiUnavailable,
}
_TEXT_CHARS = 300


def error_from_answer(status: int, body: Any, text: str = "") -> ApiError:
    """The exception for an error answer: its status, and its JSON body when it has one."""
    error = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        code = str(error.get("code") or "error")
        message = str(error["message"])
        raw = error.get("fields")
        fields = [f for f in raw if isinstance(f, Mapping)] if isinstance(raw, list) else []
    else:
        # Not the API's error object: a proxy's page, an empty body. Say what came back.
        code = "error"
        shown = " ".join(text.split())[:_TEXT_CHARS]
        message = f"HTTP {status}" + (f": {shown}" if shown else "")
        fields = []
    kind = _BY_CODE.get(code) or _BY_STATUS.get(status, ApiError)
    return kind(message, status=status, code=code, fields=fields)
