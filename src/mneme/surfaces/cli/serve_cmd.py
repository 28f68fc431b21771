"""``mneme serve`` (HTTP API, review page and MCP over HTTP), ``mneme token`` and ``mneme setup``.

Serving binds 127.0.0.1 by default. On first run (no tokens file yet) it creates an admin token
and prints it once, with the page's URL. ``serve --get PATH`` answers one request in process
without binding a port, for smoke tests.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from mneme import config as config_mod
from mneme.errors import InvalidInput
from mneme.memory import Memory
from mneme.surfaces.authority import ALL_BANKS, ROLES, Principal, check_principal
from mneme.surfaces.cli import output
from mneme.surfaces.cli.mcp_cmd import DEFAULT_AGENT, DEFAULT_BANK
from mneme.surfaces.cli.serve_reload import Reloads
from mneme.surfaces.cli.state import State, get_state, output_options
from mneme.surfaces.http.limits import MAX_BODY_BYTES
from mneme.surfaces.http.tokens import TokenStore, default_tokens_path
from mneme.surfaces.tool_profiles import DEFAULT_PROFILE, PROFILE_HELP, check_profile, groups_of

DEFAULT_PORT = 8765
#: Seconds between the server's background reflect passes: a pass over unchanged evidence
#: only reads (ADR 0051), and ten minutes keeps observations close behind what is said.
DEFAULT_REFLECT_EVERY = 600.0
#: Seconds between background reconsolidation passes under ``mneme serve`` (ADR 0009).
DEFAULT_RECONSOLIDATE_EVERY = 60.0
#: Seconds between the server's health watchdog passes (ADR 0054): a pass reads sizes and
#: counts, and the integrity check (quick_check) is the one that grows with the file.
DEFAULT_WATCH_EVERY = 60.0
_LOOPBACK = ("127.0.0.1", "localhost", "::1")

tokens_option = click.option(
    "--tokens",
    "tokens_file",
    metavar="FILE",
    help="The API tokens file. Default: the config's tokens ($MNEME_TOKENS), else "
    "<db name>.tokens.json next to the SQLite file (for a DSN: ~/.config/mneme/tokens.json).",
)


def _db_target(state: State) -> str:
    """The store the invocation names, without opening it (no embedder is loaded)."""
    return state.target()


def _token_store(state: State, tokens_file: str | None) -> TokenStore:
    chosen = tokens_file or state.settings().config.tokens
    if chosen:
        return TokenStore(chosen)
    return TokenStore(default_tokens_path(_db_target(state), config_mod.environment()))


def _serve_settings(
    state: State,
    mcp_tools: str | None,
    reflect_every: float | None,
    every: float | None,
    watch_every: float | None = None,
) -> tuple[str, dict[str, Any]]:
    """The MCP tool profile and the background cadences ``serve`` runs with: an option,
    else the configuration (file or environment), else serve's own default."""
    layers = state.settings()
    profile = mcp_tools or layers.config.mcp_tools or DEFAULT_PROFILE
    try:
        groups_of(profile)
    except InvalidInput as exc:
        raise InvalidInput(f"mcp_tools: {exc}") from None
    cadences: dict[str, Any] = {}
    for key, given, default in (
        ("reflect_every", reflect_every, DEFAULT_REFLECT_EVERY),
        ("reconsolidate_every", every, DEFAULT_RECONSOLIDATE_EVERY),
        ("watch_every", watch_every, DEFAULT_WATCH_EVERY),
    ):
        if given is not None:
            cadences[key] = given
        elif layers.origins[key] == "default":
            cadences[key] = default
    return profile, cadences


# -- serve --------------------------------------------------------------------------------


#: Who every MCP call acts as under ``serve --no-auth``: an admin of every bank.
NO_AUTH = Principal("no-auth", ALL_BANKS, "local", "admin", "serve --no-auth")


def _mcp_app(memory: Memory, host: str, no_auth: bool, profile: str) -> Any | None:
    """The MCP streamable-HTTP app, when the MCP surface is installed."""
    try:
        from mneme.surfaces.mcp.server import streamable_http_app
    except ImportError:
        return None
    return streamable_http_app(
        memory, host=host, principal=NO_AUTH if no_auth else None, tools_profile=profile
    )


def _first_run(tokens: TokenStore, base: str) -> None:
    secret, record = tokens.create(bank=ALL_BANKS, agent="admin", role="admin", label="first run")
    output.note(
        f"first run: created an admin token for every bank ({record.id}); it is shown once:\n"
        f"  {secret}\n"
        f"  open the review page with it: {base}/?token={secret}\n"
        f"  more tokens: mneme token create --bank BANK --agent AGENT --role agent|reviewer|admin\n"
        f"  (kept hashed in {tokens.path})"
    )


def _get_once(app: Any, path: str, token: str | None) -> int:
    from starlette.testclient import TestClient

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get(path, headers=headers)
    click.echo(response.text)
    return 0 if response.status_code < 400 else 1


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to bind.",
)
@tokens_option
@click.option(
    "--mcp/--no-mcp", default=True, show_default=True, help="Serve MCP over HTTP at /mcp."
)
@click.option(
    "--mcp-tools",
    "mcp_tools",
    callback=check_profile,
    help=PROFILE_HELP
    + f" Default: the config's mcp_tools ($MNEME_MCP_TOOLS), else {DEFAULT_PROFILE}.",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve /mcp without a bearer token, for local experiments only: every MCP call then "
    "acts as an admin of every bank (agent 'local'). Prints a warning. /v1 still needs tokens.",
)
@click.option(
    "--get",
    "get_path",
    metavar="PATH",
    help="Answer one GET request in process (no port is bound), print the body and exit: "
    "0 for a success, 1 for an error status.",
)
@click.option("--token", metavar="SECRET", help="Bearer token for --get.")
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=MAX_BODY_BYTES,
    show_default=True,
    metavar="BYTES",
    help="Largest request body accepted (413 above it).",
)
@click.option(
    "--reflect-every",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Seconds between background reflect passes (observations, ADR 0051), each over "
    "a few banks in turn; 0: off (reflect only when asked: `mneme reflect`). Default: the "
    f"config's reflect_every, else {DEFAULT_REFLECT_EVERY:g}.",
)
@click.option(
    "--insights-every",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Seconds between background insight passes (categories, threads, insights; "
    "ADR 0056), each over a few banks in turn; 0: off (`mneme insights run` when asked).",
)
@click.option(
    "--reconsolidate-every",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Seconds between background reconsolidation passes (what a changed belief "
    "supported or held back is re-examined, ADR 0009); 0: off (`mneme reconsolidate`). "
    f"Default: the config's reconsolidate_every, else {DEFAULT_RECONSOLIDATE_EVERY:g}.",
)
@click.option(
    "--watch-every",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Seconds between health watchdog passes (heal, alert, hook; ADR 0054; GET "
    "/v1/health shows the latest); 0: off (`mneme health`, `mneme watch`). Default: the "
    f"config's watch_every, else {DEFAULT_WATCH_EVERY:g}.",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="The server's log level (stderr).",
)
@output_options
def serve(
    host: str,
    port: int,
    tokens_file: str | None,
    mcp: bool,
    mcp_tools: str | None,
    no_auth: bool,
    get_path: str | None,
    token: str | None,
    max_body: int,
    reflect_every: float | None,
    insights_every: float | None,
    reconsolidate_every: float | None,
    watch_every: float | None,
    log_level: str,
) -> int:
    """Serve the HTTP API, the review page at / and MCP at /mcp.

    Every API route and /mcp need a bearer token (see `mneme token`), whatever the bind
    address; MCP tools act as the token's bank, agent and role, as the API does. The first
    run creates an admin token and prints it once. URLs go to stderr. SIGHUP (or `mneme
    config apply`) reloads the configuration without a restart (docs/configuration.md).
    """
    from mneme.surfaces.http import create_app

    state = get_state()
    tokens = _token_store(state, tokens_file)
    mcp_tools, cadences = _serve_settings(
        state, mcp_tools, reflect_every, reconsolidate_every, watch_every
    )
    if insights_every is not None:
        cadences["insights_every"] = insights_every
    memory = state.open(**cadences)
    reflect_every = memory.config.reflect_every
    insights_every = memory.config.insights_every
    reconsolidate_every = memory.config.reconsolidate_every
    watch_every = memory.config.watch_every
    mcp_app = _mcp_app(memory, host, no_auth, mcp_tools) if mcp else None
    if no_auth and mcp_app is not None:
        output.note(
            "warning: --no-auth: /mcp takes no token, and every MCP call acts as an admin of "
            "every bank (agent 'local'); anyone who reaches the port can read, write and "
            "decide anything. Use it for local experiments only."
        )
    app = create_app(memory, tokens, mcp_app=mcp_app, mcp_auth=not no_auth, max_body_bytes=max_body)
    if get_path is not None:
        if not get_path.startswith("/"):
            raise click.UsageError("--get takes a path starting with /, e.g. --get /healthz")
        return _get_once(app, get_path, token)

    import uvicorn

    shown = f"[{host}]" if ":" in host else host
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}"
    if not tokens.exists():
        _first_run(tokens, base)
    if mcp_app is not None:
        mcp_line = f"{base}/mcp" + (
            "  (NO TOKEN: --no-auth)" if no_auth else "  (bearer token required)"
        )
    else:
        mcp_line = "off" if not mcp else "off (the MCP surface is not installed)"
    lines = [
        f"mneme serving {memory.config.db or config_mod.default_db_path()}",
        f"  review page  {base}/",
        f"  API docs     {base}/docs  (OpenAPI: {base}/openapi.json)",
        f"  MCP          {mcp_line}",
        f"  tokens       {tokens.path}",
        f"  reflect      every {reflect_every:g} s" if reflect_every else "  reflect      off",
        f"  insights     every {insights_every:g} s" if insights_every else "  insights     off",
        f"  reconsolidate every {reconsolidate_every:g} s"
        if reconsolidate_every
        else "  reconsolidate off",
        f"  watchdog     every {watch_every:g} s" if watch_every else "  watchdog     off",
    ]
    if host not in _LOOPBACK:
        lines.append(
            "  warning: bound beyond this machine; tokens travel in clear text without a TLS "
            "proxy in front"
        )
    server_file = config_mod.server_file(memory.config.db or config_mod.default_db_path())
    lines.append(f"  reload       kill -HUP {os.getpid()}  or  mneme config apply")
    # SIGHUP is taken before the lines that say the server runs: a signal sent on seeing
    # them must reload, not end the process (SIGHUP's default).
    reloads = Reloads(memory, server_file, base)
    reloads.start()
    output.note("\n".join(lines))
    # The embedder loads while the port already answers; the first write need not wait.
    memory.admin.warm_embedder(lambda how: output.note(f"  embedder     {how}"))
    try:
        config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on")
        uvicorn.Server(config).run()
    finally:
        reloads.close()
    return 0


# -- token --------------------------------------------------------------------------------


@click.group()
def token() -> None:
    """Create, list and revoke the HTTP API's bearer tokens (stored hashed)."""


@token.command("create")
@click.option("--bank", "-b", required=True, help='The bank it opens ("*": every bank, admin).')
@click.option("--agent", "-a", required=True, help="The agent it acts as.")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="agent",
    show_default=True,
    help="agent: its own memories; reviewer: review and conflicts; admin: all.",
)
@click.option("--label", default="", help="A note to recognise it by.")
@tokens_option
@output_options
def token_create(bank: str, agent: str, role: str, label: str, tokens_file: str | None) -> None:
    """Make a token and print its secret once (only its hash is kept)."""
    state = get_state()
    store = _token_store(state, tokens_file)
    secret, record = store.create(bank=bank, agent=agent, role=role, label=label)
    if state.json:
        output.emit_json({"token": secret, "record": _public(record), "file": store.path})
        return
    click.echo(secret)
    output.note(
        f"{record.id}: {role} token for agent {agent!r} in bank {bank!r}; this is the only time "
        f"the secret is shown (kept hashed in {store.path})"
    )


def _public(record: Any) -> dict[str, Any]:
    return {k: getattr(record, k) for k in ("id", "bank", "agent", "role", "created_at", "label")}


@token.command("list")
@tokens_option
@output_options
def token_list(tokens_file: str | None) -> None:
    """List the tokens (ids, banks, agents, roles; never secrets)."""
    state = get_state()
    store = _token_store(state, tokens_file)
    rows = [_public(r) for r in store.records()]

    def text() -> list[str]:
        lines = []
        for r in rows:
            label = f"  ({r['label']})" if r["label"] else ""
            lines.append(
                f"{r['id']}  {r['role']:<8}  bank {r['bank']}  agent {r['agent']}  "
                f"{r['created_at']}{label}"
            )
        return lines or [f"no tokens in {store.path}"]

    state.emit({"file": store.path, "tokens": rows}, text)


@token.command("revoke")
@click.argument("token_id")
@tokens_option
@output_options
def token_revoke(token_id: str, tokens_file: str | None) -> None:
    """Revoke a token by its id (tok_...); a running server stops accepting it at once."""
    state = get_state()
    store = _token_store(state, tokens_file)
    record = store.revoke(token_id)
    state.emit({"revoked": _public(record)}, lambda: [f"revoked {record.id}"])


# -- setup --------------------------------------------------------------------------------

CLIENTS = ("claude-desktop", "claude-code", "cursor")


def client_config_path(client: str, home: Path, env: Mapping[str, str]) -> Path:
    """Where a client keeps its MCP servers (user level)."""
    if client == "claude-desktop":
        if sys.platform == "darwin":
            return (
                home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
            )
        if sys.platform == "win32":
            base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
            return base / "Claude" / "claude_desktop_config.json"
        base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    if client == "claude-code":
        return home / ".claude.json"
    return home / ".cursor" / "mcp.json"


def _mneme_command() -> str:
    beside = Path(sys.executable).parent / "mneme"
    if beside.exists():
        return str(beside)
    return shutil.which("mneme") or "mneme"


def server_entry(
    client: str, db: str, embedder: str | None, who: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The MCP server entry that runs ``mneme --db <db> mcp [who...]`` over stdio."""
    args = ["--db", db]
    if embedder:
        args += ["--embedder", embedder]
    entry: dict[str, Any] = {
        "command": _mneme_command(),
        "args": [*args, "mcp", *who],
        "env": {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    }
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    return entry


def _merge_write(path: Path, name: str, entry: Mapping[str, Any]) -> None:
    """Add (or replace) one server in a client's config, keeping everything else as it was."""
    data: dict[str, Any] = {}
    if path.exists():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"{path} is not readable JSON ({exc}); nothing was written") from exc
        if not isinstance(loaded, dict):
            raise InvalidInput(f"{path} does not hold a JSON object; nothing was written")
        data = loaded
    servers = data.get("mcpServers")
    if servers is None:
        servers = data["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise InvalidInput(f"mcpServers in {path} is not an object; nothing was written")
    servers[name] = dict(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".mneme-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@click.command()
@click.option(
    "--client",
    type=click.Choice(CLIENTS),
    help="The MCP client to configure (default: show all three).",
)
@click.option("--name", default="mneme", show_default=True, help="The server's name there.")
@click.option(
    "--bank", "-b", help="The bank the client works in (mneme mcp's default if left out)."
)
@click.option("--agent", "-a", help="The agent it acts as (mneme mcp's default if left out).")
@click.option("--role", type=click.Choice(ROLES), help="Its role (default: agent).")
@click.option("--write", is_flag=True, help="Write it into the client's config file (merged).")
@output_options
def setup(
    client: str | None,
    name: str,
    bank: str | None,
    agent: str | None,
    role: str | None,
    write: bool,
) -> None:
    """Print (or --write) the MCP client configuration that runs `mneme mcp` on this store.

    The server it starts acts as one agent of one bank with one role (see `mneme mcp`).
    """
    state = get_state()
    try:
        check_principal(bank or DEFAULT_BANK, agent or DEFAULT_AGENT, role or "agent")
    except InvalidInput as exc:
        raise click.BadParameter(str(exc)) from exc
    who: tuple[str, ...] = ()
    for option, value in (("--bank", bank), ("--agent", agent), ("--role", role)):
        if value is not None:
            who += (option, value)
    target = _db_target(state)
    db = target if "://" in target else str(Path(target).expanduser().absolute())
    home, env = Path.home(), config_mod.environment()
    chosen = [client] if client else list(CLIENTS)
    if write and client is None:
        raise click.UsageError("--write needs --client (claude-desktop, claude-code or cursor)")
    configs: dict[str, dict[str, Any]] = {
        c: {
            "path": client_config_path(c, home, env),
            "config": {"mcpServers": {name: server_entry(c, db, state.embedder, who)}},
        }
        for c in chosen
    }
    if write and client is not None:
        path: Path = configs[client]["path"]
        _merge_write(path, name, server_entry(client, db, state.embedder, who))
        state.emit(
            {"written": path, "client": client, "server": name},
            lambda: [f"wrote the {name!r} MCP server into {path}; restart {client} to use it"],
        )
        return

    def text() -> list[str]:
        lines = []
        for c, item in configs.items():
            lines.append(f"# {c}: add this to {item['path']}")
            if c == "claude-code":
                lines.append(
                    f"# (or run: claude mcp add {name} -- {_mneme_command()} --db {db} mcp"
                    + "".join(f" {w}" for w in who)
                    + ")"
                )
            lines += [json.dumps(item["config"], indent=2), ""]
        return lines

    state.emit({"clients": configs}, text)


COMMANDS = (serve, token, setup)
