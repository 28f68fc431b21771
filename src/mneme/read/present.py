"""The order of what answers a question about now: recency and closeness fused by rank.

Pure. A present question's typed candidates (the statements of a value of the kind it asks
for, ADR 0026) come newest first; where both sides of a conversation are kept, the newest of
them is mostly the other speaker's talk of something else (ADR 0093). :func:`order` fuses
the newest-first order with the order by cosine to the question, by rank, as recall fuses its
channels.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


def order(
    newest_first: Sequence[str],
    similarity: Mapping[str, float],
    closest: Collection[str],
    weight: float,
) -> list[str]:
    """``newest_first`` ids ordered by their place in it plus ``weight`` times their place
    by ``similarity`` (highest first), ties to the newer. An id in ``closest`` counts as the
    closest whatever its similarity. ``weight`` 0 keeps the newest-first order.

    At weight 1, of two the newer wins, and an id two places older must be closer by more
    than two places: recency still decides unless closeness says clearly otherwise."""
    if weight <= 0 or len(newest_first) < 2:
        return list(newest_first)
    by_cosine = sorted(newest_first, key=lambda i: -similarity.get(i, 0.0))
    place = {i: 0 if i in closest else n for n, i in enumerate(by_cosine)}
    newest = {i: n for n, i in enumerate(newest_first)}
    return sorted(newest_first, key=lambda i: (newest[i] + weight * place[i], newest[i]))
