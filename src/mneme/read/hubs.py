"""The semantic channel's order with hubs taken down (ADR 0092).

A short generic statement ("What was it about?", "They had fun.") is near every query and near
every other candidate: a *hub* of the embedding space. Cross-domain similarity local scaling
(CSLS; Conneau et al., 2018, "Word translation without parallel data") ranks by the cosine to
the query less the candidate's density, its mean cosine to its nearest fellow candidates (the
store computes it where the vectors are: ``Searches.semantic_density``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def less_hubs(
    ids: Sequence[str], cosines: Sequence[float], density: Mapping[str, float], weight: float
) -> list[str]:
    """``ids`` (with their cosines to the query, in the same order) by cosine less ``weight``
    times their density; ties, and the ids without a density, keep their given order (the
    latter after the others)."""
    if weight <= 0 or not density:
        return list(ids)
    scored = [
        (-(cos - weight * density[uid]), i, uid)
        for i, (uid, cos) in enumerate(zip(ids, cosines, strict=True))
        if uid in density
    ]
    ranked = [uid for _, _, uid in sorted(scored)]
    return ranked + [uid for uid in ids if uid not in density]
