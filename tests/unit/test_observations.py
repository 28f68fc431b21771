"""Observations composed from evidence by the offline rules of core/observations.py."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.observations import (
    FACET_MIN,
    Disposition,
    Evidence,
    facet_label,
    facets,
    is_question,
    observe,
    periods,
)

T0 = dt.datetime(2023, 5, 7, 12, tzinfo=dt.UTC)


def ev(
    uid: str,
    text: str,
    day: int,
    *entities: str,
    source: str | None = None,
    vector: tuple[float, ...] | None = None,
) -> Evidence:
    return Evidence(
        unit_id=uid,
        text=text,
        when=T0 + dt.timedelta(days=day),
        entities=entities,
        sources=(source or f"s-{uid}",),
        vector=vector,
    )


# Two things one person talks about, as directions: near one axis or the other.
CAMPING = (1.0, 0.1, 0.0)
PAINTING = (0.1, 1.0, 0.0)
ELSEWHERE = (0.0, 0.0, 1.0)


CAROLINE = [
    ev("u1", "Caroline plans to become a counsellor.", 0, "Caroline"),
    ev("u2", "Caroline plans to adopt a child.", 30, "Caroline"),
    ev("u3", "Melanie likes pottery.", 5, "Melanie"),
]


def test_an_entity_observation_cites_its_evidence_in_time_order_with_dates_and_count() -> None:
    found = observe(list(reversed(CAROLINE)), Disposition())
    obs = {o.key: o for o in found.observations}
    caroline = obs["entity:caroline"]
    assert caroline.evidence_ids == ("u1", "u2")
    assert caroline.source_ids == ("s-u1", "s-u2")
    assert caroline.proof_count == 2
    assert caroline.first_at == T0
    assert caroline.last_at == T0 + dt.timedelta(days=30)
    assert caroline.text.startswith("About Caroline (7 May 2023 to 6 June 2023, 2 statements)")
    assert "[7 May 2023] Caroline plans to become a counsellor." in caroline.text


def test_a_topic_with_the_same_evidence_as_its_entity_is_not_written_twice() -> None:
    found = observe(CAROLINE, Disposition())
    assert [o.key for o in found.observations] == ["entity:caroline"]
    assert any(
        s.key == "topic:caroline|plans" and "same evidence" in s.reason for s in found.skipped
    )


def test_a_topic_is_a_slot_whose_subject_is_an_entity() -> None:
    evidence = [
        *CAROLINE,
        ev("u4", "Caroline went to the support group.", 1, "Caroline"),
    ]
    keys = [o.key for o in observe(evidence, Disposition()).observations]
    assert keys == ["entity:caroline", "topic:caroline|plans"]


def test_skepticism_drops_groups_with_too_little_evidence_and_says_why() -> None:
    found = observe(CAROLINE, Disposition(skepticism=3))
    assert found.observations == ()
    assert {s.key for s in found.skipped} >= {"entity:caroline", "entity:melanie"}
    assert all("fewer than 3" in s.reason for s in found.skipped if s.key.startswith("entity"))


def test_without_literalism_statements_are_compressed_to_their_claims() -> None:
    obs = observe(CAROLINE, Disposition(literalism=False)).observations[0]
    assert "caroline plans become counsellor" in obs.text
    assert "Caroline plans to become a counsellor." not in obs.text


def test_no_observation_cites_more_than_the_cap() -> None:
    evidence = [ev(f"u{i:02}", f"Oliver said thing {i}.", i, "Oliver") for i in range(20)]
    found = observe(evidence, Disposition(max_cited=8))
    assert [o.key for o in found.observations] == [
        "entity:oliver#1",
        "entity:oliver#2",
        "entity:oliver#3",
    ]
    assert [o.proof_count for o in found.observations] == [7, 7, 6]
    assert all(o.proof_count <= 8 for o in found.observations)


def test_the_content_key_changes_exactly_when_evidence_or_text_changes() -> None:
    base = observe(CAROLINE, Disposition()).observations[0]
    same = observe(list(reversed(CAROLINE)), Disposition()).observations[0]
    assert same.content_key == base.content_key
    more = observe([*CAROLINE, ev("u5", "Caroline paints.", 40, "Caroline")], Disposition())
    assert more.observations[0].content_key != base.content_key
    reworded = observe(CAROLINE, Disposition(literalism=False)).observations[0]
    assert reworded.content_key != base.content_key


def test_no_evidence_makes_no_observation() -> None:
    assert observe([], Disposition()).observations == ()


@pytest.mark.parametrize(
    "config",
    [{"skepticism": 0}, {"skepticism": 9}, {"literalism": "yes"}, {"mood": 1}, {"max_cited": 0}],
)
def test_a_bad_disposition_is_refused(config: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - each case has its own message
        Disposition.from_config(config)


@given(st.integers(min_value=0, max_value=200), st.integers(min_value=1, max_value=64))
@settings(max_examples=200)
def test_periods_keep_every_member_once_in_order_and_under_the_cap(n: int, cap: int) -> None:
    members = [ev(f"u{i:03}", "x", i) for i in range(n)]
    runs = periods(members, cap)
    assert [e for run in runs for e in run] == members
    assert all(len(run) <= cap for run in runs)
    if n:
        assert max(map(len, runs)) - min(map(len, runs)) <= 1


@given(st.permutations(list(range(12))))
@settings(max_examples=50)
def test_observe_is_deterministic_whatever_the_input_order(order: list[int]) -> None:
    evidence = [
        ev(f"u{i:02}", f"Caroline likes thing {i}.", i % 5, "Caroline", "Oliver") for i in range(12)
    ]
    shuffled = [evidence[i] for i in order]
    assert observe(shuffled, Disposition()) == observe(evidence, Disposition())


def test_a_question_joins_no_group() -> None:
    evidence = [
        ev("u1", "Oliver likes hiking.", 0, "Oliver"),
        ev("u2", "Oliver, do you like hiking?", 1, "Oliver"),
        ev("u3", "Oliver lives in Lisbon.", 2, "Oliver"),
    ]
    (obs,) = observe(evidence, Disposition()).observations
    assert obs.evidence_ids == ("u1", "u3")


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Do you like to paint too?", True),
        ("Have you tried it? [shares a photo: a bowl]", True),
        ("Here is my bowl. [shares a photo: is it a bowl?]", False),
        ("I asked why? Then I left.", False),
        ("Oliver likes hiking.", False),
    ],
)
def test_a_question_is_a_statement_whose_last_sentence_asks(text: str, asks: bool) -> None:
    assert is_question(text) is asks


def test_a_facet_gathers_one_persons_statements_about_one_thing_across_sessions() -> None:
    camping = [
        ev(f"c{i}", f"Camping trip {i} with Melanie.", 10 * i, "Melanie", vector=CAMPING)
        for i in range(3)
    ]
    painting = [
        ev(f"p{i}", f"Picture {i} by Melanie.", 10 * i + 1, "Melanie", vector=PAINTING)
        for i in range(3)
    ]
    found = {o.key: o for o in observe([*painting, *camping], Disposition()).observations}
    assert found["facet:melanie~c0"].evidence_ids == ("c0", "c1", "c2")
    assert found["facet:melanie~p0"].evidence_ids == ("p0", "p1", "p2")
    # Across sessions: the facet spans the three trips, each cited with its own source.
    assert found["facet:melanie~c0"].source_ids == ("s-c0", "s-c1", "s-c2")
    assert found["facet:melanie~c0"].last_at - found["facet:melanie~c0"].first_at == (
        dt.timedelta(days=20)
    )
    # Named by the words its members share, most shared first.
    assert found["facet:melanie~c0"].text.startswith("About Melanie: camping, trip (")
    assert found["facet:melanie~p0"].label == "Melanie: picture"
    # The entity's own observation is still there, in time order.
    assert found["entity:melanie"].evidence_ids == ("c0", "p0", "c1", "p1", "c2", "p2")


def test_a_facet_is_named_by_the_content_words_most_of_its_members_share() -> None:
    members = [
        ev("a", "Melanie went hiking with the kids near the lake.", 0, "Melanie"),
        ev("b", "The kids loved hiking; Melanie packed sandwiches.", 1, "Melanie"),
        ev("c", "Hiking again at the lake on Sunday.", 2, "Melanie"),
    ]
    # hiking in three, kids and lake in two (first use breaks the tie); the entity's own
    # name, stop words and words said once are no part of the name.
    assert facet_label("Melanie", members) == "Melanie: hiking, kids, lake"
    alone = [ev("x", "Sunny.", 0, "Melanie"), ev("y", "Rain later.", 1, "Melanie")]
    assert facet_label("Melanie", alone) == "Melanie: facet"


def test_a_facet_below_its_floor_is_no_group_and_a_unit_without_a_vector_is_in_none() -> None:
    evidence = [
        ev("c0", "Melanie went camping.", 0, "Melanie", vector=CAMPING),
        ev("c1", "Melanie went camping again.", 5, "Melanie", vector=CAMPING),
        ev("c2", "Melanie camped by the lake.", 9, "Melanie"),  # no vector of this model
        ev("x0", "Melanie bought shoes.", 7, "Melanie", vector=ELSEWHERE),
    ]
    assert FACET_MIN == 3
    keys = [o.key for o in observe(evidence, Disposition()).observations]
    assert "entity:melanie" in keys
    assert not [k for k in keys if k.startswith("facet:")]
    assert facets(evidence) == []
    assert [seed for seed, _ in facets(evidence, least=1)] == ["c0", "x0"]


def test_a_facet_larger_than_the_cap_is_cut_into_periods() -> None:
    evidence = [
        ev(f"c{i:02}", f"Camping trip {i} with Melanie.", i, "Melanie", vector=CAMPING)
        for i in range(10)
    ]
    found = observe(evidence, Disposition(max_cited=8))
    facet = [o for o in found.observations if o.key.startswith("facet:")]
    # Its periods are the entity's periods (the same members): written once, as the entity's.
    assert facet == []
    assert {s.key for s in found.skipped} >= {"facet:melanie~c00#1", "facet:melanie~c00#2"}
    # Among other statements, the facet's periods are its own: camping only, under the cap.
    others = [
        ev(f"x{i}", f"Melanie bought thing {i}.", i, "Melanie", vector=ELSEWHERE) for i in (0, 2, 4)
    ]
    mixed = observe([*evidence, *others], Disposition(max_cited=8))
    cut = [o for o in mixed.observations if o.key.startswith("facet:melanie~c")]
    assert [o.key for o in cut] == ["facet:melanie~c00#1", "facet:melanie~c00#2"]
    assert [o.evidence_ids for o in cut] == [
        tuple(f"c{i:02}" for i in range(5)),
        tuple(f"c{i:02}" for i in range(5, 10)),
    ]


def test_facets_follow_the_running_centroid_and_its_similarity() -> None:
    between = (0.7, 0.7, 0.0)  # cosine 0.77 with camping's axis, 0.77 with painting's
    evidence = [
        ev("c0", "a", 0, "Melanie", vector=CAMPING),
        ev("m0", "b", 1, "Melanie", vector=between),
        ev("p0", "c", 2, "Melanie", vector=PAINTING),
    ]
    # p0 is as near m0 as m0 is to c0, but it is compared with the facet's centroid (c0 and
    # m0, cosine 0.51): a facet does not drift along a chain of neighbours.
    loose = facets(evidence, least=1)
    assert [[e.unit_id for e in f] for _, f in loose] == [["c0", "m0"], ["p0"]]
    strict = facets(evidence, similarity=0.95, least=1)
    assert [[e.unit_id for e in f] for _, f in strict] == [["c0"], ["m0"], ["p0"]]


@given(st.permutations(list(range(9))))
@settings(max_examples=30)
def test_facets_are_deterministic_whatever_the_input_order(order: list[int]) -> None:
    axes = (CAMPING, PAINTING, ELSEWHERE)
    evidence = [
        ev(f"u{i}", f"Melanie said thing {i}.", i, "Melanie", vector=axes[i % 3]) for i in range(9)
    ]
    shuffled = [evidence[i] for i in order]
    assert observe(shuffled, Disposition()) == observe(evidence, Disposition())
    assert len([o for o in observe(evidence, Disposition()).observations if "~" in o.key]) == 3
