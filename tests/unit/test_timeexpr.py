"""Time expressions resolve to half-open UTC intervals against an explicit anchor."""

from __future__ import annotations

import datetime as dt
import re
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core import timeexpr
from mneme.core.timeexpr import (
    TimeExpr,
    find_time_expressions,
    parse_datetime,
    query_time_range,
    single_day,
)

UTC = dt.UTC
# Saturday 15 June 2024, noon.
ANCHOR = dt.datetime(2024, 6, 15, 12, 0, tzinfo=UTC)


def d(year: int, month: int, day: int) -> dt.datetime:
    return dt.datetime(year, month, day, tzinfo=UTC)


def only(text: str, anchor: dt.datetime = ANCHOR) -> TimeExpr:
    found = find_time_expressions(text, anchor)
    assert len(found) == 1, found
    return found[0]


def span(text: str, anchor: dt.datetime = ANCHOR) -> tuple[dt.datetime, dt.datetime]:
    e = only(text, anchor)
    return e.start, e.end


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2024-06-12", d(2024, 6, 12), d(2024, 6, 13)),
        ("12 June 2024", d(2024, 6, 12), d(2024, 6, 13)),
        ("June 12, 2024", d(2024, 6, 12), d(2024, 6, 13)),
        ("June 12th", d(2024, 6, 12), d(2024, 6, 13)),
        ("the 3rd of March", d(2024, 3, 3), d(2024, 3, 4)),
        ("12 June", d(2024, 6, 12), d(2024, 6, 13)),
        ("May 7", d(2024, 5, 7), d(2024, 5, 8)),
        ("Dec 25, 2023", d(2023, 12, 25), d(2023, 12, 26)),
        ("June 2024", d(2024, 6, 1), d(2024, 7, 1)),
        ("in March", d(2024, 3, 1), d(2024, 4, 1)),
        ("March", d(2024, 3, 1), d(2024, 4, 1)),
        ("in 2023", d(2023, 1, 1), d(2024, 1, 1)),
        ("the summer of 2023", d(2023, 6, 1), d(2023, 9, 1)),
        ("summer 2023", d(2023, 6, 1), d(2023, 9, 1)),
        ("winter 2023", d(2023, 12, 1), d(2024, 3, 1)),
        ("the 1990s", d(1990, 1, 1), d(2000, 1, 1)),
        ("the '80s", d(1980, 1, 1), d(1990, 1, 1)),
        ("8 May, 2023", d(2023, 5, 8), d(2023, 5, 9)),
    ],
)
def test_absolute_dates_resolve_to_their_calendar_interval(
    text: str, start: dt.datetime, end: dt.datetime
) -> None:
    assert span(text) == (start, end)
    assert only(text).kind == "absolute"


def test_locomo_timestamp_resolves_to_the_date_and_ignores_the_time_of_day() -> None:
    e = only("1:56 pm on 8 May, 2023")
    assert (e.text, e.start, e.end) == ("8 May, 2023", d(2023, 5, 8), d(2023, 5, 9))


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("today", d(2024, 6, 15), d(2024, 6, 16)),
        ("tonight", d(2024, 6, 15), d(2024, 6, 16)),
        ("this morning", d(2024, 6, 15), d(2024, 6, 16)),
        ("yesterday", d(2024, 6, 14), d(2024, 6, 15)),
        ("last night", d(2024, 6, 14), d(2024, 6, 15)),
        ("tomorrow", d(2024, 6, 16), d(2024, 6, 17)),
        ("the day before yesterday", d(2024, 6, 13), d(2024, 6, 14)),
        ("last week", d(2024, 6, 3), d(2024, 6, 10)),
        ("this week", d(2024, 6, 10), d(2024, 6, 17)),
        ("next week", d(2024, 6, 17), d(2024, 6, 24)),
        ("the week before last", d(2024, 5, 27), d(2024, 6, 3)),
        ("last month", d(2024, 5, 1), d(2024, 6, 1)),
        ("this month", d(2024, 6, 1), d(2024, 7, 1)),
        ("next month", d(2024, 7, 1), d(2024, 8, 1)),
        ("last year", d(2023, 1, 1), d(2024, 1, 1)),
        ("this year", d(2024, 1, 1), d(2025, 1, 1)),
        ("next year", d(2025, 1, 1), d(2026, 1, 1)),
        ("last weekend", d(2024, 6, 8), d(2024, 6, 10)),
        ("this weekend", d(2024, 6, 15), d(2024, 6, 17)),
        ("two days ago", d(2024, 6, 13), d(2024, 6, 14)),
        ("3 weeks ago", d(2024, 5, 20), d(2024, 5, 27)),
        ("two months ago", d(2024, 4, 1), d(2024, 5, 1)),
        ("a couple of months ago", d(2024, 4, 1), d(2024, 5, 1)),
        ("a few years ago", d(2021, 1, 1), d(2022, 1, 1)),
        ("a year ago", d(2023, 1, 1), d(2024, 1, 1)),
        ("in 2 weeks", d(2024, 6, 24), d(2024, 7, 1)),
        ("in three days", d(2024, 6, 18), d(2024, 6, 19)),
        ("last summer", d(2023, 6, 1), d(2023, 9, 1)),
    ],
)
def test_relative_expressions_resolve_against_the_anchor(
    text: str, start: dt.datetime, end: dt.datetime
) -> None:
    assert span(text) == (start, end)


def test_relative_yesterday_resolves_against_the_source_time() -> None:
    said_at = dt.datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert span("I went to a support group yesterday.", said_at) == (d(2023, 5, 7), d(2023, 5, 8))


def test_weekday_alone_is_the_most_recent_such_day_at_or_before_the_anchor() -> None:
    assert span("on Tuesday") == (d(2024, 6, 11), d(2024, 6, 12))
    assert span("on Saturday") == (d(2024, 6, 15), d(2024, 6, 16))  # the anchor's own day


def test_a_weekday_alone_in_talk_of_what_is_to_come_is_the_next_such_day() -> None:
    # The anchor is Saturday 15 June 2024 (a new user's probe: "will be on Friday" said on a
    # Monday was dated the Friday before; ADR 0110).
    assert span("The team offsite will be on Tuesday.") == (d(2024, 6, 18), d(2024, 6, 19))
    assert span("The deploy is scheduled for Thursday.") == (d(2024, 6, 20), d(2024, 6, 21))
    assert span("Let's meet on Wednesday to review.") == (d(2024, 6, 19), d(2024, 6, 20))
    assert span("We'll ship on Saturday.") == (d(2024, 6, 15), d(2024, 6, 16))  # today
    # talk of what happened keeps the last one, a future word or not
    assert span("I went to a workshop on Tuesday.") == (d(2024, 6, 11), d(2024, 6, 12))
    assert span("I said I'd go on Tuesday.") == (d(2024, 6, 11), d(2024, 6, 12))


def test_next_weekday_is_strictly_after_the_anchor() -> None:
    assert span("next Tuesday") == (d(2024, 6, 18), d(2024, 6, 19))
    assert span("next Saturday") == (d(2024, 6, 22), d(2024, 6, 23))


def test_last_weekday_is_strictly_before_the_anchor() -> None:
    assert span("last Saturday") == (d(2024, 6, 8), d(2024, 6, 9))
    assert span("last Friday") == (d(2024, 6, 14), d(2024, 6, 15))


def test_weeks_start_on_monday_even_when_the_anchor_is_a_sunday() -> None:
    sunday = dt.datetime(2024, 6, 16, 23, 0, tzinfo=UTC)
    assert span("this week", sunday) == (d(2024, 6, 10), d(2024, 6, 17))
    assert span("last weekend", sunday) == (d(2024, 6, 8), d(2024, 6, 10))


# Friday 1 March 2019, the day SGD's dialogues are set on.
FRIDAY = dt.datetime(2019, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the 6th", d(2019, 3, 6)),
        ("The 11th.", d(2019, 3, 11)),
        ("the 8th of this month", d(2019, 3, 8)),
        ("8th of this month", d(2019, 3, 8)),
        ("the 3rd of next month", d(2019, 4, 3)),
        ("the 28th of last month", d(2019, 2, 28)),
        ("Let's go on the 14th", d(2019, 3, 14)),
        ("not before the 2nd", d(2019, 3, 2)),
        ("day after tomorrow", d(2019, 3, 3)),
        ("the day after tomorrow", d(2019, 3, 3)),
        ("day before yesterday", d(2019, 2, 27)),
        ("Wednesday next week", d(2019, 3, 6)),
        ("on Thursday of next week", d(2019, 3, 7)),
        ("next week on Friday", d(2019, 3, 8)),
        ("Saturday this week", d(2019, 3, 2)),
        ("Monday this week", d(2019, 2, 25)),
        ("Tuesday last week", d(2019, 2, 19)),
        ("later today", d(2019, 3, 1)),
    ],
)
def test_days_of_the_month_and_of_a_named_week_resolve_to_one_day(
    text: str, day: dt.datetime
) -> None:
    assert span(text, FRIDAY) == (day, day + dt.timedelta(days=1))


def test_a_day_of_the_month_alone_is_the_anchor_months_even_when_it_has_passed() -> None:
    # LoCoMo, said on 17 August 2023: "I met back up with my teammates on the 15th".
    said_at = dt.datetime(2023, 8, 17, 19, 54, tzinfo=UTC)
    e = only("I met back up with my teammates on the 15th after my trip", said_at)
    assert (e.text, e.start, e.end) == ("on the 15th", d(2023, 8, 15), d(2023, 8, 16))


def test_a_day_the_month_does_not_have_is_no_day() -> None:
    assert find_time_expressions("the 30th", dt.datetime(2019, 2, 1, tzinfo=UTC)) == []
    e = only("the 31st of next month", FRIDAY)  # April has 30 days: the month is left
    assert (e.text, e.start, e.end) == ("next month", d(2019, 4, 1), d(2019, 5, 1))


def test_a_named_day_of_the_month_is_not_claimed_by_the_day_alone() -> None:
    e = only("on the 15th of March", FRIDAY)
    assert (e.text, e.start) == ("the 15th of March", d(2019, 3, 15))


@pytest.mark.parametrize(
    "text",
    ["the 8th", "8th of this month", "March 8th", "8 March", "next Friday", "Friday next week"],
)
def test_single_day_is_the_calendar_day_each_form_names(text: str) -> None:
    assert single_day(text, FRIDAY) == dt.date(2019, 3, 8)


def test_single_day_reads_the_anchor_as_utc_and_ignores_its_time_of_day() -> None:
    late = dt.datetime(2019, 3, 1, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert single_day("today", late) == dt.date(2019, 3, 2)
    assert single_day("today", dt.datetime(2019, 3, 1, 0, 1)) == dt.date(2019, 3, 1)


@pytest.mark.parametrize(
    "text", ["next week", "March", "2019", "the 4th quarter", "today or May 2"]
)
def test_single_day_is_none_for_a_longer_span_no_time_or_two_times(text: str) -> None:
    assert single_day(text, FRIDAY) is None


def test_months_ago_crosses_the_year_boundary() -> None:
    january = dt.datetime(2024, 1, 20, tzinfo=UTC)
    assert span("two months ago", january) == (d(2023, 11, 1), d(2023, 12, 1))
    assert span("last month", january) == (d(2023, 12, 1), d(2024, 1, 1))


def test_ranges_are_open_ended_at_the_end_of_the_anchor_day() -> None:
    assert span("earlier this year") == (d(2024, 1, 1), d(2024, 6, 16))
    assert span("recently") == (d(2024, 5, 16), d(2024, 6, 16))
    assert only("recently").kind == "range"
    assert span("the past 3 days") == (d(2024, 6, 13), d(2024, 6, 16))


def test_from_to_becomes_one_range() -> None:
    e = only("from 2019 to 2021")
    assert (e.start, e.end, e.kind) == (d(2019, 1, 1), d(2022, 1, 1), "range")
    e = only("from June to August")
    assert (e.start, e.end, e.kind) == (d(2024, 6, 1), d(2024, 9, 1), "range")


def test_expressions_come_back_in_order_of_appearance() -> None:
    found = find_time_expressions(
        "Yesterday I booked a flight for 12 July 2024 and next week.", ANCHOR
    )
    assert [e.text for e in found] == ["Yesterday", "12 July 2024", "next week"]


@pytest.mark.parametrize(
    "text",
    [
        "a while ago",
        "at 5 pm",
        "64 GB of RAM",
        "rack 4",
        "I have 3 cats",
        "I may go later",
        "May I ask a question?",
        "version 3.5 shipped at 10:30",
        "in my 20s",
        "room 2024",
        "she came in the 1st",
        "we were down 10 in the 4th quarter",
        "my 18th birthday",
        "the 3rd floor is closed",
        "we march on",
        "June said hi",
        "I will fall asleep",
        "the last day of school",
        "2024-13-45",
        "",
    ],
)
def test_non_dates_and_vague_times_are_not_returned(text: str) -> None:
    assert find_time_expressions(text, ANCHOR) == []


def test_a_naive_anchor_is_taken_as_utc() -> None:
    naive = dt.datetime(2024, 6, 15, 12, 0)
    assert span("yesterday", naive) == (d(2024, 6, 14), d(2024, 6, 15))


def test_query_with_when_but_no_time_has_no_range() -> None:
    assert query_time_range("When did Caroline go to the support group?", ANCHOR) is None


def test_query_in_june_2024_covers_the_month() -> None:
    assert query_time_range("What happened in June 2024?", ANCHOR) == (d(2024, 6, 1), d(2024, 7, 1))


def test_query_last_week_covers_the_previous_monday_week() -> None:
    assert query_time_range("What did I do last week?", ANCHOR) == (d(2024, 6, 3), d(2024, 6, 10))


def test_query_range_is_the_union_of_its_expressions() -> None:
    got = query_time_range("Did I see Bob yesterday or on 2 June 2024?", ANCHOR)
    assert got == (d(2024, 6, 2), d(2024, 6, 15))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-06-12", d(2024, 6, 12)),
        ("2024-06-12T10:30:00Z", dt.datetime(2024, 6, 12, 10, 30, tzinfo=UTC)),
        ("2024-06-12T12:30:00+02:00", dt.datetime(2024, 6, 12, 10, 30, tzinfo=UTC)),
        ("2024-06-12 10:30", dt.datetime(2024, 6, 12, 10, 30, tzinfo=UTC)),
        (dt.datetime(2024, 6, 12, 10, 30), dt.datetime(2024, 6, 12, 10, 30, tzinfo=UTC)),
        (
            dt.datetime(2024, 6, 12, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            dt.datetime(2024, 6, 12, 10, 30, tzinfo=UTC),
        ),
    ],
)
def test_parse_datetime_returns_aware_utc(value: str | dt.datetime, expected: dt.datetime) -> None:
    got = parse_datetime(value)
    assert got == expected
    assert got.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize("value", ["2024-13-45", "yesterday-ish", "", "  ", "June 2024"])
def test_parse_datetime_rejects_anything_else_naming_the_value(value: str) -> None:
    with pytest.raises(ValueError, match="ISO-8601") as info:
        parse_datetime(value)
    assert repr(value) in str(info.value)


def test_parse_datetime_rejects_non_strings() -> None:
    with pytest.raises(ValueError, match="12345"):
        parse_datetime(12345)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=120),
    anchor=st.datetimes(
        min_value=dt.datetime(1950, 1, 1),
        max_value=dt.datetime(2090, 12, 31),
        timezones=st.just(UTC),
    ),
)
def test_find_time_expressions_never_raises_and_every_interval_is_nonempty(
    text: str, anchor: dt.datetime
) -> None:
    for e in find_time_expressions(text, anchor):
        assert e.start < e.end
        assert e.start.tzinfo is not None
        assert e.kind in {"absolute", "relative", "range"}


_WORDS = st.sampled_from(
    str.split(
        "in on last next this the ago days weeks months years a two few couple of May June March "
        "2023 2024 12 8 1990s summer winter fall Tuesday Sunday yesterday today from to and "
        "between since week weekend month year , . recently earlier before after 5 pm 10:30 GB"
    )
)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_WORDS, max_size=12))
def test_date_like_word_soup_never_raises(words: list[str]) -> None:
    for e in find_time_expressions(" ".join(words), ANCHOR):
        assert e.start < e.end


def _ungated(text: str, anchor: dt.datetime) -> list[TimeExpr]:
    """Every rule's pattern run over the text, as if it passed every gate."""
    with patch.object(timeexpr, "_gates_passed", lambda _text: frozenset(timeexpr._GATES)):
        return find_time_expressions(text, anchor)


_GATE_WORDS = str.split(
    "in on last next this past the ago days WEEKS Months yEaRs a an two few couple of MAY "
    "june Mar sept 2023 2024 12 8 31st 1990s 90's '90s summer Winter fall autumn Spring "
    "TUESDAY sunday yesterday Today tonight tomorrow night morning evening afternoon from to "
    "and - – between since week weekend month year , . recently lately recent earlier later "
    "before after 5 pm 10:30 GB 2024-06-01 ٣ ２０２０ ſpring wınter Kelvin"
)
_GATED = st.sampled_from(_GATE_WORDS)


@settings(max_examples=400, deadline=None)
@given(words=st.lists(_GATED, max_size=10), anchor=st.sampled_from([ANCHOR, d(2001, 1, 31)]))
def test_gates_skip_only_rules_that_cannot_match(words: list[str], anchor: dt.datetime) -> None:
    text = " ".join(words)
    try:
        expected: list[TimeExpr] | str = _ungated(text, anchor)
    except KeyError as exc:  # odd case-folded season names fail the same way either way
        expected = repr(exc)
    try:
        got: list[TimeExpr] | str = find_time_expressions(text, anchor)
    except KeyError as exc:
        got = repr(exc)
    assert got == expected


@pytest.mark.parametrize(("gate", "pattern", "handler"), timeexpr._RULES)
def test_every_rule_needs_its_gate(gate: str, pattern: re.Pattern[str], handler: object) -> None:
    """A text that matches a rule always passes the rule's gate (checked on the rule's own
    test phrases and a word soup of time words)."""
    samples = [
        "8 May 2023",
        "May 8, 2023",
        "the 1990s",
        "from 2019 to 2021",
        "in 2020",
        "the day before yesterday",
        "day after tomorrow",
        "the week before last",
        "Wednesday next week",
        "next week on Friday",
        "the 8th of this month",
        "on the 15th",
        "The 11th.",
        "last weekend",
        "the past two months",
        "three days ago",
        "in two weeks",
        "this morning",
        "recently",
        "last Tuesday",
        "in the summer",
        "early June",
        *_GATE_WORDS,
    ]
    for text in samples:
        if pattern.search(text):
            assert timeexpr._GATES[gate].search(text), (gate, text)


def test_word_gates_are_plain_lowercase_ascii_words() -> None:
    """The ASCII fast path tests gates as substrings: each must be a literal word list."""
    for gate, words in timeexpr._GATE_WORDS.items():
        assert "|".join(words) == gate
        assert all(w.isascii() and w.isalpha() and w.islower() for w in words), gate


# A weekday's short form after last/next/this, and weekends counted back (LoCoMo dev's
# "Last Fri ...", "... last Tues.", "two weekends ago"; bench.locomo.dating).
@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Last Fri I took my kids to a pottery workshop.", d(2024, 6, 14)),
        ("I joined a new activist group last Tues.", d(2024, 6, 11)),
        ("Come over next Thurs!", d(2024, 6, 20)),
        ("this wed works", d(2024, 6, 12)),
    ],
)
def test_a_weekday_said_short_after_last_next_or_this(text: str, start: dt.datetime) -> None:
    assert span(text) == (start, start + dt.timedelta(days=1))


@pytest.mark.parametrize(
    "text", ["I sat on the bench.", "We wed in a barn.", "The sun came out.", "Fri", "on sat"]
)
def test_a_short_weekday_alone_is_no_day(text: str) -> None:
    assert find_time_expressions(text, ANCHOR) == []


def test_weekends_ago_count_back_from_last_weekend() -> None:
    monday = d(2023, 7, 17)
    assert span("We went camping two weekends ago.", monday) == (d(2023, 7, 8), d(2023, 7, 10))
    assert span("a weekend ago", monday) == span("last weekend", monday)


# A state held "for <duration> now" began that long ago (LoCoMo dev's "I've had them for 3
# years now", "I've been playing for about four months now"; bench.locomo.dating).
def test_a_duration_up_to_now_names_when_it_began() -> None:
    winter = d(2022, 1, 23)
    assert span("I've had them for 3 years now.", winter) == (d(2019, 1, 1), d(2020, 1, 1))
    december = d(2023, 12, 6)
    assert span("I've been playing for about four months now!", december) == (
        d(2023, 8, 1),
        d(2023, 9, 1),
    )
    assert span("for a couple of weeks now", december) == span("two weeks ago", december)


@pytest.mark.parametrize(
    "text",
    ["We lived there for 3 years.", "I'm off for two weeks now and then.", "for years now"],
)
def test_a_duration_not_up_to_now_is_no_time(text: str) -> None:
    assert find_time_expressions(text, ANCHOR) == []
