"""The write-path decision engine: verdicts, the same-subject gate and questions for a person.

Similarities passed to the judge are the cosines all-MiniLM-L6-v2 gives these pairs (measured
once, rounded), so the rules are tested with realistic inputs without loading the model.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.claims import Claim, extract_claim
from mneme.core.judgement import (
    DESTRUCTIVE,
    Candidate,
    JudgeConfig,
    Judgement,
    Neighbour,
    _names,
    judge,
    suggest_question,
)
from mneme.core.keys import normalize_text
from mneme.core.language import classify
from mneme.core.model import UnitStatus, Verdict
from mneme.core.statements import analyze, analyze_knowing

CONFIG = JudgeConfig()


def neighbour(
    text: str,
    similarity: float,
    *,
    agent: str = "a1",
    uid: str = "u1",
    status: UnitStatus = UnitStatus.ACTIVE,
) -> Neighbour:
    return Neighbour(
        unit_id=uid,
        text=text,
        type=classify(text)[1],
        agent_id=agent,
        status=status.value,
        similarity=similarity,
        claim=extract_claim(text),
        knowers=(agent,),
    )


def candidate(text: str, agent: str = "a1") -> Candidate:
    return Candidate(text, classify(text)[1], agent, extract_claim(text))


def decide(
    old: str, new: str, similarity: float, *, old_agent: str = "a1", agent: str = "a1"
) -> Judgement:
    return judge(candidate(new, agent), [neighbour(old, similarity, agent=old_agent)], CONFIG)


# --- the acceptance stories (write_scenario.py, trust_scenario.py) ----------------------------


def test_my_dog_is_black_never_supersedes_my_cat_is_black() -> None:
    j = decide("My cat is black.", "My dog is black.", 0.74)
    assert j.verdict is Verdict.ADD
    assert not j.destructive
    assert j.relates_to == ("u1",)


def test_a_move_supersedes_the_old_city() -> None:
    j = decide("I live in Paris.", "I moved to Berlin last month.", 0.45)
    assert j.verdict is Verdict.SUPERSEDE
    assert j.target_id == "u1"
    assert "paris" in j.reason.lower()
    assert "berlin" in j.reason.lower()


def test_a_changed_preference_is_a_preference_conflict_not_an_overwrite() -> None:
    j = decide("I prefer tea in the morning.", "I prefer coffee in the morning.", 0.82)
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "preference"
    assert j.target_id == "u1"


def test_different_ram_numbers_contradict_and_never_merge() -> None:
    j = decide("The staging server has 64 GB of RAM.", "The staging server has 32 GB of RAM.", 0.99)
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "numbers"


def test_build_cache_paraphrase_with_equal_numbers_is_one_memory() -> None:
    j = decide(
        "The build cache lives on the NAS in rack 4.",
        "Build cache location: the NAS in rack 4.",
        0.88,
    )
    assert j.verdict is Verdict.NOOP
    assert j.target_id == "u1"


def test_the_same_fact_from_a_second_agent_links_to_the_existing_unit() -> None:
    text = "The release train leaves every second Tuesday."
    j = decide(text, text, 1.0, old_agent="a1", agent="a2")
    assert j.verdict is Verdict.LINK_EXISTING
    assert j.target_id == "u1"
    assert j.confidence == 1.0


def test_an_exact_repeat_by_the_same_agent_is_a_noop() -> None:
    text = "The release train leaves every second Tuesday."
    j = decide(text, text, 1.0)
    assert j.verdict is Verdict.NOOP
    assert j.confidence == 1.0


def test_a_cross_agent_launch_date_disagreement_is_surfaced() -> None:
    j = decide(
        "The launch date is 3 May.", "The launch date is 10 May.", 0.93, old_agent="a1", agent="a2"
    )
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "cross_agent"


def test_a_negation_is_a_contradiction_not_a_paraphrase() -> None:
    j = decide("Dana eats meat.", "Dana does not eat meat.", 0.86)
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "negation"


def test_stopped_doing_supersedes() -> None:
    j = decide("I drink green tea.", "I stopped drinking green tea.", 0.75)
    assert j.verdict is Verdict.SUPERSEDE


def test_no_longer_supersedes_instead_of_contradicting() -> None:
    j = decide("Dana eats meat.", "Dana no longer eats meat.", 0.80)
    assert j.verdict is Verdict.SUPERSEDE


def test_a_first_atom_is_added() -> None:
    j = judge(candidate("Eve joined the platform team in May 2025."), [], CONFIG)
    assert j.verdict is Verdict.ADD
    assert j.target_id is None
    assert j.relates_to == ()


def test_favourite_colour_and_favorite_color_are_one_claim() -> None:
    j = decide("My favorite color is blue.", "My favourite colour is blue.", 0.97)
    assert j.verdict is Verdict.NOOP
    linked = decide("My favorite color is blue.", "My favourite colour is blue.", 0.97, agent="a2")
    assert linked.verdict is Verdict.LINK_EXISTING


def test_a_second_employer_without_a_change_word_is_a_conflict() -> None:
    j = decide("I work at Acme Robotics.", "I work at Globex Labs.", 0.55)
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "value"


# --- the other rules --------------------------------------------------------------------------


def test_a_refined_value_is_an_update() -> None:
    j = decide("I live in Berlin.", "I live in Berlin Mitte.", 0.85)
    assert j.verdict is Verdict.UPDATE
    assert j.target_id == "u1"


def test_a_fuller_value_from_another_speaker_corroborates_and_retires_nothing() -> None:
    """SGD every turn: "You arrive at Fresno Station." refined the user's goal "go to Fresno,
    CA" and, a goal never being rewritten silently, became a question for a person."""
    for old, new in [
        ("User: I would like to go to Fresno, CA.", "Assistant: You arrive at Fresno Station."),
        ("Mira: Alice lives in Berlin.", "Omar: Alice lives in Berlin Mitte."),
    ]:
        j = decide(old, new, 0.6)
        assert j.verdict is Verdict.ADD, (old, new, j.reason)
        assert not j.destructive
    # The author's own fuller value still refines what they said.
    assert decide("Omar: I live in Berlin.", "Omar: I live in Berlin Mitte.", 0.85).verdict is (
        Verdict.UPDATE
    )


def test_adding_a_version_number_is_a_refinement_not_a_numbers_conflict() -> None:
    j = decide("The database runs on Postgres.", "The database runs on Postgres 16.", 0.95)
    assert j.verdict is Verdict.UPDATE


def test_a_less_specific_restatement_adds_nothing() -> None:
    j = decide("I live in Berlin Mitte.", "I live in Berlin.", 0.85)
    assert j.verdict is Verdict.NOOP


def test_a_second_hobby_is_added_not_a_conflict() -> None:
    j = decide("I like hiking.", "I like swimming.", 0.61)
    assert j.verdict is Verdict.ADD
    assert j.relates_to == ("u1",)


def test_instead_replaces_a_value_of_a_many_valued_attribute() -> None:
    j = decide("Our dog eats kibble.", "Our dog eats raw food instead.", 0.7)
    assert j.verdict is Verdict.SUPERSEDE


def test_different_agents_disagreeing_on_a_value_is_a_cross_agent_conflict() -> None:
    j = decide("Marco lives in Porto.", "Marco lives in Braga.", 0.8, old_agent="a1", agent="a2")
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "cross_agent"


def test_numbers_differ_without_any_claim_is_still_a_numbers_conflict() -> None:
    old, new = "Gate 12, then 300 m to the left.", "Gate 14, then 300 m to the left."
    assert extract_claim(old) is None
    j = decide(old, new, 0.95)
    assert j.verdict is Verdict.CONTRADICT
    assert j.conflict_type == "numbers"


def test_a_number_on_one_side_only_is_no_numbers_conflict() -> None:
    # SGD (every turn): "That sounds great." / "That one sounds great." and "Yeah that sounds
    # good." / "Okay that one sounds good." were conflicts: "one" is no other number.
    for old, new in (
        ("User: That sounds great.", "User: That one sounds great."),
        ("User: That one sounds great.", "User: That sounds great."),
    ):
        assert decide(old, new, 0.97).verdict is not Verdict.CONTRADICT


def test_claimless_word_order_paraphrase_merges() -> None:
    j = decide(
        "Every weekday the standup is at 9:30.", "The standup is at 9:30 every weekday.", 0.97
    )
    assert j.verdict is Verdict.NOOP


def test_superseded_and_rejected_neighbours_are_not_judged() -> None:
    for status in (UnitStatus.SUPERSEDED, UnitStatus.REJECTED, UnitStatus.ARCHIVED):
        nb = neighbour("I live in Paris.", 0.5, status=status)
        j = judge(candidate("I live in Rome."), [nb], CONFIG)
        assert j.verdict is Verdict.ADD, status


def test_a_conflict_wins_over_a_merge_among_several_neighbours() -> None:
    same = neighbour("The launch date is 3 May.", 0.99, uid="same")
    other = neighbour("The launch date is 10 May.", 0.93, uid="other")
    j = judge(candidate("Launch date: 3 May."), [same, other], CONFIG)
    assert j.verdict is Verdict.CONTRADICT
    assert j.target_id == "other"


def test_unrelated_neighbours_are_not_linked() -> None:
    j = decide("The kitchen tap is leaking again.", "Marco plays bass in a jazz trio.", 0.05)
    assert j.verdict is Verdict.ADD
    assert j.relates_to == ()


def test_every_verdict_has_a_reason_and_a_confidence_in_range() -> None:
    cases = [
        ("I live in Paris.", "I moved to Berlin.", 0.5),
        ("Dana eats meat.", "Dana does not eat meat.", 0.86),
        ("I live in Berlin.", "I live in Berlin Mitte.", 0.85),
        ("My cat is black.", "My dog is black.", 0.74),
        ("The cluster has 12 nodes.", "The cluster has twelve nodes.", 0.95),
    ]
    for old, new, sim in cases:
        j = decide(old, new, sim)
        assert j.reason
        assert 0.0 <= j.confidence <= 1.0


# --- questions --------------------------------------------------------------------------------


def test_a_preference_question_reads_like_a_person_would_ask_it() -> None:
    old, new = "I prefer tea in the morning.", "I prefer coffee in the morning."
    j = decide(old, new, 0.82)
    q = suggest_question(j, new, old)
    assert q == "You said you prefer tea in the morning; now coffee. Which holds?"


@pytest.mark.parametrize(
    ("old", "new", "sim", "words"),
    [
        ("The launch date is 3 May.", "The launch date is 10 May.", 0.93, ("3 May", "10 May")),
        ("Dana eats meat.", "Dana does not eat meat.", 0.86, ("Dana eats meat", "not eat")),
        ("I live in Paris.", "I moved to Berlin.", 0.5, ("Paris", "Berlin")),
    ],
)
def test_questions_quote_both_sides(old: str, new: str, sim: float, words: tuple[str, ...]) -> None:
    q = suggest_question(decide(old, new, sim), new, old)
    assert q.endswith("?")
    for w in words:
        assert w in q


# --- invariants -------------------------------------------------------------------------------

_SUBJECTS = st.sampled_from(["user", "user cat", "user dog", "dana", "staging server", "we"])
_ATTRS = st.sampled_from(["is", "lives_in", "works_at", "prefers", "eats", "has gb of ram"])
_VALUES = st.sampled_from(["black", "berlin", "berlin mitte", "64", "32", "tea", "coffee"])


@st.composite
def claims(draw: st.DrawFn) -> Claim:
    nums = draw(st.lists(st.sampled_from(["3", "64", "32", "10"]), max_size=2))
    return Claim(
        subject=draw(_SUBJECTS),
        attribute=draw(_ATTRS),
        value=draw(_VALUES),
        negated=draw(st.booleans()),
        numbers=tuple(nums),
        dates=(),
        change=draw(st.booleans()),
        text="",
    )


@settings(max_examples=400, deadline=None)
@given(
    claims(),
    claims(),
    st.floats(-1.0, 1.0),
    st.sampled_from(["a1", "a2"]),
    st.text(max_size=60),
    st.text(max_size=60),
)
def test_judge_never_destroys_across_different_subjects(
    old: Claim, new: Claim, sim: float, agent: str, old_text: str, new_text: str
) -> None:
    if old.subject == new.subject or normalize_text(old_text) == normalize_text(new_text):
        return
    # The slot rules read the texts themselves (their values and frames, ADR 0026); a claim
    # made up beside a text it does not describe gates only texts with no value in them.
    if analyze(old_text).values or analyze(new_text).values:
        return
    nb = Neighbour("u1", old_text, classify(old_text)[1], "a1", "active", sim, old, ("a1",))
    j: Judgement = judge(Candidate(new_text, classify(new_text)[1], agent, new), [nb], CONFIG)
    assert j.verdict not in DESTRUCTIVE
    assert j.verdict not in {Verdict.NOOP, Verdict.LINK_EXISTING}


_SENTENCES = st.sampled_from(
    [
        "My cat is black.",
        "My dog is black.",
        "My cat is 3 years old.",
        "My dog is 3 years old.",
        "The staging server has 64 GB of RAM.",
        "The production server has 64 GB of RAM.",
        "Dana lives in Porto.",
        "Marco lives in Porto.",
        "My sister works at Acme.",
        "My brother works at Acme.",
        "I prefer tea in the morning.",
        "My wife prefers coffee in the morning.",
    ]
)


@settings(max_examples=200, deadline=None)
@given(_SENTENCES, _SENTENCES, st.floats(-1.0, 1.0))
def test_extracted_claims_with_different_subjects_never_clash(a: str, b: str, sim: float) -> None:
    ca, cb = extract_claim(a), extract_claim(b)
    assert ca is not None
    assert cb is not None
    if ca.subject == cb.subject:
        return
    j = decide(a, b, sim)
    assert j.verdict not in DESTRUCTIVE


def test_numbered_subjects_are_different_subjects() -> None:
    j = decide("Server 1 has 64 GB of RAM.", "Server 2 has 64 GB of RAM.", 0.97)
    assert j.verdict is Verdict.ADD


def test_an_amount_raised_to_a_new_figure_supersedes_the_old_price() -> None:
    j = decide(
        "The Basic plan of Orbit costs 8 euros a month.",
        "Orbit raised the Basic plan to 9 euros a month.",
        0.6,
    )
    assert j.verdict == Verdict.SUPERSEDE
    # Without a word that it moved, another figure is a numbers conflict, not a rewrite.
    j = decide("Orbit's Basic plan costs 8 euros.", "Orbit's Basic plan costs 9 euros.", 0.9)
    assert (j.verdict, j.conflict_type) == (Verdict.CONTRADICT, "numbers")


# --- many-valued attributes, identifiers and event labels: no false conflicts ----------------


@pytest.mark.parametrize(
    ("old", "new", "sim", "agent"),
    [
        (
            "Bruno Brandt-773 is allergic to sesame.",
            "Bruno Brandt-773 is mentoring Oona Silva-1380 on incident command.",
            0.27,
            "a1",
        ),
        (
            "Hana Rahman-512 is mentoring Dana Fischer-1149 on hiring.",
            "Hana Rahman-512 is allergic to shellfish.",
            0.42,
            "a2",
        ),
        (
            "Hannah Horak-2019 is mentoring Ines Duarte-1213 on SQL tuning.",
            "Hannah Horak-2019 is mentoring Ade Whitfield-3045 on public speaking.",
            0.52,
            "a1",
        ),
        (
            "Bruno Holm-3918 owns the Quarry-338 rollout.",
            "Bruno Holm-3918 owns the Tessel-564 rollout.",
            0.68,
            "a1",
        ),
        (
            "Bruno Holm-3918 owns the Quarry-338 rollout.",
            "Bruno Holm-3918 owns the Quarry-412 rollout.",
            0.95,
            "a2",
        ),
        (
            "Incident 6068: the Heron-72 service was down for 78 minutes after a bad deploy.",
            "Incident 3303: the Heron-72 service was down for 55 minutes after a bad deploy.",
            0.95,
            "a2",
        ),
        (
            "Rafael Duarte promised to fix ticket HW-579 before Friday.",
            "Rafael Duarte promised to fix ticket BIL-761 before Friday.",
            0.86,
            "a1",
        ),
        ("My son is allergic to peanuts.", "My son is allergic to eggs.", 0.71, "a1"),
        (
            "Vera Horak-476 is allergic to shellfish.",
            "Vera Horak-476 is allergic to pollen.",
            0.79,
            "a2",
        ),
        ("Order #7: the parcel is in Leipzig.", "Order #9: the parcel is in Dresden.", 0.72, "a1"),
        ("Priya Nair is fluent in Spanish.", "Priya Nair is fluent in Portuguese.", 0.90, "a1"),
    ],
)
def test_many_valued_slots_and_distinct_identifiers_are_no_conflict(
    old: str, new: str, sim: float, agent: str
) -> None:
    j = decide(old, new, sim, agent=agent)
    assert j.verdict is Verdict.ADD, j.reason


@pytest.mark.parametrize(
    ("old", "new", "sim", "agent", "kind"),
    [
        (
            "The budget for Lark-372 is 144k this quarter.",
            "The budget for Lark-372 is 336k this quarter.",
            0.93,
            "a1",
            "numbers",
        ),
        (
            "The Wren-539 sync is on Fridays at 09:30.",
            "The Wren-539 sync is on Fridays at 14:30.",
            0.99,
            "a1",
            "numbers",
        ),
        (
            "The Wren-539 sync is on Fridays at 09:30.",
            "The Wren-539 sync is on Fridays at 14:30.",
            0.99,
            "a2",
            "cross_agent",
        ),
        (
            "Incident 6068: the Heron-72 service was down for 78 minutes.",
            "Incident 6068: the Heron-72 service was down for 45 minutes.",
            0.98,
            "a1",
            "numbers",
        ),
        ("Ana Costa is married to Tom.", "Ana Costa is married to Luis.", 0.80, "a1", "value"),
        # A change word around the same value is a conflict on the date, not a supersession.
        ("I moved to Berlin in 2019.", "I moved to Berlin in 2021.", 0.95, "a1", "numbers"),
    ],
)
def test_genuine_disagreements_stay_conflicts(
    old: str, new: str, sim: float, agent: str, kind: str
) -> None:
    j = decide(old, new, sim, agent=agent)
    assert (j.verdict, j.conflict_type) == (Verdict.CONTRADICT, kind), j.reason


@pytest.mark.parametrize(
    "old",
    ["The Piper-952 deadline moved to 6 October.", "The Piper-952 deadline is 6 October."],
)
def test_a_moved_deadline_supersedes_the_old_date(old: str) -> None:
    j = decide(old, "The Piper-952 deadline moved to 6 June.", 0.95)
    assert j.verdict is Verdict.SUPERSEDE, j.reason


def test_a_bare_adjective_and_its_complement_are_one_slot() -> None:
    j = decide(
        "The release is blocked.", "The release is blocked by the failing migration test.", 0.66
    )
    assert j.verdict is Verdict.UPDATE
    assert decide("Ana is CEO of Acme.", "Ana is the CEO of Acme.", 1.0).verdict is Verdict.NOOP
    # Values that include neither the other stay in their own slots: no clash.
    j = decide("Bruno Brandt is a painter.", "Bruno Brandt is allergic to sesame.", 0.3)
    assert j.verdict is Verdict.ADD


def test_a_renamed_thing_supersedes_its_old_name() -> None:
    j = decide("The default branch is master.", "The default branch was renamed to main.", 0.69)
    assert j.verdict is Verdict.SUPERSEDE


def test_an_add_to_a_many_valued_slot_says_so() -> None:
    """The reason names the slot that holds several values, not "another subject"."""
    j = decide("Priya Nair is fluent in Spanish.", "Priya Nair is fluent in Portuguese.", 0.9)
    assert j.verdict is Verdict.ADD
    assert "holds several" in j.reason
    assert "not the same subject" not in j.reason
    other = decide("My cat is black.", "My dog sleeps all day on the sofa.", 0.6)
    assert other.verdict is Verdict.ADD
    assert "holds several" not in other.reason


def test_a_conversation_knows_the_names_it_wrote_with_capitals_mid_sentence() -> None:
    # SGD dev 10_00106: "What about Hackers?" / "Sure, let's go with hackers." A capital that
    # opens a sentence names nothing (LoCoMo conv-30: "Dance is my passion." made every later
    # "dance" a name, and "Wanna see my moves next Fri?" changed it to "fri").
    t = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    offer = replace(neighbour("Assistant: What about Hackers?", 0.5), session="s", when=t)
    said = "User: Sure, let's go with hackers."
    new = replace(candidate(said), session="s", when=t + dt.timedelta(minutes=1))
    taken = judge(new, [offer], CONFIG)
    assert taken.target_id == "u1"
    assert taken.verdict in (Verdict.ADD, Verdict.NOOP)
    elsewhere = judge(replace(new, session="other"), [offer], CONFIG)
    assert elsewhere.target_id is None  # in another conversation, "hackers" is just a word
    # a capital that opens a sentence names nothing
    opens = replace(
        neighbour("Jon: Dance is my passion. We met Ana at Salsa Club.", 0.5), session="s"
    )
    assert _names(replace(new, text="Jon: I dance."), [opens]) == {"ana", "salsa club"}


def test_a_function_word_two_speakers_capitalize_mid_sentence_is_a_title() -> None:
    # SGD dev 6_00015: "I've located 1 movie, called After." / "let's go ahead and go with
    # After.": the film is a word that is otherwise a preposition. One speaker's capital inside
    # a sentence may be loose typing ("Ok, Shall I get bus"); two speakers agreeing name it.
    t = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    offer = replace(
        neighbour("Assistant: Sure, i've located 1 movie, called After.", 0.5), session="s", when=t
    )
    said = "User: that sounds good, let's go ahead and go with After."
    new = replace(candidate(said), session="s", when=t + dt.timedelta(minutes=1))
    taken = judge(new, [offer], CONFIG)
    assert taken.target_id == "u1"
    assert taken.verdict in (Verdict.ADD, Verdict.NOOP)
    assert "after" in _names(new, [offer])
    # one speaker alone, or the word opening a sentence, names nothing
    loose = replace(neighbour("User: Ok, Shall I get bus. After that a cab.", 0.5), session="s")
    opens = replace(neighbour("Assistant: Shall I book it? After 5 pm?", 0.5), session="s")
    assert _names(replace(new, text="User: Then Shall we go?"), [loose, opens]) == frozenset()
    # once a title, the word is one only where it is written with its capital
    lunch = replace(candidate("User: I'll call after lunch."), session="s")
    assert "after" not in {v.norm for v in analyze_knowing(lunch.text, _names(new, [offer])).values}


def test_a_fuller_taste_is_kept_beside_the_shorter() -> None:
    """LoCoMo conv-42: "I love it when you make coconut milk icecream" refined "I love your
    icecream so much!" and, a preference never being rewritten silently, became a question.
    A taste may be several: the fuller one is kept beside it."""
    j = decide(
        "Joanna: I love your icecream so much!",
        "Joanna: I love it when you make coconut milk icecream, it's so good!",
        0.7,
    )
    assert j.verdict is Verdict.ADD
    assert not j.destructive
    # A one-valued slot's fuller value still refines it.
    assert decide("I live in Berlin.", "I live in Berlin Mitte.", 0.85).verdict is Verdict.UPDATE
