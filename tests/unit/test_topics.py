"""What a conversation brings up (``mneme.core.topics``): pure, no store."""

from __future__ import annotations

import datetime as dt

from mneme.core.topics import (
    Said,
    brought_up,
    introduced,
    introductions,
    mentions,
    named_things,
    returned_to,
)

T0 = dt.datetime(2024, 5, 1, 9, 0, tzinfo=dt.UTC)


def _at(minute: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minute)


def test_the_head_of_each_indefinite_phrase_is_introduced():
    assert introduced("User: I would like a rental car and an hotel room.") == ("car", "room")
    assert introduced("User: is there a bus from Vancouver?") == ("bus",)
    assert introduced("Can you find me two psychologists?") == ()  # no article: nothing new
    assert introduced("User: I want to check the weather.") == ()  # definite: refers
    # A phrase runs to the first function word; its head is its last word that is no stop
    # word ("way" is one).
    assert introduced("User: Find me a one way flight there.") == ("flight",)


def test_a_count_is_no_thing():
    assert introduced("User: the table is for a party of four, please") == ()
    assert introduced("User: search buses for a group of 3") == ()
    assert introduced("User: I need a bus of the night line") == ("bus",)


def test_a_change_marker_ends_the_phrase():
    # SGD dev 1_00099: "I want to find a round trip instead, make my return the 8th of March"
    # brought up a trip (the head was read as "instead", a cue, so nothing), and the return
    # date retired the one way flight's departure date.
    assert introduced("User: I want a round trip instead, back on the 8th") == ("trip",)
    assert introduced("User: Book a table now.") == ("table",)
    # a change said as a noun phrase brings up nothing (its head is the cue)
    assert introductions([Said("User: a last-minute change of plans", _at(0))], "User") == ()


def _conversation() -> list[Said]:
    return [
        Said("User: I would like a rental car.", _at(0)),
        Said("User: I need it for March 3rd.", _at(1)),
        Said("Assistant: I found a Civic. Anything else?", _at(2)),
        Said("User: is there a bus from Vancouver?", _at(3)),
        Said("User: Actually, the 2nd of this month.", _at(4)),
    ]


def test_what_the_author_brought_up_after_a_statement():
    said = _conversation()
    assert brought_up(introductions(said, "user"), _at(1)) == ("bus",)
    assert brought_up(introductions(said, "user"), _at(3)) == ()  # nothing since the bus
    assert (
        brought_up(introductions(said, "user"), None) == ()
    )  # when the older one was said is unknown


def test_a_thing_already_talked_about_is_not_brought_up_again():
    said = [
        *_conversation()[:3],
        Said("User: Can I get a car with more room?", _at(3)),
        Said("User: I've had a change of plans: the 2nd.", _at(4)),
    ]
    assert brought_up(introductions(said, "user"), _at(1)) == ()


def test_only_the_authors_own_introductions_count():
    said = [
        Said("User: I need it for March 3rd.", _at(1)),
        Said("Assistant: Would you like a bus too?", _at(2)),
        Said("User: Actually, the 2nd.", _at(3)),
    ]
    assert brought_up(introductions(said, "user"), _at(1)) == ()
    assert brought_up(introductions(said, "assistant"), _at(1)) == ("bus",)


def test_a_thing_added_with_too_is_brought_up_without_an_article():
    # SGD dev 13_00071: "I'll need rental car too. I want to get it from SF." retired the
    # flight's "I'm traveling from San Diego.": the car, said with no article, was no new thing.
    assert introduced("Okay. I'll need rental car too. I want to get it from SF.") == ("car",)
    assert introduced("I need a hotel too") == ("hotel",)
    # what is no noun phrase of its own adds no thing
    assert introduced("That is great too") == ()
    assert introduced("I want to go there too") == ()
    assert introduced("The food was cheap too") == ()


def test_a_value_is_no_part_of_the_thing_brought_up():
    # What is said of a thing (a day, a named kind) ends its phrase and is never its head.
    assert introduced("User: I hoped to rent a small van Sunday next week.") == ("van",)
    assert introduced("User: Search for a Dentist in Oakland.") == ()
    assert introduced("User: How about a Festival, on May 2nd?") == ()
    # A count still counts when its number is a value: "of four" is how many, not a thing.
    assert introduced("User: we need a room for a group of five") == ("room",)


def test_things_named_by_article_or_demonstrative():
    heads = [
        (p.head, p.back) for p in named_things("User: Let's book that hotel room, not the spa.")
    ]
    assert heads == [("room", True), ("spa", False)]
    assert {p.head for p in named_things("User: I want to check the weather in NYC.")} == {
        "weather"
    }
    assert named_things("User: I think that the 9th works.") == ()  # "that" opens no phrase


def _weather_then_hotel() -> list[Said]:
    return [
        Said("User: I need a hotel in Denver.", _at(0)),
        Said("Assistant: The Curtis has rooms.", _at(1)),
        Said("User: What is the weather like there on the 9th?", _at(2)),
        Said("Assistant: Sunny, 70 degrees.", _at(3)),
        Said("User: Good, let's book that hotel.", _at(4)),
        Said("User: I'm checking in on the 7th.", _at(5)),
    ]


def test_coming_back_to_a_thing_left_for_another():
    said = _weather_then_hotel()
    things, named = introductions(said, "user"), mentions(said, "user")
    # after the weather's date, the author came back to the hotel
    assert returned_to(things, named, _at(2)) == ("hotel",)
    # pointing at the thing they were talking of all along is no return
    assert returned_to(things, named, _at(0)) == ()
    assert returned_to(things, named, None) == ()


def test_pointing_back_at_the_current_thing_or_a_thing_never_brought_up_is_no_return():
    said = [
        Said("User: I want a table at Rosie's on March 2nd.", _at(0)),
        Said("User: Can you check the menu?", _at(1)),
        Said("User: OK, book that table for the 4th.", _at(2)),
    ]
    # by the older statement the author was talking of the table: coming back to it after
    # the menu is the same thing
    assert returned_to(introductions(said, "user"), mentions(said, "user"), _at(0)) == ()
    said = [
        Said("Assistant: Should I make a reservation?", _at(0)),
        Said("User: Yes, a table on that day.", _at(1)),
        Said("User: Book that reservation again at six pm.", _at(2)),
    ]
    # the reservation was the assistant's word: the author brought up no such thing
    assert returned_to(introductions(said, "user"), mentions(said, "user"), _at(1)) == ()
