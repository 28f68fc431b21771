"""``mneme config get | set | edit | apply | path``: the layered configuration (ADR 0057).

``get`` shows the effective settings and, with ``--explain``, the layer each came from;
``set`` and ``edit`` change the TOML file, comments kept, and never write a file that would
not load; ``apply`` makes the ``mneme serve`` of this store reload it (SIGHUP) and waits for
its answer.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import click
import tomlkit

from mneme import config as config_mod
from mneme import config_file, config_types
from mneme.errors import InvalidInput, MnemeError, NotFound
from mneme.serialize import to_jsonable
from mneme.surfaces.cli import output
from mneme.surfaces.cli.serve_reload import alive, read_server_file
from mneme.surfaces.cli.state import get_state, output_options

REDACTED = "***"


class ReloadFailed(MnemeError):
    """The server refused the configuration (it keeps the one in force)."""

    code = "reload_failed"
    exit_code = 1


def _shown(path: str, value: Any) -> Any:
    if path in config_mod.SECRETS and value:
        return REDACTED
    return to_jsonable(value)


def _toml(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, tuple):
        value = list(value)
    return tomlkit.item(value).as_string() if not isinstance(value, str) else f'"{value}"'


@click.group("config")
@click.option(
    "--file",
    "file",
    metavar="FILE",
    help="The config file. Default: $MNEME_CONFIG, else ~/.config/mneme/config.toml "
    "(under $XDG_CONFIG_HOME when set).",
)
@click.pass_context
def config(ctx: click.Context, file: str | None) -> None:
    """Read and change the configuration: defaults < TOML file < environment (MNEME_*).

    See docs/configuration.md for every setting, its environment variable, and what a
    running server applies on reload.
    """
    ctx.meta["mneme.config.file"] = file


def _file_option() -> str | None:
    file: str | None = click.get_current_context().meta.get("mneme.config.file")
    return file


def _path() -> str:
    return config_mod.config_path(file=_file_option())


@config.command("path")
@output_options
def config_path() -> None:
    """Print the config file's path (and whether it exists)."""
    state = get_state()
    path = _path()
    exists = Path(path).is_file()
    state.emit(
        {"file": path, "exists": exists},
        lambda: [path if exists else f"{path}  (not written yet)"],
    )


@config.command("get")
@click.argument("key", required=False)
@click.option("--explain", is_flag=True, help="Say which layer each value came from.")
@output_options
def config_get(key: str | None, explain: bool) -> None:
    """Print the effective settings, or those under KEY (a dotted path: recall.rrf_k).

    Secrets are shown as ***. With --explain, each line ends with its layer: default,
    file PATH, env VAR or argument (--db, --embedder).
    """
    state = get_state()
    layers = config_mod.resolve({"db": state.db, "embedder": state.embedder}, file=_file_option())
    values = config_types.flatten(layers.config)
    chosen = [p for p in values if key is None or p == key or p.startswith(f"{key}.")]
    if not chosen:
        config_file.leaf(key or "")  # raises, naming the known keys
    rows = {p: {"value": _shown(p, values[p]), "origin": layers.origins[p]} for p in chosen}

    def text() -> list[str]:
        lines = []
        for p in chosen:
            shown = REDACTED if p in config_mod.SECRETS and values[p] else _toml(values[p])
            if key is not None and len(chosen) == 1 and not explain:
                lines.append(shown)
                continue
            line = f"{p} = {shown}"
            lines.append(f"{line}  # {layers.origins[p]}" if explain else line)
        return lines

    if key is not None and len(chosen) == 1:
        state.emit({"key": chosen[0], **rows[chosen[0]]}, text)
    else:
        state.emit({"file": layers.file, "settings": rows}, text)


@config.command("set")
@click.argument("key")
@click.argument("value")
@output_options
def config_set(key: str, value: str) -> None:
    """Set KEY (a dotted path) to VALUE in the config file, keeping its comments.

    VALUE is parsed by the setting's type, as its environment variable is: numbers,
    true/false, text, a,b,c for a list of names, or a TOML value for a table or list
    ('{secret = "refuse"}'). The whole file is checked first: a file that would not load
    is not written, and the error names the setting.
    """
    state = get_state()
    path = _path()
    stored, _ = config_file.set_value(path, key, value)
    state.emit(
        {"file": path, "key": key, "value": _shown(key, stored)},
        lambda: [f"{key} = {_toml(stored)} in {path}"],
    )


@config.command("edit")
@click.option(
    "--editor", metavar="COMMAND", help="The editor to run. Default: $VISUAL, else $EDITOR."
)
@output_options
def config_edit(editor: str | None) -> None:
    """Edit the config file in $VISUAL or $EDITOR; it is replaced only if it loads.

    The edit happens on a copy. A copy that does not load (broken TOML, an unknown key, a
    value of the wrong type) leaves the file as it was: the error names the setting, and
    the copy is kept for another try.
    """
    state = get_state()
    path = _path()
    before = config_file.read(path)
    edited = click.edit(before, editor=editor, extension=".toml", require_save=True)
    if edited is None or edited == before:
        state.emit({"file": path, "changed": False}, lambda: [f"{path}: no change"])
        return
    try:
        config_file.check_text(edited, path)
    except InvalidInput as exc:
        kept = Path(path).with_name(Path(path).name + ".rejected")
        config_file.write(str(kept), edited)
        raise InvalidInput(f"{exc}; {path} is unchanged, your edit is in {kept}") from None
    config_file.write(path, edited)
    state.emit({"file": path, "changed": True}, lambda: [f"{path}: saved"])


@config.command("apply")
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for the server's answer.",
)
@output_options
def config_apply(wait: float) -> None:
    """Make the running `mneme serve` of this store reload its configuration.

    The configuration is checked here first (nothing is sent if it would not load); then
    the server gets SIGHUP, rebuilds what the new settings change and swaps it in (requests
    already running finish on the old clients), and its answer is printed: what was
    applied, what needs a restart, or the setting it refused (it keeps the configuration in
    force). Exit 1 when the server refused it, 3 when no server runs on this store.
    """
    state = get_state()
    state.settings()  # an invalid layer is named here, before any signal
    target = state.target()
    where = config_mod.server_file(target)
    held = read_server_file(where)
    if held is None or not alive(held["pid"]):
        raise NotFound(f"no mneme serve runs on {target} (no live server file at {where})")
    before = (held.get("reload") or {}).get("generation", 0)
    os.kill(held["pid"], signal.SIGHUP)
    deadline = time.monotonic() + wait
    while True:
        now = read_server_file(where) or {}
        status = now.get("reload") or {}
        if status.get("generation", 0) > before:
            break
        if time.monotonic() >= deadline:
            raise MnemeError(f"the server (pid {held['pid']}) did not answer within {wait:g} s")
        time.sleep(0.05)
    last = status.get("last") or {}
    if not last.get("ok"):
        raise ReloadFailed(f"the server kept its configuration: {last.get('error')}")

    def text() -> list[str]:
        lines = [f"applied: {', '.join(last.get('applied') or []) or 'nothing changed'}"]
        if status.get("needs_restart"):
            lines.append(f"needs a restart: {', '.join(status['needs_restart'])}")
        return lines

    output.note(f"server {held['url']} (pid {held['pid']}) reloaded")
    state.emit({"server": held, "reload": status}, text)


COMMANDS = (config,)
