"""The charter file: loaded at start, reloaded when it changes, the last good one kept.

A person edits the Markdown file; a malformed edit is reported with its line number and the
charter that was in force stays in force until the file is fixed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from mneme.core.charter import Charter, CharterError, parse
from mneme.core.model import Rule
from mneme.errors import InvalidInput

log = logging.getLogger("mneme.charter")


def default_text() -> str:
    return resources.files("mneme.data").joinpath("charter.md").read_text(encoding="utf-8")


class CharterFile:
    def __init__(self, path: str | None) -> None:
        self.path = Path(path).expanduser() if path else None
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self.error: str | None = None
        self._charter = parse(default_text())
        if self.path is not None:
            if not self.path.exists():
                raise InvalidInput(f"the charter file {self.path} does not exist")
            self.reload(strict=False)

    def __call__(self) -> Charter:
        """The charter in force, re-read if the file changed since it was last read."""
        if self.path is not None:
            try:
                mtime = self.path.stat().st_mtime
            except OSError:
                return self._charter
            if mtime != self._mtime:
                self.reload(strict=False)
        return self._charter

    def reload(self, *, strict: bool = True) -> Charter:
        """Read the file again. A malformed file keeps the last good charter.

        Raises:
            InvalidInput: (``strict``) the file is malformed; the message names the line.
        """
        if self.path is None:
            return self._charter
        with self._lock:
            try:
                self._mtime = self.path.stat().st_mtime
                text = self.path.read_text(encoding="utf-8")
                self._charter = parse(text)
                self.error = None
            except (CharterError, OSError, UnicodeDecodeError) as exc:
                self.error = f"{self.path}: {exc}"
                log.error("charter not reloaded, the last good one stays: %s", self.error)
                if strict:
                    raise InvalidInput(self.error) from exc
        return self._charter

    def in_force(self, adopted: Mapping[str, Sequence[Rule]]) -> dict[str, Any]:
        """The charter in force (its text, its checked rules, the file's error if the last
        edit did not parse) beside the rules each bank ``adopted``."""
        charter = self()
        return {
            "charter": charter.text,
            "charter_rules": list(charter.rules),
            "charter_error": self.error,
            "adopted": dict(adopted),
        }
