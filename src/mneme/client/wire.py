"""One call to the HTTP API on httpx: the URL, the bearer token, the JSON, the error answer.

``SyncWire`` and ``AsyncWire`` hold the httpx client; the generated ``MnemeClient`` and
``AsyncMnemeClient`` (``mneme.client.api``) add one method per operation of the API, each
a call to ``_call``. Arguments left at None are not sent (the server's default applies);
path arguments are quoted whole, so an id can never reach another route.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx

from mneme.client.api_errors import ApiError, ApiInvalidInput, ApiUnavailable, error_from_answer

#: Seconds for each connect, read and write; a write that waits (``retain(wait=...)``) may
#: need more: pass ``timeout=``.
DEFAULT_TIMEOUT = 30.0


def _jsonable(value: Any) -> Any:
    """Mappings and sequences (tuples, a caller's own types) as the dicts and lists of JSON."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_jsonable(v) for v in value]
    return value


def _query_value(value: Any) -> Any:
    # httpx writes True as "true", which the API reads; a sequence repeats the parameter.
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_query_value(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _url(template: str, path: Mapping[str, str]) -> str:
    for name, value in path.items():
        if not isinstance(value, str) or not value:
            # An empty id would make another route's URL ("/v1/banks//memories").
            raise ApiInvalidInput(
                f"{name} must be a non-empty string, not {value!r}", code="invalid_input"
            )
        template = template.replace("{" + name + "}", quote(value, safe=""))
    return template


def _request(
    client: httpx.Client | httpx.AsyncClient,
    method: str,
    template: str,
    path: Mapping[str, str],
    query: Mapping[str, Any],
    body: Mapping[str, Any] | None,
) -> httpx.Request:
    params = {k: _query_value(v) for k, v in query.items() if v is not None}
    kwargs: dict[str, Any] = {"params": params}
    if body is not None:
        kwargs["json"] = {k: _jsonable(v) for k, v in body.items() if v is not None}
    return client.build_request(method, _url(template, path), **kwargs)


def _answer(response: httpx.Response) -> Any:
    try:
        data = response.json() if response.content else None
    except ValueError:
        data = None
    if response.status_code >= 400:
        raise error_from_answer(response.status_code, data, response.text)
    return data


def _unreachable(request: httpx.Request, exc: httpx.TransportError) -> ApiError:
    where = request.url.copy_with(query=None)
    return ApiUnavailable(
        f"no answer from {where}: {type(exc).__name__}: {exc}", code="unreachable"
    )


def _headers(token: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    out = {"Accept": "application/json", **(headers or {})}
    if token is not None:
        out["Authorization"] = f"Bearer {token}"
    return out


class SyncWire:
    """The httpx client under ``MnemeClient``: ``base_url``, a bearer ``token``, a
    ``timeout`` in seconds, and a ``transport`` (``httpx.WSGITransport``, a mock) if given.
    Holds a connection pool: use it as a context manager, or ``close()`` it."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.http = httpx.Client(
            base_url=base_url,
            headers=_headers(token, headers),
            timeout=timeout,
            transport=transport,
        )

    def _call(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Any:
        request = _request(self.http, method, template, path or {}, query or {}, body)
        try:
            response = self.http.send(request)
        except httpx.TransportError as exc:
            raise _unreachable(request, exc) from exc
        return _answer(response)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncWire:
    """The httpx client under ``AsyncMnemeClient``; the same arguments as ``SyncWire``, with
    an async ``transport`` (``httpx.ASGITransport(app)`` calls an app in process). Use it as
    an async context manager, or ``await aclose()``."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.http = httpx.AsyncClient(
            base_url=base_url,
            headers=_headers(token, headers),
            timeout=timeout,
            transport=transport,
        )

    async def _call(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Any:
        request = _request(self.http, method, template, path or {}, query or {}, body)
        try:
            response = await self.http.send(request)
        except httpx.TransportError as exc:
            raise _unreachable(request, exc) from exc
        return _answer(response)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
