"""`mneme import` on hostile files (issue 16, Low): bytes that are not UTF-8, nesting deep
enough to exhaust recursion, a line with no end, and a re-run after a crash.

Every bad input is a clear error with its line and exit 2, never a traceback; the lines
before it stay imported; and running the same import again adds nothing twice, even when its
lines carry no source ids (ADR 0033).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mneme.surfaces.cli.main import cli

Run = Callable[..., Result]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "import.db")


@pytest.fixture
def run(db: str) -> Run:
    """Run `mneme --db <tmp> --embedder hashing ARGS...` in process."""

    def invoke(*args: str) -> Result:
        runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
        return runner.invoke(
            cli, ["--db", db, "--embedder", "hashing", *args], catch_exceptions=False
        )

    return invoke


def facts(n: int, start: int = 0) -> list[bytes]:
    return [
        json.dumps({"text": f"Otter {i} swims in the pond behind mill {i}."}).encode()
        for i in range(start, start + n)
    ]


def write(path: Path, lines: list[bytes], *, end: bytes = b"\n") -> Path:
    path.write_bytes(b"\n".join(lines) + end)
    return path


def sources(db: str) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT text FROM sources ORDER BY rowid")]
    finally:
        conn.close()


def refused(result: Result, line: int, imported: int) -> str:
    """The error of a refused import: exit 2, JSON on stdout naming the line, no traceback."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    error: dict[str, Any] = json.loads(result.stdout)["error"]
    assert error["code"] == "invalid_input"
    assert (error["at"], error["imported"]) == (f"line {line}", imported)
    message: str = error["message"]
    assert message.startswith(f"line {line}: ")
    return message


def test_bytes_that_are_not_utf8_name_their_line_and_keep_the_lines_before(
    run: Run, db: str, tmp_path: Path
) -> None:
    lines = [*facts(3), b'{"text": "caf\xe9 \xff"}', *facts(2, start=3)]
    path = write(tmp_path / "latin1.jsonl", lines)
    message = refused(run("import", str(path), "--bank", "b", "--agent", "a", "--json"), 4, 3)
    assert "not valid UTF-8" in message
    assert len(sources(db)) == 3


def test_json_nested_past_any_recursion_limit_is_refused_clearly(
    run: Run, db: str, tmp_path: Path
) -> None:
    path = write(tmp_path / "deep.jsonl", [*facts(2), b"[" * 100_000, *facts(1, start=2)])
    message = refused(run("import", str(path), "--bank", "b", "--agent", "a", "--json"), 3, 2)
    assert "nested too deeply" in message
    assert len(sources(db)) == 2

    # A LoCoMo file is one document: nested past the limit, it is refused whole.
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'[{"sample_id": "x", "conversation": ' + b"[" * 100_000)
    result = run("import", str(deep), "--agent", "a", "--json")
    assert result.exit_code == 2
    assert "nested too deeply" in json.loads(result.stdout)["error"]["message"]
    assert len(sources(db)) == 2


def test_a_line_longer_than_the_cap_is_refused_without_reading_it_whole(
    run: Run, db: str, tmp_path: Path
) -> None:
    path = tmp_path / "endless.jsonl"
    with path.open("wb") as fh:
        fh.write(b"\n".join(facts(2)) + b'\n{"text": "')
        for _ in range(3):  # 3 MiB with no newline: past the default cap of 1 MiB
            fh.write(b"a" * (1 << 20))
    message = refused(run("import", str(path), "--bank", "b", "--agent", "a", "--json"), 3, 2)
    assert "longer than 1048576 bytes" in message
    assert "--max-line-bytes" in message
    assert len(sources(db)) == 2

    # The cap is an option: a smaller one refuses a line the default would read.
    short = write(tmp_path / "short.jsonl", facts(2, start=10))
    small = run("import", str(short), "--bank", "b", "--agent", "a", "--max-line-bytes", "40")
    assert small.exit_code == 2
    assert small.stderr.startswith("error: line 1: longer than 40 bytes")
    fits = run("import", str(short), "--bank", "b", "--agent", "a", "--max-line-bytes", "200")
    assert fits.exit_code == 0, fits.output
    assert len(sources(db)) == 4


def test_a_last_line_without_a_newline_is_imported(run: Run, db: str, tmp_path: Path) -> None:
    path = write(tmp_path / "tail.jsonl", facts(3), end=b"")
    result = run("import", str(path), "--bank", "b", "--agent", "a", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["imported"] == 3
    assert len(sources(db)) == 3


def test_rerunning_an_import_without_source_ids_after_a_crash_adds_nothing_twice(
    run: Run, db: str, tmp_path: Path
) -> None:
    """A crash leaves the batches committed before it: the same file's first part. Running
    the whole import again (and again) then stores each line once. Two identical lines are two
    statements, and stay two sources."""
    lines = facts(120)
    lines.insert(50, lines[10])  # the same line twice in one file
    whole = write(tmp_path / "chat.jsonl", lines)
    part = write(tmp_path / "crashed-here.jsonl", lines[:70])

    assert run("import", str(part), "--bank", "b", "--agent", "a", "--batch", "16").exit_code == 0
    assert len(sources(db)) == 70
    again = run("import", str(whole), "--bank", "b", "--agent", "a", "--batch", "16", "--json")
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert (summary["imported"], summary["already_imported"]) == (121, 70)
    third = run("import", str(whole), "--bank", "b", "--agent", "a", "--json")
    assert json.loads(third.stdout)["already_imported"] == 121

    texts = sources(db)
    assert len(texts) == len(lines) == 121
    assert texts.count(json.loads(lines[10])["text"]) == 2


def test_a_line_with_its_own_source_id_keeps_it(run: Run, db: str, tmp_path: Path) -> None:
    path = write(tmp_path / "ids.jsonl", [b'{"text": "Moles dig at night.", "source_id": "m-1"}'])
    assert run("import", str(path), "--bank", "b", "--agent", "a").exit_code == 0
    shown = run("show", "m-1", "--json")
    assert shown.exit_code == 0
    assert json.loads(shown.stdout)["source"]["text"] == "Moles dig at night."


def _log_lines(n: int) -> list[bytes]:
    """Machine logs: readings and events of five hosts, each with its own date and time."""
    hosts = ["web-1", "web-2", "db-1", "cache-3", "queue-2"]
    events = [
        "restarted", "deployed version 1.{i}.2", "disk usage at {p}%", "latency p95 {m} ms",
        "rotated logs", "cpu at {p}%", "backup finished in {m} s", "certificate renewed",
    ]  # fmt: skip
    out = []
    for i in range(n):
        what = events[(i * 5) % len(events)].format(i=i % 30, p=10 + (i * 37) % 89, m=50 + i * 7)
        when = f"2026-11-{1 + (i * 11) % 28:02d} {(i * 7) % 24:02d}:{(i * 13) % 60:02d}"
        out.append(json.dumps({"text": f"log: {hosts[i % 5]} {what} at {when}"}).encode())
    return out


def test_log_lines_imported_outside_a_conversation_are_readings_not_disputes(
    run: Run, tmp_path: Path
) -> None:
    # A new user's probe: 400 "log: ..." lines imported with no session left 365 for a
    # person's review ("db-1 disk usage at 19% at 11-18" / "... 63% at 11-22": two
    # readings; "web-1 rotated logs at 00:40" / "... at 03:29": it happened twice).
    path = write(tmp_path / "logs.jsonl", _log_lines(120))
    assert run("import", str(path), "--bank", "ops", "--agent", "ingest").exit_code == 0
    listed = run("--json", "conflicts", "list", "--bank", "ops")
    assert listed.exit_code == 0
    assert len(json.loads(listed.output)["conflicts"]) <= 3
