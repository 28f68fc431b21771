"""Observations composed from evidence by the offline rules of core/observations.py."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.observations import Disposition, Evidence, observe, periods

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
