"""The offline language layer: atoms, classification, entities and query terms."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.atomize import split_atoms
from mneme.core.language import (
    EntityMention,
    classify,
    entity_key,
    extract_entities,
    query_terms,
    tokens,
)
from mneme.core.model import Network, UnitType
from mneme.core.wordlists import STOPWORDS

# --- split_atoms -------------------------------------------------------------------------------


def test_second_sentence_pronoun_is_resolved_to_the_named_person() -> None:
    text = "Carol is a nurse at the city hospital. She lives in Porto with her sister."
    assert split_atoms(text) == [
        "Carol is a nurse at the city hospital.",
        "Carol lives in Porto with her sister.",
    ]


def test_coordinated_clauses_with_their_own_subject_are_split() -> None:
    assert split_atoms("Carol is a nurse and she lives in Porto") == [
        "Carol is a nurse.",
        "Carol lives in Porto.",
    ]


def test_comma_but_clause_with_a_pronoun_subject_is_split() -> None:
    assert split_atoms("Harbor Labs hired Jane Doe, but she left after a month.") == [
        "Harbor Labs hired Jane Doe.",
        "Jane Doe left after a month.",
    ]


def test_semicolon_joins_two_claims() -> None:
    assert split_atoms("I went to the store; Bob stayed home all day.") == [
        "I went to the store.",
        "Bob stayed home all day.",
    ]


def test_a_comma_list_of_whole_claims_is_split() -> None:
    """A note of several facts in one sentence is several memories: changing one of them must
    not retire the others with it."""
    assert split_atoms(
        "Kim leads QA, Raj owns the billing service, the deploy window is Tuesday 14:00, "
        "and the staging host is stg-04."
    ) == [
        "Kim leads QA.",
        "Raj owns the billing service.",
        "The deploy window is Tuesday 14:00.",
        "The staging host is stg-04.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "When I got home, I cooked dinner.",
        "Thanks, Caroline, I love it!",
        "Yeah, I love it, it was so fun.",
        "My kids love it, they play all day long.",
        "I bought salt, pepper, olive oil, and bread.",
    ],
)
def test_a_comma_after_an_opener_a_subordinate_clause_or_in_a_list_of_things_splits_nothing(
    text: str,
) -> None:
    assert split_atoms(text) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Alice and Bob went to Paris.",
        "I like tea and coffee.",
        "I bought salt, pepper and oil.",
        "My friend Alice and Bob went to Paris last May.",
        "I stayed home because it was raining and cold.",
        "We left early so that we could catch the train.",
        "I ran and she swam.",
        "Did you go and did she stay?",
    ],
)
def test_noun_phrases_subordinate_clauses_and_short_sides_stay_whole(text: str) -> None:
    assert split_atoms(text) == [text]


def test_transcript_speaker_prefix_is_kept_on_every_atom() -> None:
    text = "Caroline: I went to a support group yesterday. It was powerful."
    assert split_atoms(text) == [
        "Caroline: I went to a support group yesterday.",
        "Caroline: It was powerful.",
    ]


def test_locomo_line_merges_short_exclamations_into_the_next_sentence() -> None:
    text = (
        "Melanie: Wow, Caroline! That's awesome. "
        "I ran a charity race for mental health last Saturday."
    )
    assert split_atoms(text) == [
        "Melanie: Wow, Caroline! That's awesome.",
        "Melanie: I ran a charity race for mental health last Saturday.",
    ]


def test_a_trailing_short_fragment_joins_the_previous_atom() -> None:
    assert split_atoms("I finished the marathon today. Thanks!") == [
        "I finished the marathon today. Thanks!"
    ]


def test_a_text_of_only_short_fragments_stays_one_atom() -> None:
    assert split_atoms("Wow! Thanks! Haha") == ["Wow! Thanks! Haha."]


def test_label_prefixes_are_not_speakers() -> None:
    assert split_atoms("Note: the server restarts at midnight.") == [
        "Note: the server restarts at midnight."
    ]


def test_each_transcript_line_keeps_its_own_speaker() -> None:
    text = "Caroline: I adopted a puppy last week.\nMelanie: That is such great news for you!"
    assert split_atoms(text) == [
        "Caroline: I adopted a puppy last week.",
        "Melanie: That is such great news for you!",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Dr. Smith met Mr. Jones at 10 a.m. on Main St. in the U.S. yesterday.",
        "The price went up by 3.5 percent after version 1.2.3 shipped at 10:30.",
        "Email me at bob.smith@example.com or see https://example.org/a.b.html today.",
        "We need fruit, e.g. apples and pears, for the picnic.",
        "The author J. K. Rowling wrote seven books.",
        "Mrs. Brown lives on Elm St. near the park.",
    ],
)
def test_abbreviations_decimals_versions_emails_and_urls_do_not_split(text: str) -> None:
    assert split_atoms(text) == [text]


def test_an_abbreviation_before_a_sentence_opener_ends_the_sentence() -> None:
    assert split_atoms("We met at 10 a.m. Then we left for lunch.") == [
        "We met at 10 a.m.",
        "Then we left for lunch.",
    ]


def test_possessive_pronoun_becomes_a_possessive_name() -> None:
    assert split_atoms("Tom is a teacher. His car is red.") == [
        "Tom is a teacher.",
        "Tom's car is red.",
    ]


def test_they_after_a_coordinated_pair_resolves_to_the_pair() -> None:
    assert split_atoms("Alice and Bob went to Paris. They loved the museums.") == [
        "Alice and Bob went to Paris.",
        "Alice and Bob loved the museums.",
    ]


def test_they_is_never_one_name() -> None:
    # LoCoMo conv-26/conv-41: "Thanks, Maria. They really help me stay centered." was stored
    # as "Maria really help me stay centered", and "They're full of potholes" as "Maria're
    # full of potholes": a statement about someone it is not about.
    assert split_atoms("John: Thanks, Maria. They really help me stay centered.") == [
        "John: Thanks, Maria. They really help me stay centered.",
    ]
    assert split_atoms("Oliver hid his bone. Their fur is soft.")[1] == "Their fur is soft."


def test_pronoun_without_antecedent_is_left_alone() -> None:
    assert split_atoms("She lives in Porto with her sister.") == [
        "She lives in Porto with her sister."
    ]


def test_places_are_not_pronoun_antecedents() -> None:
    assert split_atoms("Carol moved to Porto last year. She loves the river.") == [
        "Carol moved to Porto last year.",
        "Carol loves the river.",
    ]


def test_bullet_and_newline_lines_become_atoms() -> None:
    text = "- buy milk on the way home\n- call Carol about the trip\n\n* fix the bike tire"
    assert split_atoms(text) == [
        "buy milk on the way home.",
        "call Carol about the trip.",
        "fix the bike tire.",
    ]


def test_whitespace_is_normalized_and_atoms_end_with_punctuation() -> None:
    assert split_atoms("  I   moved to   Lisbon\tin 2020  ") == ["I moved to Lisbon in 2020."]


def test_empty_and_blank_text_yield_no_atoms() -> None:
    assert split_atoms("") == []
    assert split_atoms(" \n\t ") == []


def test_split_atoms_is_fast_enough_for_ingest() -> None:
    turn = (
        "Melanie: Wow, Caroline! That's awesome. I ran a charity race for mental health last "
        "Saturday. She said it was great and she wants to do it again next year."
    )
    split_atoms(turn)
    start = time.perf_counter()
    for _ in range(200):
        split_atoms(turn)
    per_turn = (time.perf_counter() - start) / 200
    assert per_turn < 0.005  # the budget is 1 ms; a loose bound keeps slow CI green


_PRONOUNS = {"he", "she", "they", "his", "her", "their", "and", "but"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.casefold()))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_atoms_are_never_empty_and_only_use_input_words_or_names(text: str) -> None:
    atoms = split_atoms(text)
    assert atoms == split_atoms(text)  # deterministic
    source = _words(text)
    for atom in atoms:
        assert atom.strip()
        assert _words(atom) <= source | {"s"}  # "s" of a possessive resolved name
    # Nothing is lost but a replaced pronoun or a dropped conjunction.
    assert source - _PRONOUNS <= _words(" ".join(atoms))


_SENTENCE_WORDS = st.sampled_from(
    str.split(
        "Carol Bob Alice She He They His Her I we and but , ; . ! ? is lives went to Porto the "
        "a nurse Dr. e.g. 3.5 U.S. wow thanks because Caroline: likes tea coffee"
    )
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SENTENCE_WORDS, max_size=25))
def test_sentence_like_soup_keeps_every_word(words: list[str]) -> None:
    text = " ".join(words)
    atoms = split_atoms(text)
    source = _words(text)
    joined = _words(" ".join(atoms))
    assert joined <= source | {"s"}
    assert source - _PRONOUNS <= joined
    assert all(a.strip() for a in atoms)


# --- classify ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("atom", "network", "unit_type"),
    [
        ("Carol is a nurse at the city hospital.", Network.WORLD, UnitType.FACT),
        ("The meeting is on Tuesday.", Network.WORLD, UnitType.FACT),
        ("I went to Paris last year.", Network.EXPERIENCE, UnitType.EXPERIENCE),
        ("We visited Rome in May.", Network.EXPERIENCE, UnitType.EXPERIENCE),
        ("I attended a pottery class.", Network.EXPERIENCE, UnitType.EXPERIENCE),
        (
            "Caroline: I went to a support group yesterday.",
            Network.EXPERIENCE,
            UnitType.EXPERIENCE,
        ),
        ("I have finished the report.", Network.EXPERIENCE, UnitType.ACHIEVEMENT),
        ("I graduated from college in 2019.", Network.EXPERIENCE, UnitType.ACHIEVEMENT),
        ("Bob won the chess tournament.", Network.WORLD, UnitType.ACHIEVEMENT),
        ("I think the movie was the best.", Network.OPINION, UnitType.OPINION),
        ("I believe the earth is round.", Network.OPINION, UnitType.BELIEF),
        ("In my opinion the plan is risky.", Network.OPINION, UnitType.OPINION),
        ("Python is the best language.", Network.OPINION, UnitType.OPINION),
        ("It seems to be raining.", Network.OPINION, UnitType.OPINION),
        ("You should try the sushi.", Network.OPINION, UnitType.OPINION),
        ("Caroline: It was powerful.", Network.OPINION, UnitType.OPINION),
        ("I love hiking in the mountains.", Network.WORLD, UnitType.PREFERENCE),
        ("My favorite color is blue.", Network.WORLD, UnitType.PREFERENCE),
        ("I can't stand loud music.", Network.WORLD, UnitType.PREFERENCE),
        ("Carol prefers tea over coffee.", Network.WORLD, UnitType.PREFERENCE),
        ("I want to learn piano.", Network.WORLD, UnitType.GOAL),
        ("I'm going to run a marathon.", Network.WORLD, UnitType.GOAL),
        ("My goal is to read fifty books.", Network.WORLD, UnitType.GOAL),
        ("I'd love to visit Japan someday.", Network.WORLD, UnitType.GOAL),
        ("I can speak French.", Network.WORLD, UnitType.SKILL),
        ("Maria speaks Portuguese.", Network.WORLD, UnitType.SKILL),
        ("I am good at chess.", Network.WORLD, UnitType.SKILL),
        ("I know how to fix bikes.", Network.WORLD, UnitType.SKILL),
        ("Remember to buy milk.", Network.WORLD, UnitType.ACTION),
        ("TODO: fix the flaky test", Network.WORLD, UnitType.ACTION),
        ("I need to call my mom.", Network.WORLD, UnitType.ACTION),
        ("Always use UTC timestamps.", Network.WORLD, UnitType.RULE),
        ("Never deploy on Fridays.", Network.WORLD, UnitType.RULE),
        ("We should always review migrations.", Network.OPINION, UnitType.RULE),
    ],
)
def test_classify_follows_the_documented_rules(
    atom: str, network: Network, unit_type: UnitType
) -> None:
    assert classify(atom) == (network, unit_type)


@pytest.mark.parametrize(
    "atom",
    [
        "I'm going to the store.",
        "It looks like rain.",
        "I speak to him every day.",
        "I never liked olives.",
        "I always drink coffee in the morning.",
        "Orbit raised the Basic plan to 9 euros a month.",
    ],
)
def test_classify_does_not_overreach(atom: str) -> None:
    _, unit_type = classify(atom)
    assert unit_type not in {UnitType.GOAL, UnitType.SKILL, UnitType.RULE}


@given(st.text(max_size=120))
def test_classify_never_returns_observation(text: str) -> None:
    network, unit_type = classify(text)
    assert network is not Network.OBSERVATION
    assert unit_type is not UnitType.INSIGHT


# --- extract_entities ----------------------------------------------------------------------------


def names(atom: str) -> list[tuple[str, str]]:
    return [(e.name, e.kind) for e in extract_entities(atom)]


def test_person_and_place_from_a_plain_fact() -> None:
    assert names("Carol is a nurse and lives in Porto.") == [
        ("Carol", "person"),
        ("Porto", "place"),
    ]


def test_possessive_is_stripped() -> None:
    assert names("Carol's car is red.") == [("Carol", "person")]


def test_titled_person_gets_the_untitled_alias() -> None:
    found = extract_entities("Dr. Jane Smith works at Harbor Labs in Porto.")
    assert found == [
        EntityMention("Dr. Jane Smith", "person", ("Jane Smith",)),
        EntityMention("Harbor Labs", "organization", ()),
        EntityMention("Porto", "place", ()),
    ]


def test_parenthesized_acronym_becomes_an_alias() -> None:
    found = extract_entities("The World Health Organization (WHO) issued a warning.")
    assert found == [EntityMention("World Health Organization", "organization", ("WHO",))]


def test_quoted_title_is_one_thing() -> None:
    assert names('I read "Charlotte\'s Web" to my kids.') == [("Charlotte's Web", "thing")]


def test_speaker_prefix_is_a_person() -> None:
    assert names("Melanie: Wow, Caroline! That's awesome.") == [
        ("Melanie", "person"),
        ("Caroline", "person"),
    ]


@pytest.mark.parametrize(
    "atom",
    [
        "The weather is nice.",
        "Yesterday was long.",
        "It was powerful.",
        "My sister called.",
        "Running shoes are great.",
        "I went there in June.",
        "Thanks!",
        "",
    ],
)
def test_common_sentence_starters_and_time_words_are_not_entities(atom: str) -> None:
    assert extract_entities(atom) == []


def test_sentence_initial_word_before_a_name_verb_is_an_entity() -> None:
    assert names("Yesterday Alice moved to Berlin.") == [("Alice", "person"), ("Berlin", "place")]


@pytest.mark.parametrize(
    ("atom", "name"),
    [
        ("Mira owns the on-call rota.", "Mira"),
        ("Dana leads the ingestion rewrite.", "Dana"),
        ("Priya chairs our design review.", "Priya"),
    ],
)
def test_a_lone_capital_before_a_verb_and_its_object_is_a_name(atom: str, name: str) -> None:
    # A new user's probe: names the given-name list does not hold were no values when they
    # opened a sentence with a verb outside the list ("owns", "leads"), so "Who leads the
    # ingestion rewrite?" found "His name is Pepper." first (it named someone).
    assert [n for n, _ in names(atom)] == [name]


@pytest.mark.parametrize(
    "atom",
    [
        "Pizza sounds good.",
        "Everyone loves the new office.",
        "Movie marathons with friends and popcorn, right?",
        "Music helps me relax.",
    ],
)
def test_a_capital_before_a_plural_or_a_verb_without_object_names_nothing(atom: str) -> None:
    assert extract_entities(atom) == []


def test_organizations_places_and_people_by_context() -> None:
    assert names("We walked through Central Park with my friend Zed from Acme Corp.") == [
        ("Central Park", "place"),
        ("Zed", "person"),
        ("Acme Corp", "organization"),
    ]
    assert names("She banks with Bank of America.") == [("Bank of America", "organization")]


def test_entities_come_in_order_without_duplicates() -> None:
    assert names("Bob met Alice, and Bob's sister met Alice too.") == [
        ("Bob", "person"),
        ("Alice", "person"),
    ]


@given(st.text(max_size=150))
def test_extract_entities_never_raises_and_names_are_nonempty(text: str) -> None:
    for e in extract_entities(text):
        assert e.name.strip()
        assert entity_key(e.name)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Carol's", "carol"),
        ("Carol’s", "carol"),
        ("  Dr.  Jane   Smith ", "dr jane smith"),
        ("U.S.", "us"),
        ("Harbor-Labs", "harbor labs"),
        ("CAROL", "carol"),
        ("James'", "james"),
    ],
)
def test_entity_key_is_a_normalized_lookup_key(name: str, key: str) -> None:
    assert entity_key(name) == key


# --- query analysis ------------------------------------------------------------------------------


def test_query_terms_drop_stopwords_and_possessives() -> None:
    assert query_terms("What is Carol's job?") == ["carol", "job"]


def test_query_terms_keep_digits_and_dedupe_in_order() -> None:
    assert query_terms("Is rack 4 in rack 12 or rack 4?") == ["rack", "4", "12"]


def test_query_terms_fall_back_to_all_tokens_when_everything_is_a_stopword() -> None:
    assert query_terms("What is it?") == ["what", "is", "it"]
    assert query_terms("") == []
    assert query_terms("?!") == []


def test_query_terms_do_not_stem() -> None:
    assert query_terms("Which paintings did Melanie paint?") == ["paintings", "melanie", "paint"]


def test_tokens_keep_everything_lowercased() -> None:
    assert tokens("What is Carol's job, 2x?") == ["what", "is", "carol", "s", "job", "2x"]


def test_stopwords_cover_question_words_and_auxiliaries() -> None:
    required = {
        "what", "when", "where", "who", "which", "how", "why", "do", "does", "did", "is",
        "are", "was", "were", "have", "has", "had", "would", "likely", "kind", "ever",
        "the", "a", "an", "of", "in", "he", "she", "they",
    }  # fmt: skip
    assert required <= STOPWORDS
    assert 150 <= len(STOPWORDS) <= 260
    assert all(w == w.lower() for w in STOPWORDS)


@given(st.text(max_size=120))
def test_query_terms_never_raise_and_are_nonempty_for_alphanumeric_input(text: str) -> None:
    terms = query_terms(text)
    assert len(terms) == len(set(terms))
    if tokens(text):
        assert terms


def test_a_contracted_pronoun_names_nothing() -> None:
    """ "You're" capitalized after a colon is a pronoun and a verb, not a name (SGD: "Okay,
    let's confirm: You're renting Green Book" read "you're" as a second value)."""
    names = [m.name for m in extract_entities("Okay, let's confirm: You're renting Green Book.")]
    assert names == ["Green Book"]
    assert extract_entities("Note: We'll send it. That's Mira's.")[-1].name == "Mira"


def test_it_after_a_contracted_pronoun_subject_keeps_its_own_words() -> None:
    """A clause whose subject is "It's" or "I'm" names no thing for the next "It" to be:
    LoCoMo's "It's kinda freeing, just putting my feelings on the canvas ... It's like a cool
    form of self-expression." became "just putting my's like a cool form of self-expression."."""
    atoms = split_atoms(
        "It's kinda freeing, just putting my feelings on the canvas without too much of a "
        "plan. It's like a cool form of self-expression."
    )
    assert atoms[-1] == "It's like a cool form of self-expression."
    atoms = split_atoms(
        "I'm after Marley flooring, which is what dance studios usually use. It's great "
        "'cause it's grippy."
    )
    assert atoms[-1].startswith("It's great")


@pytest.mark.parametrize(
    ("text", "it_clause"),
    [
        # LoCoMo turns (conv-42, conv-43): what came before the first verb was no thing, and
        # "It's great to ..." says "it" of the clause that follows; these became "No's great
        # to support each other", "Woohoo's pretty wild" and "The inspired me to make some art".
        (
            "No worries, Nate! It's great to support each other in reaching our goals.",
            "It's great to support each other in reaching our goals.",
        ),
        (
            "Woohoo, thanks Nate! It's pretty wild to see it come alive.",
            "It's pretty wild to see it come alive.",
        ),
        (
            "The room was electric with energy and support! The posters were amazing, so much "
            "pride and strength! It inspired me to make some art.",
            "It inspired me to make some art.",
        ),
    ],
)
def test_it_stands_for_no_words_that_are_not_a_thing(text: str, it_clause: str) -> None:
    assert split_atoms(text)[-1].endswith(it_clause)


def test_it_stands_for_a_thing_the_clause_before_names() -> None:
    assert (
        split_atoms("The Osprey router failed again; its replacement part number is RX-5531.")[-1]
        == "The Osprey router's replacement part number is RX-5531."
    )
    assert split_atoms("The energy in the room was wild. It gave me a boost.")[-1] == (
        "The energy in the room gave me a boost."
    )
    assert split_atoms("We visited NYC last spring. NYC is huge. It has so much to see.")[-1] == (
        "NYC has so much to see."
    )
    assert split_atoms("Your boldness really inspired me. It reminded me of a sunset.")[-1] == (
        "Your boldness reminded me of a sunset."
    )
    assert split_atoms("The infrastructure wasn't great. It's reminding me we need to fix it.")[
        -1
    ] == ("The infrastructure's reminding me we need to fix it.")


def test_a_sentence_end_typed_without_its_space_still_ends_it() -> None:
    """SGD users type "No.I would like to go to San Fran." and "I understand.Find me ...": the
    glued "No.I" was read as one name, a value the statement does not hold."""
    assert split_atoms("User: No.I would like to go to San Fran.") == [
        "User: No. I would like to go to San Fran."
    ]
    assert split_atoms("I understand the fees.Find me a round trip flight in economy class.") == [
        "I understand the fees.",
        "Find me a round trip flight in economy class.",
    ]
    # An address keeps its dots, and "No." before a number abbreviates it.
    assert split_atoms("Mail john.Smith@example.com today.") == [
        "Mail john.Smith@example.com today."
    ]
    assert split_atoms("He lives at No. 5 Main Street.") == ["He lives at No. 5 Main Street."]


# A name particle ending a run is trimmed ("Casa de la"), but one written in capitals is an
# acronym of its own: "LA" (26 SGD user turns name it; it was dropped whole).
@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("I want to fly to LA on Friday.", ["LA"]),
        ("Find me a hotel in LA please", ["LA"]),
        ("We stayed at Casa de la", ["Casa"]),
        ("I met Robert De Niro.", ["Robert De Niro"]),
    ],
)
def test_a_particle_in_capitals_is_a_name_of_its_own(text: str, names: list[str]) -> None:
    assert [m.name for m in extract_entities(text)] == names
