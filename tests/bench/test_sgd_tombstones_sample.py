"""The tombstone bench samples each split by itself: the test part is the same dialogues
whether it runs alone or after the dev part."""

from __future__ import annotations

from bench.sgd.tombstones import sample


def test_a_split_is_sampled_the_same_alone_or_beside_another() -> None:
    dev = [f"dev-{i}" for i in range(40)]
    test = [f"test-{i}" for i in range(40)]
    alone = sample(test, 10)
    sample(dev, 10)  # the dev part drawn first, as --split all does
    assert sample(test, 10) == alone
    assert len(set(alone)) == 10
    assert set(alone) <= set(test)


def test_a_small_split_is_taken_whole() -> None:
    assert sample(["a", "b"], 10) == ["a", "b"]
