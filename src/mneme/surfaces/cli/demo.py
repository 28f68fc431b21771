"""`mneme demo`: import a packaged sample conversation into a fresh store and ask it questions."""

from __future__ import annotations

import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

import click

from mneme.surfaces.cli import output
from mneme.surfaces.cli.state import get_state, output_options
from mneme.surfaces.cli.transfer import jsonl_records, run_import

SAMPLE = "sample_conversation.jsonl"
BANK = "demo"
AGENT = "demo"

#: (question, source ids that hold the answer). Maya and Tom talk from January to June 2024.
QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Where does Tom live now?", ("demo:S2:3", "demo:S3:1")),
    ("What is Maya's new job?", ("demo:S5:1",)),
    ("What is the name of Maya's dog?", ("demo:S1:7",)),
    ("When is the trip to Lisbon?", ("demo:S6:6",)),
    ("What food does Maya like?", ("demo:S3:6",)),
    ("What did Maya do in April 2024?", ("demo:S4:1", "demo:S4:5")),
    ("Which instrument does Tom play?", ("demo:S1:6", "demo:S4:4")),
)


@click.command()
@click.option(
    "--db",
    "db_path",
    metavar="PATH",
    help="Store to fill (default: a temporary one, removed afterwards).",
)
@click.option(
    "-k",
    "k",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="Hits shown per question.",
)
@output_options
def demo(db_path: str | None, k: int) -> None:
    """Import a sample conversation (two friends, six sessions) and ask it questions.

    Each answer shows its top hits, the evidence source ids they rest on, the recall
    channels that found them, and the recall latency.
    """
    state = get_state()
    ctx = click.get_current_context()
    target = db_path or state.db
    if target is None:
        tmp = tempfile.TemporaryDirectory(prefix="mneme-demo-")
        # Registered before the store opens, so the store closes first (callbacks run LIFO).
        ctx.find_root().call_on_close(tmp.cleanup)
        target = str(Path(tmp.name) / "demo.db")
    mem = state.open(db=target)
    output.note(f"store: {target} (embedder {mem.embedder.model_id})")
    with resources.as_file(resources.files("mneme.data").joinpath(SAMPLE)) as sample:
        total = sum(1 for line in sample.read_text(encoding="utf-8").splitlines() if line.strip())
        started = time.perf_counter()
        tally = run_import(state, jsonl_records(sample, BANK, AGENT), total, 64)
    output.note(
        f"imported {tally.inputs} turns ({tally.memories} memories) in "
        f"{time.perf_counter() - started:.1f} s"
    )
    answers: list[dict[str, Any]] = []
    for question, expected in QUESTIONS:
        t0 = time.perf_counter()
        hits = mem.recall(question, bank=BANK, agent=AGENT, k=k)
        latency_ms = (time.perf_counter() - t0) * 1000
        answers.append(
            {
                "question": question,
                "expected_evidence": list(expected),
                "latency_ms": round(latency_ms, 2),
                "found": any(set(h.evidence_source_ids) & set(expected) for h in hits),
                "hits": [
                    {
                        "rank": i,
                        "id": h.id,
                        "text": h.text,
                        "score": round(h.score, 4),
                        "channels": {str(c): r for c, r in h.channels.items()},
                        "evidence_source_ids": list(h.evidence_source_ids),
                    }
                    for i, h in enumerate(hits[:k], 1)
                ],
            }
        )

    def text() -> list[str]:
        lines = [
            f"Imported {tally.inputs} turns of a conversation between Maya and Tom "
            f"(Jan-Jun 2024) as {tally.memories} memories.",
            "",
        ]
        for a in answers:
            mark = "found" if a["found"] else "missed"
            lines.append(
                f"Q: {a['question']}   ({a['latency_ms']:.1f} ms, answer evidence "
                f"{', '.join(a['expected_evidence'])}: {mark})"
            )
            for h in a["hits"]:
                lines.append(f"  {h['rank']}. {h['text']}")
                lines.append(
                    f"     evidence {', '.join(h['evidence_source_ids']) or '-'}   "
                    f"channels {output.channels_text(h['channels']) or '-'}   "
                    f"score {h['score']:.3f}"
                )
            lines.append("")
        found = sum(a["found"] for a in answers)
        lines.append(f"{found} of {len(answers)} answers cite the right evidence in the top {k}.")
        return lines

    state.emit(
        {
            "db": db_path or state.db,
            "bank": BANK,
            "imported": tally.inputs,
            "memories": tally.memories,
            "embedder": mem.embedder.model_id,
            "answers": answers,
        },
        text,
    )


COMMANDS = [demo]
