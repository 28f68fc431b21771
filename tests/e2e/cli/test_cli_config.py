"""``mneme config get | set | edit | path`` in process (apply: test_config_reload.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from mneme.surfaces.cli.main import cli

KEPT = "# tuned by hand\n[recall]\n# small banks\ncandidates = 30\n"


def run(tmp_path: Path, *args: str, env: dict[str, str | None] | None = None) -> Result:
    runner = CliRunner(
        env={
            "MNEME_CONFIG": str(tmp_path / "mneme.toml"),
            "MNEME_DB": None,
            "MNEME_RECALL__RRF_K": None,
            **(env or {}),
        }
    )
    return runner.invoke(cli, ["--db", str(tmp_path / "x.db"), *args], catch_exceptions=False)


def test_get_explains_which_layer_each_setting_came_from(tmp_path: Path) -> None:
    (tmp_path / "mneme.toml").write_text(KEPT)
    got = run(tmp_path, "config", "get", "recall", "--explain", env={"MNEME_RECALL__RRF_K": "33"})
    assert got.exit_code == 0, got.output
    assert "recall.rrf_k = 33.0  # env MNEME_RECALL__RRF_K" in got.output
    assert f"recall.candidates = 30  # file {tmp_path / 'mneme.toml'}" in got.output
    assert "recall.lexical_weight = 1.0  # default" in got.output
    one = run(tmp_path, "config", "get", "db", "--json")
    assert json.loads(one.output) == {
        "key": "db",
        "value": str(tmp_path / "x.db"),
        "origin": "argument",
    }


def test_get_hides_secrets_and_names_an_unknown_key(tmp_path: Path) -> None:
    (tmp_path / "mneme.toml").write_text("")
    got = run(tmp_path, "config", "get", "embedder_api_key", env={"MNEME_EMBEDDER_API_KEY": "sk-1"})
    assert got.output.strip() == "***"
    bad = run(tmp_path, "config", "get", "recall.rrfk")
    assert bad.exit_code == 2
    assert "unknown configuration key 'recall.rrfk'" in bad.output


def test_set_keeps_comments_and_refuses_a_wrong_type(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text(KEPT)
    ok = run(tmp_path, "config", "set", "recall.rrf_k", "25")
    assert ok.exit_code == 0, ok.output
    assert file.read_text() == KEPT + "rrf_k = 25.0\n"
    before = file.read_text()
    bad = run(tmp_path, "config", "set", "recall.candidates", "many")
    assert bad.exit_code == 2
    assert "recall.candidates must be a whole number, got 'many'" in bad.output
    assert file.read_text() == before


def _editor(tmp_path: Path, text: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys, pathlib\npathlib.Path(sys.argv[-1]).write_text({text!r})\n")
    return f"{sys.executable} {script}"


def test_edit_replaces_the_file_only_when_the_edit_loads(tmp_path: Path) -> None:
    file = tmp_path / "mneme.toml"
    file.write_text(KEPT)
    bad = run(tmp_path, "config", "edit", env={"EDITOR": _editor(tmp_path, "max_atoms = 'x'\n")})
    assert bad.exit_code == 2
    assert "max_atoms must be a whole number, got 'x'" in bad.output
    assert file.read_text() == KEPT
    assert (tmp_path / "mneme.toml.rejected").read_text() == "max_atoms = 'x'\n"
    good = run(
        tmp_path, "config", "edit", env={"EDITOR": _editor(tmp_path, "max_atoms = 9\n" + KEPT)}
    )
    assert good.exit_code == 0, good.output
    assert file.read_text() == "max_atoms = 9\n" + KEPT


def test_apply_without_a_running_server_says_so(tmp_path: Path) -> None:
    (tmp_path / "mneme.toml").write_text("")
    got = run(tmp_path, "config", "apply")
    assert got.exit_code == 3
    assert "no mneme serve runs on" in got.output
