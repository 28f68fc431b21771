"""What everyday talk in a conversation does not retire (ADR 0039).

Regression cases, not the measure: the measure is how many units the write path supersedes on
LoCoMo (``bench/locomo``: superseded units per conversation, and how many of them a question
cites as evidence) beside ``bench/sgd/decisions.py``.
"""

from __future__ import annotations

import datetime as dt

from mneme.core.claims import extract_claim
from mneme.core.judgement import Candidate, JudgeConfig, Neighbour, judge
from mneme.core.language import classify, entity_mentions
from mneme.core.model import Verdict

T0 = dt.datetime(2023, 5, 8, 13, 0, tzinfo=dt.UTC)


def nb(text: str, sim: float, uid: str, minutes: int, session: str | None = "s1") -> Neighbour:
    return Neighbour(
        unit_id=uid,
        text=text,
        type=classify(text)[1],
        agent_id="a1",
        status="active",
        similarity=sim,
        claim=extract_claim(text),
        knowers=("a1",),
        session=session,
        when=T0 + dt.timedelta(minutes=minutes),
    )


def say(text: str, minutes: int, session: str | None = "s1", turn: str | None = None) -> Candidate:
    return Candidate(
        text,
        classify(text)[1],
        "a1",
        extract_claim(text),
        session=session,
        when=T0 + dt.timedelta(minutes=minutes),
        turn=turn,
    )


def test_a_word_of_time_adds_to_what_someone_does_and_replaces_nothing() -> None:
    old = nb("Tim: I'm learning how to play the violin now.", 0.72, "u1", 0)
    j = judge(say("Tim: I'm learning German now - tough but fun.", 5), [old], JudgeConfig())
    assert j.verdict != Verdict.SUPERSEDE


def test_a_word_of_replacement_still_replaces() -> None:
    old = nb("Tim: I drink coffee in the morning.", 0.8, "u1", 0)
    j = judge(say("Tim: I drink tea in the morning instead.", 5), [old], JudgeConfig())
    assert j.verdict == Verdict.SUPERSEDE


def test_a_fuller_name_said_of_something_else_refines_nothing() -> None:
    old = nb("Tim: They created all the props for the Harry Potter films.", 0.55, "u1", 0)
    new = say('Tim: Yeah, "Harry Potter and the Philosopher\'s Stone" is special to me.', 5)
    assert judge(new, [old], JudgeConfig()).verdict == Verdict.ADD


def test_a_fuller_name_in_the_same_frame_still_refines() -> None:
    old = nb("Dana lives in Berlin.", 0.9, "u1", 0, session=None)
    j = judge(say("Dana lives in Berlin Mitte.", 5, session=None), [old], JudgeConfig())
    assert j.verdict == Verdict.UPDATE


def test_the_person_spoken_to_is_no_value() -> None:
    talk = [
        nb("Melanie: I'm a fan of classical music like Bach and Mozart.", 0.5, "u1", 0),
        nb("Caroline: I got the counselling job!", 0.4, "u2", 1),
    ]
    turn = "Melanie: That's great news, actually. I'm so happy for you, Caroline."
    new = say("Melanie: I'm so happy for you, Caroline.", 2, turn=turn)
    j = judge(new, talk, JudgeConfig())
    assert j.verdict not in (Verdict.SUPERSEDE, Verdict.UPDATE, Verdict.CONTRADICT)


def test_a_gerund_opening_a_sentence_is_no_name() -> None:
    assert entity_mentions("Gaming has brought me so much success.") == []
    assert entity_mentions("Uniting is essential for making a difference.") == []
    assert [n for _, n in entity_mentions("Caroline has a new dog.")] == ["Caroline"]
