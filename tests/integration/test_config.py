"""Configuration layers: defaults < file < environment < keywords; one clear error per bad key."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme import config
from mneme.errors import InvalidInput
from mneme.store.postgres import PostgresStore


def test_pg_vector_index_defaults_to_hnsw_and_follows_file_then_environment(
    tmp_path: Path,
) -> None:
    assert config.load(env={}).pg_vector_index == "hnsw"
    file = tmp_path / "mneme.toml"
    file.write_text('[mneme]\npg_vector_index = "exact"\n')
    assert config.load(env={}, file=str(file)).pg_vector_index == "exact"
    env = {"MNEME_PG_VECTOR_INDEX": "hnsw"}
    assert config.load(env=env, file=str(file)).pg_vector_index == "hnsw"
    assert config.load({"pg_vector_index": "exact"}, env=env).pg_vector_index == "exact"


def test_an_unknown_vector_index_is_refused_by_name() -> None:
    with pytest.raises(InvalidInput, match="pg_vector_index must be one of hnsw, exact, got 'ivf'"):
        config.load(env={"MNEME_PG_VECTOR_INDEX": "ivf"})


def test_postgres_store_refuses_an_unknown_vector_index_before_connecting() -> None:
    # Nothing listens on port 1: the refusal must come first, not a connection error.
    with pytest.raises(InvalidInput, match="vector_index must be one of hnsw, exact"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none", vector_index="flat")


def test_unknown_keys_are_an_error_not_ignored() -> None:
    with pytest.raises(InvalidInput, match="unknown configuration keys: vector_idx"):
        config.load({"vector_idx": "exact"}, env={})
