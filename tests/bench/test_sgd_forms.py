"""The SGD probes' value forms come from the dialogue state, read where it holds the value."""

from __future__ import annotations

from bench.sgd.data import Dialogue, Span, Turn, probes_of

SLOT = ("Restaurants_2", "date")


def _user(i: int, text: str, said: str | None, state: tuple[str, ...] | None) -> Turn:
    spans = (Span(*SLOT, said),) if said else ()
    held = ((SLOT, state),) if state is not None else ()
    return Turn("d1", i, "USER", text, spans, held)


def _assistant(i: int, text: str, said: str | None = None) -> Turn:
    return Turn("d1", i, "SYSTEM", text, (Span(*SLOT, said),) if said else ())


def test_a_read_back_in_a_later_state_is_a_form_of_the_value_even_when_the_dialogue_moves_on():
    turns = (
        _user(0, "Book it on the 5th of this month.", "5th of this month", ("5th of this month",)),
        _assistant(1, "A table on march 5th?", "march 5th"),
        _user(2, "Yes.", None, ("5th of this month", "march 5th")),
        _user(4, "Try the 11th instead.", "the 11th", ("the 11th",)),
        _assistant(5, "So march 11th?", "march 11th"),
        _user(6, "Yes please.", None, ("march 11th", "the 11th")),
        # The dialogue moves on to another service: its last turn has no restaurant frame.
        _user(8, "Now find me a taxi.", None, None),
    )
    dialogue = Dialogue("d1", ("Restaurants_2",), turns, "dialogues_001.json")
    (probe,) = probes_of(dialogue, {SLOT: "tentative date of restaurant reservation"})
    assert probe.final == "the 11th"
    assert probe.final_forms == {"the 11th", "march 11th"}
    # The stale value's run ends where the state stops holding it.
    assert probe.stale_forms == {"5th of this month", "march 5th"}
