"""The semantic channel's order with hubs taken down (ADR 0092).

A short generic statement ("What was it about?", "They had fun.") is near every query and near
every other candidate: a *hub* of the embedding space. Cross-domain similarity local scaling
(CSLS; Conneau et al., 2018, "Word translation without parallel data") ranks by the cosine to
the query less the candidate's density, its mean cosine to its nearest fellow candidates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def less_hubs(
    ids: Sequence[str],
    cosines: Sequence[float],
    vectors: npt.NDArray[np.float32],
    neighbours: int,
    weight: float,
) -> list[str]:
    """Semantic candidates re-ranked by CSLS (Conneau et al., 2018, "Word translation without
    parallel data"): each one's cosine to the query less ``weight`` times its mean cosine to
    its ``neighbours`` nearest fellow candidates (rows of ``vectors``, unit length, in the
    order of ``ids``). A pool of ``neighbours`` candidates or fewer keeps its order.

    A short generic statement ("What was it about?", "They had fun.") is near every query and
    near every other candidate: a hub. Its density among the candidates is what the query's
    nearest neighbours all share, and taking it off lets the statements that are near the query
    for what they say come first. Ties keep the given order.
    """
    n = len(ids)
    k = neighbours
    if k < 1 or n <= k or weight <= 0:
        # Fewer fellow candidates than neighbours: a "density" would be the pool's mean,
        # no measure of a hub (a three-turn chat's question would jump its answer).
        return list(ids)
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    density = np.partition(sims, n - k, axis=1)[:, n - k :].mean(axis=1)
    adjusted = np.asarray(cosines, dtype=np.float64) - weight * density
    return [ids[int(i)] for i in np.argsort(-adjusted, kind="stable")]
