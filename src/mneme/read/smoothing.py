"""Cluster smoothing: an observation that matches a query lends its match to what it cites.

An observation groups statements about one entity or topic; its text holds them all and its
vector is the normalized mean of theirs (ADR 0051). When it is a recall candidate, each of its
evidence units that is a candidate too gains ``weight`` times the observation's score (its
fused and reranked match, every channel: the group's words are matched together by the lexical
channel, its centroid by the semantic one), the best one when several observations cite the
unit. This is the cluster hypothesis of retrieval (units of a cluster that matches a query tend
to be relevant together) applied as cluster-based smoothing of each unit's score with its
cluster's: a statement that matches a question only weakly alone ("we went camping") rises
when the group it belongs to matches it, which is what a question whose answer is spread over
several statements needs.

Measured on LoCoMo dev (ADR 0051, fourth sitting). Only candidates are rescored: what no channel
found stays out. One store read (the observations' evidence lists), and none when no candidate
is an observation, so a bank without observations recalls exactly as before. No model call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mneme.core import ranking
from mneme.core.model import Network, Viewer, derived_record
from mneme.store.protocol import Memories


def evidence_of(memories: Memories, viewer: Viewer, ids: Iterable[str]) -> dict[str, list[str]]:
    """The evidence units each of these observations cites (its ``metadata.observation``),
    read with the viewer's scope; an observation the viewer cannot see cites nothing here."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    units = memories.get_units(viewer, wanted, lean=True)
    out: dict[str, list[str]] = {}
    for uid, unit in units.items():
        record = derived_record(unit, Network.OBSERVATION)
        found = record.get("evidence_units", ())
        listed = found if isinstance(found, (list, tuple)) else ()
        out[uid] = [e for e in listed if isinstance(e, str)]
    return out


def bonuses(
    memories: Memories, viewer: Viewer, matched: Mapping[str, float], weight: float
) -> dict[str, float]:
    """What each unit cited by a matched observation gains: ``weight`` times the best match
    among the observations citing it. ``matched``: the observations among the candidates ->
    their match (recall's score). Nothing (and no read) when ``weight`` is 0 or no observation
    matched."""
    if weight <= 0.0 or not matched:
        return {}
    cited = evidence_of(memories, viewer, matched)
    return {uid: weight * sim for uid, (sim, _) in ranking.group_match(cited, matched).items()}
