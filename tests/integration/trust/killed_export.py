"""Run by test_archives.py as another process: an export killed (SIGKILL) in the middle,
while it writes the units table. argv: the store, the archive path."""

from __future__ import annotations

import os
import signal
import sys

import mneme
from mneme.embed.hashing import HashingEmbedder


def _die(table: str, _n: int) -> None:
    if table == "units":
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    mem = mneme.Memory.open(sys.argv[1], embedder=HashingEmbedder())
    mem.admin.export(sys.argv[2], progress=_die)
    raise SystemExit("the export finished: it should have been killed")
