"""The SGD benches' tuning split (ADR 0060): the dev files, and a fixed third of the others."""

from __future__ import annotations

from bench.sgd.data import DEV_FILES, DEV_SHARE, split_of


def test_the_dev_files_are_dev_whatever_the_dialogue() -> None:
    assert {split_of(f, f"{i}_00001") for f in DEV_FILES for i in range(1, 9)} == {"dev"}


def test_a_fixed_share_of_the_other_files_dialogues_is_dev_and_it_never_changes() -> None:
    ids = [f"{n}_{i:05d}" for n in range(9, 21) for i in range(150)]
    first = [split_of("dialogues_012.json", d) for d in ids]
    assert first == [split_of("dialogues_012.json", d) for d in ids]  # by id, not by order
    share = first.count("dev") / len(first)
    assert abs(share - 1 / DEV_SHARE) < 0.03
    assert split_of("dialogues_015.json", "15_00042") in {"dev", "test"}
