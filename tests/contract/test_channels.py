"""Recall channels: every Filters field, ranking order, and the same top results everywhere."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import numpy as np
import pytest

from mneme.core.model import Scope, UnitStatus, UnitType
from mneme.store.protocol import Store

DAY = dt.timedelta(days=1)

CORPUS = [
    "Alice moved to Lisbon in 2019 to work as a software engineer",
    "Bob adopted a golden retriever puppy named Max last spring",
    "Carol plays the violin in the city orchestra every Thursday",
    "Alice and Bob went hiking in the Alps during the summer holidays",
    "The Lisbon office opened a new design studio near the river",
    "Max the dog loves chasing tennis balls in the park",
    "Carol teaches violin lessons to children on weekends",
    "Bob is allergic to peanuts and avoids Thai restaurants",
    "Alice prefers green tea over coffee in the morning",
    "The summer festival in Lisbon features fado music and sardines",
    "Dave repairs vintage motorcycles in his garage",
    "Dave rode his motorcycle from Porto to Lisbon in one day",
]

QUERIES = [
    ["lisbon", "office"],
    ["violin", "carol"],
    ["dog", "max"],
    ["motorcycle"],
    ["summer", "holidays", "alps"],
    ["tea", "coffee"],
]


@pytest.fixture
def corpus(make: Any) -> list[str]:
    make.bank()
    return [make.unit(text, id=f"u{i:02d}").id for i, text in enumerate(CORPUS)]


def _ids(scored: Any) -> list[str]:
    return [s.unit_id for s in scored]


def test_lexical_ranks_matches_higher_is_better_and_stems(
    store: Store, make: Any, corpus: Any
) -> None:
    v = make.viewer()
    hits = store.channels.search_lexical(v, ["violins"], make.filters(), 10)
    assert set(_ids(hits)) == {"u02", "u06"}
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    both = store.channels.search_lexical(v, ["motorcycle", "porto"], make.filters(), 10)
    assert _ids(both)[0] == "u11"  # matches both terms
    assert store.channels.search_lexical(v, [], make.filters(), 10) == []
    assert store.channels.search_lexical(v, ["zzzz"], make.filters(), 10) == []
    assert len(store.channels.search_lexical(v, ["lisbon"], make.filters(), 2)) == 2


def test_lexical_treats_query_syntax_as_plain_text(store: Store, make: Any, corpus: Any) -> None:
    v = make.viewer()
    for term in ['"', "'", "a & b", "!", "(", "x:*", "\\", "OR", "NEAR(", "lisbon'"]:
        store.channels.search_lexical(v, [term], make.filters(), 5)  # no error
    assert "u04" in _ids(store.channels.search_lexical(v, ["lisbon'"], make.filters(), 10))


def test_semantic_ranks_by_cosine_and_finds_the_exact_text_first(
    store: Store, make: Any, corpus: Any
) -> None:
    v = make.viewer()
    for i, text in enumerate(CORPUS):
        hits = store.channels.search_semantic(v, make.vec(text), make.model, make.filters(), 3)
        assert hits[0].unit_id == f"u{i:02d}"
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[0].score >= hits[1].score >= hits[2].score
    assert store.channels.search_semantic(v, make.vec("x"), "other-model", make.filters(), 3) == []


@pytest.mark.parametrize("terms", QUERIES, ids=["+".join(q) for q in QUERIES])
def test_both_backends_return_the_same_top_results(
    make: Any, corpus: Any, terms: Any, sqlite_twin: Any
) -> None:
    """The reference (SQLite) and this store agree on the top hits of every channel."""
    store, twin = make.store, sqlite_twin(CORPUS)
    v = make.viewer()
    lex = _ids(store.channels.search_lexical(v, terms, make.filters(), 3))
    ref = _ids(twin.channels.search_lexical(v, terms, make.filters(), 3))
    assert lex == ref
    q = make.vec(" ".join(terms))
    sem = _ids(store.channels.search_semantic(v, q, make.model, make.filters(), 5))
    assert sem == _ids(twin.channels.search_semantic(v, q, make.model, make.filters(), 5))


def test_every_filter_field_applies_in_every_channel(store: Store, make: Any) -> None:
    make.bank()
    t = make.t0
    base = {"occurred_start": t, "occurred_end": t + DAY}
    units = {
        "plain": make.unit("lisbon river walk", **base),
        "rejected": make.unit("lisbon river rejected", status=UnitStatus.REJECTED, **base),
        "goal": make.unit("lisbon river goal", type=UnitType.GOAL, **base),
        "later": make.unit(
            "lisbon river later", occurred_start=t + 30 * DAY, occurred_end=t + 31 * DAY
        ),
        "expired": make.unit("lisbon river expired", valid_until=t - DAY, **base),
        "future": make.unit("lisbon river future", valid_from=t + 10 * DAY, **base),
        "undated": make.unit("lisbon river undated"),
    }
    name = {u.id: n for n, u in units.items()}
    f = make.filters
    cases = {
        "statuses": (f(statuses=frozenset({UnitStatus.ACTIVE})), set(units) - {"rejected"}),
        "no status": (f(statuses=frozenset()), set()),
        "types": (f(types=frozenset({UnitType.GOAL})), {"goal"}),
        "occurred": (
            f(occurred_from=t - DAY, occurred_to=t + 2 * DAY),
            set(units) - {"later", "undated"},
        ),
        "occurred_open_end": (f(occurred_from=t + 20 * DAY), {"later"}),
        "valid_at": (f(valid_at=t), set(units) - {"expired", "future"}),
        "exclude": (f(exclude_ids=frozenset({units["plain"].id})), set(units) - {"plain"}),
    }
    v = make.viewer()
    entity = make.entity("Lisbon")
    for u in units.values():
        make.mention(u, entity)
    for label, (filters, expected) in cases.items():
        lexical = {
            name[s.unit_id] for s in store.channels.search_lexical(v, ["river"], filters, 50)
        }
        semantic = {
            name[s.unit_id]
            for s in store.channels.search_semantic(
                v, make.vec("lisbon river"), make.model, filters, 50
            )
        }
        listed = {name[u.id] for u in store.memories.list_units(v, filters, 50)}
        named = {
            name[s.unit_id] for s in store.channels.search_entities(v, ["lisbon"], filters, 50)
        }
        assert lexical == expected, label
        assert semantic == expected, label
        assert listed == expected, label
        assert named == expected, label
        mentioned = store.channels.entity_mentions(v, ["lisbon", "nowhere"], filters, 50)
        assert set(mentioned) <= {"lisbon"}, label  # a key the bank does not know: left out
        assert {name[uid] for uid in mentioned.get("lisbon", [])} == expected, label
        temporal = {
            name[s.unit_id]
            for s in store.channels.search_temporal(v, t - 60 * DAY, t + 60 * DAY, filters, 50)
        }
        assert temporal == expected - {"undated"}, label


def test_temporal_prefers_windows_inside_the_range_then_closeness(store: Store, make: Any) -> None:
    make.bank()
    t = make.t0
    inside = make.unit("inside", occurred_start=t, occurred_end=t + dt.timedelta(hours=1))
    wide = make.unit("wide", occurred_start=t - 40 * DAY, occurred_end=t + 40 * DAY)
    edge = make.unit("edge", occurred_start=t + 6 * DAY)
    make.unit("outside", occurred_start=t + 90 * DAY)
    hits = store.channels.search_temporal(
        make.viewer(), t - 7 * DAY, t + 7 * DAY, make.filters(), 10
    )
    assert _ids(hits) == [inside.id, edge.id, wide.id]
    assert hits[0].score > hits[-1].score
    assert (
        len(
            store.channels.search_temporal(
                make.viewer(scope=Scope.OWNER), t - 7 * DAY, t + 7 * DAY, make.filters(), 1
            )
        )
        == 1
    )


def test_semantic_density_is_computed_over_the_units_the_viewer_may_see(
    store: Store, make: Any, corpus: Any
) -> None:
    """What recall reads to re-rank the semantic channel (ADR 0092): each visible unit's mean
    cosine to its nearest others among the ids, the same on both backends; a unit the viewer
    may not see neither gets one nor counts as a neighbour."""
    from mneme.core.model import Visibility
    from mneme.store.ranking import pool_density

    hidden = make.unit("Erin keeps a private diary", agent="a2", visibility=Visibility.PRIVATE)
    v = make.viewer()
    # The channel has searched the bank once, as recall does before it asks.
    store.channels.search_semantic(v, make.vec("diary"), make.model, make.filters(), 3)
    ids = [f"u{i:02d}" for i in range(len(CORPUS))]
    got = store.channels.semantic_density(v, [*ids, hidden.id, "nope"], make.model, 3)
    assert set(got) == set(ids)
    want = pool_density(np.stack([make.vec(t) for t in CORPUS]), 3)
    assert np.allclose([got[u] for u in ids], want, atol=1e-5)
    # No more visible units than neighbours: no density at all (the caller keeps its order).
    assert store.channels.semantic_density(v, [*ids[:3], hidden.id], make.model, 3) == {}
    assert store.channels.semantic_density(v, [], make.model, 3) == {}


def test_entity_mentions_are_newest_first_bounded_per_key_and_no_entity_is_too_common(
    store: Store, make: Any
) -> None:
    """The focus channel's lookup (ADR 0103): every mention of a known key, however many
    (``search_entities`` drops an entity mentioned more than 48 times), newest first, at most
    ``limit`` per key."""
    make.bank()
    t = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)
    dana, porto = make.entity("Dana"), make.entity("Porto")
    units = [make.unit(f"Dana said thing {i}", recorded_at=t + i * DAY) for i in range(60)]
    for u in units:
        make.mention(u, dana)
    make.mention(units[0], porto)
    v = make.viewer()
    assert store.channels.search_entities(v, ["dana"], make.filters(), 100) == []  # a hub there
    found = store.channels.entity_mentions(v, ["dana", "porto"], make.filters(), 5)
    assert found == {"dana": [u.id for u in reversed(units[-5:])], "porto": [units[0].id]}
    everything = store.channels.entity_mentions(v, ["dana"], make.filters(), 100)
    assert len(everything["dana"]) == 60
