"""One process of the concurrent-first-open test (the process boundary is the point).

Usage: ``python first_opener.py TARGET BANK INDEX``

Prints ``ready``, waits for a line on stdin (so every process opens at the same moment), then
opens ``Memory`` on TARGET (a fresh SQLite file or a fresh PostgreSQL database), retains one
memory with its own source id, and prints one JSON line: the schema version it saw and any error.
"""

from __future__ import annotations

import json
import sys
import traceback

from mneme import Memory


def main(target: str, bank: str, index: int) -> None:
    print("ready", flush=True)
    sys.stdin.readline()
    report: dict[str, object] = {"index": index, "error": None}
    try:
        with Memory.open(target, embedder="hashing:15") as mem:
            r = mem.retain(
                f"Opener {index} keeps the lantern number {index} in shed {index}.",
                bank=bank,
                agent=f"opener-{index}",
                source_id=f"open-{index}",
            )
            report["status"] = str(r.status)
            report["schema_version"] = mem.admin.schema_version()
    except BaseException:
        report["error"] = traceback.format_exc()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
