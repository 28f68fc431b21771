"""Portable archives through ``mem.admin`` on real SQLite files (ADR 0053): the round trip
keeps every id, recall and the audit; a merge adds only what is new; and every damaged,
foreign or newer archive is refused before anything is stored, the store still opening."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import Conflict, InvalidInput, SchemaMismatch
from mneme.store.tables import TABLES

TURNS = [
    "Bob drinks green tea every morning.",
    "Alice moved to Berlin in March 2021.",
    "Bob plays chess with Alice on Sundays.",
    "Actually, Bob drinks black coffee now, not tea.",
    "The Kepler bid's review deadline is 14 May.",
]
QUESTIONS = ["What does Bob drink?", "Where does Alice live?", "When is the Kepler deadline?"]


def _open(path: Path) -> mneme.Memory:
    return mneme.Memory.open(str(path), embedder=HashingEmbedder())


def _fill(mem: mneme.Memory, bank: str = "team") -> None:
    for text in TURNS:
        mem.retain(text, bank=bank, agent="a1")


def _recall(mem: mneme.Memory, bank: str = "team") -> list[list[tuple[str, float]]]:
    return [
        [(h.unit.id, round(h.score, 9)) for h in mem.recall(q, bank=bank, agent="a1")]
        for q in QUESTIONS
    ]


def _counts(mem: mneme.Memory) -> dict[str, int]:
    store = mem._store
    return {t: sum(len(b) for b in store.portable.export_rows(t)) for t in TABLES}


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, Path]:
    """A filled store and its archive (with the audit key file beside it)."""
    mem = _open(tmp_path / "src.db")
    _fill(mem)
    archive = tmp_path / "team.mneme.gz"
    mem.admin.export(str(archive))
    mem.close()
    return tmp_path / "src.db", archive


def test_round_trip_keeps_ids_recall_and_audit(source: tuple[Path, Path], tmp_path: Path) -> None:
    src_path, archive = source
    src, dst = _open(src_path), _open(tmp_path / "copy.db")
    report = dst.admin.import_archive(str(archive))
    assert report.banks == ["team"]
    assert _counts(dst) == _counts(src)
    assert _recall(dst) == _recall(src)
    assert all(r.ok for r in dst.admin.audit_verify().values())
    again = dst.admin.import_archive(str(archive))
    assert again.total == 0
    assert _counts(dst) == _counts(src)
    src.close()
    dst.close()


def test_merge_beside_another_bank_moves_seqs_and_verifies(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    _, archive = source
    dst = _open(tmp_path / "other.db")
    dst.retain("Carol plays the piano.", bank="music", agent="z")
    report = dst.admin.import_archive(str(archive))
    assert report.moved_seqs.get("audit_log", 0) > 0
    verified = dst.admin.audit_verify()
    assert set(verified) == {"music", "team"}
    assert all(r.ok for r in verified.values())
    assert dst.recall("Who plays the piano?", bank="music", agent="z")
    dst.close()


def test_a_clash_refuses_the_whole_import_naming_the_ids(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    _, archive = source
    dst = _open(tmp_path / "clash.db")
    dst.retain("Someone else wrote to team first.", bank="team", agent="b")
    before = _counts(dst)
    with pytest.raises(Conflict, match=r"first: banks team"):
        dst.admin.import_archive(str(archive))
    assert _counts(dst) == before
    dst.close()
    reopened = _open(tmp_path / "clash.db")
    assert all(r.ok for r in reopened.admin.audit_verify().values())
    reopened.close()


def _lines(archive: Path) -> list[bytes]:
    with gzip.open(archive, "rb") as fh:
        return fh.readlines()


def _rewrite(archive: Path, lines: list[bytes]) -> None:
    with gzip.open(archive, "wb") as fh:
        fh.writelines(lines)


def _refused(archive: Path, tmp_path: Path, error: type[Exception], match: str) -> None:
    dst = _open(tmp_path / "target.db")
    dst.retain("Already here before the import.", bank="keep", agent="k")
    before = _counts(dst)
    with pytest.raises(error, match=match):
        dst.admin.import_archive(str(archive))
    assert _counts(dst) == before
    dst.close()
    reopened = _open(tmp_path / "target.db")
    assert reopened.recall("What was already here?", bank="keep", agent="k")
    assert all(r.ok for r in reopened.admin.audit_verify().values())
    reopened.close()


def test_a_truncated_archive_is_refused(source: tuple[Path, Path], tmp_path: Path) -> None:
    _, archive = source
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) * 2 // 3])
    _refused(archive, tmp_path, InvalidInput, "not a whole mneme archive: it ends early")


def test_an_archive_without_its_trailer_is_refused(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    _, archive = source
    _rewrite(archive, _lines(archive)[:-1])
    _refused(archive, tmp_path, InvalidInput, "trailer is missing")


def _tamper(lines: list[bytes]) -> list[bytes]:
    """Change a unit's text in its row line."""
    for n, raw in enumerate(lines):
        obj = json.loads(raw)
        if obj.get("t") == "units":
            obj["r"]["text"] = "Bob drinks whisky every morning."
            lines[n] = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
            return lines
    raise AssertionError("no unit")


def test_a_tampered_row_is_refused_by_its_digest(source: tuple[Path, Path], tmp_path: Path) -> None:
    _, archive = source
    _rewrite(archive, _tamper(_lines(archive)))
    _refused(archive, tmp_path, InvalidInput, "rows of table units were changed")


def test_a_tamper_with_digests_recomputed_is_refused_by_the_keyed_seal(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    _, archive = source
    lines = _tamper(_lines(archive))
    manifest, rows, trailer = json.loads(lines[0]), lines[1:-1], json.loads(lines[-1])
    for name in manifest["tables"]:
        h = hashlib.sha256()
        for raw in rows:
            if json.loads(raw)["t"] == name:
                h.update(raw)
        manifest["tables"][name]["sha256"] = h.hexdigest()
    trailer["sha256"] = hashlib.sha256(b"".join(rows)).hexdigest()
    head = (json.dumps(manifest, separators=(",", ":")) + "\n").encode()
    _rewrite(archive, [head, *rows, (json.dumps(trailer) + "\n").encode()])
    _refused(archive, tmp_path, InvalidInput, "keyed seal does not match")


def test_an_archive_of_a_newer_schema_is_refused(source: tuple[Path, Path], tmp_path: Path) -> None:
    _, archive = source
    lines = _lines(archive)
    manifest = json.loads(lines[0])
    manifest["schema"] += 1
    lines[0] = (json.dumps(manifest, separators=(",", ":")) + "\n").encode()
    _rewrite(archive, lines)
    _refused(archive, tmp_path, SchemaMismatch, "upgrade mneme")


def test_an_archive_without_its_audit_key_is_refused(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    _, archive = source
    Path(f"{archive}.audit-key").unlink()
    _refused(archive, tmp_path, InvalidInput, "sealed with key")


def test_export_refuses_to_replace_a_file(source: tuple[Path, Path]) -> None:
    src_path, archive = source
    mem = _open(src_path)
    with pytest.raises(Conflict, match="already exists"):
        mem.admin.export(str(archive))
    assert mem.admin.export(str(archive), overwrite=True).total > 0
    mem.close()


def test_a_killed_export_leaves_no_archive_and_the_store_opens(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    mem = _open(db)
    _fill(mem)
    mem.close()
    archive = tmp_path / "out.mneme.gz"
    script = Path(__file__).with_name("killed_export.py")
    env: dict[str, Any] = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, str(script), str(db), str(archive)],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done.stderr.decode()
    assert not archive.exists()
    assert not Path(f"{archive}.audit-key").exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.mneme.gz")]
    assert leftovers
    assert all(name.endswith(".tmp") for name in leftovers)
    reopened = _open(db)
    assert all(r.ok for r in reopened.admin.audit_verify().values())
    with pytest.raises(InvalidInput, match="not a whole mneme archive"):
        reopened.admin.import_archive(str(tmp_path / leftovers[0]))
    reopened.close()


def test_backup_is_a_store_that_opens_and_verifies(
    source: tuple[Path, Path], tmp_path: Path
) -> None:
    src_path, _ = source
    mem = _open(src_path)
    report = mem.admin.backup(str(tmp_path / "b.db"))
    assert report.key_file == f"{tmp_path / 'b.db'}.audit-key"
    copy = _open(tmp_path / "b.db")
    assert _recall(copy) == _recall(mem)
    assert all(r.ok for r in copy.admin.audit_verify().values())
    copy.close()
    mem.close()
