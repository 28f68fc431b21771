"""Limits before work: who is asking, and how much they send, are settled before a body is read.

An ASGI layer outside the app. For ``/v1/`` a request without a known bearer token is refused
from its headers alone (401). The body itself is never read. Every request body is capped:
one that declares a ``Content-Length`` over the cap is refused at once (413). One sent in
chunks is read up to the cap and then refused, so it never holds more than the cap in memory.
The routes still check roles and banks (``auth``). This layer only makes sure an unknown caller
or an oversized body costs nothing.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mneme.surfaces.http import problems
from mneme.surfaces.http.tokens import TokenStore, TokensUnreadable

#: The default cap on a request body: 1 MiB (``mneme serve --max-body``).
MAX_BODY_BYTES = 1 << 20

_UNAUTHORIZED = {"WWW-Authenticate": 'Bearer realm="mneme"'}


class Limits:
    def __init__(self, app: ASGIApp, tokens: TokenStore, max_body_bytes: int) -> None:
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be positive, not {max_body_bytes}")
        self.app = app
        self.tokens = tokens
        self.cap = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if scope["path"].startswith("/v1/"):
            try:
                refusal = self._unauthenticated(headers.get(b"authorization", b""))
            except TokensUnreadable as exc:
                # Outside the app's error handlers: answer here, in words that name no file
                # (the tokens module logged which one, for the operator).
                await problems.error_response(503, exc.code, str(exc))(scope, receive, send)
                return
            if refusal is not None:
                await problems.error_response(401, "unauthorized", refusal, headers=_UNAUTHORIZED)(
                    scope, receive, send
                )
                return
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = -1
            if size < 0:
                await self._refuse(scope, receive, send, 400, "bad_request", "a bad Content-Length")
                return
            if size > self.cap:
                await self._too_large(scope, receive, send, size)
                return
            await self.app(scope, _capped(receive, self.cap), send)
            return
        # No declared length (chunked): read up to the cap, then hand the body on.
        body: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > self.cap:
                await self._too_large(scope, receive, send, None)
                return
            body.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(body), receive), send)

    def _unauthenticated(self, header: bytes) -> str | None:
        scheme, _, secret = header.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            return "a bearer token is required (Authorization: Bearer <token>)"
        if self.tokens.lookup(secret.strip()) is None:
            return "the token is unknown or was revoked"
        return None

    async def _too_large(
        self, scope: Scope, receive: Receive, send: Send, size: int | None
    ) -> None:
        said = f"{size:,} bytes" if size is not None else "more than that"
        message = (
            f"the request body is {said}, over the limit of {self.cap:,} bytes; send less per "
            "request (split a batch) or start the server with a larger --max-body"
        )
        await self._refuse(scope, receive, send, 413, "payload_too_large", message)

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str
    ) -> None:
        # "Connection: close": the client may still be sending what nobody will read.
        response = problems.error_response(status, code, message, headers={"Connection": "close"})
        await response(scope, receive, send)


def _capped(receive: Receive, cap: int) -> Receive:
    """``receive``, stopping a body that sends more than its declared length allows."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > cap:
                return {"type": "http.disconnect"}
        return message

    return wrapped


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read ahead once, then what the client sends next."""
    sent = False

    async def wrapped() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return wrapped
