"""The HTTP application: ``create_app(memory, tokens)`` builds it, with no module state.

One FastAPI app serves the JSON API under ``/v1`` (documented at ``/openapi.json`` and
``/docs``), ``/healthz``, the review page at ``/`` with its static files under ``/static``, and,
when given, the MCP streamable-HTTP app at ``/mcp`` (its session manager runs inside this app's
lifespan). Routes are sync ``def`` functions: FastAPI runs them in its thread pool, so the
synchronous ``Memory`` never blocks the event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mneme.memory import Memory
from mneme.surfaces.http import admin, agents, conflicts, memories, problems, review
from mneme.surfaces.http.limits import MAX_BODY_BYTES, Limits
from mneme.surfaces.http.tokens import TokenStore
from mneme.surfaces.web import static_dir

API_DESCRIPTION = """\
Long-term memory for AI agents: retain what happened, recall it with its evidence, and let a
person review what the system holds.

Every `/v1` route needs `Authorization: Bearer <token>`; a token (from `mneme token create`)
names one bank (or `*` for an admin of every bank), one agent and one role:

* **agent**: reads and writes its bank as itself; personal and collective recall; never another
  agent's personal scope or private memories; no review decisions.
* **reviewer**: the review queue and decisions, conflicts, reject and restore; reads the bank's
  memories as the owner (private ones included). Writes no memories.
* **admin**: everything, including the audit log and statistics.

Errors are `{"error": {"code", "message"}}` with the status: 400 invalid input, 401 no or bad
token, 403 not allowed, 404 not found (or outside the caller's scope), 409 conflicts with the
current state, 422 the request does not match its schema, 503 the store is unavailable.
"""

TAGS = [
    {"name": "memories", "description": "Retain, recall, and one memory's provenance."},
    {"name": "review", "description": "The review queue, decisions, rejections, rules."},
    {"name": "conflicts", "description": "Disagreements between memories and their settlement."},
    {"name": "agents", "description": "The swarm roster and an agent's presence."},
    {"name": "admin", "description": "Identity, banks, statistics and the audit log."},
    {"name": "health", "description": "Liveness, without a token."},
]

#: The page loads only its own files: no CDN, nothing fetched from elsewhere.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _lifespan_of(app: ASGIApp) -> Callable[[], AbstractAsyncContextManager[Any]] | None:
    router = getattr(app, "router", None)
    context = getattr(router, "lifespan_context", None)
    if context is None:
        return None
    return lambda: context(app)


def create_app(
    memory: Memory,
    tokens: TokenStore,
    *,
    mcp_app: ASGIApp | None = None,
    mcp_path: str = "/mcp",
    mcp_token_role: str | None = None,
    title: str = "mneme",
    max_body_bytes: int = MAX_BODY_BYTES,
) -> FastAPI:
    """The ASGI app over one ``Memory``; ``mcp_app`` routes its own path (``mcp_path``).

    MCP tools take their bank and agent as arguments, so the API's roles do not apply to them:
    with ``mcp_token_role`` set, ``/mcp`` needs a bearer token of that role (``mneme serve``
    asks for an admin token whenever it binds beyond loopback). Every request body is capped
    at ``max_body_bytes``, and ``/v1`` refuses an unknown caller before reading one
    (``limits``).
    """
    mcp_lifespan = _lifespan_of(mcp_app) if mcp_app is not None else None

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp_lifespan is not None:
                # MCP's streamable HTTP needs its session manager running for the app's life.
                await stack.enter_async_context(mcp_lifespan())
            yield

    app = FastAPI(
        title=title,
        version=_version(),
        description=API_DESCRIPTION,
        openapi_tags=TAGS,
        lifespan=lifespan,
    )
    app.state.memory = memory
    app.state.tokens = tokens
    problems.install(app)
    for module in (memories, review, conflicts, agents, admin):
        app.include_router(module.router)

    page = static_dir() / "index.html"

    @app.get("/", include_in_schema=False)
    def review_page() -> FileResponse:
        return FileResponse(page, media_type="text/html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static_dir()), name="static")
    if mcp_app is not None:
        # A Route, not a Mount: the MCP app answers at its own full path (no /mcp/ redirect).
        guarded = mcp_app if mcp_token_role is None else _guard(mcp_app, tokens, mcp_token_role)
        app.router.routes.append(Route(mcp_path, endpoint=guarded, methods=None))

    # Added before the headers middleware: its refusals get the same headers as any answer.
    app.add_middleware(Limits, tokens=tokens, max_body_bytes=max_body_bytes)

    @app.middleware("http")
    async def headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # The page accepts ?token= for first use: never send it on as a referrer.
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        path = request.url.path
        if path == "/" or path.startswith("/static/"):
            response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        elif path.startswith("/v1/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app


def _guard(app: ASGIApp, tokens: TokenStore, role: str) -> ASGIApp:
    """Let a request through to ``app`` only with a bearer token of ``role``."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, secret = header.decode("latin-1").partition(" ")
            who = tokens.lookup(secret.strip()) if scheme.lower() == "bearer" else None
            if who is None or who.role != role:
                refusal = problems.error_response(
                    401 if who is None else 403,
                    "unauthorized" if who is None else "forbidden",
                    f"MCP over HTTP here needs a bearer token of role {role!r}",
                    headers={"WWW-Authenticate": 'Bearer realm="mneme"'} if who is None else None,
                )
                await refusal(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mneme")
    except PackageNotFoundError:
        return "0"
