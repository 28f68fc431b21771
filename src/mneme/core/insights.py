"""Insights (Atropos): threads ranked, deduplicated, written as hypotheses, and judged.

From the threads of a bank (``core.threads``):

1. **Orientation.** A thread and its reverse are one thread. It reads in the order its
   witnesses were said (the first witness no later than the last; ties: the smaller id first),
   so a chain told over several sessions reads as it was told.
2. **Ranking.** Hops times the weakest hop's PMI (``Thread.score``), then the witness ids.
3. **Deduplication.** A thread that shares a witness with a better ranked thread is dropped:
   each memory witnesses at most one candidate of a pass, so overlapping variants of one
   chain (another end category, one witness swapped) are one hypothesis, said by the best.
   A thread subsumed by a longer one is a special case.
4. **Flood guard.** At most ``InsightPolicy.max_new`` new insights per pass. More candidates
   than that is a sign the gates do not hold on this bank: the pass writes the best
   ``max_new`` and the stage pauses for the bank until a person resumes it.
5. **Lifecycle.** An insight is ``proposed`` when written. A verification pass checks it
   against its witnesses (``verdict``): every witness live and still tagged with the two
   categories of its hop: ``verified``; a witness rejected, superseded, archived or gone:
   ``retired`` with the reason; a proposed insight that no current thread supports any more
   (its witnesses no longer link) is left alone until it is older than
   ``InsightPolicy.retire_after_days``, then ``retired``.

An insight is a hypothesis: it never counts as evidence (for a claim, an observation, or
another insight), and it ranks below its witnesses in recall.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mneme.core.threads import Hop, Thread

PROPOSED = "proposed"
VERIFIED = "verified"
RETIRED = "retired"
STATES = (PROPOSED, VERIFIED, RETIRED)


@dataclass(frozen=True, slots=True)
class InsightPolicy:
    """What a pass may write (bank config ``insights``): ``max_new`` insights per pass (the
    flood guard), ``retire_after_days`` for an unsupported proposed insight."""

    max_new: int = 20
    retire_after_days: float = 30.0

    def __post_init__(self) -> None:
        if not 1 <= self.max_new <= 1000:
            raise ValueError(f"max_new must be between 1 and 1000, not {self.max_new}")
        if self.retire_after_days < 0:
            raise ValueError(f"retire_after_days must be 0 or more, not {self.retire_after_days}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """An insight a thread proposes: its key (the witnesses in order), its text and thread."""

    key: str
    text: str
    thread: Thread


def reverse(thread: Thread) -> Thread:
    return Thread(tuple(Hop(h.dst, h.src, h.pmi, h.witness) for h in reversed(thread.hops)))


def orient(thread: Thread, when: Mapping[str, tuple[object, ...]]) -> Thread:
    """The thread in the order its witnesses were said (first no later than last)."""
    first, last = thread.witnesses[0], thread.witnesses[-1]
    if (when[first], first) <= (when[last], last):
        return thread
    return reverse(thread)


def insight_key(thread: Thread) -> str:
    payload = "\x1f".join(["insight", *thread.witnesses, "|", *thread.categories])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def compose(thread: Thread, texts: Mapping[str, str]) -> str:
    """The text of an insight: the path of categories, then each witness, in order."""
    path = " -> ".join(thread.categories)
    said = " -> ".join(f"({i}) {' '.join(texts[w].split())}" for i, w in
                       enumerate(thread.witnesses, start=1))  # fmt: skip
    return f"Possible chain: {path}. Witnesses in order: {said}"


def rank(
    found: Sequence[Thread], when: Mapping[str, tuple[object, ...]], texts: Mapping[str, str]
) -> list[Candidate]:
    """The threads oriented, ranked best first, each sharing no witness with a better one."""
    oriented = {orient(t, when) for t in found}
    ordered = sorted(oriented, key=lambda t: (-t.score, -len(t.hops), t.witnesses))
    kept: list[Thread] = []
    taken: set[str] = set()  # the witnesses of the kept threads
    for t in ordered:
        if taken.intersection(t.witnesses):
            continue
        taken.update(t.witnesses)
        kept.append(t)
    return [Candidate(insight_key(t), compose(t, texts), t) for t in kept]


@dataclass(frozen=True, slots=True)
class Flood:
    """The flood guard's call: which candidates a pass writes, and whether it pauses."""

    write: tuple[Candidate, ...]
    held_back: int
    paused: bool


def flood_guard(new: Sequence[Candidate], policy: InsightPolicy) -> Flood:
    if len(new) <= policy.max_new:
        return Flood(tuple(new), 0, False)
    return Flood(tuple(new[: policy.max_new]), len(new) - policy.max_new, True)


@dataclass(frozen=True, slots=True)
class WitnessState:
    """What verification knows of one witness now: live or not (and its status), and its
    categories."""

    live: bool
    status: str
    categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    state: str  # proposed | verified | retired
    reason: str


def verdict(
    hops: Sequence[Mapping[str, object]],
    witnesses: Mapping[str, WitnessState | None],
    supported: bool,
    state: str,
    age: dt.timedelta,
    policy: InsightPolicy,
) -> Verdict:
    """What a verification pass makes of one insight. ``hops``: its stored hops (``src``,
    ``dst``, ``witness``); ``witnesses``: each witness's state now (None: gone);
    ``supported``: a current thread still finds it; ``state``: its state now."""
    for hop in hops:
        w = str(hop["witness"])
        now = witnesses.get(w)
        if now is None:
            return Verdict(RETIRED, f"witness {w} is gone")
        if not now.live:
            return Verdict(RETIRED, f"witness {w} is {now.status}")
    tagged = all(
        {str(h["src"]), str(h["dst"])} <= set(now.categories)
        for h in hops
        if (now := witnesses.get(str(h["witness"]))) is not None
    )
    if tagged:
        return Verdict(VERIFIED, "every witness is live and still links its hop")
    if not supported and state == PROPOSED and age >= dt.timedelta(days=policy.retire_after_days):
        return Verdict(
            RETIRED, f"no witness links it any more after {policy.retire_after_days:g} days"
        )
    return Verdict(state, "its witnesses no longer link every hop; kept until it ages out")
