"""The operator's shell hook: the watchdog's last rung (ADR 0054).

The configured command runs through the shell with the finding as JSON on stdin and in
``MNEME_WATCH_*`` variables, with a timeout. Whatever it does (fails, hangs, is missing), the
outcome is returned to be journaled; it never raises into the watchdog.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Mapping
from typing import Any


def run_hook(command: str, finding: Mapping[str, Any], timeout: float) -> dict[str, Any]:
    """Run ``command`` for one finding; what happened (``ok``, ``returncode``, ``error``)."""
    env = {
        **os.environ,
        "MNEME_WATCH_DETECTOR": str(finding.get("detector", "")),
        "MNEME_WATCH_SUBJECT": str(finding.get("subject", "")),
        "MNEME_WATCH_SEVERITY": str(finding.get("severity", "")),
        "MNEME_WATCH_SUMMARY": str(finding.get("summary", "")),
    }
    try:
        # The command is the operator's own configuration, run as its shell line says; in a
        # session of its own, so a timeout ends the shell and whatever it started (a child
        # left holding the pipes would keep the wait going).
        proc = subprocess.Popen(
            command,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        return {"ok": False, "returncode": None, "error": f"could not start: {exc}"}
    try:
        out, err = proc.communicate(json.dumps(finding, default=str), timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"ok": False, "returncode": None, "error": f"timed out after {timeout:g} s"}
    outcome: dict[str, Any] = {"ok": proc.returncode == 0, "returncode": proc.returncode}
    if proc.returncode != 0:
        outcome["error"] = (err or out or "").strip()[-500:] or (
            f"exited with status {proc.returncode}"
        )
    return outcome
