"""An example system behind the command adapter: the transcript baseline, over stdin/stdout.

    python -m bench.behaviour.run --adapter command \
        --cmd "python bench/behaviour/examples/transcript_command.py"

It reads one case (the JSON object of ``schema.json``) on stdin and prints one prediction
(``{"answer": ..., "citations": [...], "contradictions": [...]}``) on stdout. Any other
memory system plugs in the same way: replay the events (and actions), ask the query, print.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bench.behaviour.adapters.baselines import transcript
from bench.behaviour.model import CaseError, parse_case, validate_case


def main() -> int:
    obj = json.load(sys.stdin)
    errors = validate_case(obj)
    if errors:
        print("; ".join(errors), file=sys.stderr)
        return 2
    try:
        pred = transcript().predict(parse_case(obj))
    except CaseError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    json.dump(
        {
            "answer": pred.answer,
            "citations": list(pred.citations),
            "contradictions": [list(g) for g in pred.contradictions],
        },
        sys.stdout,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
