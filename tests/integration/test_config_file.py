"""``mneme config set``'s file edits: comments kept, nothing written that would not load."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme import config, config_file
from mneme.errors import InvalidInput
from mneme.reconfigure import BEGIN, END, reference

KEPT = """\
# mneme settings, tuned by hand
max_atoms = 64  # enough for long notes

[recall]
# fewer candidates: small banks
candidates = 30
"""


def test_set_keeps_comments_and_layout_and_makes_missing_sections(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text(KEPT)
    config_file.set_value(str(file), "recall.rrf_k", "25")
    config_file.set_value(str(file), "max_atoms", "128")
    config_file.set_value(str(file), "sensitive", '{secret = "refuse"}')
    text = file.read_text()
    assert "# mneme settings, tuned by hand" in text
    assert "max_atoms = 128  # enough for long notes" in text
    assert "# fewer candidates: small banks\ncandidates = 30" in text
    cfg = config.load(env={}, file=str(file))
    assert (cfg.recall.rrf_k, cfg.recall.candidates, cfg.max_atoms) == (25.0, 30, 128)
    assert cfg.sensitive == {"secret": "refuse"}


def test_set_writes_inside_the_mneme_table_when_the_file_has_one(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text("[mneme]\nmax_atoms = 3\n")
    config_file.set_value(str(file), "recall.rrf_k", "9")
    assert config.load(env={}, file=str(file)).recall.rrf_k == 9.0
    assert "[mneme.recall]" in file.read_text()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("recall.rrf_k", "abc", "recall.rrf_k must be a number, got 'abc'"),
        ("recall.rrfk", "1", "unknown configuration key 'recall.rrfk'"),
        ("reflect_every", "-5", "reflect_every must be 0 or more"),
        ("pg_vector_index", "ivf", "pg_vector_index must be one of hnsw, exact"),
    ],
)
def test_set_refuses_an_invalid_value_and_leaves_the_file_as_it_was(
    tmp_path: Path, key: str, value: str, message: str
) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text(KEPT)
    with pytest.raises(InvalidInput, match=message):
        config_file.set_value(str(file), key, value)
    assert file.read_text() == KEPT


def test_set_refuses_to_write_a_file_that_is_already_broken_elsewhere(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    broken = 'max_atoms = "many"\n'
    file.write_text(broken)
    with pytest.raises(InvalidInput, match="max_atoms must be a whole number, got 'many'"):
        config_file.set_value(str(file), "recall.rrf_k", "5")
    assert file.read_text() == broken


def test_the_settings_table_of_docs_configuration_is_generated_from_the_dataclass() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    text = page.read_text(encoding="utf-8")
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert block == "\n" + reference(), "run: python -m mneme.reconfigure"
    for var in config.ENV_VARS:
        assert f"`{var}`" in block
