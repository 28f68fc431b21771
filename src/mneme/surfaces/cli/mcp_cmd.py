"""`mneme mcp`: serve MCP over stdio on the store given by --db, as one configured caller.

The process acts as one principal, chosen when it starts (``--bank``, ``--agent``, ``--role``,
or ``MNEME_MCP_BANK``/``_AGENT``/``_ROLE``): every tool call is checked against the same role
table as the HTTP API, and no tool argument can name another agent or bank. The defaults
(bank ``default``, agent ``assistant``, role ``agent``) give an AI client its own memories
and no review decisions; a person who reviews through an MCP client starts one with
``--role reviewer``.

stdout is the protocol: logs go to stderr, and anything printed while the store opens (or a
model loads later) is kept off stdout. The MCP SDK's stdio transport also points file
descriptor 1 at stderr while it serves, so even native libraries cannot write into the stream.
"""

from __future__ import annotations

import contextlib
import logging
import sys

import click

from mneme.errors import InvalidInput
from mneme.surfaces.authority import ROLES, Principal, check_principal
from mneme.surfaces.cli.state import get_state, output_options
from mneme.surfaces.tool_profiles import DEFAULT_PROFILE, PROFILE_HELP, check_profile

DEFAULT_BANK = "default"
DEFAULT_AGENT = "assistant"


@click.command("mcp")
@click.option(
    "--bank",
    "-b",
    envvar="MNEME_MCP_BANK",
    default=DEFAULT_BANK,
    show_default=True,
    help='The bank every call uses ($MNEME_MCP_BANK); "*" (every bank) for --role admin only.',
)
@click.option(
    "--agent",
    "-a",
    envvar="MNEME_MCP_AGENT",
    default=DEFAULT_AGENT,
    show_default=True,
    help="The agent every call acts as: the author of writes, the actor of decisions "
    "($MNEME_MCP_AGENT).",
)
@click.option(
    "--role",
    envvar="MNEME_MCP_ROLE",
    type=click.Choice(ROLES),
    default="agent",
    show_default=True,
    help="agent: its own memories; reviewer: review and conflicts; admin: all ($MNEME_MCP_ROLE).",
)
@click.option(
    "--tools",
    "tools_profile",
    envvar="MNEME_MCP_TOOLS",
    default=DEFAULT_PROFILE,
    show_default=True,
    callback=check_profile,
    help=PROFILE_HELP + " ($MNEME_MCP_TOOLS)",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="How much to log (always on stderr).",
)
@output_options
def mcp(bank: str, agent: str, role: str, tools_profile: str, log_level: str) -> None:
    """Serve MCP over stdio for one agent client (Claude Desktop, Claude Code, Cursor...).

    Reads JSON-RPC on stdin and answers on stdout until the client hangs up; logs go to
    stderr. Uses the store of --db and the embedder of --embedder. Every call acts as
    --agent in --bank with --role's rights, checked as the HTTP API checks a token. See
    docs/mcp.md for the tools and resources, and `mneme setup` for client configuration.
    """
    try:
        check_principal(bank, agent, role)
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
