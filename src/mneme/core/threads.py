"""Threads (Lachesis): multi-hop paths through a bank's categories, each hop earned.

A thread is a path of categories c0 -> c1 -> ... -> cn. Hop i (c(i-1) -> ci) is *witnessed*
by a memory tagged with both categories; the witnesses of a thread are distinct memories, so a
thread links statements no single memory (and no single edge) makes. The categories inside a
thread (c1 .. c(n-1)) each join two witnesses; the two at its ends only name what the first
and the last witness say besides. A hop is kept only when:

1. **Support.** A category joins two witnesses only when it tags at least
   ``ThreadPolicy.min_support`` memories; one said once may only end a thread (its PMI with
   anything it meets is as high as PMI goes, and means nothing).
2. **PMI.** The two categories' member sets co-occur more than chance:
   ``pmi(a, b) = log2(n * |A & B| / (|A| * |B|))`` over the ``n`` memories tagged at all,
   above ``ThreadPolicy.min_pmi``. A broad category (in most memories) has a low PMI with
   everything and so carries no thread.
3. **Another conversation.** Two consecutive witnesses said in the same episode (session) are
   not a link: the conversation already joins its own statements.
4. **Coherence floor.** The hop's witness is about the same thing as the previous hop's
   witness: their cosine (``coherence``, supplied by the service from the memories' stored
   vectors) is at least ``ThreadPolicy.coherence_floor`` (the service raises it to the bank's
   own ``coherence_quantile`` of pairwise cosines: "alike" is relative to the bank).
5. **Polysemy guard.** Memories fall into communities by label propagation over the graph
   that joins two memories sharing at least two content words (``word_communities``). Two
   consecutive witnesses in different communities that share only one content word meet
   only through that word ("bank" of a river and of a loan): the thread is cut there.

The search (``threads``) grows one thread greedily from each seed hop (two categories that
meet, in name order, strongest first): each step goes on through the last category to the
strongest next one whose first witness in time order passes the gates, trying at most
``beam`` next categories, until ``max_hops``; ``max_steps`` witnesses tried bound the whole
search (the report says when it cut). Threads shorter than ``min_hops`` are dropped. The same
bank always yields the same threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ThreadPolicy:
    """The gates and bounds of the thread search (bank config ``insights``). The effective
    coherence floor is ``coherence_floor`` raised to the bank's ``coherence_quantile`` of
    pairwise cosines (0: the absolute floor alone)."""

    min_hops: int = 3
    max_hops: int = 6
    min_pmi: float = 0.0
    coherence_floor: float = 0.3
    max_steps: int = 100_000
    min_support: int = 2
    beam: int = 8
    coherence_quantile: float = 0.9

    def __post_init__(self) -> None:
        if not 2 <= self.min_hops <= self.max_hops <= 12:
            raise ValueError(
                f"need 2 <= min_hops <= max_hops <= 12, not {self.min_hops}, {self.max_hops}"
            )
        if not -1.0 <= self.coherence_floor <= 1.0:
            raise ValueError(f"coherence_floor must be in [-1, 1], not {self.coherence_floor}")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be 1 or more, not {self.max_steps}")
        if not 2 <= self.min_support <= 1000:
            raise ValueError(f"min_support must be between 2 and 1000, not {self.min_support}")
        if not 1 <= self.beam <= 1000:
            raise ValueError(f"beam must be between 1 and 1000, not {self.beam}")
        if not 0.0 <= self.coherence_quantile < 1.0:
            raise ValueError(f"coherence_quantile must be in [0, 1), not {self.coherence_quantile}")


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


def _cooccurrence(members: Mapping[str, frozenset[str]]) -> dict[str, dict[str, int]]:
    """Category -> category -> how many memories carry both: only pairs that meet at all,
    counted from each memory's own categories (never a product of the whole vocabulary)."""
    tags: dict[str, list[str]] = {}
    for c in sorted(members):
        for u in members[c]:
            tags.setdefault(u, []).append(c)
    both: dict[str, dict[str, int]] = {c: {} for c in members}
    for cats in tags.values():
        for i, a in enumerate(cats):
            for b in cats[i + 1 :]:
                both[a][b] = both[a].get(b, 0) + 1
                both[b][a] = both[b].get(a, 0) + 1
    return both


def _links(
    members: Mapping[str, frozenset[str]], n: int, policy: ThreadPolicy
) -> dict[str, list[tuple[str, float]]]:
    """Category -> (category, PMI) for every pair that meets with a PMI above the floor,
    strongest first (then by name). A pair in which a category has fewer than
    ``min_support`` members is a link only to the end of a thread (see ``_Walk``)."""
    links: dict[str, list[tuple[str, float]]] = {}
    for a, others in _cooccurrence(members).items():
        found = []
        for b, k in others.items():
            p = math.log2(n * k / (len(members[a]) * len(members[b])))
            if p > policy.min_pmi:
                found.append((b, p))
        links[a] = sorted(found, key=lambda x: (-x[1], x[0]))
    return links


class _Walk:
    """The bounded greedy search of ``threads``."""

    def __init__(
        self,
        members: Mapping[str, frozenset[str]],
        links: Mapping[str, list[tuple[str, float]]],
        order: Mapping[str, tuple[object, ...]],
        coherence: Callable[[str, str], float],
        words: Mapping[str, frozenset[str]],
        episodes: Mapping[str, str | None],
        policy: ThreadPolicy,
    ) -> None:
        self.members = members
        self.words = words
        self.episodes = episodes
        self.community = word_communities(words)
        self.links = links
        self.order = order
        self.coherence = coherence
        self.policy = policy
        self.steps = 0
        self.exhausted = False

    def linking(self, category: str) -> bool:
        """Whether a category may join two witnesses (carry a thread through it)."""
        return len(self.members[category]) >= self.policy.min_support

    def witnesses(self, a: str, b: str, used: set[str]) -> list[str]:
        return sorted(self.members[a] & self.members[b] - used, key=lambda u: self.order[u])

    def joins(self, last: str, w: str) -> bool:
        """Whether witness ``w`` may follow witness ``last``."""
        episode = self.episodes.get(last)
        if episode is not None and episode == self.episodes.get(w):
            return False  # one conversation already links its own statements
        if self.coherence(last, w) < self.policy.coherence_floor:
            return False
        if self.community[last] == self.community[w]:
            return True
        # The polysemy guard: across two communities, one shared word is no bridge.
        return len(self.words[last] & self.words[w]) >= 2

    def step(self, path: list[Hop], seen: set[str], used: set[str]) -> Hop | None:
        """The next hop of ``path``: through its last category when that may link, to the
        strongest next category (a linking one before one that only ends the thread) whose
        first unused witness in time order joins the last witness; at most ``beam`` next
        categories tried."""
        here = path[-1].dst
        if not self.linking(here):
            return None
        ends: Hop | None = None
        tried = 0
        for nxt, p in self.links[here]:
            if nxt in seen or (ends is not None and not self.linking(nxt)):
                continue
            candidates = self.witnesses(here, nxt, used)
            if not candidates:
                continue
            tried += 1
            for w in candidates:
                self.steps += 1
                if self.steps > self.policy.max_steps:
                    self.exhausted = True
                    return None
                if not self.joins(path[-1].witness, w):
                    continue
                hop = Hop(here, nxt, p, w)
                if self.linking(nxt):
                    return hop
                ends = ends or hop
                break  # one witness per hop: the first that joins, in time order
            if tried >= self.policy.beam:
                break
        return ends

    def grow(self, first: Hop) -> Thread | None:
        path, seen, used = [first], {first.src, first.dst}, {first.witness}
        while len(path) < self.policy.max_hops:
            hop = self.step(path, seen, used)
            if hop is None:
                break
            path.append(hop)
            seen.add(hop.dst)
            used.add(hop.witness)
        return Thread(tuple(path)) if len(path) >= self.policy.min_hops else None


def threads(
    members: Mapping[str, frozenset[str]],
    n: int,
    order: Mapping[str, tuple[object, ...]],
    coherence: Callable[[str, str], float],
    words: Mapping[str, frozenset[str]],
    policy: ThreadPolicy,
    episodes: Mapping[str, str | None] | None = None,
) -> Search:
    """The threads through the categories ``members`` names (category -> the memories it
    tags), among ``n`` tagged memories. ``order`` sorts witnesses (time, then id);
    ``coherence`` is the cosine of two memories; ``words`` their content words; ``episodes``
    the conversation (session) each memory was said in, None when unknown.

    One thread grows greedily from each seed hop (a pair of categories that meet, and the
    first memory carrying both), so the work is bounded by the seeds, not by the number of
    paths: at most ``max_steps`` witnesses tried in all."""
    cats = sorted(c for c, m in members.items() if m)
    live = {c: members[c] for c in cats}
    links = _links(live, n, policy)
    walk = _Walk(live, links, order, coherence, words, episodes or {}, policy)
    found: list[Thread] = []
    for start in cats:
        for nxt, p in links[start]:
            if not walk.linking(nxt):
                continue  # a seed goes on through its second category
            first = walk.witnesses(start, nxt, set())
            walk.steps += 1
            grown = walk.grow(Hop(start, nxt, p, first[0])) if first else None
            if grown is not None:
                found.append(grown)
            if walk.exhausted or walk.steps > policy.max_steps:
                return Search(tuple(found), walk.steps, True)
    return Search(tuple(found), walk.steps, False)
