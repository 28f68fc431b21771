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


def test_env_beats_file_beats_defaults_and_each_setting_names_its_layer(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text("max_atoms = 7\n[recall]\nrrf_k = 33\ncandidates = 11\n")
    env = {"MNEME_RECALL__RRF_K": "44", "MNEME_CREATE_BANKS": "false"}
    layers = config.resolve({"max_text_chars": 900}, env=env, file=str(file))
    cfg = layers.config
    assert (cfg.recall.rrf_k, cfg.recall.candidates, cfg.max_atoms) == (44.0, 11, 7)
    assert cfg.create_banks is False
    assert cfg.max_text_chars == 900
    assert cfg.recall.lexical_weight == config.RecallConfig().lexical_weight
    assert layers.origins["recall.rrf_k"] == "env MNEME_RECALL__RRF_K"
    assert layers.origins["recall.candidates"] == f"file {file}"
    assert layers.origins["max_text_chars"] == "argument"
    assert layers.origins["recall.lexical_weight"] == "default"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[recall]\nrrf_k = "abc"\n', "recall.rrf_k must be a number, got 'abc'"),
        ("max_atoms = 2.5\n", "max_atoms must be a whole number, got 2.5"),
        ('create_banks = "yes"\n', "create_banks must be true or false, got 'yes'"),
        ("recall = 5\n", "recall must be a table of settings, got 5"),
        ('[recall]\ngraph_kinds = "EDGE"\n', "recall.graph_kinds must be a list of strings"),
        ("sensitive = 3\n", "sensitive must be a table of strings, got 3"),
        ("llm = [1]\n", "llm[0] must be a table"),
        ("reflect_every = -1\n", "reflect_every must be 0 or more, got -1.0"),
        ('query_backend = "cuda"\n', "query_backend must be one of auto, torch, got 'cuda'"),
        ("[recall]\nrrfk = 1\n", "unknown configuration keys: recall.rrfk"),
    ],
)
def test_a_wrong_type_in_the_file_names_the_setting_the_type_the_value_and_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text(text)
    with pytest.raises(InvalidInput) as caught:
        config.load(env={}, file=str(file))
    assert message in str(caught.value)
    assert f"(file {file})" in str(caught.value)


def test_environment_values_are_parsed_by_the_field_type() -> None:
    env = {
        "MNEME_RECALL__GRAPH_KINDS": "EDGE, ENTITY",
        "MNEME_RECALL__GRAPH_QUERY_ENTITIES": "yes",
        "MNEME_SENSITIVE": '{secret = "refuse"}',
        "MNEME_LLM": '[{provider = "openai", model = "m"}]',
        "MNEME_RECALL__CANDIDATES": "",  # empty: unset
    }
    cfg = config.load(env=env)
    assert cfg.recall.graph_kinds == ("EDGE", "ENTITY")
    assert cfg.recall.graph_query_entities is True
    assert cfg.sensitive == {"secret": "refuse"}
    assert cfg.llm == ({"provider": "openai", "model": "m"},)
    assert cfg.recall.candidates == config.RecallConfig().candidates
    with pytest.raises(InvalidInput, match=r"recall.candidates must be a whole number, got 'x'"):
        config.load(env={"MNEME_RECALL__CANDIDATES": "x"})


def test_every_setting_has_one_environment_variable_derived_from_its_path() -> None:
    leaves = config.LEAVES
    assert len(config.ENV_VARS) == len(leaves)
    assert config.ENV_VARS["MNEME_RECALL__RRF_K"].path == "recall.rrf_k"
    assert config.ENV_VARS["MNEME_PG_VECTOR_INDEX"].path == "pg_vector_index"
    # the variables mneme read before they went through Config keep their names
    for var in ("MNEME_DB", "MNEME_EMBEDDER", "MNEME_CACHE_DIR", "MNEME_EMBED_PRECISION"):
        assert var in config.ENV_VARS
    for var in ("MNEME_QUERY_BACKEND", "MNEME_BATCH_BACKEND", "MNEME_TOKENS", "MNEME_MCP_TOOLS"):
        assert var in config.ENV_VARS
    assert config.CONFIG_ENV not in config.ENV_VARS


def test_the_default_config_file_is_read_when_it_exists(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert config.resolve(env=env).file is None
    (tmp_path / "mneme").mkdir()
    (tmp_path / "mneme" / "config.toml").write_text("[mneme]\nmax_atoms = 9\n")
    layers = config.resolve(env=env)
    assert layers.config.max_atoms == 9
    assert layers.file == str(tmp_path / "mneme" / "config.toml")
