"""The claim check of reflect's LLM path (``core.grounding``, ADR 0058) on LoCoMo turns.

No model is run: claims are made from the turns themselves, so what the check must keep and
what it must drop is known. Turns are cut into groups of 8 (reflect's ``max_cited``), and for
each turn of a group:

- **verbatim**: the turn restated, citing itself (must be kept);
- **part**: its first half and two words, citing itself (must be kept);
- **name swap**: the speaker's name replaced by the other speaker's, where the turn does not
  name the other (must be dropped);
- **number change**: its first number plus 3 (must be dropped);
- **added place**: " at the volcano observatory" appended (must be dropped in a literal bank;
  a compressing bank lets two new content words pass, by design);
- **wrong citation**: the turn citing another turn of its group that lacks one of its words
  of four letters or more (must be dropped).

Reported: the share kept per kind and disposition, and the time per claim.

    python -m bench.locomo.grounding [--limit-conversations N]
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bench.locomo import data as data_mod
from mneme.core.grounding import Claim, check

GROUP = 8
KINDS = ("verbatim", "part", "name swap", "number change", "added place", "wrong citation")
_WORDS = re.compile(r"[a-z]{4,}")


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    claim: Claim
    evidence: dict[str, str]


def cases(conversations: Sequence[data_mod.Conversation], seed: int = 7) -> Iterator[Case]:
    """The synthetic claims of the module docstring, group by group."""
    rng = random.Random(seed)
    for conv in conversations:
        turns = list(conv.turns)
        for start in range(0, len(turns) - 1, GROUP):
            group = turns[start : start + GROUP]
            if len(group) < 2:
                continue
            ev = {t.dia_id: t.indexed_text for t in group}
            for t in group:
                text, own = t.indexed_text, (t.dia_id,)
                yield Case("verbatim", Claim(text, own), ev)
                words = text.split()
                if len(words) > 6:
                    yield Case("part", Claim(" ".join(words[: len(words) // 2 + 2]), own), ev)
                other = next(s for s in conv.speakers if s != t.speaker)
                if other not in text:
                    yield Case("name swap", Claim(text.replace(t.speaker, other, 1), own), ev)
                number = re.search(r"\b\d+\b", text)
                if number is not None and str(int(number.group()) + 3) not in text:
                    changed = f"{text[: number.start()]}{int(number.group()) + 3}"
                    yield Case("number change", Claim(changed + text[number.end() :], own), ev)
                added = text.rstrip(".!? ") + " at the volcano observatory."
                yield Case("added place", Claim(added, own), ev)
                cited = rng.choice([g for g in group if g.dia_id != t.dia_id])
                if not set(_WORDS.findall(text.lower())) <= set(
                    _WORDS.findall(cited.indexed_text.lower())
                ):
                    yield Case("wrong citation", Claim(text, (cited.dia_id,)), ev)


def measure(conversations: Sequence[data_mod.Conversation]) -> dict[str, object]:
    """Per disposition, per kind: (kept, asked); and microseconds per claim checked."""
    kept: dict[str, dict[str, list[int]]] = {
        d: {k: [0, 0] for k in KINDS} for d in ("literal", "compressed")
    }
    started, checked = time.perf_counter(), 0
    for case in cases(conversations):
        for name, literal in (("literal", True), ("compressed", False)):
            row = kept[name][case.kind]
            row[0] += bool(check([case.claim], case.evidence, literal=literal).kept)
            row[1] += 1
            checked += 1
    seconds = time.perf_counter() - started
    return {"kept": kept, "claims": checked, "us_per_claim": 1e6 * seconds / max(checked, 1)}


def render(result: dict[str, object]) -> str:
    kept = result["kept"]
    assert isinstance(kept, dict)
    lines = ["| claim | asked | kept (literal) | kept (compressed) |", "|---|---|---|---|"]
    for kind in KINDS:
        lit, comp = kept["literal"][kind], kept["compressed"][kind]
        share = [f"{k}/{n} ({k / n:.3f})" if n else "-" for k, n in (lit, comp)]
        lines.append(f"| {kind} | {lit[1]} | {share[0]} | {share[1]} |")
    lines.append(f"\n{result['claims']} checks, {result['us_per_claim']:.0f} us per claim")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-conversations", type=int, default=None)
    args = parser.parse_args(argv)
    dataset = data_mod.load(limit=args.limit_conversations)
    print(render(measure(dataset.conversations)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
