"""Decision benchmark: the offline judge on labelled (existing, new) pairs.

    python -m bench.decisions.run [--show-errors]

Each pair of ``pairs.jsonl`` (our own text, pinned by SHA-256 below) is fed through
:func:`mneme.core.claims.extract_claim` and :func:`mneme.core.judgement.judge`, with the
neighbour's similarity computed by the real default embedder (all-MiniLM-L6-v2: both texts
embedded, cosine of the normalized vectors; nothing cached on disk). Prints per-verdict precision,
recall and F1, macro-F1, per-class accuracy and the number of destructive verdicts on
different-subject pairs as Markdown, and writes the same report to
``bench/results/decisions-<date>.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mneme.core.claims import extract_claim
from mneme.core.judgement import Candidate, JudgeConfig, Judgement, Neighbour, judge
from mneme.core.language import classify
from mneme.core.model import UnitStatus, Verdict

PAIRS = Path(__file__).resolve().parent / "pairs.jsonl"
PAIRS_SHA256 = "6464fa07d46790e345a2a5f8a47a2ca1e0dcfc1690681e60f67a8a16be7b1305"
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
TARGET_MACRO_F1 = 0.85
DESTRUCTIVE = frozenset({Verdict.SUPERSEDE, Verdict.UPDATE, Verdict.CONTRADICT})
VERDICTS = tuple(Verdict)


@dataclass(frozen=True)
class Pair:
    id: str
    cls: str
    old_text: str
    old_agent: str
    new_text: str
    new_agent: str
    expected: Verdict
    note: str


@dataclass(frozen=True)
class Outcome:
    pair: Pair
    similarity: float
    judgement: Judgement


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    """The labelled pairs; refuses a file whose SHA-256 is not the pinned one."""
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != PAIRS_SHA256:
        raise SystemExit(
            f"{path} was modified (sha256 {digest}, pinned {PAIRS_SHA256}); "
            "a changed labelled set needs a reviewed change of the pin"
        )
    pairs = []
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pairs.append(
            Pair(
                id=row["id"],
                cls=row["class"],
                old_text=row["existing"]["text"],
                old_agent=row["existing"]["agent"],
                new_text=row["new"]["text"],
                new_agent=row["new"]["agent"],
                expected=Verdict(row["expected"]),
                note=row.get("note", ""),
            )
        )
    return pairs


def similarities(pairs: Sequence[Pair]) -> list[float]:
    """Cosine of each pair's two texts under the default embedder (MiniLM)."""
    from mneme.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    texts = [t for p in pairs for t in (p.old_text, p.new_text)]
    vectors = embedder.embed(texts)
    old, new = vectors[0::2], vectors[1::2]
    return [float(x) for x in np.sum(old * new, axis=1)]


def decide(pair: Pair, similarity: float, config: JudgeConfig) -> Judgement:
    """The judge's verdict for one pair: the existing text is the only neighbour."""
    _, old_type = classify(pair.old_text)
    _, new_type = classify(pair.new_text)
    neighbour = Neighbour(
        unit_id=f"{pair.id}/existing",
        text=pair.old_text,
        type=old_type,
        agent_id=pair.old_agent,
        status=UnitStatus.ACTIVE.value,
        similarity=similarity,
        claim=extract_claim(pair.old_text),
        knowers=(pair.old_agent,),
    )
    candidate = Candidate(pair.new_text, new_type, pair.new_agent, extract_claim(pair.new_text))
    return judge(candidate, [neighbour], config)


def prf(outcomes: Sequence[Outcome]) -> dict[Verdict, tuple[float, float, float, int]]:
    """Per verdict: precision, recall, F1 and support."""
    out: dict[Verdict, tuple[float, float, float, int]] = {}
    for v in VERDICTS:
        tp = sum(o.judgement.verdict is v and o.pair.expected is v for o in outcomes)
        fp = sum(o.judgement.verdict is v and o.pair.expected is not v for o in outcomes)
        fn = sum(o.judgement.verdict is not v and o.pair.expected is v for o in outcomes)
        support = tp + fn
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / support if support else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        out[v] = (p, r, f, support)
    return out


def report(outcomes: Sequence[Outcome], when: dt.date) -> str:
    """The Markdown report of one run."""
    scores = prf(outcomes)
    scored = [v for v in VERDICTS if scores[v][3] > 0]
    macro = sum(scores[v][2] for v in scored) / len(scored)
    destructive_diff = sum(
        o.judgement.verdict in DESTRUCTIVE for o in outcomes if o.pair.cls == "different_subject"
    )
    destructive_unrelated = sum(
        o.judgement.verdict in DESTRUCTIVE for o in outcomes if o.pair.cls == "unrelated"
    )
    lines = [
        f"# Decision benchmark ({when.isoformat()})",
        "",
        f"{len(outcomes)} labelled pairs (`bench/decisions/pairs.jsonl`, sha256 "
        f"`{PAIRS_SHA256[:16]}…`), judged by `mneme.core.judgement.judge` with claims from "
        "`mneme.core.claims.extract_claim` and similarities from all-MiniLM-L6-v2.",
        "",
        "| verdict | precision | recall | F1 | support |",
        "|---|---:|---:|---:|---:|",
    ]
    for v in scored:
        p, r, f, n = scores[v]
        lines.append(f"| {v.value} | {p:.3f} | {r:.3f} | {f:.3f} | {n} |")
    verdict = "meets" if macro >= TARGET_MACRO_F1 else "below"
    lines += [
        "",
        f"**macro-F1: {macro:.3f}** ({verdict} the target {TARGET_MACRO_F1})",
        "",
        f"**destructive verdicts on different_subject pairs: {destructive_diff}** (target 0); "
        f"on unrelated pairs: {destructive_unrelated}",
        "",
        "| class | expected | pairs | correct | accuracy | verdicts given |",
        "|---|---|---:|---:|---:|---|",
    ]
    for cls in dict.fromkeys(o.pair.cls for o in outcomes):
        rows = [o for o in outcomes if o.pair.cls == cls]
        ok = sum(o.judgement.verdict is o.pair.expected for o in rows)
        given = Counter(o.judgement.verdict.value for o in rows)
        spread = ", ".join(f"{k} {n}" for k, n in given.most_common())
        lines.append(
            f"| {cls} | {rows[0].pair.expected.value} | {len(rows)} | {ok} | "
            f"{ok / len(rows):.3f} | {spread} |"
        )
    return "\n".join(lines) + "\n"


def errors(outcomes: Sequence[Outcome]) -> str:
    """Every wrong verdict, for reading (not part of the saved report)."""
    return "\n".join(
        f"{o.pair.id} expected {o.pair.expected.value} got {o.judgement.verdict.value} "
        f"(sim {o.similarity:.2f}): {o.pair.old_text!r} -> {o.pair.new_text!r} | "
        f"{o.judgement.reason}"
        for o in outcomes
        if o.judgement.verdict is not o.pair.expected
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show-errors", action="store_true", help="list every wrong verdict")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/results")
    args = parser.parse_args(argv)
    pairs = load_pairs()
    sims = similarities(pairs)
    config = JudgeConfig()
    outcomes = [Outcome(p, s, decide(p, s, config)) for p, s in zip(pairs, sims, strict=True)]
    today = dt.datetime.now(dt.UTC).date()
    text = report(outcomes, today)
    print(text)
    if args.show_errors:
        print(errors(outcomes), file=sys.stderr)
    if not args.no_write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        path = RESULTS_DIR / f"decisions-{today.isoformat()}.md"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
