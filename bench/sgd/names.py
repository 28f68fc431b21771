"""How often mneme reads a multi-word name exactly as SGD's slot spans give it.

    python -m bench.sgd.names

The truth is the data set's own annotation: every slot span (either speaker) whose text opens
with a capital, has two words or more and no digit ("Best Western Plus Sutter House", "The
Last Dragon", "Castro Valley"). A span is read when ``language.extract_entities`` over its
utterance finds an entity with exactly that text (case folded). Reported per split
(``bench.sgd.data.split_of``, ADR 0060). Pure: no embedder, about 10 s.
"""

from __future__ import annotations

import sys
from collections import Counter

from bench.sgd.data import load_dialogues
from mneme.core.language import extract_entities


def is_name_span(text: str) -> bool:
    """A span this bench scores: capitalized, two words or more, no digit."""
    return text[:1].isupper() and len(text.split()) >= 2 and not any(c.isdigit() for c in text)


def measure() -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for d in load_dialogues():
        counts = out.setdefault(d.split, Counter())
        for turn in d.turns:
            spans = [s.value for s in turn.spans if is_name_span(s.value)]
            if not spans:
                continue
            read = {e.name.casefold() for e in extract_entities(turn.utterance)}
            for span in spans:
                counts["spans"] += 1
                counts["read"] += span.casefold() in read
    return out


def main() -> int:
    for split, c in sorted(measure().items()):
        print(
            f"{split}: {c['read']} of {c['spans']} name spans read exactly "
            f"({c['read'] / max(c['spans'], 1):.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
