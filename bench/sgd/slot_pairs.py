"""How far structure and embeddings can tell two value mentions' slots apart, on SGD's labels.

    python -m bench.sgd.slot_pairs [--no-write]

Issue 15 asks for slots found "by structure and meaning": the value masked, the frame compared
by embedding, the subject and qualifiers kept as identity. This measures the ceiling of that
idea on public data before any of it is wired into the write path.

A *mention* is a value the write path's own reading finds in an atom of a user turn
(``split_atoms`` then ``analyze``; a bare answer reads its question, ``answering``), aligned to
exactly one SGD span of that turn, which gives its (service, slot) label. A *pair* is two
mentions of one kind with different values in one dialogue, the older one in an earlier user
turn: exactly what :func:`mneme.core.slots.relate` must call one slot (an update or a
conflict) or two (nothing to decide). Nothing here is written by hand.

Features per pair, each a family a design could use:

- structure: same governing role, a start against an end, content-word overlap of the two
  clauses, a change cue on the new value, bare answers, several values of the kind in one atom,
  whether the older is the latest mention of its kind or role, turns between them, the kind;
- embeddings (all-MiniLM-L6-v2, the write path's embedder): cosine of the masked clauses, of
  the questions answered (else the clauses), of a four-word window around each masked value,
  of the two values alone, of the whole atoms, and of a window of three turns (the topic).

A logistic regression is fitted on the dev split (ADR 0060) and scored on the test split, per
family and for all together: ROC AUC, and at thresholds, the share of same-slot pairs found
against the different-slot pairs taken for one slot. The *bench-like* rows keep the pairs the
decision set (``bench.sgd.decisions``) is made of: same slot, or two slots sharing a head
word. Writes ``bench/results/sgd-slot-pairs-<date>.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.sgd.data import Dialogue, fold, load_dialogues
from mneme.core.atomize import split_atoms
from mneme.core.slots import answering, frame_words, is_bare, role_of
from mneme.core.statements import Statement, analyze
from mneme.core.values import Kind

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
KINDS = tuple(Kind)
WINDOW = 3  # turns of topic before a mention's own


@dataclass(frozen=True, slots=True)
class Mention:
    dialogue: str
    turn: int
    split: str
    atom: str
    statement: Statement
    index: int  # of the value in the statement
    slot: tuple[str, str]  # (service, slot) by SGD's span
    topic: str  # the mention's turn and the WINDOW turns before it

    @property
    def value(self) -> str:
        return self.statement.values[self.index].text

    @property
    def clause(self) -> str:
        return self.statement.clauses[self.index]

    @property
    def asked(self) -> str:
        return self.statement.answered or self.clause

    @property
    def window(self) -> str:
        """Up to four words before the value, its kind, two words after."""
        v = self.statement.values[self.index]
        body = self.statement.body
        return " ".join(
            [*body[: v.start].split()[-4:], f"[{v.kind.value}]", *body[v.end :].split()[:2]]
        ).casefold()


def mentions_of(d: Dialogue) -> list[Mention]:
    out: list[Mention] = []
    split = d.split
    for t in d.turns:
        if t.speaker != "USER":
            continue
        before = d.turns[t.index - 1] if t.index else None
        question = analyze(before.text) if before is not None else None
        topic = " ".join(u.utterance for u in d.turns[max(0, t.index - WINDOW) : t.index + 1])
        for atom in split_atoms(t.text):
            st = answering(analyze(atom), question)
            for i, v in enumerate(st.values):
                said = fold(v.text)
                slots = {
                    (s.service, s.slot)
                    for s in t.spans
                    if said == fold(s.value) or said in fold(s.value) or fold(s.value) in said
                }
                if len(slots) == 1:
                    out.append(Mention(d.id, t.index, split, atom, st, i, slots.pop(), topic))
    return out


@dataclass(frozen=True, slots=True)
class Pair:
    old: Mention
    new: Mention
    same: bool
    latest: bool  # no mention of the kind between them
    latest_role: bool  # no mention of the kind in the older one's role between them
    gap: int  # turns between them

    @property
    def bench_like(self) -> bool:
        head = self.old.slot[1].rsplit("_", 1)[-1]
        return self.same or head == self.new.slot[1].rsplit("_", 1)[-1]


def pairs_of(mentions: Sequence[Mention]) -> list[Pair]:
    out: list[Pair] = []
    for a, old in enumerate(mentions):
        vo = old.statement.values[old.index]
        role = role_of(old.statement, old.index)
        for b in range(a + 1, len(mentions)):
            new = mentions[b]
            vn = new.statement.values[new.index]
            if new.turn <= old.turn or vn.kind != vo.kind or vn.norm == vo.norm:
                continue
            between = [
                m
                for m in mentions[a + 1 : b]
                if m.turn < new.turn and m.statement.values[m.index].kind == vo.kind
            ]
            out.append(
                Pair(
                    old,
                    new,
                    old.slot == new.slot,
                    not between,
                    not any(role_of(m.statement, m.index) == role for m in between),
                    new.turn - old.turn,
                )
            )
    return out


STRUCTURE = (
    "same_role",
    "no_role",
    "start_end",
    "clause_overlap",
    "cued",
    "cue",
    "bare_old",
    "bare_new",
    "answers_old",
    "answers_new",
    "several_new",
    "several_old",
    "latest",
    "latest_role",
    "gap",
    *(f"kind_{k.value}" for k in KINDS),
)
EMBEDDING = ("cos_clause", "cos_asked", "cos_window", "cos_value", "cos_atom", "cos_topic")


def features(pairs: Sequence[Pair], embed: object) -> np.ndarray:
    texts: dict[str, int] = {}
    for p in pairs:
        for m in (p.old, p.new):
            for t in (m.clause, m.asked, m.window, m.value, m.atom, m.topic):
                if t.strip():
                    texts.setdefault(t, len(texts))
    vecs = np.asarray(embed.embed(list(texts)), dtype=np.float32)  # type: ignore[attr-defined]

    def cos(a: str, b: str) -> float:
        if a not in texts or b not in texts:
            return 0.0
        return float(vecs[texts[a]] @ vecs[texts[b]])

    rows = []
    for p in pairs:
        o, n = p.old, p.new
        vo, vn = o.statement.values[o.index], n.statement.values[n.index]
        ro, rn = role_of(o.statement, o.index), role_of(n.statement, n.index)
        co, cn = frame_words(o.clause), frame_words(n.clause)
        structure = [
            float(ro == rn),
            float(ro is None or rn is None),
            float({ro, rn} == {"start", "end"}),
            len(co & cn) / max(1, len(co | cn)),
            float(vn.norm in n.statement.cued),
            float(n.statement.cue),
            float(is_bare(o.statement)),
            float(is_bare(n.statement)),
            float(o.statement.answered is not None),
            float(n.statement.answered is not None),
            float(sum(v.kind == vn.kind for v in n.statement.values) > 1),
            float(sum(v.kind == vo.kind for v in o.statement.values) > 1),
            float(p.latest),
            float(p.latest_role),
            min(p.gap, 20) / 20,
            *(float(vo.kind == k) for k in KINDS),
        ]
        embedding = [
            cos(o.clause, n.clause),
            cos(o.asked, n.asked),
            cos(o.window, n.window),
            cos(o.value, n.value),
            cos(o.atom, n.atom),
            cos(o.topic, n.topic),
        ]
        rows.append(structure + embedding)
    return np.asarray(rows, dtype=np.float64)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Weights (bias last) of an L2-regularized logistic regression, by Newton's method."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = np.eye(len(w)) * l2
    reg[-1, -1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    z = np.hstack([x, np.ones((len(x), 1))]) @ w
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """ROC AUC by the rank-sum (ties averaged)."""
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    sorted_p = p[order]
    i = 0
    while i < len(p):
        j = i
        while j + 1 < len(p) and sorted_p[j + 1] == sorted_p[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = y.astype(bool)
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if not n_pos or not n_neg:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _standardize(train: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    mu, sd = train.mean(axis=0), train.std(axis=0)
    sd[sd == 0] = 1.0
    return [(a - mu) / sd for a in (train, *others)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=RESULTS_DIR)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    from mneme.embed.minilm import MiniLMEmbedder

    t0 = time.perf_counter()
    pairs: list[Pair] = []
    for d in load_dialogues():
        pairs.extend(pairs_of(mentions_of(d)))
    x = features(pairs, MiniLMEmbedder())
    y = np.array([p.same for p in pairs], dtype=np.float64)
    dev = np.array([p.old.split == "dev" for p in pairs])
    like = np.array([p.bench_like for p in pairs])
    names = (*STRUCTURE, *EMBEDDING)
    families = {
        "structure": [names.index(n) for n in STRUCTURE],
        "embeddings (and the kind)": [names.index(n) for n in (*EMBEDDING, *STRUCTURE[-6:])],
        "whole-atom cosine alone": [names.index("cos_atom")],
        "masked-clause cosine alone": [names.index("cos_clause")],
        "structure + embeddings": list(range(len(names))),
    }
    date = dt.date.today().isoformat()
    n_dev, n_test = int(dev.sum()), int((~dev).sum())
    md = [
        f"# SGD value-mention pairs: one slot or two ({date})",
        "",
        f"{len(pairs)} pairs ({n_dev} dev, {n_test} test; {int(y.sum())} one slot), "
        f"labelled by SGD's spans; {time.perf_counter() - t0:.0f} s. "
        "Fitted on the dev split, scored on the test split (ADR 0060).",
        "",
        "| features | test AUC | bench-like test AUC |",
        "|---|---|---|",
    ]
    best: np.ndarray | None = None
    for label, cols in families.items():
        tr, te = _standardize(x[dev][:, cols], x[~dev][:, cols])
        w = fit_logistic(tr, y[dev])
        p = predict(te, w)
        sub = like[~dev]
        md.append(f"| {label} | {auc(y[~dev], p):.3f} | {auc(y[~dev][sub], p[sub]):.3f} |")
        if label == "structure + embeddings":
            best = p
    assert best is not None
    yt, sub = y[~dev], like[~dev]
    md += [
        "",
        "Structure + embeddings on the bench-like test pairs "
        f"({int(yt[sub].sum())} one slot, {int((1 - yt[sub]).sum())} two):",
        "",
        "| threshold | one-slot pairs found | two-slot pairs taken for one |",
        "|---|---|---|",
    ]
    for t in (0.3, 0.5, 0.7, 0.8, 0.9):
        hit = best[sub] >= t
        found = (hit & (yt[sub] == 1)).sum() / max(1, (yt[sub] == 1).sum())
        wrong = int((hit & (yt[sub] == 0)).sum())
        md.append(f"| {t} | {found:.3f} | {wrong} |")
    text = "\n".join(md) + "\n"
    print(text)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"sgd-slot-pairs-{date}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
