"""What every command shares: the options of the root group, the lazily opened ``Memory``,
and the ``--json`` option that every command also accepts (both placements work).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import click

from mneme import config as config_mod
from mneme.errors import BackendUnavailable
from mneme.memory import Memory
from mneme.surfaces.authority import ALL_BANKS, Principal, known_bank
from mneme.surfaces.cli import output

F = TypeVar("F", bound=Callable[..., Any])


#: Who the CLI acts as: the store's owner, of every bank.
OWNER = Principal("cli", ALL_BANKS, "owner", "admin", "mneme CLI")


@dataclass
class State:
    """Per-invocation settings, filled by the root group and the per-command ``--json``."""

    db: str | None = None
    embedder: str | None = None
    json: bool = False
    _memory: Memory | None = None

    def open(self, db: str | None = None, **config: Any) -> Memory:
        """The ``Memory`` for this invocation, opened once and closed when the command ends.

        ``config``: configuration keys a command sets (``serve``'s ``reflect_every``)."""
        if self._memory is not None:
            return self._memory
        target = db or self.db
        try:
            # The embedder spec is a keyword argument: it lays over the file and environment.
            memory = Memory.open(target or None, embedder=self.embedder, **config)
        except OSError as exc:
            # e.g. the parent of the database path is a file: the store cannot be created.
            raise BackendUnavailable(
                f"cannot open the store {target or '(default)'}: {exc}"
            ) from exc
        self._memory = memory
        click.get_current_context().find_root().call_on_close(self._close)
        return memory

    def settings(self) -> config_mod.Layers:
        """The configuration this invocation runs with (defaults < file < environment <
        --db and --embedder), without opening the store."""
        return config_mod.resolve({"db": self.db, "embedder": self.embedder})

    def target(self) -> str:
        """The store the invocation names, without opening it (no embedder is loaded)."""
        return self.settings().config.db or config_mod.default_db_path()

    def open_bank(self, bank: str, *, create: bool = False) -> Memory:
        """The store, once ``bank`` is known to exist (or is made now, with ``create``).

        Raises:
            NotFound: no such bank, naming the store's banks (a typo never makes a bank).
        """
        memory = self.open()
        known_bank(memory, OWNER, bank, create=create)
        return memory

    def _close(self) -> None:
        if self._memory is not None:
            self._memory.close()
            self._memory = None

    def emit(self, value: Any, text: Callable[[], list[str]]) -> None:
        """Print ``value`` as JSON with ``--json``, else the lines ``text()`` builds."""
        if self.json:
            output.emit_json(value)
        else:
            for line in text():
                click.echo(line)

    @property
    def interactive(self) -> bool:
        """Whether progress may be drawn: not with ``--json``, and only on a terminal."""
        return not self.json and sys.stderr.isatty()


def get_state() -> State:
    return click.get_current_context().ensure_object(State)


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(State).json = True


def output_options(fn: F) -> F:
    """The options every command takes (today: ``--json``), as one decorator."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_json,
        help='Print JSON on stdout (errors too, as {"error": ...}).',
    )(fn)


class Progress(Protocol):
    def update(self, n_steps: int) -> None: ...


class _Silent:
    def update(self, n_steps: int) -> None:
        pass


@contextmanager
def progress(state: State, length: int, label: str) -> Iterator[Progress]:
    """A progress bar on stderr, or nothing at all with ``--json`` or off a terminal."""
    if not state.interactive or length <= 0:
        yield _Silent()
        return
    with click.progressbar(length=length, label=label, file=sys.stderr) as bar:
        yield bar


def read_text_arg(text: str) -> str:
    """A TEXT argument, where ``-`` means: read it from stdin."""
    if text != "-":
        return text
    # The trailing newline of `echo ... |` is not part of the text; Memory rejects empty text.
    return sys.stdin.read().rstrip("\r\n")
