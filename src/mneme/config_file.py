"""The TOML config file edited in place: one setting by its dotted path, or a whole new text,
each checked before the file is replaced (ADR 0057).

``tomlkit`` keeps what a person wrote: comments, blank lines, key order and quoting survive a
``mneme config set``. A file that would not load (an unknown key, a value of the wrong type,
broken TOML) is never written: the error names the setting and the file stays as it was.
The file is replaced whole (a temporary file renamed over it), so a reader never sees half.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import InlineTable, Table

from mneme import config as config_mod
from mneme import config_types as ct
from mneme.errors import InvalidInput


def leaf(path: str) -> ct.Leaf:
    """The setting at a dotted path.

    Raises:
        InvalidInput: no such setting (the message lists the sections and top-level keys).
    """
    found = config_mod.LEAVES.get(path)
    if found is None:
        known = sorted({p.split(".", 1)[0] for p in config_mod.LEAVES})
        raise InvalidInput(f"unknown configuration key {path!r}; known: {', '.join(known)}")
    return found


def check_text(text: str, label: str) -> config_mod.Config:
    """The configuration a file with this text gives over the defaults (the environment and
    arguments left out: they are not the file's to fix).

    Raises:
        InvalidInput: the text is not TOML, or a setting is unknown or of the wrong type.
    """
    data = config_mod.parse_text(text, label)
    return config_mod.resolve(env={}, file=label, file_data=data).config


def _root(doc: tomlkit.TOMLDocument) -> Container | Table:
    """Where the settings live: the ``[mneme]`` table when the file has one."""
    held = doc.get("mneme")
    return held if isinstance(held, Table) else doc


def with_value(text: str, path: str, value: Any) -> str:
    """``text`` with the setting at ``path`` set to ``value`` (a section table made when
    missing); everything else as it was."""
    doc = tomlkit.parse(text)
    node: Container | Table | InlineTable = _root(doc)
    *sections, key = path.split(".")
    for name in sections:
        held = node.get(name)
        if not isinstance(held, Table | InlineTable):
            held = tomlkit.table()
            node[name] = held
        node = held
    node[key] = list(value) if isinstance(value, tuple) else value
    return tomlkit.dumps(doc)


def read(path: str) -> str:
    """The file's text; "" for a file not written yet."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the config file {path}: {exc}") from exc


def write(path: str, text: str) -> None:
    """Replace the file with ``text`` at once (a temporary file renamed over it)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".mneme-config-", suffix=".toml", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o777)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def set_value(path: str, dotted: str, raw: str) -> tuple[Any, config_mod.Config]:
    """Set one setting in the file at ``path`` from its text (parsed by the setting's type,
    as an environment value is), after checking the whole file would load.

    Raises:
        InvalidInput: an unknown setting, a value its type refuses, or a file that would not
            load; nothing is written then.
    """
    value = ct.from_text(raw, leaf(dotted))
    text = with_value(read(path), dotted, value)
    config = check_text(text, path)
    write(path, text)
    return value, config
