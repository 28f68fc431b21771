"""A deterministic feature-hashing embedder, for fast unit tests only."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from mneme.embed.protocol import Vectors
from mneme.errors import InvalidInput

_WORD = re.compile(r"\w+")

# Bigrams carry word order, so they count a little less than the words themselves; the
# character trigrams of one word share a total weight of _TRIGRAM_WEIGHT (L2), so a long word
# does not drown the others while "lives" and "live" still land close.
_UNIGRAM_WEIGHT = 1.0
_BIGRAM_WEIGHT = 0.7
_TRIGRAM_WEIGHT = 0.4


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    sign = 1.0 if value >> 63 else -1.0
    return value % dim, sign


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.casefold())
    if not words:
        # Punctuation-only text still gets a stable, unit-length vector of its own.
        return [("raw:" + text.strip(), 1.0)]
    features = [("w:" + word, _UNIGRAM_WEIGHT) for word in words]
    features.extend(
        ("b:" + first + " " + second, _BIGRAM_WEIGHT) for first, second in itertools.pairwise(words)
    )
    for word in words:
        padded = f"<{word}>"
        trigrams = [padded[i : i + 3] for i in range(len(padded) - 2)]
        weight = _TRIGRAM_WEIGHT / math.sqrt(len(trigrams))
        features.extend(("c:" + trigram, weight) for trigram in trigrams)
    return features


class HashingEmbedder:
    """Feature hashing of words, word bigrams and character trigrams: FOR FAST UNIT TESTS ONLY.

    Deterministic across processes and machines (blake2b, no seed), with no model to load. It
    captures word overlap, not meaning, so it is never the default embedder and never a
    benchmark baseline for semantic recall.
    """

    def __init__(self, dim: int = 256) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise InvalidInput(f"hashing embedder dim must be a positive integer, got {dim!r}")
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim})"

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts: shape (len(texts), dim), float32, unit length rows.

        Raises:
            InvalidInput: ``texts`` is a bare string, or holds a non-string or blank text.
        """
        _check_texts(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                bucket, sign = _bucket(feature, self.dim)
                out[row, bucket] += sign * weight
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        # Signed buckets can cancel out exactly (two features, same bucket, opposite signs).
        zero = norms[:, 0] == 0.0
        if zero.any():
            out[zero, 0] = 1.0
            norms[zero] = 1.0
        out /= norms
        return out


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str):
        raise InvalidInput("embed() takes a sequence of texts, not a single string")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"text #{i} is {type(text).__name__}, not str")
        if not text.strip():
            raise InvalidInput(f"text #{i} is empty or blank")
