"""core.context_block: a block of recalled memories within a token budget."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from mneme.core.context_block import HEADER, assemble, tokens
from mneme.core.model import ConflictRef, Hit, Network, Unit, UnitStatus, UnitType

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def hit(
    n: int,
    text: str,
    *,
    day: int = 0,
    relevance: float = 0.5,
    source: str | None = "",
    superseded: bool = False,
    successor: str | None = None,
    conflicts: tuple[ConflictRef, ...] = (),
) -> Hit:
    unit = Unit(
        id=f"u_{n}",
        bank_id="b",
        text=text,
        content_key=text.lower(),
        network=Network.WORLD,
        type=UnitType.FACT,
        status=UnitStatus.ACTIVE,
        confidence=0.9,
        agent_id="a",
        recorded_at=T0,
        occurred_start=T0 + dt.timedelta(days=day),
    )
    sources = () if source is None else (source or f"ev-{n}",)
    return Hit(
        unit=unit,
        score=1.0,
        channels={},
        superseded=superseded,
        successor=successor,
        evidence_source_ids=sources,
        conflicts=conflicts,
        relevance=relevance,
    )


def test_each_line_cites_its_source_and_the_block_counts_its_tokens() -> None:
    block = assemble("What did Bob drink in 2023?", [hit(1, "Bob drinks green tea.")], 800)
    assert block.text == f"{HEADER}\n- 2024-01-01 Bob drinks green tea. [ev-1]"
    assert block.tokens == tokens(block.text) == -(-len(block.text) // 4)
    assert block.order == "relevance"
    assert [i.memory_id for i in block.items] == ["u_1"]


def test_a_question_about_the_present_is_answered_newest_first() -> None:
    old = hit(1, "Alice lives in Berlin.", day=0, superseded=True, successor="u_2")
    new = hit(2, "Alice moved to Munich.", day=30)
    block = assemble("Where does Alice live now?", [old, new], 800)
    assert block.order == "newest_first"
    assert [i.memory_id for i in block.items] == ["u_2", "u_1"]
    assert block.text.splitlines()[2].endswith("(superseded; now [ev-2]) [ev-1]")
    past = assemble("Where did Alice live in 2023?", [old, new], 800)
    assert [i.memory_id for i in past.items] == ["u_1", "u_2"]


def test_a_tight_budget_drops_the_least_relevant_not_the_oldest() -> None:
    hits = [hit(n, f"Memory number {n} says something.", day=10 - n) for n in range(5)]
    one_line = len(HEADER) + 1 + len(assemble("x", hits[:1], 800).text.splitlines()[1])
    block = assemble("What holds now?", hits, -(-one_line // 4) + 14)
    assert [i.memory_id for i in block.items] == ["u_0", "u_1"]
    assert block.omitted == 3


def test_contested_memories_are_marked_with_their_conflict_ids() -> None:
    ref = ConflictRef(conflict_id="c_9", unit_id="u_2", source_ids=("ev-2",))
    block = assemble("standup time", [hit(1, "Standup is at 09:15.", conflicts=(ref,))], 800)
    assert "(contested: c_9)" in block.text
    assert block.items[0].conflict_ids == ("c_9",)


def test_a_memory_without_a_source_cites_its_own_id() -> None:
    block = assemble("x", [hit(7, "Thought of the day.", source=None)], 800)
    assert block.text.endswith("[u_7]")


def test_nothing_that_fits_is_an_empty_block() -> None:
    block = assemble("x", [hit(1, "A long memory " * 20)], 16)
    assert (block.text, block.tokens, block.items, block.omitted) == ("", 0, (), 1)


@given(
    texts=st.lists(st.text(min_size=1, max_size=300), min_size=0, max_size=30),
    budget=st.integers(min_value=16, max_value=2_000),
)
def test_a_block_never_exceeds_its_budget(texts: list[str], budget: int) -> None:
    hits = [hit(n, t if t.strip() else "x", day=n % 7) for n, t in enumerate(texts)]
    block = assemble("Where is it now?", hits, budget)
    assert block.tokens <= budget
    assert len(block.items) + block.omitted == len(hits)
