"""`mneme insights run|list|verify|categories` (ADR 0056): output, idempotence, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mneme.surfaces.cli.main import cli


def mneme(db: Path, *args: str) -> Any:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    return runner.invoke(cli, ["--db", str(db), "--embedder", "hashing", *args])


def test_insights_run_tags_memories_and_a_second_run_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    assert mneme(db, "banks", "create", "farm").exit_code == 0
    for text in (
        "The corn harvest shrank after the severe drought in the Midwest.",
        "Corn syrup prices rose after the corn harvest shrank.",
    ):
        assert mneme(db, "add", text, "--bank", "farm", "--agent", "a1").exit_code == 0
    first = mneme(db, "insights", "run", "--bank", "farm", "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert report["categorized"]["tagged"] >= 2
    again = json.loads(mneme(db, "insights", "run", "--bank", "farm", "--json").output)
    assert again["categorized"]["tagged"] == 0
    assert again["created"] == []
    cats = json.loads(mneme(db, "insights", "categories", "--bank", "farm", "--json").output)
    assert "corn harvest" in {c["name"] for c in cats["categories"]}
    listed = mneme(db, "insights", "list", "--bank", "farm", "--json")
    assert json.loads(listed.output)["insights"] == []  # two memories are no three-hop thread
    text = mneme(db, "insights", "run", "--bank", "farm")
    assert "0 memories tagged" in text.output


def test_insights_on_an_unknown_bank_or_insight_exit_3(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    assert mneme(db, "insights", "run", "--bank", "nope").exit_code == 3
    assert mneme(db, "banks", "create", "b").exit_code == 0
    assert mneme(db, "add", "Some memory text.", "--bank", "b", "--agent", "a1").exit_code == 0
    assert mneme(db, "insights", "verify", "--bank", "b", "--id", "u_nope").exit_code == 3
    assert mneme(db, "insights", "list", "--bank", "b", "--state", "maybe").exit_code == 2
