"""What the core checks of an LLM's proposals before anything is written (ADR 0058): a
summary's claims against their cited evidence, a category's name, the pairs a causal judge
is asked about."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from mneme.core.categories import Tagging, Term
from mneme.core.causal import Said, pairs
from mneme.core.grounding import Claim, check
from mneme.core.naming import check as check_name
from mneme.core.naming import rename
from mneme.core.observations import Evidence, Observation, from_claims

EVIDENCE = {
    "u1": "Caroline started training as a counsellor in May 2023.",
    "u2": "Caroline went to the LGBTQ support group on 7 May.",
}


def test_a_claim_its_evidence_supports_is_kept_and_cites_what_it_rests_on():
    found = check(
        [Claim("Caroline started training as a counsellor in May 2023.", ("u1",))],
        EVIDENCE,
        literal=True,
    )
    assert [c.cites for c in found.kept] == [("u1",)]
    assert found.cited == ("u1",)


def test_a_claim_naming_what_its_evidence_does_not_hold_is_dropped():
    found = check(
        [
            Claim("Caroline started training as a counsellor in June 2021.", ("u1",)),
            Claim("Melanie went to the support group.", ("u2",)),
            Claim("Caroline went to the support group.", ("u1",)),  # cites the wrong unit
        ],
        EVIDENCE,
        literal=False,
    )
    assert found.kept == ()
    whys = [d.why for d in found.dropped]
    assert "['June', '2021']" in whys[0]
    assert "['Melanie']" in whys[1]
    assert "group" in whys[2]


def test_citations_must_be_of_the_group_and_not_empty():
    found = check(
        [Claim("Caroline went to the support group.", ()), Claim("x y z", ("u9",))],
        EVIDENCE,
        literal=True,
    )
    assert [d.why for d in found.dropped] == [
        "it cites no evidence",
        "it cites ['u9'], not evidence of this group",
    ]


def test_literalism_refuses_the_models_own_words_and_compression_allows_a_few():
    claim = Claim("Caroline attended the support group.", ("u2",))
    assert check([claim], EVIDENCE, literal=True).kept == ()
    assert check([claim], EVIDENCE, literal=False).kept == (claim,)
    loose = Claim("Caroline happily attended a lively weekly support meeting.", ("u2",))
    assert check([loose], EVIDENCE, literal=False).kept == ()


def test_a_repeated_claim_is_kept_once():
    claim = Claim("Caroline went to the support group.", ("u2",))
    found = check([claim, claim], EVIDENCE, literal=True)
    assert found.kept == (claim,)
    assert found.dropped[0].why == "repeats a claim already kept"


@given(st.text(max_size=80), st.lists(st.sampled_from(["u1", "u2", "u3", ""]), max_size=3))
def test_a_kept_claim_always_cites_only_the_groups_units(text, cites):
    found = check([Claim(text, tuple(cites))], EVIDENCE, literal=False)
    for claim in found.kept:
        assert claim.cites
        assert set(claim.cites) <= set(EVIDENCE)


def test_an_observation_from_claims_rests_on_the_cited_evidence_and_keeps_its_keys():
    day = dt.datetime(2023, 5, 1, tzinfo=dt.UTC)
    members = [
        Evidence("u1", EVIDENCE["u1"], day, sources=("s1",)),
        Evidence("u2", EVIDENCE["u2"], day + dt.timedelta(days=6), sources=("s2",)),
    ]
    obs = Observation("entity:caroline", "Caroline", "offline text", ("u0", "u1", "u2"),
                      ("s0", "s1", "s2"), day, day, "fact", "key0")  # fmt: skip
    made = from_claims(obs, members, ["Caroline trains as a counsellor."])
    assert made.evidence_ids == ("u1", "u2")
    assert made.source_ids == ("s1", "s2")
    assert (made.key, made.content_key) == ("entity:caroline", "key0")
    assert made.text == (
        "About Caroline (1 May 2023 to 7 May 2023, 2 statements): Caroline trains as a counsellor."
    )


def test_a_category_name_is_short_specific_and_grounded_in_the_memory():
    text = "Farmers expect the corn harvest to shrink."
    assert check_name("Corn Harvests", "harvest", text) == ("corn harvest", "")
    assert check_name("agricultural output", "harvest", text)[0] is None
    assert check_name("general topic", "harvest", text)[0] is None
    assert check_name("the", "harvest", text)[0] is None
    assert check_name("corn_harvest", "harvest", text)[0] is None
    assert check_name("corn harvest size shrink", "harvest", text)[0] is None


def test_renaming_renames_folds_into_a_known_category_and_rewrites_the_tags():
    tagging = Tagging(
        tags={"u1": ("harvest", "farmer"), "u2": ("drought",)},
        minted={"harvest": "u1", "farmer": "u1", "drought": "u2"},
        aliases={"harvest": ("harvests",)},
    )
    texts = {"u1": "Farmers expect the corn harvest to shrink.", "u2": "A dry spell: drought."}
    vocabulary = [Term("dry spell", ("dryness",))]
    done = rename(
        tagging,
        vocabulary,
        {"harvest": "corn harvest", "farmer": "corn harvest", "drought": "dry spell"},
        texts,
    )
    assert done.named == {"harvest": "corn harvest", "farmer": "corn harvest",
                          "drought": "dry spell"}  # fmt: skip
    assert done.tagging.minted == {"corn harvest": "u1"}
    assert set(done.tagging.aliases["corn harvest"]) == {"harvest", "harvests", "farmer"}
    assert done.tagging.aliases["dry spell"] == ("drought",)
    assert done.tagging.tags == {"u1": ("corn harvest",), "u2": ("dry spell",)}


def test_judge_pairs_share_an_entity_and_a_word_and_are_never_asked_twice():
    said = [
        Said("a", "The drought in Iowa dried the fields.", ("Iowa",), ("1", "a")),
        Said("b", "Iowa farmers expect little from the dry fields.", ("Iowa",), ("2", "b")),
        Said("c", "Iowa has a new governor.", ("Iowa",), ("3", "c")),
        Said("d", "The fields in Ohio are green.", ("Ohio",), ("4", "d")),
    ]
    found = pairs(said, {}, 10)
    assert [(p.first, p.second, p.shared) for p in found] == [("a", "b", ("field",))]
    assert found[0].entities == ("iowa",)
    assert pairs(said, {"b": frozenset({"a"})}, 10) == []
    assert pairs(said, {}, 0) == []
