"""A bare answer fills the slot its question asks for (``mneme.core.slots.answering``).

Regression cases, not the measure: the measure is ``bench/sgd/decisions.py`` on public data.
"""

from __future__ import annotations

from mneme.core.slots import Context, SlotRelation, answering, is_bare, relate
from mneme.core.statements import analyze

OWN = Context(similarity=0.7, same_author=True, same_conversation=True)


def test_only_a_statement_of_nothing_but_its_values_is_bare() -> None:
    assert is_bare(analyze("User: March 9th."))
    assert is_bare(analyze("User: In Sunnyvale please"))
    assert not is_bare(analyze("User: Try to book for the 14th of this month"))
    assert not is_bare(analyze("User: I want to return on the 9th."))
    assert not is_bare(analyze("User: Sounds good."))  # no value: nothing to answer with


def test_an_answer_takes_its_question_and_nothing_else_does() -> None:
    bare = answering(analyze("User: March 9th."), analyze("System: Which day is the return?"))
    assert bare.answered is not None
    assert "return" in bare.answered
    said = answering(analyze("User: I want to return on the 9th."), analyze("System: Which day?"))
    assert said.answered is None
    # a statement after a statement is no answer
    told = answering(analyze("User: March 9th."), analyze("System: The flight is booked."))
    assert told.answered is None


def test_answers_to_two_questions_are_two_slots() -> None:
    old = answering(analyze("User: Thursday next week."), analyze("System: What date?"))
    new = answering(analyze("User: March 9th."), analyze("System: Which day is the return flight?"))
    assert relate(new, old, OWN).relation == SlotRelation.DIFFERENT
    # without the questions, the same author's later value is an update by default
    plain = relate(analyze("User: March 9th."), analyze("User: Thursday next week."), OWN)
    assert plain.relation == SlotRelation.UPDATE


def test_an_answer_to_the_same_question_again_updates() -> None:
    q = analyze("System: Which day is the return flight?")
    old = answering(analyze("User: March 9th."), q)
    new = answering(analyze("User: March 11th."), q)
    assert relate(new, old, OWN).relation == SlotRelation.UPDATE


def test_an_answer_meets_a_statement_by_what_that_statement_says_of_its_value() -> None:
    new = answering(analyze("User: March 9th."), analyze("System: Which day is the return flight?"))
    left = analyze("User: I would like to leave on March 4th.")
    assert relate(new, left, OWN).relation == SlotRelation.DIFFERENT
    back = analyze("User: The return flight should be on March 4th.")
    assert relate(new, back, OWN).relation == SlotRelation.UPDATE


def test_a_change_cue_still_points_a_bare_correction_at_the_latest_value() -> None:
    old = answering(analyze("User: Thursday next week."), analyze("System: What date?"))
    new = answering(
        analyze("User: No, make it March 9th."), analyze("System: Which day is the return?")
    )
    assert relate(new, old, OWN).relation == SlotRelation.UPDATE


def test_an_answer_said_as_a_point_takes_the_end_of_the_span_asked_for() -> None:
    # SGD test 16_00000: "When do you want it from?" ... "And until when?" asked for the two
    # ends of one rental; "I need it on ..." answered each.
    start = answering(analyze("User: I need it on the 9th."), analyze("System: From when?"))
    end = answering(analyze("User: I need it on the 14th."), analyze("System: Until when?"))
    assert start.governors == ("from",)
    assert end.governors == ("until",)
    assert relate(end, start, OWN).relation == SlotRelation.DIFFERENT
    # a question that proposes a date asks nothing of a span's end; "to" may be an infinitive
    kept = analyze("User: I need it on the 14th.")
    proposed = answering(kept, analyze("System: Do you want it from the 9th?"))
    assert proposed.governors == kept.governors
    infinitive = answering(kept, analyze("System: When do you want to pick it up?"))
    assert infinitive.governors == kept.governors


def test_two_counts_of_one_thing_are_one_slot_whatever_was_asked() -> None:
    # SGD dev 20_00071: "for 4 days" answered "how long stay?"; "five days stay", said
    # unprompted, changes it (the two questions share no slot word to tell).
    old = answering(analyze("User: for 4 days"), analyze("Assistant: how long stay?"))
    new = analyze("User: five days stay")
    assert relate(new, old, OWN).relation == SlotRelation.UPDATE
    # a count of another thing is another slot
    rooms = analyze("User: I need two rooms.")
    assert relate(rooms, old, OWN).relation != SlotRelation.UPDATE
    # and dates answered to two questions stay two slots
    pickup = answering(analyze("User: March 9th."), analyze("System: Which day is the pickup?"))
    back = answering(analyze("User: March 11th."), analyze("System: Which day is the return?"))
    assert relate(back, pickup, OWN).relation == SlotRelation.DIFFERENT
