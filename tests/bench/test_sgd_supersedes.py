"""SGD retirements are judged by the dialogue state alone (bench.sgd.supersedes)."""

from __future__ import annotations

from dataclasses import dataclass

from bench.sgd.data import Dialogue, Span, Turn
from bench.sgd.supersedes import line, support, supported

DATE = ("RentalCars_1", "pickup_date")
CITY = ("RentalCars_1", "pickup_city")


Said = tuple[tuple[tuple[str, str], str], ...]


def _user(i: int, text: str, state: dict[tuple[str, str], str], said: Said = ()) -> Turn:
    held = tuple((slot, (value,)) for slot, value in state.items())
    return Turn("d1", i, "USER", text, tuple(Span(s[0], s[1], v) for s, v in said), held)


DIALOGUE = Dialogue(
    "d1",
    ("RentalCars_1",),
    (
        _user(0, "I need a car in Fresno.", {CITY: "Fresno"}, ((CITY, "Fresno"),)),
        Turn("d1", 1, "SYSTEM", "From when?", ()),
        _user(2, "From the 9th.", {CITY: "Fresno", DATE: "the 9th"}),
        Turn("d1", 3, "SYSTEM", "A Camry on March 9th?", ()),
        _user(4, "Make it the 10th.", {CITY: "Fresno", DATE: "the 10th"}),
        Turn("d1", 5, "SYSTEM", "Done.", ()),
        _user(6, "That is all for today.", {CITY: "Fresno", DATE: "the 10th"}),
    ),
    "dialogues_001.json",
)


@dataclass
class _Status:
    value: str


@dataclass
class _Unit:
    id: str
    text: str
    evidence: tuple[str, ...]
    status: _Status
    superseded_by: str | None = None


def test_a_slot_set_then_changed_supports_the_retirement():
    assert supported(DIALOGUE, 2, 4) is True


def test_a_turn_that_changes_nothing_does_not():
    # The date the user set is "retired" by a pleasantry that says "today".
    assert supported(DIALOGUE, 4, 6) is False
    # Nor does a change of another slot than the retired turn's.
    assert supported(DIALOGUE, 0, 4) is False


def test_only_user_turns_of_one_dialogue_are_judged():
    assert supported(DIALOGUE, 2, 3) is None


def test_support_counts_each_retired_unit_with_its_successor():
    units = [
        _Unit("a", "From the 9th.", ("d1:2",), _Status("superseded"), "b"),
        _Unit("b", "Make it the 10th.", ("d1:4",), _Status("superseded"), "c"),
        _Unit("c", "That is all for today.", ("d1:6",), _Status("active")),
        _Unit("x", "An unrelated unit.", ("elsewhere",), _Status("active")),
    ]
    judged = support(units, {"d1": DIALOGUE})
    assert judged.counts == {"dev": {"supported": 1, "unsupported": 1}}
    assert [(e["old"], e["new"]) for e in judged.unsupported] == [("d1:4", "d1:6")]
    assert "dev 1/2 (0.500)" in line(judged.counts)


def test_a_retirement_across_two_dialogues_is_unsupported_only_in_shared_banks():
    other = Dialogue("d2", ("Movies_1",), (_user(0, "Two tickets.", {}),), "dialogues_001.json")
    units = [
        _Unit("a", "From the 9th.", ("d1:2",), _Status("superseded"), "m"),
        _Unit("m", "Two tickets.", ("d2:0",), _Status("active")),
    ]
    dialogues = {"d1": DIALOGUE, "d2": other}
    assert support(units, dialogues).counts == {}
    judged = support(units, dialogues, across=True)
    assert judged.counts == {"dev": {"supported": 0, "unsupported": 1}}
    assert [(e["old"], e["new"]) for e in judged.unsupported] == [("d1:2", "d2:0")]
