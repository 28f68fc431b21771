"""A running ``mneme serve`` reloads its configuration on SIGHUP (ADR 0057).

The signal handler only sets an event: a thread of its own reads the layers again
(``Memory.reload``) and swaps the clients, so a signal that lands during a write interrupts
nothing (the write finishes on the clients it started with). Every reload is logged on stderr
(what was applied, what needs a restart, or the setting that was refused) and written to the
server file (``config.server_file``: the pid, the URL and the last reload's report), which
``mneme config apply`` reads to find the server, signal it and wait for its answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from mneme.memory import Memory
from mneme.surfaces.cli import output


def read_server_file(path: str) -> dict[str, Any] | None:
    """What a server left in its file, or None (no file, or not one a server wrote)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def alive(pid: int) -> bool:
    """Whether a process with this id runs (and this user may signal it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Reloads:
    """The server's reload thread, its SIGHUP handler and its server file."""

    def __init__(self, memory: Memory, path: str, url: str) -> None:
        self.memory = memory
        self.path = Path(path)
        self.url = url
        self._asked = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mneme-reload", daemon=True)
        self._previous: Any = None

    def start(self) -> None:
        """Write the server file, take SIGHUP (main thread only) and start the thread."""
        self._write()
        if hasattr(signal, "SIGHUP") and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGHUP, self._on_signal)
        self._thread.start()

    def request(self) -> None:
        """Ask for a reload (several asks before it runs make one)."""
        self._asked.set()

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        # Only an event: a handler runs between two bytecodes of the main thread, which
        # must not take the Memory's locks or do I/O there.
        self._asked.set()

    def _run(self) -> None:
        while True:
            self._asked.wait()
            if self._stop.is_set():
                return
            self._asked.clear()
            try:
                report = self.memory.reload()
            except Exception as exc:  # the server goes on with the configuration in force
                output.note(f"config not reloaded: {type(exc).__name__}: {exc}")
                continue
            if report.ok:
                applied = ", ".join(report.applied) or "nothing changed"
                line = f"config reloaded (#{report.generation}): {applied}"
                if report.needs_restart:
                    line += f"; needs a restart: {', '.join(report.needs_restart)}"
            else:
                line = f"config not reloaded (#{report.generation}), the last good one stays: "
                line += str(report.error)
            output.note(line)
            self._write()

    def _write(self) -> None:
        data = {"pid": os.getpid(), "url": self.url, "reload": self.memory.reload_status()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".mneme-serve-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only directory: SIGHUP still works, apply cannot
            output.note(f"warning: cannot write the server file {self.path}: {exc}")

    def close(self) -> None:
        """Stop the thread, give SIGHUP back, and remove the server file if it is ours."""
        self._stop.set()
        self._asked.set()
        self._thread.join(timeout=30)
        if self._previous is not None:
            signal.signal(signal.SIGHUP, self._previous)
        held = read_server_file(str(self.path))
        if held is not None and held["pid"] == os.getpid():
            with contextlib.suppress(OSError):
                self.path.unlink()
