"""False positives of the write-time detector on public dialogue, and what it finds (ADR 0034).

Every turn of LoCoMo (first five conversations) and of the SGD dev split in ``shared/data`` is
run through ``mneme.write.detector.Detector``; the table counts flagged turns by kind, and
``--show N`` prints up to N flagged turns per kind (the span marked) to read them. Then the
phone numbers SGD annotates in system turns (found / annotated, and flagged spans that are no
annotated phone), and the positive cases of ``tests/fixtures/sensitive_positives.json`` (from
the libraries' own fixtures and documented formats), bare and inside a sentence.

    python -m bench.sensitive.run [--data DIR] [--show 5]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from mneme.write.detector import Detector

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
POSITIVES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sensitive_positives.json"


def locomo_turns(data: Path) -> Iterator[tuple[str, str]]:
    for sample in json.loads((data / "locomo" / "locomo_dev.json").read_text()):
        conv = sample["conversation"]
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                for turn in turns:
                    yield "locomo", turn["text"]


def sgd_turns(data: Path) -> Iterator[tuple[str, str]]:
    for path in sorted((data / "sgd").glob("dialogues_*.json")):
        for dialogue in json.loads(path.read_text()):
            for turn in dialogue["turns"]:
                yield f"sgd/{turn['speaker'].lower()}", turn["utterance"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--show", type=int, default=0, help="flagged turns to print per kind")
    args = parser.parse_args()
    detector = Detector()
    turns: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    samples: dict[tuple[str, str], list[str]] = defaultdict(list)
    chars = 0
    start = time.perf_counter()
    for corpus, text in [*locomo_turns(args.data), *sgd_turns(args.data)]:
        turns[corpus] += 1
        chars += len(text)
        found = detector.find(text)
        if found:
            flagged[corpus] += 1
        for kind in sorted({f.kind.value for f in found}):
            by_kind[corpus][kind] += 1
            if len(samples[corpus, kind]) < args.show:
                f = next(f for f in found if f.kind.value == kind)
                samples[corpus, kind].append(
                    f"{text[: f.start]}<<{text[f.start : f.end]}>>{text[f.end :]}"
                )
    elapsed = time.perf_counter() - start
    total = sum(turns.values())
    print(f"{'corpus':<12} {'turns':>7} {'flagged':>8} {'rate':>7}  by kind (turns)")
    for corpus in turns:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(by_kind[corpus].items())) or "-"
        rate = flagged[corpus] / turns[corpus]
        print(f"{corpus:<12} {turns[corpus]:>7} {flagged[corpus]:>8} {rate:>7.3%}  {kinds}")
    print(
        f"\n{total} turns, {chars / total:.0f} chars each on average, "
        f"{elapsed / total * 1e6:.0f} µs per turn"
    )
    for (corpus, kind), texts in sorted(samples.items()):
        print(f"\n## {corpus} {kind}")
        for t in texts:
            print(f"  {t[:220]}")
    annotated = hit = stray = 0
    for path in sorted((args.data / "sgd").glob("dialogues_*.json")):
        for dialogue in json.loads(path.read_text()):
            for turn in dialogue["turns"]:
                text = turn["utterance"]
                phones = {
                    v
                    for frame in turn["frames"]
                    for action in frame.get("actions", [])
                    if action["slot"] == "phone_number"
                    for v in action["values"]
                    if v in text
                }
                spans = [text[f.start : f.end] for f in detector.find(text)]
                annotated += len(phones)
                hit += sum(any(p in s or s in p for s in spans) for p in phones)
                stray += sum(not any(p in s or s in p for p in phones) for s in spans)
    print(
        f"\nSGD annotated phone numbers found: {hit} / {annotated} "
        f"({hit / max(annotated, 1):.1%}); flagged spans that are none: {stray}"
    )
    cases = json.loads(POSITIVES.read_text())["cases"]
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in cases:
        for frame in ("{}", "Here you go: {} (keep it safe)."):
            found_kinds = {f.kind.value for f in detector.find(frame.format(case["value"]))}
            by[case["kind"]][0] += case["kind"] in found_kinds
            by[case["kind"]][1] += 1
    print(
        "positives (bare and in a sentence): "
        + ", ".join(f"{k} {n}/{m}" for k, (n, m) in sorted(by.items()))
    )


if __name__ == "__main__":
    main()
