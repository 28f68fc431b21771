"""Alias statements on the read path: which side a query names, and the query said the other way."""

from __future__ import annotations

import pytest

from mneme.read.aliases import mentions, rewrite, sides


@pytest.mark.parametrize(
    ("query", "statement", "text", "name"),
    [
        (
            "Which ticket did Nnamdi Okafor promise to fix?",
            "Nnamdi Okafor joined the billing team; everyone calls him Nam.",
            "Which ticket did Nam promise to fix?",
            "Nam",
        ),
        (
            "When does the Platform Guild hold office hours?",
            "The Platform Guild was renamed to the Foundations team.",
            "When does the Foundations team hold office hours?",
            "Foundations",
        ),
        (
            "When is the next customer success review with Harbor Bank?",
            "In these notes, CSR means the customer success review with Harbor Bank.",
            "When is the next CSR?",
            "CSR",
        ),
        (
            "Until when is Marisol Vega on leave?",
            "The chat handle @pixelfox belongs to Marisol Vega from design.",
            "Until when is chat handle @pixelfox on leave?",
            "@pixelfox",
        ),
        (
            "What did Clearview Glazing ask for?",
            "The account we call 'the glass people' is Clearview Glazing Ltd.",
            "What did the glass people ask for?",
            "the glass people",
        ),
    ],
)
def test_a_query_naming_one_side_is_asked_with_the_other(
    query: str, statement: str, text: str, name: str
) -> None:
    found = rewrite(query, statement)
    assert found is not None
    assert (found.text, found.name) == (text, name)


def test_no_alias_no_rewrite() -> None:
    assert sides("Keanu works at Brightline Labs.") is None
    assert sides("The laptop belongs to Marisol.") is None  # an object, not an identifier
    statement = "Nnamdi Okafor joined the billing team; everyone calls him Nam."
    assert rewrite("Where is the billing freeze announced?", statement) is None
    assert rewrite("What do we call Nnamdi Okafor?", statement) is None  # asks about names


def test_a_memory_mentions_a_name_by_all_its_words() -> None:
    assert mentions("@pixelfox is out on leave until 21 June.", "@pixelfox")
    assert not mentions("The glass door is broken.", "the glass people")
