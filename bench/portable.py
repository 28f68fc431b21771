"""Export then import of a LoCoMo-sized store (issue 20, item 3; ADR 0053).

Ingests LoCoMo conversations into a SQLite store (``bench.locomo.run.ingested``), asks every
question of categories 1-4 (recall, k=10, collective), exports the store to a portable
archive, imports it into a new, empty SQLite store, and asks again: the target is identical
recall results (ids and scores, in order) and the audit verifying on the copy. Reports the
archive's size and the seconds of export and import (and of a ``backup`` for comparison).

    python -m bench.portable [--limit-conversations 5] [--embedder minilm|hashing]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.locomo import data as data_mod
from bench.locomo.run import AGENT, ReplayClock, base_record, ingested, question_time, write_result

RESULTS_DIR = Path(__file__).resolve().parent / "results"


def answers(mem: Any, dataset: data_mod.Dataset, clock: ReplayClock) -> list[Any]:
    """Every headline question's hits: (unit id, score) in rank order."""
    out = []
    for conv in dataset.conversations:
        clock.now = question_time(conv)
        for q in conv.questions:
            if q.category not in data_mod.HEADLINE_CATEGORIES:
                continue
            hits = mem.recall(
                q.question, bank=conv.sample_id, agent=AGENT, scope="collective", k=10
            )
            out.append([(h.unit.id, round(h.score, 9)) for h in hits])
    return out


def measure(mem: Any, dataset: data_mod.Dataset, clock: ReplayClock) -> dict[str, Any]:
    from mneme import Memory

    before = answers(mem, dataset, clock)
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "store.mneme.gz"
        t0 = time.perf_counter()
        exported = mem.admin.export(str(archive))
        export_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        backup = mem.admin.backup(str(Path(tmp) / "backup.db"))
        backup_s = time.perf_counter() - t0
        copy = Memory.open(Path(tmp) / "copy.db", embedder=mem.embedder, clock=clock)
        try:
            t0 = time.perf_counter()
            imported = copy.admin.import_archive(str(archive))
            import_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            verified = copy.admin.audit_verify()
            verify_s = time.perf_counter() - t0
            after = answers(copy, dataset, clock)
            again = copy.admin.import_archive(str(archive))
        finally:
            copy.close()
    same = sum(a == b for a, b in zip(before, after, strict=True))
    return {
        "rows": exported.total,
        "rows_by_table": exported.rows,
        "models": exported.models,
        "archive_bytes": exported.bytes,
        "export_seconds": export_s,
        "import_seconds": import_s,
        "imported_rows": imported.total,
        "reimport_added": again.total,
        "audit_verify_seconds": verify_s,
        "audit_ok": all(r.ok for r in verified.values()),
        "audit_banks": len(verified),
        "questions": len(before),
        "identical_results": same,
        "backup_bytes": backup.bytes,
        "backup_seconds": backup_s,
    }


def render(record: dict[str, Any]) -> str:
    r = record["result"]
    mb = r["archive_bytes"] / 1e6
    return "\n".join(
        [
            f"# Portable export and import of LoCoMo ({record['date']})",
            "",
            f"Store: {record['dataset']['conversations']} LoCoMo conversations ingested with "
            f"{record['embedder']} ({record['ingest_seconds']:.1f} s), SQLite; "
            f"{r['rows']} rows in {len(r['rows_by_table'])} tables; embeddings: "
            + ", ".join(f"{m['model']} ({m['dim']} dims, {m['rows']} rows)" for m in r["models"])
            + ".",
            "",
            "| measure | value |",
            "|---|---|",
            f"| archive size | {mb:.2f} MB ({r['archive_bytes']:,} bytes, gzip JSONL) |",
            f"| export | {r['export_seconds']:.2f} s |",
            f"| import into a new SQLite store (checks, merge, audit verified in the transaction)"
            f" | {r['import_seconds']:.2f} s |",
            f"| rows imported | {r['imported_rows']} "
            f"(a second import added {r['reimport_added']}) |",
            f"| audit verify on the copy | {'ok' if r['audit_ok'] else 'FAILED'} "
            f"({r['audit_banks']} banks, {r['audit_verify_seconds']:.2f} s) |",
            f"| identical recall results (ids and scores, k=10) | {r['identical_results']} of "
            f"{r['questions']} questions |",
            f"| for comparison: `backup` (SQLite online backup) | {r['backup_bytes'] / 1e6:.2f} MB"
            f", {r['backup_seconds']:.2f} s |",
            "",
            "Environment: "
            + ", ".join(f"{k} {v}" for k, v in record["environment"].items())
            + f". Wall time {record['wall_seconds']:.0f} s.",
            "Run: `python -m bench.portable --limit-conversations 5`.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.portable", description=__doc__)
    p.add_argument("--data", default=str(data_mod.DEFAULT_DATA))
    p.add_argument("--limit-conversations", type=int, default=5, metavar="N")
    p.add_argument("--embedder", default="minilm", help="minilm (default) or hashing")
    p.add_argument("--out", default=str(RESULTS_DIR))
    args = p.parse_args(argv)
    with ingested(args.data, args.limit_conversations, args.embedder, "portable") as run:
        result = measure(run.mem, run.dataset, run.clock)
        record = {**base_record(run, args.data, args.embedder), "result": result}
    write_result(args.out, "portable", record, render(record))
    ok = result["audit_ok"] and result["identical_results"] == result["questions"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
