"""The HTTP application: ``create_app(memory, tokens)`` builds it, with no module state.

One FastAPI app serves the JSON API under ``/v1`` (documented at ``/openapi.json``, and at
``/docs`` and ``/redoc`` from packaged assets, offline), ``/healthz``, the review page at
``/`` with its static files under ``/static``, and, when given, the MCP streamable-HTTP app
at ``/mcp`` behind the same bearer tokens (its session manager runs inside this app's
lifespan). Routes are sync ``def`` functions: FastAPI runs them
in its thread pool, so the synchronous ``Memory`` never blocks the event loop.
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
from mneme.surfaces.authority import PRINCIPAL_KEY, authorize
from mneme.surfaces.http import (
    admin,
    agents,
    apidocs,
    conflicts,
    health,
    insights,
    memories,
    observations,
    problems,
    review,
    settings,
)
from mneme.surfaces.http.auth import Caller
from mneme.surfaces.http.limits import MAX_BODY_BYTES, Limits
from mneme.surfaces.http.metrics import Metrics, SurfaceMark
from mneme.surfaces.http.paths import EncodedSlashes
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

`/mcp` (MCP over streamable HTTP) needs the same bearer token, and its tools act as the token's
bank, agent and role, checked against the same table as these routes.

Errors are `{"error": {"code", "message"}}` with the status: 400 invalid input, 401 no or bad
token, 403 not allowed, 404 not found (or outside the caller's scope), 409 conflicts with the
current state, 422 the request does not match its schema, 503 the store is unavailable.
"""

TAGS = [
    {"name": "memories", "description": "Retain, recall, and one memory's provenance."},
    {"name": "review", "description": "The review queue, decisions, rejections, rules."},
    {"name": "observations", "description": "Reflect: observations from the bank's evidence."},
    {"name": "insights", "description": "Insights: hypotheses that link memories, with witnesses."},
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
    mcp_auth: bool = True,
    title: str = "mneme",
    max_body_bytes: int = MAX_BODY_BYTES,
) -> FastAPI:
    """The ASGI app over one ``Memory``; ``mcp_app`` routes its own path (``mcp_path``).

    ``/mcp`` needs a bearer token, whatever the bind address, exactly as ``/v1`` does; its
    principal goes on with the request, and every MCP tool checks it against the same role
    table as the routes (``mneme.surfaces.authority``). ``mcp_auth=False`` (``mneme serve
    --no-auth``) routes MCP without a token: the MCP app must then carry its own principal,
    or it refuses every call. Every request body is capped
    at ``max_body_bytes``, and ``/v1`` refuses an unknown caller before reading one
    (``limits``).
    """
    mcp_lifespan = _lifespan_of(mcp_app) if mcp_app is not None else None
    # One registry per app (ADR 0055): two apps over one process never share counts.
    metrics = Metrics(memory)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            stack.callback(metrics.close)
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
        # Served by apidocs from packaged assets: FastAPI's own pages load them from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.memory = memory
    app.state.tokens = tokens
    app.state.metrics = metrics
    problems.install(app)
    apidocs.install(app, title)
    for module in (
        memories,
        review,
        observations,
        insights,
        conflicts,
        agents,
        admin,
        health,
        settings,
    ):
        app.include_router(module.router)

    # Prometheus' text format, not an API route (not in the OpenAPI document): store-wide
    # numbers, so an admin token for every bank, as /v1/stats (docs/operations.md).
    @app.get("/metrics", include_in_schema=False)
    def scrape(who: Caller) -> Response:
        authorize(who, "status")
        body, kind = metrics.exposition()
        return Response(body, media_type=kind, headers={"Cache-Control": "no-store"})

    page = static_dir() / "index.html"

    @app.get("/", include_in_schema=False)
    def review_page() -> FileResponse:
        return FileResponse(page, media_type="text/html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static_dir()), name="static")
    if mcp_app is not None:
        # A Route, not a Mount: the MCP app answers at its own full path (no /mcp/ redirect).
        guarded = BearerGuard(mcp_app, tokens) if mcp_auth else mcp_app
        app.router.routes.append(Route(mcp_path, endpoint=guarded, methods=None))

    # Added before the headers middleware: its refusals get the same headers as any answer.
    app.add_middleware(Limits, tokens=tokens, max_body_bytes=max_body_bytes)
    app.add_middleware(SurfaceMark)

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

    # Outermost: every other layer sees the path with an id's encoded "/" kept apart.
    app.add_middleware(EncodedSlashes)
    return app


class BearerGuard:
    """Let a request through to ``app`` only with a known bearer token (any role), and hand
    the token's principal on in the ASGI scope (``authority.PRINCIPAL_KEY``).

    A class, not a function: Starlette would take a plain function for a request handler.
    """

    def __init__(self, app: ASGIApp, tokens: TokenStore) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, secret = header.decode("latin-1").partition(" ")
        who = self.tokens.lookup(secret.strip()) if scheme.lower() == "bearer" else None
        if who is None:
            message = (
                "the token is unknown or was revoked"
                if scheme.lower() == "bearer" and secret.strip()
                else "MCP over HTTP needs a bearer token (Authorization: Bearer <token>, "
                "from `mneme token create`)"
            )
            refusal = problems.error_response(
                401, "unauthorized", message, headers={"WWW-Authenticate": 'Bearer realm="mneme"'}
            )
            await refusal(scope, receive, send)
            return
        # Set here, never taken from the client: a scope key no request can carry in.
        await self.app({**scope, PRINCIPAL_KEY: who}, receive, send)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mneme")
    except PackageNotFoundError:
        return "0"
