"""Open a store, read it and try one write, as its own process (see test_read_only_media.py).

Usage: ``python media_reader.py PATH``. The test runs it without the privileges that would let
root write anyway, or inside a mount namespace on a full or read-only file system. Prints one
JSON line: what it read, and the error the open or the write met (type and message).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mneme import Memory
from mneme.errors import MnemeError


def main(path: str) -> None:
    report: dict[str, Any] = {"open_error": None, "write_error": None}
    try:
        mem = Memory.open(path, embedder="hashing")
    except MnemeError as exc:
        report["open_error"] = [type(exc).__name__, str(exc)]
        print(json.dumps(report), flush=True)
        return
    with mem:
        report["recall"] = [h.unit.text for h in mem.recall("marathons", bank="b", agent="a")]
        report["listed"] = [u.text for u in mem.list_memories(bank="b")]
        report["stats_units"] = mem.admin.stats().units
        try:
            mem.retain("Zed repairs cars in Bergen.", bank="b", agent="a")
        except MnemeError as exc:
            report["write_error"] = [type(exc).__name__, str(exc)]
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
