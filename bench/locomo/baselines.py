r"""The three reference systems mneme is measured against, over the very same turn texts.

- ``BM25Index``: rank_bm25's BM25Okapi (k1=1.5, b=0.75, epsilon=0.25, its defaults) with the
  plainest tokenizer, ``text.lower().split()``: no stemming, no stop words, punctuation stays
  attached to words. This is the floor a memory system has to beat.
- ``BM25Index(tokenizer=word_tokenize)`` ("bm25-words"): the same BM25 over lowercase ``\w+``
  tokens (punctuation split off). This is the variant DESIGN.md's BM25 figure (0.52) matches;
  ``str.split`` leaves "lisbon?" and "lisbon." apart, which costs about 0.12 recall@10.
- ``DenseIndex``: cosine similarity of MiniLM embeddings (the same embedder instance mneme
  uses) of each turn text against the question.

Ties keep the turns' session order (a stable sort), so results are deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from mneme.embed.protocol import Embedder


def tokenize(text: str) -> list[str]:
    """The BM25 baseline's tokenizer: lowercase, split on whitespace. Nothing else."""
    return text.lower().split()


_WORD = re.compile(r"\w+")


def word_tokenize(text: str) -> list[str]:
    """The "bm25-words" tokenizer: lowercase runs of word characters (punctuation dropped)."""
    return _WORD.findall(text.lower())


def _top(scores: np.ndarray, ids: Sequence[str], k: int) -> list[str]:
    order = np.argsort(-scores, kind="stable")[:k]
    return [ids[int(i)] for i in order]


class BM25Index:
    """BM25 over one conversation's turns."""

    def __init__(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        if len(ids) != len(texts) or not ids:
            raise ValueError("BM25Index needs one text per id, and at least one")
        self.ids = list(ids)
        self.tokenizer = tokenizer
        self._bm25 = BM25Okapi([tokenizer(t) for t in texts])

    def search(self, query: str, k: int) -> list[str]:
        scores = np.asarray(self._bm25.get_scores(self.tokenizer(query)), dtype=np.float64)
        return _top(scores, self.ids, k)


class DenseIndex:
    """Cosine (dot product of unit vectors) over one conversation's turn embeddings."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], embedder: Embedder) -> None:
        if len(ids) != len(texts) or not ids:
            raise ValueError("DenseIndex needs one text per id, and at least one")
        self.ids = list(ids)
        self.embedder = embedder
        self.matrix = np.asarray(embedder.embed(list(texts)), dtype=np.float32)

    def search(self, query: str, k: int) -> list[str]:
        return self.search_vector(np.asarray(self.embedder.embed([query])[0]), k)

    def search_vector(self, vector: np.ndarray, k: int) -> list[str]:
        scores = self.matrix @ vector.astype(np.float32)
        return _top(scores, self.ids, k)
