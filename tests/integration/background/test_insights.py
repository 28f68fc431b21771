"""The insight pass through Memory, on the bench's fixtures, with the real embedder (ADR 0056)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.insights.run import feed, judge, load

import mneme
from mneme.core.model import EdgeType, Network, Scope, UnitStatus
from mneme.errors import InvalidInput, NotFound

ROWS = load()


@pytest.fixture
def real(tmp_path: Path, minilm: Any) -> Iterator[mneme.Memory]:
    m = mneme.Memory.open(tmp_path / "insights.db", embedder=minilm)
    yield m
    m.close()


def rows(*kinds: str) -> list[dict[str, Any]]:
    return [r for r in ROWS if r["fixture"] in kinds]


def test_the_chain_is_one_insight_with_its_witnesses_in_order_and_a_rerun_adds_nothing(
    real: mneme.Memory,
) -> None:
    fed = feed(real, rows("chain", "broad_word"), "b")
    first = real.insights.run("b", agent="me")
    found = real.insights.list("b")
    assert len(found) == 1
    assert judge(found, fed) == [True]
    insight = found[0]
    steps = [fed[w]["chain"] for w in insight.metadata["insight"]["witnesses"]]
    assert steps == [1, 2, 3, 4, 5]
    assert insight.network == Network.INSIGHT
    assert insight.status == UnitStatus.PROPOSED
    edges = real.graph(insight.id, depth=1)
    supports = [e for e in edges.edges if e.type == EdgeType.SUPPORTS and e.dst == insight.id]
    assert sorted(e.metadata["order"] for e in supports) == [1, 2, 3, 4, 5]
    assert first.categorized.tagged == len(fed)
    again = real.insights.run("b", agent="me")
    assert again.created == ()
    assert again.categorized.tagged == 0
    assert again.because == 0
    assert again.verified == (insight.id,)  # the second pass verifies what the first wrote
    assert [u.id for u in real.insights.list("b", state="verified")] == [insight.id]
    assert real.insights.verify("b", agent="me").verified == ()  # nothing changed since


def test_memories_sharing_one_broad_word_make_no_insight(real: mneme.Memory) -> None:
    feed(real, rows("broad_word"), "b")
    report = real.insights.run("b", agent="me")
    assert report.created == ()
    assert real.insights.list("b") == []
    assert report.reason is not None


def test_an_insight_ranks_below_its_witnesses_in_recall(real: mneme.Memory) -> None:
    feed(real, rows("chain"), "b")
    real.insights.run("b", agent="me")
    (insight,) = real.insights.list("b")
    hits = real.recall(
        "corn syrup input costs of soft drink bottlers", bank="b", agent="user",
        scope=Scope.COLLECTIVE.value, k=20,
    )  # fmt: skip
    ids = [h.id for h in hits]
    assert insight.id in ids
    witnesses = [w for w in insight.metadata["insight"]["witnesses"] if w in ids]
    assert witnesses
    assert all(ids.index(w) < ids.index(insight.id) for w in witnesses)


def test_a_rejected_witness_retires_the_insight_at_once_and_a_purged_one_erases_it(
    real: mneme.Memory,
) -> None:
    fed = feed(real, rows("chain"), "b")
    real.insights.run("b", agent="me")
    (insight,) = real.insights.list("b")
    witnesses = insight.metadata["insight"]["witnesses"]
    real.review.reject(witnesses[2], reason="wrong", actor="alice")
    # Retired at once, inside the rejection (the review path's listener), not at a pass.
    (retired,) = real.insights.list("b", state="retired")
    assert retired.id == insight.id
    assert retired.status == UnitStatus.ARCHIVED
    assert retired.retired_at is not None
    assert witnesses[2] in retired.metadata["insight"]["reason"]
    assert "rejected" in retired.metadata["insight"]["reason"]
    assert real.insights.verify("b", agent="me").retired == ()  # nothing left to retire
    assert real.insights.run("b", agent="me").created == ()  # its key is held: not re-proposed

    other = mneme.Memory.open(Path(real.config.db or "").with_name("other.db"),
                              embedder=real.embedder)  # fmt: skip
    try:
        fed = feed(other, rows("chain"), "b")
        other.insights.run("b", agent="me")
        (second,) = other.insights.list("b")
        first_witness = second.metadata["insight"]["witnesses"][0]
        other.admin.purge(first_witness, actor="admin", reason="erasure request")
        assert other.insights.list("b") == []
        with pytest.raises(NotFound):
            other.get(second.id)
    finally:
        other.close()
    assert fed


def test_empty_and_one_memory_banks_and_bad_settings_write_nothing(real: mneme.Memory) -> None:
    with pytest.raises(NotFound):
        real.insights.run("nobank", agent="me")
    real.admin.create_bank("empty")
    report = real.insights.run("empty", agent="me")
    assert report.created == ()
    assert "no memories" in (report.reason or "")
    feed(real, rows("chain")[:1], "one")
    one = real.insights.run("one", agent="me")
    assert one.created == ()
    assert one.reason is not None
    with pytest.raises(InvalidInput):
        real.insights.list("one", state="maybe")
    with pytest.raises(NotFound):
        real.insights.verify("one", agent="me", insight="u_nope")


def test_a_paused_bank_runs_only_when_resumed_and_bad_settings_write_nothing(
    real: mneme.Memory,
) -> None:
    feed(real, rows("chain"), "b")
    store = real._store
    with store.transaction():
        store.banks.set_bank_config(
            "b", {"insights": {"paused": "flood guard: 40 new insights"}}, actor="a", reason="t"
        )
    paused = real.insights.run("b", agent="me")
    assert paused.created == ()
    assert (paused.reason or "").startswith("paused")
    assert real.insights.list("b") == []
    resumed = real.insights.run("b", agent="me", resume=True)
    assert len(resumed.created) == 1
    assert "paused" not in real.admin.banks()[0].config["insights"]
    with store.transaction():
        store.banks.set_bank_config(
            "b", {"insights": {"min_hops": "three"}}, actor="admin", reason="test"
        )
    with pytest.raises(InvalidInput):
        real.insights.run("b", agent="me")
    assert len(real.insights.list("b")) == 1
