"""Fit the slot model of ``mneme.core.slots`` on SGD dev: one slot or two, for the pairs the
write path's rules call an UPDATE or a CONFLICT.

    python -m bench.sgd.slot_model [--split dev|test] [--no-write]

The dialogues of the decision set's pairs (``bench.sgd.decisions``, the chosen split) are
written turn by turn through ``Memory.retain`` exactly as that benchmark writes them. Every time
the slot rules reach an UPDATE or a CONFLICT (``slots._unless_vetoed``), the features the write
path computes for it (``slots.slot_features``) are recorded, with the two turns and the two
values; the model's veto is switched off meanwhile, so every such pair is seen. A pair is
labelled by SGD's spans: the old value's and the new value's text each matched (case folded,
one containing the other) to exactly one (service, slot) span of its turn; one slot when the
two are the same. Pairs whose values match no span or several are left out.

A logistic regression (L2, Newton's method, on the raw features: the constants paste as they
are) is fitted on the split's labelled pairs and printed as ``SLOT_WEIGHTS`` /
``SLOT_INTERCEPT``; its ROC AUC is reported in-sample and by leave-one-file-out over the dev
files. Fit on dev only; ``--split test`` only scores the pasted constants. Writes
``bench/results/sgd-slot-model-<date>.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import mneme.core.judgement as judgement
import mneme.core.slots as slots
from bench.sgd.data import DEV_FILES, Dialogue, Turn, fold, load_dialogues
from bench.sgd.decisions import Clock, load_pairs
from bench.sgd.slot_pairs import auc, fit_logistic, predict
from mneme.core.statements import Statement

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
NAMES = tuple(slots.SLOT_WEIGHTS)


class Recorder:
    """Hooks on the write path: which neighbour is being judged, and each UPDATE or CONFLICT
    the slot rules reach, with its features."""

    def __init__(self) -> None:
        self.turn: str = ""
        self.neighbour: str = ""
        self.rows: list[dict[str, Any]] = []
        self._slot_pair = judgement._slot_pair
        self._one_change = slots._one_change
        self._probability = slots.one_slot_probability

    def __enter__(self) -> Recorder:
        rec = self

        def slot_pair(new: Any, statement: Any, nb: Any, *args: Any, **kw: Any) -> Any:
            rec.neighbour = nb.unit_id
            return rec._slot_pair(new, statement, nb, *args, **kw)

        def one_change(
            new: Statement, old: Statement, change: Any, ctx: Any, config: Any
        ) -> slots.SlotJudgement:
            j = rec._one_change(new, old, change, ctx, config)
            rec.rows.append(
                {
                    "turn": rec.turn,
                    "unit": rec.neighbour,
                    "old": _text_of(old, change.old),
                    "new": _text_of(new, change.new),
                    "features": slots.slot_features(new, old, change, ctx),
                    "reached": j.relation
                    in (slots.SlotRelation.UPDATE, slots.SlotRelation.CONFLICT),
                }
            )
            return j

        judgement._slot_pair = slot_pair
        slots._one_change = one_change
        slots.one_slot_probability = lambda f, *a, **k: 1.0
        return self

    def __exit__(self, *exc: object) -> None:
        judgement._slot_pair = self._slot_pair
        slots._one_change = self._one_change
        slots.one_slot_probability = self._probability


def _text_of(statement: Statement, norm: str) -> str:
    return next((v.text for v in statement.values if v.norm == norm), norm)


def _slots_of(turn: Turn, text: str) -> set[tuple[str, str]]:
    said = fold(text)
    return {
        (s.service, s.slot)
        for s in turn.spans
        if said == fold(s.value) or said in fold(s.value) or fold(s.value) in said
    }


def record(dialogues: Sequence[Dialogue], last: dict[str, int]) -> list[dict[str, Any]]:
    """Write each dialogue up to its last wanted turn; the labelled rows the rules reached."""
    from mneme import Memory
    from mneme.embed.minilm import MiniLMEmbedder

    out: list[dict[str, Any]] = []
    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="mneme-slot-model-") as tmp, Recorder() as rec:
        mem = Memory.open(str(Path(tmp) / "m.db"), embedder=MiniLMEmbedder(), clock=clock)
        try:
            for d in dialogues:
                bank = "d-" + d.id.replace("_", "-")
                turn_of: dict[str, Turn] = {}
                start = len(rec.rows)
                for t in d.turns[: last[d.id] + 1]:
                    clock.now = t.at
                    rec.turn = t.source_id
                    r = mem.retain(
                        t.text,
                        bank=bank,
                        agent="sgd",
                        session=d.id,
                        occurred_at=t.at,
                        source_id=t.source_id,
                    )
                    for uid in r.memory_ids:
                        turn_of[uid] = t
                turns = {t.source_id: t for t in d.turns}
                for row in rec.rows[start:]:
                    old_turn = turn_of.get(row["unit"])
                    if old_turn is None:
                        continue
                    a = _slots_of(old_turn, row["old"])
                    b = _slots_of(turns[row["turn"]], row["new"])
                    if len(a) != 1 or len(b) != 1:
                        continue
                    row["file"] = d.file
                    row["same"] = a == b
                    row["old_turn"] = old_turn.source_id
                    out.append(row)
        finally:
            mem.close()
    return out


def _fit_report(
    x: np.ndarray, y: np.ndarray, files: np.ndarray, reached: np.ndarray, train: np.ndarray
) -> tuple[np.ndarray, list[str]]:
    """Fit on the ``train`` rows; AUC on the reached rows, in-sample and leave-one-file-out,
    and what a veto at each threshold would take of the held-out reached rows."""
    w = fit_logistic(x[train], y[train])
    held = np.zeros(len(y))
    for f in sorted(set(files)):
        out = files == f
        held[out] = predict(x[out], fit_logistic(x[train & ~out], y[train & ~out]))
    r = reached
    lines = [
        f"ROC AUC on the reached pairs: in-sample {auc(y[r], predict(x[r], w)):.3f}, "
        f"leave-one-file-out {auc(y[r], held[r]):.3f}.",
        "",
        "| veto when p below | reached one-slot pairs vetoed | reached two-slot pairs vetoed |",
        "|---|---|---|",
    ]
    for t in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        veto = held < t
        lines.append(
            f"| {t} | {int((veto & r & (y == 1)).sum())} of {int((r & (y == 1)).sum())} | "
            f"{int((veto & r & (y == 0)).sum())} of {int((r & (y == 0)).sum())} |"
        )
    return w, lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument(
        "--dialogues",
        choices=("decisions", "all"),
        default="all",
        help="the decision pairs' dialogues (up to their last pair) or every dialogue",
    )
    ap.add_argument("--cache", type=Path, help="read (or write) the recorded rows here")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    if args.cache is not None and args.cache.exists():
        rows = json.loads(args.cache.read_text(encoding="utf-8"))
        n_dialogues = len({r["turn"].split(":")[0] for r in rows})
    else:
        last: dict[str, int] = {}
        if args.dialogues == "decisions":
            for p in load_pairs():
                if p.split == args.split:
                    did = p.old.dialogue_id
                    last[did] = max(last.get(did, -1), p.old.index, p.new.index)
            dialogues = [d for d in load_dialogues() if d.id in last]
        else:
            dialogues = [
                d for d in load_dialogues() if (d.file in DEV_FILES) == (args.split == "dev")
            ]
            last = {d.id: len(d.turns) - 1 for d in dialogues}
        dialogues.sort(key=lambda d: d.id)
        n_dialogues = len(dialogues)
        rows = record(dialogues, last)
        if args.cache is not None:
            args.cache.write_text(json.dumps(rows), encoding="utf-8")
    x = np.array([[r["features"][n] for n in NAMES] for r in rows], dtype=np.float64)
    y = np.array([r["same"] for r in rows], dtype=np.float64)
    files = np.array([r["file"] for r in rows])
    reached = np.array([r["reached"] for r in rows])
    date = dt.date.today().isoformat()
    md = [
        f"# SGD slot model ({args.split}, {date})",
        "",
        f"{len(rows)} labelled pairs with one value changed (``slots._one_change``) while "
        f"{n_dialogues} {args.split} dialogues are written ({args.dialogues}); "
        f"{int(reached.sum())} of them reach an UPDATE or a CONFLICT "
        f"({int(y[reached].sum())} one slot, {int((1 - y[reached]).sum())} two); "
        f"{time.perf_counter() - t0:.0f} s.",
        "",
    ]
    pasted = np.array([*(slots.SLOT_WEIGHTS[n] for n in NAMES), slots.SLOT_INTERCEPT])
    if any(pasted):
        scored = predict(x[reached], pasted)
        md += [
            f"Pasted constants: ROC AUC on the reached pairs {auc(y[reached], scored):.3f}.",
            "",
        ]
    if args.split == "dev":
        fits: dict[str, np.ndarray] = {}
        for label, train in (
            ("the reached pairs", reached),
            ("every pair", np.ones(len(y), dtype=bool)),
        ):
            w, lines = _fit_report(x, y, files, reached, train)
            fits[label] = w
            md += [f"## Fitted on {label}", "", *lines, "", "```python"]
            md += ["SLOT_WEIGHTS: Mapping[str, float] = {"]
            md += [f'    "{n}": {w[i]:.4f},' for i, n in enumerate(NAMES)]
            md += ["}", f"SLOT_INTERCEPT = {w[-1]:.4f}", "```", ""]
    text = "\n".join(md) + "\n"
    print(text)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"sgd-slot-model-{args.split}-{date}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
