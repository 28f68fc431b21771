"""What a retired statement still holds (``mneme.core.succession``), and the judge reading a
later change of such a value against it (ADR 0076)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping

from mneme.core.claims import extract_claim
from mneme.core.judgement import Candidate, JudgeConfig, Neighbour, judge
from mneme.core.language import classify
from mneme.core.model import Network, Unit, UnitStatus, UnitType, Verdict
from mneme.core.succession import (
    ALSO_SUPERSEDED_BY,
    Role,
    kinds_said,
    roles_said,
    still_held,
    successors,
)
from mneme.core.values import Kind

T0 = dt.datetime(2019, 3, 1, 10, 0, tzinfo=dt.UTC)


def unit(uid: str, text: str, by: str | None = None, also: tuple[str, ...] = ()) -> Unit:
    return Unit(
        id=uid,
        bank_id="b",
        text=text,
        type=UnitType.FACT,
        status=UnitStatus.SUPERSEDED if by else UnitStatus.ACTIVE,
        agent_id="a",
        recorded_at=T0,
        content_key=uid,
        network=Network.WORLD,
        confidence=1.0,
        superseded_by=by,
        metadata={ALSO_SUPERSEDED_BY: list(also)} if also else {},
    )


def reader(
    units: Iterable[Unit],
) -> tuple[list[list[str]], Callable[[Iterable[str]], Mapping[str, Unit]]]:
    by_id = {u.id: u for u in units}
    reads: list[list[str]] = []

    def read(ids: Iterable[str]) -> Mapping[str, Unit]:
        wanted = list(ids)
        reads.append(wanted)
        return {i: by_id[i] for i in wanted if i in by_id}

    return reads, read


BOTH = frozenset({Kind.DATE, Kind.TIME})


def test_a_statement_holds_the_kinds_no_successor_in_its_line_says() -> None:
    first = unit("u1", "Book a table for March 8th at 7 pm.", by="u2")
    line = [
        first,
        unit("u2", "Make it 8 pm instead.", by="u3"),
        unit("u3", "Actually 9 pm."),
    ]
    reads, read = reader(line)
    held = still_held({"u1": (BOTH, first)}, read, kinds_said)
    assert held == {"u1": frozenset({Kind.DATE})}
    assert reads == [["u2"], ["u3"]]  # one read per step


def test_a_later_change_of_a_held_value_counts_like_a_successor() -> None:
    first = unit("u1", "Book a table for March 8th at 7 pm.", by="u2", also=("u3",))
    assert successors(first) == ("u2", "u3")
    _, read = reader(
        [first, unit("u2", "Make it 8 pm."), unit("u3", "Change the date to March 9th.")]
    )
    assert still_held({"u1": (BOTH, first)}, read, kinds_said) == {"u1": frozenset()}


def test_a_value_said_in_another_role_leaves_the_role_it_held() -> None:
    # SGD dev 2_00082: "Leaving for Anaheim, CA on the 2nd from LAX." retired when the
    # destination changed ("I wanted to leave for San Diego.") still says where from.
    first = unit("u1", "Leaving for Anaheim on the 2nd from Boston.", by="u2")
    _, read = reader([first, unit("u2", "I wanted to leave for San Diego.")])
    roles: frozenset[Role] = frozenset(
        {(Kind.NAME, "for"), (Kind.NAME, "from"), (Kind.DATE, "point")}
    )
    held = still_held({"u1": (roles, first)}, read, roles_said)
    assert held == {"u1": frozenset({(Kind.NAME, "from"), (Kind.DATE, "point")})}
    # a kind said in a role the statement held it in none of takes every role of the kind
    _, read = reader([first, unit("u2", "Change it to Denver.")])
    held = still_held({"u1": (roles, first)}, read, roles_said)
    assert held == {"u1": frozenset({(Kind.DATE, "point")})}
    # by kind alone, the destination's change takes the origin with it
    assert still_held({"u1": (frozenset({Kind.NAME}), first)}, read, kinds_said) == {
        "u1": frozenset()
    }


def test_a_successor_out_of_sight_ends_its_line_and_the_walk_is_bounded() -> None:
    first = unit("u1", "Book a table for March 8th at 7 pm.", by="gone")
    _, read = reader([first])
    assert still_held({"u1": (BOTH, first)}, read, kinds_said) == {"u1": BOTH}
    # a line of time changes longer than the steps: the date stays held, reads stop
    chain = [unit(f"u{i}", f"Make it {i} pm.", by=f"u{i + 1}") for i in range(2, 12)]
    start = unit("u1", "Book a table for March 8th at 7 pm.", by="u2")
    reads, read = reader([start, *chain])
    assert still_held({"u1": (BOTH, start)}, read, kinds_said, steps=3) == {
        "u1": frozenset({Kind.DATE})
    }
    assert len(reads) == 3


def _nb(
    uid: str,
    text: str,
    minute: int,
    *,
    status: str = "active",
    holds: frozenset[tuple[Kind, str | None]] = frozenset(),
) -> Neighbour:
    return Neighbour(
        unit_id=uid,
        text=text,
        type=classify(text)[1],
        agent_id="a",
        status=status,
        similarity=0.3,
        claim=extract_claim(text),
        session="s",
        when=T0 + dt.timedelta(minutes=minute),
        holds=holds,
    )


def _new(text: str, minute: int) -> Candidate:
    return Candidate(
        text, classify(text)[1], "a", extract_claim(text), session="s",
        when=T0 + dt.timedelta(minutes=minute),
    )  # fmt: skip


REQUEST = "User: Can you make an appointment for March 6th at 4:45 pm?"
DAY = frozenset({(Kind.DATE, "point")})
TIME = "User: Can you change the time to 3:45 pm?"


def test_the_author_changing_a_value_a_retired_statement_still_holds_retires_it() -> None:
    retired = _nb("u1", REQUEST, 1, status="superseded", holds=DAY)
    j = judge(
        _new("User: Can you change the date to the 10th of March?", 3),
        [retired, _nb("u2", TIME, 2)],
        JudgeConfig(),
    )
    assert (j.verdict, j.target_id) == (Verdict.SUPERSEDE, "u1")
    assert j.old_value == "2019-03-06"


def test_a_retired_statement_is_not_judged_for_what_it_no_longer_holds() -> None:
    # the time it said was changed already: a new time changes the newer one, and with no
    # live statement of the time nothing is retired again
    retired = _nb("u1", REQUEST, 1, status="superseded", holds=DAY)
    j = judge(
        _new("User: Actually, make it 5 pm.", 3), [retired, _nb("u2", TIME, 2)], JudgeConfig()
    )
    assert (j.verdict, j.target_id) == (Verdict.SUPERSEDE, "u2")
    alone = judge(_new("User: Actually, make it 5 pm.", 3), [retired], JudgeConfig())
    assert alone.verdict == Verdict.ADD
    # nor when it holds nothing, nor merged with when restated word for word
    spent = dataclasses.replace(retired, holds=frozenset())
    assert judge(
        _new("User: Change the date to March 10th.", 3), [spent], JudgeConfig()
    ).verdict == (Verdict.ADD)
    assert judge(_new(REQUEST, 3), [retired], JudgeConfig()).verdict == Verdict.ADD


def test_a_retired_statement_still_holding_a_role_is_changed_in_that_role_only() -> None:
    # SGD dev 2_00082: the origin a statement retired for its destination still held changes
    # with "leaving from Fresno"; the destination it no longer holds is not changed again.
    retired = _nb(
        "u1",
        "User: Leaving for Anaheim on the 2nd from Boston.",
        1,
        status="superseded",
        holds=frozenset({(Kind.NAME, "from"), (Kind.DATE, "point")}),
    )
    dest = _nb("u2", "User: I wanted to leave for San Diego.", 2)
    origin = judge(
        _new("User: Anything else? Actually we are leaving from Fresno.", 3),
        [retired, dest],
        JudgeConfig(),
    )
    assert (origin.verdict, origin.target_id, origin.old_value) == (
        Verdict.SUPERSEDE,
        "u1",
        "boston",
    )
    destination = judge(
        _new("User: Actually, I want to leave for Denver.", 3), [retired, dest], JudgeConfig()
    )
    assert (destination.verdict, destination.target_id) == (Verdict.SUPERSEDE, "u2")
