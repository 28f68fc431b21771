"""`mneme mcp`: serve MCP over stdio on the store given by --db.

stdout is the protocol: logs go to stderr, and anything printed while the store opens (or a
model loads later) is kept off stdout. The MCP SDK's stdio transport also points file
descriptor 1 at stderr while it serves, so even native libraries cannot write into the stream.
"""

from __future__ import annotations

import contextlib
import logging
import sys

import click

from mneme.surfaces.cli.state import get_state, output_options


@click.command("mcp")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="How much to log (always on stderr).",
)
@output_options
def mcp(log_level: str) -> None:
    """Serve MCP over stdio for one agent client (Claude Desktop, Claude Code, Cursor...).

    Reads JSON-RPC on stdin and answers on stdout until the client hangs up; logs go to
    stderr. Uses the store of --db and the embedder of --embedder. See docs/mcp.md for the
    tools and resources, and `mneme setup` for client configuration.
    """
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
    run_stdio(memory)


COMMANDS = [mcp]
