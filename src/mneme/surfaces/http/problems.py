"""Errors on the wire: every failure is ``{"error": {"code", "message"}}`` with its status.

mneme's own errors map by type (invalid input 400, not found 404, conflict 409, backend
unavailable 503); request validation is 422 with the offending fields; anything else is a bug
and answers 500 without leaking its text.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from mneme.errors import (
    BackendUnavailable,
    Conflict,
    InvalidInput,
    MnemeError,
    NotFound,
    SchemaMismatch,
)
from mneme.surfaces.authority import Refused

log = logging.getLogger("mneme.http")

STATUS_BY_ERROR: tuple[tuple[type[MnemeError], int], ...] = (
    (Refused, 403),
    (InvalidInput, 400),
    (NotFound, 404),
    (Conflict, 409),
    (SchemaMismatch, 409),
    (BackendUnavailable, 503),
)

_CODE_BY_STATUS = {
    400: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    503: "backend_unavailable",
}


class ErrorDetail(BaseModel):
    code: str = Field(description="A stable machine-readable code, e.g. not_found.")
    message: str = Field(description="What went wrong, for a person.")
    fields: list[dict[str, Any]] | None = Field(
        default=None, description="For 422: each invalid field (loc, msg, type)."
    )


class ErrorBody(BaseModel):
    error: ErrorDetail


#: The error answers most routes can give, for the OpenAPI document.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Invalid input (e.g. empty text, a bad time)."},
    401: {"model": ErrorBody, "description": "Missing or unknown bearer token."},
    403: {"model": ErrorBody, "description": "The token's role or bank does not allow this."},
    404: {"model": ErrorBody, "description": "No such object visible to the caller."},
    409: {"model": ErrorBody, "description": "The request contradicts the current state."},
    422: {"model": ErrorBody, "description": "The request does not match its schema."},
    503: {"model": ErrorBody, "description": "The store is unavailable."},
}


class ApiError(Exception):
    """An HTTP error raised by the surface itself (auth, scope, routing)."""

    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    fields: list[dict[str, Any]] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if fields is not None:
        body["fields"] = fields
    return JSONResponse({"error": body}, status_code=status, headers=dict(headers or {}))


def _fields(errors: Sequence[Any]) -> list[dict[str, Any]]:
    # Only loc/msg/type: pydantic's "input" and "ctx" may hold values that are not JSON.
    return [
        {
            "loc": [str(p) for p in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in errors
        if isinstance(e, Mapping)
    ]


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the error object."""

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, headers=exc.headers)

    @app.exception_handler(MnemeError)
    async def _mneme_error(_request: Request, exc: MnemeError) -> JSONResponse:
        for kind, status in STATUS_BY_ERROR:
            if isinstance(exc, kind):
                return error_response(status, exc.code, str(exc))
        log.error("mneme error on the HTTP surface: %s", exc)
        return error_response(500, exc.code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        fields = _fields(exc.errors())
        first = fields[0] if fields else {"loc": [], "msg": "invalid request"}
        where = ".".join(first["loc"])
        return error_response(
            422,
            "invalid_request",
            f"{where}: {first['msg']}" if where else str(first["msg"]),
            fields=fields,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _CODE_BY_STATUS.get(exc.status_code, "error")
        return error_response(
            exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(Exception)
    async def _bug(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on the HTTP surface", exc_info=exc)
        return error_response(500, "internal", f"internal error ({type(exc).__name__})")
