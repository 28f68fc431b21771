"""``mneme backup``, ``mneme export`` and ``mneme import --portable`` (ADR 0053): JSON summaries,
progress on stderr, and a full disk during a backup seen as exit 5 with nothing left behind.

A full disk is made without root with RLIMIT_FSIZE in the child process (and SIGXFSZ ignored,
so a write past the limit fails with EFBIG instead of killing the process): the backup's
writes fail exactly as they do on a full file system, from SQLite up.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.cli.main import cli


def _filled(path: Path) -> None:
    mem = mneme.Memory.open(str(path), embedder=HashingEmbedder())
    for n in range(40):
        mem.retain(f"Item {n}: Bob keeps note {n} about the Kepler bid.", bank="team", agent="a")
    mem.close()


def _run(*args: str) -> tuple[int, str, str]:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    result = runner.invoke(cli, ["--embedder", "hashing", *args])
    return result.exit_code, result.stdout, result.stderr


def test_export_then_portable_import_into_a_new_store(tmp_path: Path) -> None:
    _filled(tmp_path / "a.db")
    archive = tmp_path / "a.mneme.gz"
    code, out, err = _run("--db", str(tmp_path / "a.db"), "export", str(archive), "--json")
    assert code == 0, out + err
    summary = json.loads(out)
    assert summary["rows"]["units"] == 40
    assert summary["bytes"] == archive.stat().st_size
    assert "units: 40" in err  # progress on stderr, never on stdout
    code, out, err = _run(
        "--db", str(tmp_path / "b.db"), "import", "--portable", str(archive), "--json"
    )
    assert code == 0, out + err
    assert json.loads(out)["added"]["units"] == 40
    code, out, _ = _run("--db", str(tmp_path / "b.db"), "audit", "verify")
    assert code == 0
    assert "team: ok" in out


def test_import_without_portable_still_needs_an_agent(tmp_path: Path) -> None:
    line = tmp_path / "in.jsonl"
    line.write_text('{"text": "Bob drinks tea."}\n')
    code, _, err = _run("--db", str(tmp_path / "c.db"), "import", str(line), "--bank", "t")
    assert code == 2
    assert "--agent is required" in err


def test_a_newer_archive_exits_4_naming_the_schema(tmp_path: Path) -> None:
    import gzip

    _filled(tmp_path / "a.db")
    archive = tmp_path / "a.mneme.gz"
    assert _run("--db", str(tmp_path / "a.db"), "export", str(archive))[0] == 0
    with gzip.open(archive, "rb") as fh:
        lines = fh.readlines()
    head = json.loads(lines[0])
    head["schema"] = 999
    lines[0] = (json.dumps(head) + "\n").encode()
    with gzip.open(archive, "wb") as fh:
        fh.writelines(lines)
    code, out, _ = _run(
        "--db", str(tmp_path / "b.db"), "import", "--portable", str(archive), "--json"
    )
    assert code == 4
    assert "schema 999" in json.loads(out)["error"]["message"]


def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_during_backup_exits_5_and_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    _filled(db)
    size = db.stat().st_size
    target = tmp_path / "backup.db"
    env = {k: v for k, v in os.environ.items() if k not in ("MNEME_DB", "MNEME_EMBEDDER")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from mneme.surfaces.cli.main import main; main()",
            "--embedder",
            "hashing",
            "--db",
            str(db),
            "backup",
            str(target),
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: _limit_file_size(size // 2),  # the point of the test
    )
    assert done.returncode == 5, done.stdout + done.stderr
    message = json.loads(done.stdout)["error"]["message"]
    assert "the partial file was removed" in message
    assert not target.exists()
    assert not Path(f"{target}.audit-key").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    mem = mneme.Memory.open(str(db), embedder=HashingEmbedder())
    assert len(mem.recall("Kepler bid note", bank="team", agent="a", k=50)) > 0
    assert all(r.ok for r in mem.admin.audit_verify().values())
    mem.close()
    code, out, _ = _run("--db", str(db), "backup", str(target), "--json")
    assert code == 0
    assert json.loads(out)["bytes"] > 0
