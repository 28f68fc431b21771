"""The MCP server: mneme's tools and resources on the official ``mcp`` SDK.

``build_server(memory)`` makes a new server around a ``Memory`` or a factory of one: the
factory is called when the first connection starts (the lifespan) and the Memory closed
after the last one ends; nothing is built at import time. ``streamable_http_app`` wraps a
server as an ASGI app; ``run_stdio`` serves one over stdin/stdout (``mneme mcp``).

Every call acts as a principal (``caller``): the bearer token of its HTTP request, or the one
principal the server was built with (stdio). Before a tool runs, its operation is checked
against the principal's role and bank in the table every surface shares
(``mneme.surfaces.authority``), exactly as the HTTP API checks its routes.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from importlib.metadata import PackageNotFoundError, version
from io import TextIOWrapper
from typing import Any

try:
    import anyio
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ResourceError, ToolError
    from mcp.server.fastmcp.utilities.func_metadata import FuncMetadata
    from mcp.server.lowlevel.helper_types import ReadResourceContents
    from mcp.server.stdio import stdio_server
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.types import CallToolResult, Icon, ToolAnnotations
    from mcp.types import Tool as MCPTool
    from pydantic import AnyUrl, ValidationError
    from starlette.applications import Starlette
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "the mneme MCP server needs the 'server' extra: pip install 'mneme[server]'"
    ) from exc

from mneme.errors import InvalidInput, MnemeError
from mneme.memory import Memory
from mneme.surfaces.authority import (
    ALL_BANKS,
    OPERATIONS,
    Access,
    Principal,
    Refused,
    authorize,
    check_id,
)
from mneme.surfaces.mcp import caller, resources, tools
from mneme.surfaces.mcp.results import QUOTED, error, invalid_arguments
from mneme.surfaces.mcp.runtime import MemorySource, Runtime
from mneme.surfaces.tool_profiles import DEFAULT_PROFILE, GROUPS

log = logging.getLogger("mneme.mcp")

INSTRUCTIONS = f"""\
mneme is your long-term memory. You act as the agent, bank and role of this connection (its
bearer token, or the configuration of `mneme mcp`): leave `bank` out to use yours; a bank that
does not exist is an error naming the banks you may use (list_banks), never a new bank. Every
read searches the whole bank (scope collective) unless you say scope personal. Before
answering anything that may depend on the past, call search_memory (or get_context for a
ready block to put in your prompt), and cite the source ids of what you use (get_source
shows one). When you learn something worth keeping (a fact, a preference, a decision, an
event), call add_memory; to correct a memory you found, call update_memory. If add_memory
answers needs_clarification, a contradiction needs a decision: resolve_contradiction (or
leave it to a person). {QUOTED} Results are JSON; errors are
{{"error": {{"code", "message"}}}}. More tools (review, graph, swarm, think) are listed when
the server runs with a larger tool profile (`--tools full`).
"""

#: Arguments that once named who acts; the caller's principal does now. Sent equal to the
#: principal's agent they are accepted (older clients send them); anything else is refused.
_IDENTITY_ARGUMENTS = ("agent", "actor")


def _version() -> str:
    try:
        return version("mneme")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


class _VerbatimArguments(FuncMetadata):
    """Tool arguments validated exactly as sent.

    FastMCP first tries to parse string arguments as JSON for any parameter not typed ``str``
    (``"true"`` would become true, ``"null"`` None, ``"[...]"`` a list); mneme's types are
    strict, so a string stays a string and the schema decides.
    """

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


class MnemeServer(FastMCP[Runtime]):
    """A ``FastMCP`` server whose tool failures are all ``{"error": {"code", "message"}}``.

    The SDK turns a schema violation or a crash into free text; here a violation names each
    bad field (``invalid_input``), an argument the tool does not take is refused rather than
    silently dropped, and a crash is ``internal`` with its traceback kept in the server log.
    """

    def __init__(self, runtime: Runtime, *, principal: Principal | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.runtime = runtime
        #: The principal of every call that brings none (stdio, or HTTP run with --no-auth).
        self.principal = principal
        self._arguments: dict[str, frozenset[str]] = {}
        self.operations: dict[str, str] = {}
        #: The tool profile listed (``tools.groups_of``).
        self.profile = DEFAULT_PROFILE

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        *,
        operation: str | None = None,
    ) -> None:
        """Add a tool; ``operation`` (a key of ``authority.OPERATIONS``) is required: it is
        what the caller's role must allow before the tool runs."""
        if operation not in OPERATIONS:
            raise ValueError(f"tool {name or fn.__name__!r} names no known operation")
        if "bank" not in inspect.signature(fn).parameters:
            raise ValueError(f"tool {name or fn.__name__!r} takes no bank argument")
        super().add_tool(
            fn,
            name=name,
            title=title,
            description=description,
            annotations=annotations,
            icons=icons,
            meta=meta,
            structured_output=structured_output,
        )
        tool = self._tool_manager.get_tool(name or fn.__name__)
        assert tool is not None
        tool.fn_metadata = _VerbatimArguments.model_construct(
            **{field: getattr(tool.fn_metadata, field) for field in FuncMetadata.model_fields}
        )
        params = inspect.signature(fn).parameters
        self._arguments[name or fn.__name__] = frozenset(p for p in params if p != "ctx")
        self.operations[name or fn.__name__] = operation

    def caller(self) -> Principal:
        """The principal of the call being handled (see ``caller.of_request``)."""
        context = self.get_context()
        request = context.request_context.request if context.request_context else None
        return caller.of_request(request, self.principal)

    async def list_tools(self) -> list[MCPTool]:
        """The profile's tools, their input schemas without what a client never needs
        (titles, the ``null`` branch of an optional argument): the list an agent pays for in
        every prompt stays small (issue 18)."""
        listed = await super().list_tools()
        return [t.model_copy(update={"inputSchema": lean_schema(t.inputSchema)}) for t in listed]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        try:
            who = self.caller()
        except MnemeError as exc:
            return error(exc.code, str(exc))
        known = self._arguments.get(name)
        if known is None:
            group = GROUPS.get(name)
            if group is not None:
                return error(
                    "not_found",
                    f"{name} is not in this server's tool profile ({self.profile}); it is in "
                    f"the {group!r} group (start the server with --tools full or "
                    f"--tools {self.profile},{group})",
                )
            return error("not_found", f"no tool named {name[:100]!r}")
        try:
            arguments = _identity_checked(name, arguments, known, who)
            extra = sorted(set(arguments) - known)
            if extra:
                return error(
                    "invalid_input",
                    f"{name} takes no argument {', '.join(repr(e[:100]) for e in extra[:10])}; "
                    f"its arguments are: {', '.join(sorted(known))}",
                )
            bank = _bank_of(arguments, who, optional=name in _BANKLESS)
            authorize(who, self.operations[name], bank)
        except MnemeError as exc:
            return error(exc.code, str(exc))
        granted = caller.grant(Access(bank, who))
        try:
            return await super().call_tool(name, {**arguments, "bank": bank})
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return invalid_arguments(name, exc.__cause__)
            log.error("tool %s failed", name, exc_info=exc.__cause__ or exc)
            return error("internal", "internal error; the details were logged by the server")
        finally:
            caller.revoke(granted)

    async def read_resource(self, uri: AnyUrl | str) -> Iterable[ReadResourceContents]:
        """A resource, once the caller's role allows its operation (``resources.OPERATIONS``)."""
        operation = resources.OPERATIONS.get(str(uri))
        try:
            who = self.caller()
            if operation is None:
                raise InvalidInput(f"no resource {str(uri)[:100]!r}")
            authorize(who, operation)
        except MnemeError as exc:
            raise ResourceError(f"{exc.code}: {exc}") from exc
        granted = caller.grant(Access(who.bank, who))
        try:
            return await super().read_resource(uri)
        finally:
            caller.revoke(granted)


def _identity_checked(
    tool: str, arguments: dict[str, Any], known: frozenset[str], who: Principal
) -> dict[str, Any]:
    """The arguments without ``agent``/``actor``, refused unless they name the principal.

    Raises:
        Refused: one names another agent than the caller's.
    """
    out = dict(arguments)
    for key in _IDENTITY_ARGUMENTS:
        if key in known or key not in out:
            continue
        value = out.pop(key)
        if value != who.agent:
            shown = repr(value[:100]) if isinstance(value, str) else "another value"
            raise Refused(
                f"{tool} acts as this connection's agent {who.agent!r} (from its token or "
                f"configuration), not {shown}; leave {key!r} out"
            )
    return out


#: Tools a caller of every bank may call without naming a bank.
_BANKLESS = frozenset({"list_banks"})


def lean_schema(schema: Any) -> Any:
    """A JSON schema without ``title`` keys, and with each optional argument's
    ``anyOf: [X, {"type": "null"}]`` (its ``default: null``) reduced to X: leaving an argument
    out is how a client says "none", and the server still accepts an explicit null."""
    if isinstance(schema, list):
        return [lean_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: lean_schema(v) for k, v in schema.items() if k not in ("title", "properties")}
    props = schema.get("properties")
    if isinstance(props, dict):  # names of arguments, not keywords: "title" stays one
        out["properties"] = {k: _without_null(lean_schema(v)) for k, v in props.items()}
    return out


def _without_null(prop: Any) -> Any:
    if not isinstance(prop, dict) or prop.get("default", ...) is not None:
        return prop
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return prop
    kept = [b for b in branches if b != {"type": "null"}]
    if len(kept) != 1 or not isinstance(kept[0], dict):
        return prop
    rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**kept[0], **rest}


def _bank_of(arguments: dict[str, Any], who: Principal, *, optional: bool = False) -> str:
    """The bank a call names, or the principal's own.

    Raises:
        InvalidInput: the bank is not a string, or is left out by a principal of every bank.
    """
    bank = arguments.get("bank")
    if bank is None:
        if who.bank == ALL_BANKS and optional:
            return ALL_BANKS
        if who.bank == ALL_BANKS:
            raise InvalidInput("this caller is for every bank: name one with `bank`")
        return who.bank
    if not isinstance(bank, str):
        raise InvalidInput("invalid arguments: bank: Input should be a valid string")
    check_id("bank", bank)
    return bank


def build_server(
    memory: MemorySource,
    *,
    principal: Principal | None = None,
    name: str = "mneme",
    tools_profile: str = DEFAULT_PROFILE,
    **settings: Any,
) -> MnemeServer:
    """A new MCP server over ``memory`` (a ``Memory``, or a callable that opens one).

    ``tools_profile`` chooses the tools listed (``tools.PROFILE_HELP``): ``core`` by default.

    A factory is called once, when the first connection starts, and its Memory is closed
    after the last connection ends. A ready ``Memory`` belongs to the caller: never closed.
    ``principal`` is who every call acts as when its request brings none (stdio); without
    it, a call with no bearer-token principal is refused. ``settings`` are FastMCP's (the
    HTTP transport's host, path, security...).
    """
    runtime = Runtime(memory)

    @asynccontextmanager
    async def lifespan(_: FastMCP[Runtime]) -> AsyncIterator[Runtime]:
        async with runtime.running():
            yield runtime

    server = MnemeServer(
        runtime,
        principal=principal,
        name=name,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
        **settings,
    )
    # FastMCP takes no version; the low-level server reports it in serverInfo.
    server._mcp_server.version = _version()
    server.profile = tools_profile
    tools.register(server, tools_profile)
    resources.register(server, runtime)
    return server


def streamable_http_app(
    memory: MemorySource,
    *,
    principal: Principal | None = None,
    path: str = "/mcp",
    host: str = "127.0.0.1",
    allowed_hosts: list[str] | None = None,
    json_response: bool = False,
    stateless: bool = False,
    tools_profile: str = DEFAULT_PROFILE,
) -> Starlette:
    """MCP over streamable HTTP as an ASGI (Starlette) app serving ``path``.

    The app's lifespan opens ``memory`` (a factory is called then) for the app's whole life,
    shared by every session, and runs the SDK's session manager; whoever mounts the app must
    run that lifespan (see docs/mcp.md). Each request must bring its principal in the ASGI
    scope (``caller.PRINCIPAL_KEY``: the HTTP app's bearer-token guard puts it there);
    ``principal`` is for a server run without tokens (``--no-auth``) only. ``host``
    is the address the server binds: for 127.0.0.1/localhost the SDK refuses other Host
    headers (DNS-rebinding protection); ``allowed_hosts`` ("name:port" patterns, "*" ports
    allowed) sets that list explicitly for any bind address.
    """
    security = None
    if allowed_hosts is not None:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=allowed_hosts,
            allowed_origins=[f"http://{h}" for h in allowed_hosts]
            + [f"https://{h}" for h in allowed_hosts],
        )
    server = build_server(
        memory,
        principal=principal,
        streamable_http_path=path,
        host=host,
        transport_security=security,
        json_response=json_response,
        stateless_http=stateless,
        tools_profile=tools_profile,
    )
    app = server.streamable_http_app()

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # The SDK enters the server's lifespan once per session; holding the store open here
        # keeps one Memory for the app's life instead of one per session.
        async with server.runtime.running(), server.session_manager.run():
            yield

    app.router.lifespan_context = lifespan
    return app


def run_stdio(
    memory: MemorySource, principal: Principal, tools_profile: str = DEFAULT_PROFILE
) -> None:
    """Serve MCP over this process's stdin/stdout, as ``principal``, until the client hangs up.

    Standard output is the protocol's alone while it serves: the messages go out on a private
    duplicate of file descriptor 1, and descriptor 1 itself (and ``sys.stdout``) point at
    stderr, so a ``print`` or a native library writing to stdout (a model loading) lands in
    the log instead of breaking the client's stream. A ``Memory`` given as is has its embedder
    loaded in the background meanwhile (logged on stderr), so the first call does not wait
    for the model."""
    server = build_server(memory, principal=principal, tools_profile=tools_profile)
    with _protocol_stdout() as out:
        if isinstance(memory, Memory):
            memory.admin.warm_embedder(lambda how: log.info("embedder %s", how))
        anyio.run(_serve_stdio, server, out)


async def _serve_stdio(server: MnemeServer, out: Any) -> None:
    """FastMCP's ``run_stdio_async``, with the protocol written to ``out``."""
    async with stdio_server(stdout=out) as (read_stream, write_stream):
        lowlevel = server._mcp_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


@contextmanager
def _protocol_stdout() -> Iterator[Any]:
    """An async text stream on a duplicate of descriptor 1, with descriptor 1 and
    ``sys.stdout`` pointing at stderr until the block ends (then both are put back)."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    saved = sys.stdout
    text = TextIOWrapper(os.fdopen(protocol_fd, "wb", closefd=False), "utf-8", newline="\n")
    try:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        yield anyio.wrap_file(text)
    finally:
        sys.stdout = saved
        with suppress(OSError, ValueError):
            text.flush()
        os.dup2(protocol_fd, 1)
        os.close(protocol_fd)


__all__ = ["CallToolResult", "MnemeServer", "build_server", "run_stdio", "streamable_http_app"]
