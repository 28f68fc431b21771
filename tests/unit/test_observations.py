"""Observations composed from evidence by the offline rules of core/observations.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.observations import Disposition, Evidence, observe, periods, themes

T0 = dt.datetime(2023, 5, 7, 12, tzinfo=dt.UTC)


def ev(uid: str, text: str, day: int, *entities: str, source: str | None = None) -> Evidence:
    return Evidence(
        unit_id=uid,
        text=text,
        when=T0 + dt.timedelta(days=day),
        entities=entities,
        sources=(source or f"s-{uid}",),
    )


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


def _ranker(vectors: dict[str, tuple[float, ...]]) -> Any:
    """Nearness by dot product over the given vectors (what the service does with stored
    ones); None for a group with a member it has no vector for."""

    def for_group(members: Any) -> Any:
        if any(e.unit_id not in vectors for e in members):
            return None

        def nearest(seed: int, candidates: Any) -> list[int]:
            a = vectors[members[seed].unit_id]

            def dot(i: int) -> float:
                return sum(x * y for x, y in zip(a, vectors[members[i].unit_id], strict=True))

            return sorted(candidates, key=lambda i: -dot(i))

        return nearest

    return for_group


def test_a_large_group_is_partitioned_into_themes_each_named_by_its_seed() -> None:
    art, kids = (1.0, 0.1, 0.0), (0.0, 1.0, 0.1)
    members = [ev(f"u{i}", f"statement {i}", i, "Mel") for i in range(6)]
    ranker = _ranker({e.unit_id: (art if i % 2 else kids) for i, e in enumerate(members)})
    parts = themes(members, 3, ranker)  # the two themes interleave in time
    assert [(k, [e.unit_id for e in run]) for k, run in parts] == [
        ("~u0", ["u0", "u2", "u4"]),
        ("~u1", ["u1", "u3", "u5"]),
    ]
    # Without a vector for every member, or without a ranker: time periods, as before.
    assert [k for k, _ in themes(members, 3, _ranker({}))] == ["#1", "#2"]
    assert [k for k, _ in themes(members, 3)] == ["#1", "#2"]
    assert themes(members, 6, ranker) == [("", members)]
    keys = {o.key for o in observe(members, Disposition(max_cited=3), ranker).observations}
    assert keys == {"entity:mel~u0", "entity:mel~u1"}


@given(
    st.lists(st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(0.1, 1)), max_size=40),
    st.integers(min_value=1, max_value=16),
)
@settings(max_examples=100)
def test_themes_keep_every_member_once_under_the_cap_in_time_order(
    xs: list[tuple[float, float, float]], cap: int
) -> None:
    members = [ev(f"u{i:03}", "x", i) for i in range(len(xs))]
    parts = themes(members, cap, _ranker({e.unit_id: v for e, v in zip(members, xs, strict=True)}))
    flat = sorted(e.unit_id for _, run in parts for e in run)
    assert flat == [e.unit_id for e in members]
    for _, run in parts:
        assert len(run) <= cap
        assert [e.when for e in run] == sorted(e.when for e in run)
    assert len({k for k, _ in parts}) == len(parts)
