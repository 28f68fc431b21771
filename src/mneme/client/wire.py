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
    headers: Mapping[str, str],
    method: str,
    template: str,
    path: Mapping[str, str],
    query: Mapping[str, Any],
    body: Mapping[str, Any] | None,
) -> httpx.Request:
    params = {k: _query_value(v) for k, v in query.items() if v is not None}
    kwargs: dict[str, Any] = {"params": params, "headers": headers}
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


def _check(base_url: str, has_http: bool, has_transport: bool) -> None:
    if has_http:
        if base_url or has_transport:
            raise ApiInvalidInput("give either http= or base_url= (and transport=), not both")
    elif not base_url.startswith(("http://", "https://")):
        raise ApiInvalidInput(f"base_url must start with http:// or https://, not {base_url!r}")


class SyncWire:
    """The httpx client under ``MnemeClient``.

    ``base_url`` is the server (``http://127.0.0.1:8765``), ``token`` a bearer token (from
    ``mneme token create``), ``timeout`` seconds for each connect, read and write, and
    ``transport`` an httpx transport to use instead of the network. ``http`` is an httpx
    client of the caller's own (its base URL, proxies, TLS; Starlette's ``TestClient(app)``
    calls an app in process): the token goes on each request, and ``close()`` leaves it open.
    Holds a connection pool otherwise: use it as a context manager, or ``close()`` it.
    """

    def __init__(
        self,
        base_url: str = "",
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        _check(base_url, http is not None, transport is not None)
        self.headers = _headers(token, headers)
        self.owned = http is None
        self.http = http or httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def _call(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Any:
        request = _request(self.http, self.headers, method, template, path or {}, query or {}, body)
        try:
            response = self.http.send(request)
        except httpx.TransportError as exc:
            raise _unreachable(request, exc) from exc
        return _answer(response)

    def close(self) -> None:
        if self.owned:
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
    """The httpx client under ``AsyncMnemeClient``: the arguments of ``SyncWire``, with an
    async ``transport`` (``httpx.ASGITransport(app)`` calls an app in process) or ``http``
    (an ``httpx.AsyncClient``). Use it as an async context manager, or ``await aclose()``."""

    def __init__(
        self,
        base_url: str = "",
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        headers: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        _check(base_url, http is not None, transport is not None)
        self.headers = _headers(token, headers)
        self.owned = http is None
        self.http = http or httpx.AsyncClient(
            base_url=base_url, timeout=timeout, transport=transport
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
        request = _request(self.http, self.headers, method, template, path or {}, query or {}, body)
        try:
            response = await self.http.send(request)
        except httpx.TransportError as exc:
            raise _unreachable(request, exc) from exc
        return _answer(response)

    async def aclose(self) -> None:
        if self.owned:
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
