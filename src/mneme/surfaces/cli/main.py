"""The ``mneme`` command: the root group, its shared options, and error handling.

Every command is thin: it parses options, calls ``mneme.Memory``, and renders the result.
Errors become an exit code (see ``EXIT_CODES``) and a message: ``error: ...`` on stderr, or
with ``--json`` a ``{"error": {"code", "message"}}`` object on stdout.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from typing import Any

import click

from mneme.errors import MnemeError
from mneme.surfaces.cli import (
    admin,
    backups,
    config_cmd,
    demo,
    health_cmd,
    insights,
    mcp_cmd,
    memories,
    output,
    serve_cmd,
    transfer,
    trust,
)
from mneme.surfaces.cli.state import State, output_options

EXIT_CODES = {
    0: "ok",
    1: "the operation failed (e.g. the audit chain is broken)",
    2: "usage error or invalid input (bad option, time or import line)",
    3: "not found (no such memory, source or sample)",
    4: "conflict or schema mismatch (not a mneme store, a reused id)",
    5: "backend unavailable (the store cannot be opened or created)",
}

_EPILOG = "\b\nExit codes:\n" + "\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())


def _wants_json(args: Sequence[str]) -> bool:
    """Whether ``--json`` was asked for, anywhere on the line (before a ``--``).

    Read from the raw arguments so that even an error raised while parsing them (before any
    option callback ran) is reported in the format the caller asked for.
    """
    head = list(args)
    if "--" in head:
        head = head[: head.index("--")]
    return "--json" in head


def _report(as_json: bool, code: str, message: str, details: dict[str, Any] | None = None) -> None:
    if as_json:
        output.emit_json(output.error_payload(code, message, details))
    else:
        click.echo(f"error: {message}", err=True)


class MnemeGroup(click.Group):
    """The root group: turns every error into its exit code and message, never a traceback."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        as_json = _wants_json(argv)
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except click.ClickException as exc:
            kind = "usage_error" if isinstance(exc, click.UsageError) else "error"
            if as_json:
                _report(True, kind, exc.format_message())
            else:
                exc.show()
            code = exc.exit_code
        except click.Abort:
            _report(as_json, "aborted", "aborted")
            code = 1
        except MnemeError as exc:
            # The CLI runs on the operator's machine: it may say what a client is not told.
            message = exc.operator_detail or str(exc)
            _report(as_json, exc.code, message, getattr(exc, "details", None))
            code = exc.exit_code
        except Exception as exc:  # a bug: keep its traceback, on stderr only
            traceback.print_exc(file=sys.stderr)
            _report(as_json, "internal", f"internal error: {type(exc).__name__}: {exc}")
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code)


@click.group(
    cls=MnemeGroup, epilog=_EPILOG, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.option(
    "--db",
    metavar="PATH_OR_DSN",
    envvar=None,
    help="SQLite file or postgresql:// DSN. Default: $MNEME_DB, else "
    "~/.local/share/mneme/mneme.db.",
)
@click.option(
    "--embedder",
    metavar="SPEC",
    help='Embedder spec: "minilm" (default), "hashing" (tests only), '
    '"openai:<model>@<url>". Default: $MNEME_EMBEDDER, else minilm.',
)
@output_options
@click.version_option(package_name="mneme", message="mneme %(version)s")
@click.pass_context
def cli(ctx: click.Context, db: str | None, embedder: str | None) -> None:
    """mneme: long-term memory for AI agents.

    Keep what agents say (add, import), find it again with its evidence (search), and look
    inside the store (show, history, graph, list, banks, agents, stats, audit verify).
    Run `mneme demo` to see it work on a sample conversation.
    """
    state = ctx.ensure_object(State)
    state.db = db
    state.embedder = embedder


for _module in (memories, transfer, admin, trust, demo, backups, health_cmd, config_cmd, insights):
    for _command in _module.COMMANDS:
        cli.add_command(_command)
cli.add_command(serve_cmd.serve)
cli.add_command(serve_cmd.token)
cli.add_command(serve_cmd.setup)
cli.add_command(mcp_cmd.mcp)


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="mneme")
