"""Cluster smoothing's group feature (core.ranking.group_match, ADR 0051): which observation
lends each cited unit its match."""

from __future__ import annotations

from mneme.core.ranking import group_match


def test_each_cited_unit_takes_the_best_matching_observation_citing_it():
    cited = {"o1": ["a", "b"], "o2": ["b", "c"]}
    got = group_match(cited, {"o1": 0.4, "o2": 0.7})
    assert got == {"a": (0.4, "o1"), "b": (0.7, "o2"), "c": (0.7, "o2")}


def test_an_observation_without_a_positive_match_lends_nothing():
    cited = {"o1": ["a"], "o2": ["b"], "o3": ["c"]}
    assert group_match(cited, {"o1": 0.0, "o2": -0.2}) == {}


def test_ties_go_to_the_smaller_id_whatever_the_order_given():
    assert group_match({"o2": ["a"], "o1": ["a"]}, {"o1": 0.5, "o2": 0.5}) == {"a": (0.5, "o1")}


def test_an_observation_never_lends_to_itself():
    assert group_match({"o1": ["o1", "a"]}, {"o1": 0.5}) == {"a": (0.5, "o1")}
