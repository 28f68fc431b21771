"""``mneme health`` and ``mneme watch`` through click: one report, exit codes by severity
(0 ok, 1 warn, 2 critical, read by a scheduled job), and the loop bounded by --max-passes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner, Result

from mneme.surfaces.cli.main import cli


def run(db: Path, *args: str, config: Path | None = None) -> Result:
    env = {
        "MNEME_DB": None,
        "MNEME_EMBEDDER": None,
        "MNEME_CONFIG": str(config) if config else None,
    }
    runner = CliRunner(env=env)
    return runner.invoke(cli, ["--db", str(db), "--embedder", "hashing", *args])


def test_health_is_ok_and_exits_0_on_a_quiet_store(tmp_path: Path) -> None:
    result = run(tmp_path / "s.db", "health")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("health: OK")
    data = json.loads(run(tmp_path / "s.db", "health", "--json").stdout)
    assert data["severity"] == "ok"
    assert data["checks"]["store"] == "ok"


def test_health_exits_1_on_a_warning_and_names_it(tmp_path: Path) -> None:
    config = tmp_path / "mneme.toml"
    config.write_text("[mneme]\nwatch_db_bytes = 1\n")
    result = run(tmp_path / "s.db", "health", config=config)
    assert result.exit_code == 1
    assert "[warn] db_size: the database is" in result.stdout


def test_health_exits_2_when_the_store_fails_its_integrity_check(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run(db, "banks", "create", "b").exit_code == 0
    assert run(db, "add", "The Kepler bid is due on Friday.", "-b", "b", "-a", "ann").exit_code == 0
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = raw.execute("PRAGMA page_size").fetchone()[0]
        root = raw.execute("SELECT rootpage FROM sqlite_master WHERE name = 'units'").fetchone()[0]
    # Damage the units table's root page in place: the file still opens, the b-tree is bad.
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * page + 8)
        fh.write(b"\xff" * 64)
    result = run(db, "health", "--json")
    assert result.exit_code == 2, result.output
    data = json.loads(result.stdout)
    assert data["severity"] == "critical"
    assert data["checks"]["store"] == "critical"


def test_watch_runs_the_passes_asked_for_and_reacts(tmp_path: Path) -> None:
    config = tmp_path / "mneme.toml"
    config.write_text("[mneme]\nwatch_db_bytes = 1\n")
    db = tmp_path / "s.db"
    result = run(db, "watch", "--interval", "0", "--max-passes", "3", "--json", config=config)
    assert result.exit_code == 1, result.output
    reports = [json.loads(doc) for doc in result.stdout.replace("}\n{", "}\x00{").split("\x00")]
    assert [r["passes"] for r in reports] == [1, 2, 3]
    assert reports[0]["reactions"] == {"alert": 1}  # alerted once, not on every pass
    assert reports[2]["reactions"] == {"alert": 1}
    hits = run(db, "search", "ops alert database", "-b", "ops", "-a", "x", "--json")
    assert "Ops alert (warn)" in hits.stdout
