"""Categories, threads and insights: the pure rules (ADR 0056)."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from mneme.core import insights as rules
from mneme.core.categories import Term, VocabularyPolicy, phrases, singular, tag
from mneme.core.causal import Said, stitch
from mneme.core.threads import ThreadPolicy, label_propagation, pmi, threads, word_communities


class WordSpace:
    """A space where two phrases are as close as the words they share (Jaccard)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str]] = []

    def add(self, category: str, phrase: str) -> None:
        self.rows.append((category, phrase))

    def nearest(self, phrase: str) -> tuple[str, float] | None:
        if not self.rows:
            return None
        mine = set(phrase.split())

        def score(row: tuple[str, str]) -> float:
            theirs = set(row[1].split())
            return len(mine & theirs) / len(mine | theirs)

        best = max(self.rows, key=score)
        return best[0], score(best)


def test_phrases_are_noun_runs_without_names_stopwords_or_verbs() -> None:
    found = phrases(
        "Shares of Fizzco fell after the bottler warned that rising input costs will squeeze "
        "its margins.",
        entities=["Fizzco"],
    )
    assert "input cost" in found
    assert "margin" in found
    assert "bottler" in found
    assert not any("fizzco" in p or "squeeze" in p or "rising" in p for p in found)
    assert phrases("Corn syrup prices have jumped")[:2] == ["corn syrup", "syrup price"]
    assert singular("cities") == "city"
    assert singular("glass") == "glass"


def test_tagging_matches_folds_aliases_and_mints_on_a_miss() -> None:
    space = WordSpace()
    space.add("corn harvest", "corn harvest")
    result = tag(
        [("u1", ["corn harvest", "input cost"]), ("u2", ["harvest corn crop", "input cost"])],
        [Term("corn harvest")],
        space,
        VocabularyPolicy(match_floor=0.5),
    )
    assert result.tags == {
        "u1": ("corn harvest", "input cost"),
        "u2": ("corn harvest", "input cost"),
    }
    assert result.minted == {"input cost": "u1"}
    assert result.aliases == {"corn harvest": ("harvest corn crop",)}
    assert result.misses == ()


def test_a_vocabulary_at_its_cap_assigns_the_nearest_and_records_the_miss() -> None:
    space = WordSpace()
    space.add("drought", "drought")
    result = tag([("u1", ["stock price"])], [Term("drought")], space, VocabularyPolicy(cap=1))
    assert result.tags == {"u1": ("drought",)}
    assert result.minted == {}
    # "stock price" is said once: it stands for its head word, which misses at the cap.
    assert [(m.unit_id, m.phrase, m.assigned) for m in result.misses] == [
        ("u1", "price", "drought")
    ]


def test_a_compound_said_once_stands_for_its_head_word_and_one_said_twice_is_minted() -> None:
    result = tag(
        [("u1", ["corn syrup", "syrup price"]), ("u2", ["corn syrup", "bottler"]),
         ("u3", ["share price"])],
        [], WordSpace(), VocabularyPolicy(match_floor=0.9),
    )  # fmt: skip
    assert result.tags == {
        "u1": ("corn syrup", "price"),
        "u2": ("corn syrup", "bottler"),
        "u3": ("price",),  # said once: its head, which links it to u1
    }
    assert set(result.minted) == {"corn syrup", "price", "bottler"}


def test_pmi_is_positive_for_sets_that_meet_more_than_chance() -> None:
    a, b = frozenset({"1", "2"}), frozenset({"2", "3"})
    assert pmi(a, b, 10) == pytest.approx(math.log2(10 / 4))
    assert pmi(a, frozenset({"9"}), 10) == -math.inf


def test_label_propagation_splits_two_cliques_joined_by_nothing() -> None:
    edges = {"a": {"b": 1.0}, "b": {"a": 1.0}, "c": {"d": 1.0}, "d": {"c": 1.0}}
    labels = label_propagation(["a", "b", "c", "d"], edges)
    assert labels["a"] == labels["b"] != labels["c"] == labels["d"]


def _chain_bank() -> tuple[
    dict[str, frozenset[str]], dict[str, tuple[object, ...]], dict[str, frozenset[str]]
]:
    # w1..w4 each witness one hop of a -> b -> c -> d -> e; n1, n2 are noise.
    tags = {"w1": "ab", "w2": "bc", "w3": "cd", "w4": "de", "n1": "x", "n2": "y"}
    members: dict[str, set[str]] = {}
    for unit, cats in tags.items():
        for c in cats:
            members.setdefault(c, set()).add(unit)
    order: dict[str, tuple[object, ...]] = {u: (i, u) for i, u in enumerate(tags)}
    words: dict[str, frozenset[str]] = {
        "w1": frozenset({"dry", "rain", "crop", "field"}),
        "w2": frozenset({"crop", "field", "yield", "price"}),
        "w3": frozenset({"price", "yield", "cost"}), "w4": frozenset({"cost", "price", "share"}),
        "n1": frozenset({"cat"}), "n2": frozenset({"dog"}),
    }  # fmt: skip
    return {c: frozenset(m) for c, m in members.items()}, order, words


def test_a_chain_of_hops_is_found_as_one_thread_with_its_witnesses_in_order() -> None:
    members, order, words = _chain_bank()
    found = threads(members, 6, order, lambda a, b: 0.5, words, ThreadPolicy(min_hops=3))
    ranked = rules.rank(found.threads, order, {u: u for u in order})
    assert [c.thread.witnesses for c in ranked] == [("w1", "w2", "w3", "w4")]
    assert ranked[0].thread.categories == ("a", "b", "c", "d", "e")
    assert not found.exhausted


def test_the_coherence_floor_and_the_one_word_guard_cut_a_thread() -> None:
    members, order, words = _chain_bank()
    policy = ThreadPolicy(min_hops=3)
    incoherent = threads(members, 6, order, lambda a, b: 0.1, words, policy)
    assert incoherent.threads == ()
    one_word = {**words, "w3": frozenset({"price", "bank"}), "w4": frozenset({"bank", "share"})}
    assert word_communities(one_word)["w3"] != word_communities(one_word)["w2"]
    cut = threads(members, 6, order, lambda a, b: 0.5, one_word, policy)
    assert all(len(t.hops) < 3 or "w4" not in t.witnesses for t in cut.threads)
    assert rules.rank(cut.threads, order, {u: u for u in order}) == []


def test_two_witnesses_said_in_one_session_are_no_link() -> None:
    members, order, words = _chain_bank()
    policy = ThreadPolicy(min_hops=3)
    apart = {"w1": "s1", "w2": "s2", "w3": "s3", "w4": "s4"}
    found = threads(members, 6, order, lambda a, b: 0.5, words, policy, apart)
    ranked = rules.rank(found.threads, order, {u: u for u in order})
    assert [c.thread.witnesses for c in ranked] == [("w1", "w2", "w3", "w4")]
    together = {**apart, "w3": "s2"}  # w2 and w3 were said in one conversation
    cut = threads(members, 6, order, lambda a, b: 0.5, words, policy, together)
    assert cut.threads == ()
    unknown = dict.fromkeys(apart)  # no session known: no cut
    assert threads(members, 6, order, lambda a, b: 0.5, words, policy, unknown).threads


def test_a_category_below_the_support_floor_joins_no_witnesses() -> None:
    members, order, words = _chain_bank()
    found = threads(members, 6, order, lambda a, b: 0.5, words,
                    ThreadPolicy(min_hops=3, min_support=3))  # fmt: skip
    assert found.threads == ()  # b, c and d tag two memories each


def test_threads_sharing_a_witness_are_one_candidate() -> None:
    members, order, words = _chain_bank()
    # w2b is a second witness of hop b -> c: the same chain with one witness swapped.
    members = {**members, "b": members["b"] | {"w2b"}, "c": members["c"] | {"w2b"}}
    order = {**order, "w2b": (1, "w2b")}
    words = {**words, "w2b": words["w2"]}
    found = threads(members, 7, order, lambda a, b: 0.5, words, ThreadPolicy(min_hops=3))
    assert len({t.witnesses for t in found.threads}) >= 2
    ranked = rules.rank(found.threads, order, {u: u for u in order})
    assert len(ranked) == 1


def test_the_step_bound_stops_the_search_and_says_so() -> None:
    members, order, words = _chain_bank()
    found = threads(members, 6, order, lambda a, b: 0.5, words, ThreadPolicy(max_steps=2))
    assert found.exhausted


def test_a_subsumed_thread_is_dropped_and_the_flood_guard_caps_a_pass() -> None:
    members, order, words = _chain_bank()
    found = threads(members, 6, order, lambda a, b: 0.5, words, ThreadPolicy(min_hops=2))
    ranked = rules.rank(found.threads, order, {u: u for u in order})
    assert len(ranked) == 1  # every shorter thread is inside the longest
    flood = rules.flood_guard(ranked * 3, rules.InsightPolicy(max_new=2))
    assert len(flood.write) == 2
    assert flood.held_back == 1
    assert flood.paused


def test_verdicts_follow_the_witnesses() -> None:
    hops = [{"src": "a", "dst": "b", "witness": "w1"}, {"src": "b", "dst": "c", "witness": "w2"}]
    live = {"w1": rules.WitnessState(True, "active", ("a", "b")),
            "w2": rules.WitnessState(True, "active", ("b", "c"))}  # fmt: skip
    policy = rules.InsightPolicy(retire_after_days=30)
    day = dt.timedelta(days=1)
    assert rules.verdict(hops, live, True, "proposed", day, policy).state == "verified"
    rejected = {**live, "w2": rules.WitnessState(False, "rejected", ("b", "c"))}
    v = rules.verdict(hops, rejected, True, "verified", day, policy)
    assert v.state == "retired"
    assert "w2" in v.reason
    assert "rejected" in v.reason
    assert rules.verdict(hops, {**live, "w1": None}, True, "proposed", day, policy).state == (
        "retired"
    )
    untagged = {**live, "w2": rules.WitnessState(True, "active", ("b",))}
    assert rules.verdict(hops, untagged, False, "proposed", day, policy).state == "proposed"
    old = rules.verdict(hops, untagged, False, "proposed", 31 * day, policy)
    assert old.state == "retired"


def test_stitching_reads_only_explicit_causes_between_memories_sharing_an_entity() -> None:
    said = [
        Said("m1", "The Midwest is in a severe drought.", ("Midwest",), (1, "m1")),
        Said("m2", "Midwest corn harvest shrank because of the drought.", ("Midwest",), (2, "m2")),
        Said("m3", "Midwest harvest festival starts after the drought.", ("Midwest",), (3, "m3")),
        Said("m4", "Prices rose because of the drought.", (), (4, "m4")),
    ]  # fmt: skip
    found = stitch(said, 10)
    assert [(b.effect, b.cause, b.connective) for b in found] == [("m2", "m1", "because of")]
    assert stitch(said, 0) == []
