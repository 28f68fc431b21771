"""Which code a benchmark result came from: the short commit, marked when the tree differs."""

from __future__ import annotations

import subprocess
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def commit() -> str:
    """The short hash of HEAD, with "-dirty" when the working tree has changes; "unknown"
    outside a git checkout."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def _git(*args: str) -> str:
    out = subprocess.run(
        ["git", *args], capture_output=True, text=True, check=True, cwd=_HERE, timeout=10
    )
    return out.stdout.strip()
