"""Threads (Lachesis): multi-hop paths through a bank's categories, each hop earned.

A thread is a path of categories c0 -> c1 -> ... -> cn. Hop i (c(i-1) -> ci) is *witnessed*
by a memory tagged with both categories; the witnesses of a thread are distinct memories, so a
thread links statements no single memory (and no single edge) makes. A hop is kept only when:

1. **PMI.** The two categories' member sets co-occur more than chance:
   ``pmi(a, b) = log2(n * |A & B| / (|A| * |B|))`` over the ``n`` memories tagged at all,
   above ``ThreadPolicy.min_pmi``. A broad category (in most memories) has a low PMI with
   everything and so carries no thread.
2. **Coherence floor.** The hop's witness is about the same thing as the previous hop's
   witness: their cosine (``coherence``, supplied by the service from the memories' stored
   vectors) is at least ``ThreadPolicy.coherence_floor``.
3. **Polysemy guard.** Memories fall into communities by label propagation over the graph
   that joins two memories sharing at least two content words (``word_communities``). Two
   consecutive witnesses in different communities that share only one content word meet
   only through that word ("bank" of a river and of a loan): the thread is cut there.

The search (``threads``) is a depth-first walk from every category in name order, bounded by
``max_hops`` and by ``max_steps`` hops tried in all; it keeps the maximal paths of at least
``min_hops`` hops. For each hop it tries the witnesses in time order (then id), so the same
bank always yields the same threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ThreadPolicy:
    """The gates and bounds of the thread search (bank config ``insights``)."""

    min_hops: int = 3
    max_hops: int = 6
    min_pmi: float = 0.0
    coherence_floor: float = 0.3
    max_steps: int = 20_000

    def __post_init__(self) -> None:
        if not 2 <= self.min_hops <= self.max_hops <= 12:
            raise ValueError(
                f"need 2 <= min_hops <= max_hops <= 12, not {self.min_hops}, {self.max_hops}"
            )
        if not -1.0 <= self.coherence_floor <= 1.0:
            raise ValueError(f"coherence_floor must be in [-1, 1], not {self.coherence_floor}")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be 1 or more, not {self.max_steps}")


@dataclass(frozen=True, slots=True)
class Hop:
    src: str  # category
    dst: str  # category
    pmi: float
    witness: str  # unit id


@dataclass(frozen=True, slots=True)
class Thread:
    hops: tuple[Hop, ...]

    @property
    def categories(self) -> tuple[str, ...]:
        return (self.hops[0].src, *(h.dst for h in self.hops))

    @property
    def witnesses(self) -> tuple[str, ...]:
        return tuple(h.witness for h in self.hops)

    @property
    def min_pmi(self) -> float:
        return min(h.pmi for h in self.hops)

    @property
    def score(self) -> float:
        """Hops times the weakest hop's PMI: a long thread of strong links first."""
        return len(self.hops) * self.min_pmi


@dataclass(frozen=True, slots=True)
class Search:
    """What a search found, and whether its step bound cut it short."""

    threads: tuple[Thread, ...]
    steps: int
    exhausted: bool  # True: the step bound stopped the walk before it was done


def pmi(a: frozenset[str], b: frozenset[str], n: int) -> float:
    """Pointwise mutual information (bits) of two member sets among ``n`` memories; -inf
    when they never co-occur."""
    both = len(a & b)
    if not both or not a or not b or n <= 0:
        return -math.inf
    return math.log2(n * both / (len(a) * len(b)))


def label_propagation(
    nodes: Sequence[str], edges: Mapping[str, Mapping[str, float]]
) -> dict[str, str]:
    """Communities by label propagation: each node takes the label of greatest weight among
    its neighbours (ties: the smallest label), visited in name order, until nothing changes
    (at most 50 rounds). Deterministic; an isolated node is its own community."""
    label = {n: n for n in nodes}
    for _ in range(50):
        changed = False
        for node in sorted(nodes):
            weights: dict[str, float] = {}
            for other, w in edges.get(node, {}).items():
                weights[label[other]] = weights.get(label[other], 0.0) + w
            if not weights:
                continue
            best = max(weights.values())
            new = min(lab for lab, w in weights.items() if w == best)
            if label[node] != new and weights.get(label[node], -1.0) < best:
                label[node] = new
                changed = True
        if not changed:
            break
    return label


def word_communities(words: Mapping[str, frozenset[str]]) -> dict[str, str]:
    """Communities of memories by label propagation over the graph that joins two memories
    sharing at least two content words (weight: how many they share). One shared word is no
    edge: a word alone does not say two memories are about the same thing."""
    index: dict[str, list[str]] = {}
    for unit, ws in words.items():
        for w in ws:
            index.setdefault(w, []).append(unit)
    shared: dict[tuple[str, str], int] = {}
    for units in index.values():
        ordered = sorted(units)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                shared[(a, b)] = shared.get((a, b), 0) + 1
    edges: dict[str, dict[str, float]] = {u: {} for u in words}
    for (a, b), count in shared.items():
        if count >= 2:
            edges[a][b] = edges[b][a] = float(count)
    return label_propagation(sorted(words), edges)


def _links(
    cats: Sequence[str], members: Mapping[str, frozenset[str]], n: int, floor: float
) -> dict[str, list[tuple[str, float]]]:
    """Category -> (category, PMI) for every pair whose PMI is above ``floor``."""
    links: dict[str, list[tuple[str, float]]] = {c: [] for c in cats}
    for i, a in enumerate(cats):
        for b in cats[i + 1 :]:
            p = pmi(members[a], members[b], n)
            if p > floor:
                links[a].append((b, p))
                links[b].append((a, p))
    return links


class _Walk:
    """The bounded depth-first search of ``threads``."""

    def __init__(
        self,
        members: Mapping[str, frozenset[str]],
        links: Mapping[str, list[tuple[str, float]]],
        order: Mapping[str, tuple[object, ...]],
        coherence: Callable[[str, str], float],
        words: Mapping[str, frozenset[str]],
        policy: ThreadPolicy,
    ) -> None:
        self.members = members
        self.words = words
        self.community = word_communities(words)
        self.links = links
        self.order = order
        self.coherence = coherence
        self.policy = policy
        self.found: list[Thread] = []
        self.steps = 0
        self.exhausted = False

    def witnesses(self, a: str, b: str, used: set[str]) -> list[str]:
        return sorted(self.members[a] & self.members[b] - used, key=lambda u: self.order[u])

    def joins(self, last: str, w: str) -> bool:
        """Whether witness ``w`` may follow witness ``last``."""
        if self.coherence(last, w) < self.policy.coherence_floor:
            return False
        if self.community[last] == self.community[w]:
            return True
        # The polysemy guard: across two communities, one shared word is no bridge.
        return len(self.words[last] & self.words[w]) >= 2

    def walk(self, path: list[Hop], seen: set[str], used: set[str]) -> None:
        here = path[-1].dst
        extended = False
        if len(path) < self.policy.max_hops:
            for nxt, p in self.links[here]:
                if nxt in seen:
                    continue
                for w in self.witnesses(here, nxt, used):
                    self.steps += 1
                    if self.steps > self.policy.max_steps:
                        self.exhausted = True
                        return
                    if not self.joins(path[-1].witness, w):
                        continue
                    extended = True
                    self.walk([*path, Hop(here, nxt, p, w)], seen | {nxt}, used | {w})
                    break  # one witness per hop: the first that joins, in time order
                if self.exhausted:
                    return
        if not extended and len(path) >= self.policy.min_hops:
            self.found.append(Thread(tuple(path)))


def threads(
    members: Mapping[str, frozenset[str]],
    n: int,
    order: Mapping[str, tuple[object, ...]],
    coherence: Callable[[str, str], float],
    words: Mapping[str, frozenset[str]],
    policy: ThreadPolicy,
) -> Search:
    """The maximal threads through the categories ``members`` names (category -> the memories
    it tags), among ``n`` tagged memories. ``order`` sorts witnesses (time, then id);
    ``coherence`` is the cosine of two memories; ``words`` their content words."""
    cats = sorted(c for c, m in members.items() if m)
    links = _links(cats, members, n, policy.min_pmi)
    walk = _Walk(members, links, order, coherence, words, policy)
    for start in cats:
        for nxt, p in links[start]:
            first = walk.witnesses(start, nxt, set())
            if first:
                walk.steps += 1
                walk.walk([Hop(start, nxt, p, first[0])], {start, nxt}, {first[0]})
            if walk.exhausted:
                return Search(tuple(walk.found), walk.steps, True)
    return Search(tuple(walk.found), walk.steps, False)
