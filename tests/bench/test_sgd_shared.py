"""bench.sgd.shared: which other conversations share a probe's bank, and in what order."""

from __future__ import annotations

import pytest
from bench.sgd.data import Dialogue, Probe, Turn
from bench.sgd.shared import companions, conversations, first_change, main


def _d(i: str, *services: str) -> Dialogue:
    return Dialogue(id=i, services=services, turns=())


def test_companions_are_the_next_dialogues_with_no_service_in_common_wrapping() -> None:
    ds = [_d("a", "Hotels"), _d("b", "Hotels", "Buses"), _d("c", "Movies"), _d("d", "Buses")]
    got = {k: [o.id for o in v] for k, v in companions(ds, 2).items()}
    assert got == {"a": ["c", "d"], "b": ["c"], "c": ["d", "a"], "d": ["a", "c"]}
    assert all(not v for v in companions(ds, 0).values())


def _turns(dialogue: str, *indexes: int) -> tuple[Turn, ...]:
    return tuple(Turn(dialogue, i, "USER", f"turn {i}", ()) for i in indexes)


def _probe(dialogue: str, *statements: tuple[int, str]) -> Probe:
    said = tuple((f"{dialogue}:{i}", v) for i, v in statements)
    return Probe(dialogue, "Svc", "slot", "slot", "q?", said[-1][1], (said[0][1],), said)


def test_a_resumed_dialogue_says_its_first_change_after_the_first_other_one() -> None:
    d = Dialogue(id="a", services=("Hotels",), turns=_turns("a", 0, 2, 4, 6))
    others = [Dialogue(id=o, services=("Movies",), turns=_turns(o, 0, 2)) for o in ("b", "c")]
    # The first probe changes at turn 4; the second says its value again there (case aside)
    # and changes at 6: the dialogue's first change is at 4.
    probes = [
        _probe("a", (0, "Paris"), (4, "Rome")),
        _probe("a", (2, "2 pm"), (4, "2 PM"), (6, "3 pm")),
        _probe("z", (0, "x"), (2, "y")),
    ]
    assert first_change(d, probes) == 4
    assert first_change(d, probes[1:]) == 6
    shape = [(s, [t.index for t in ts]) for s, ts in conversations(d, others, probes, True)]
    assert shape == [("a", [0, 2]), ("b", [0, 2]), ("a-resumed", [4, 6]), ("c", [0, 2])]
    plain = [s for s, _ in conversations(d, others, probes, False)]
    assert plain == ["a", "b", "c"]
    assert conversations(d, others, probes[2:], True)[0] == ("a", d.user_turns)


def test_an_unknown_mode_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--modes", "plain,sideways"])
    assert exc.value.code == 2


def test_named_mode_asks_within_the_probes_own_dialogue() -> None:
    from bench.sgd.shared import run_shared

    from mneme.embed.hashing import HashingEmbedder

    said = {
        "a": ["I want a table at Sino on March 5th.", "Actually, make it March 7th."],
        "b": ["I want to fly to Denver on March 12th.", "Make it March 14th then."],
    }
    pool = [
        Dialogue(
            id=i,
            services=(svc,),
            turns=tuple(Turn(i, 2 * n, "USER", text, ()) for n, text in enumerate(texts)),
        )
        for (i, texts), svc in zip(said.items(), ("Restaurants", "Flights"), strict=True)
    ]
    probe = Probe(
        "a",
        "Restaurants",
        "date",
        "date",
        "What is the current date in March?",
        "March 7th",
        ("March 5th",),
        (("a:0", "March 5th"), ("a:2", "March 7th")),
    )
    plain = run_shared(pool[:1], pool, [probe], 1, HashingEmbedder(), {})
    named = run_shared(pool[:1], pool, [probe], 1, HashingEmbedder(), {}, named=True)
    cited = {s for hit in named.ranked[0] for s in hit}
    assert cited
    assert cited <= {"a:0", "a:2"}
    assert {s for hit in plain.ranked[0] for s in hit} - cited  # the other dialogue's turns too
