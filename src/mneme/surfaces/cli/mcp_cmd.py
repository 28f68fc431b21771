"""`mneme mcp`: serve MCP over stdio on the store given by --db, as one configured caller.

The process acts as one principal, chosen when it starts (``--bank``, ``--agent``, ``--role``,
else the configuration's ``mcp_bank``, ``mcp_agent``, ``mcp_role``: ``$MNEME_MCP_BANK``...):
every tool call is checked against the same role table as the HTTP API, and no tool argument
can name another agent or bank. The defaults (bank ``default``, agent ``assistant``, role
``agent``) give an AI client its own memories and no review decisions; a person who reviews
through an MCP client starts one with ``--role reviewer``.

stdout is the protocol: logs go to stderr, and anything printed while the store opens is kept
off stdout. While it serves, ``run_stdio`` writes the protocol on a private duplicate of file
descriptor 1 and points descriptor 1 itself at stderr, so nothing else (a print, a native
library loading the model) can write into the stream; the default embedder loads in the
background meanwhile, so the first call does not wait for it.
"""

from __future__ import annotations

import contextlib
import logging
import sys

import click

from mneme.errors import InvalidInput
from mneme.surfaces.authority import ROLES, Principal, check_principal
from mneme.surfaces.cli.state import get_state, output_options
from mneme.surfaces.tool_profiles import DEFAULT_PROFILE, PROFILE_HELP, check_profile, groups_of

DEFAULT_BANK = "default"
DEFAULT_AGENT = "assistant"


@click.command("mcp")
@click.option(
    "--bank",
    "-b",
    help='The bank every call uses; "*" (every bank) for --role admin only. Default: the '
    f"config's mcp_bank ($MNEME_MCP_BANK), else {DEFAULT_BANK}.",
)
@click.option(
    "--agent",
    "-a",
    help="The agent every call acts as: the author of writes, the actor of decisions. "
    f"Default: the config's mcp_agent ($MNEME_MCP_AGENT), else {DEFAULT_AGENT}.",
)
@click.option(
    "--role",
    type=click.Choice(ROLES),
    help="agent: its own memories; reviewer: review and conflicts; admin: all. Default: the "
    "config's mcp_role ($MNEME_MCP_ROLE), else agent.",
)
@click.option(
    "--tools",
    "tools_profile",
    callback=check_profile,
    help=PROFILE_HELP
    + f" Default: the config's mcp_tools ($MNEME_MCP_TOOLS), else {DEFAULT_PROFILE}.",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="How much to log (always on stderr).",
)
@output_options
def mcp(
    bank: str | None,
    agent: str | None,
    role: str | None,
    tools_profile: str | None,
    log_level: str,
) -> None:
    """Serve MCP over stdio for one agent client (Claude Desktop, Claude Code, Cursor...).

    Reads JSON-RPC on stdin and answers on stdout until the client hangs up; logs go to
    stderr. Uses the store of --db and the embedder of --embedder. Every call acts as
    --agent in --bank with --role's rights, checked as the HTTP API checks a token. See
    docs/mcp.md for the tools and resources, and `mneme setup` for client configuration.
    """
    settings = get_state().settings().config
    bank = bank or settings.mcp_bank or DEFAULT_BANK
    agent = agent or settings.mcp_agent or DEFAULT_AGENT
    role = role or settings.mcp_role or "agent"
    tools_profile = tools_profile or settings.mcp_tools or DEFAULT_PROFILE
    try:
        check_principal(bank, agent, role)
        groups_of(tools_profile)
    except InvalidInput as exc:
        raise click.BadParameter(str(exc)) from exc
    principal = Principal("stdio", bank, agent, role, "mneme mcp")
    try:
        from mneme.surfaces.mcp.server import run_stdio
    except ImportError as exc:
        raise click.ClickException(str(exc)) from exc
    logging.basicConfig(
        level=log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    with contextlib.redirect_stdout(sys.stderr):
        memory = get_state().open()
    # The Memory belongs to this command (closed when the CLI context ends), not the server.
    run_stdio(memory, principal, tools_profile)


COMMANDS = [mcp]
