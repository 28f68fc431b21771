"""A store that cannot be written is still read (issue 16, Low: "reads failing on read-only or
full media: the open writes").

Opening writes nothing it need not, and a store this process cannot write (a file or directory
it may only read, a read-only mount, a full disk) opens for reading: recall, list and stats
work, a write gets a clear BackendUnavailable naming why, and the file is left as it was. A
store that would need migrating cannot be, so that open is a clear SchemaMismatch.

The reader runs as its own process, because what is under test is what the operating system
lets it do: as root, chmod does not stop a write, so the process runs without the
capabilities that let root bypass file permissions (``setpriv``); the full disk and the
read-only mount are a small tmpfs in a private mount namespace (``unshare -m``, root only).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder

READER = Path(__file__).with_name("media_reader.py")
FIXTURE_V1 = Path(__file__).parent.parent / "fixtures" / "schema_v1.db"
ROOT = os.geteuid() == 0
#: Root bypasses file permissions through these capabilities; the reader runs without them.
NO_BYPASS = [
    "setpriv",
    "--bounding-set=-dac_override,-dac_read_search,-fowner",
    "--inh-caps=-dac_override,-dac_read_search,-fowner",
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_as_unprivileged(path: Path) -> dict[str, Any]:
    if ROOT and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: chmod cannot stop this process writing")
    prefix = NO_BYPASS if ROOT else []
    out = subprocess.run(
        [*prefix, sys.executable, str(READER), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    report: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return report


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory holding a closed store with one memory; made writable again afterwards."""
    where = tmp_path / "media"
    where.mkdir()
    with mneme.Memory.open(str(where / "m.db"), embedder=HashingEmbedder()) as mem:
        mem.retain("Hana runs marathons in Oslo.", bank="b", agent="a")
    yield where
    where.chmod(0o755)
    for f in where.iterdir():
        f.chmod(0o644)


def assert_read_not_written(report: dict[str, Any], why: str) -> None:
    assert report["open_error"] is None, report["open_error"]
    assert report["recall"] == ["Hana runs marathons in Oslo."]
    assert report["listed"] == ["Hana runs marathons in Oslo."]
    assert report["stats_units"] == 1
    kind, message = report["write_error"]
    assert kind == "BackendUnavailable"
    assert "is read-only" in message
    assert why in message


def test_a_store_file_this_user_may_only_read_is_read_and_refuses_writes(
    store_dir: Path,
) -> None:
    db = store_dir / "m.db"
    before = digest(db)
    db.chmod(0o444)
    report = read_as_unprivileged(db)
    assert_read_not_written(report, "the file cannot be written")
    assert digest(db) == before


def test_a_store_in_a_directory_this_user_may_only_read_is_read_and_refuses_writes(
    store_dir: Path,
) -> None:
    """SQLite writes beside the file (the WAL and its shared memory): a directory that cannot
    be written made even reads fail, with the file itself writable."""
    db = store_dir / "m.db"
    before = digest(db)
    files = sorted(p.name for p in store_dir.iterdir())
    store_dir.chmod(0o555)
    report = read_as_unprivileged(db)
    assert_read_not_written(report, "its directory cannot be written")
    assert digest(db) == before
    assert sorted(p.name for p in store_dir.iterdir()) == files  # no WAL or shm left behind


def test_a_read_only_store_that_needs_migrating_is_a_clear_schema_error(tmp_path: Path) -> None:
    where = tmp_path / "old"
    where.mkdir()
    db = where / "v1.db"
    shutil.copy(FIXTURE_V1, db)
    db.chmod(0o444)
    try:
        report = read_as_unprivileged(db)
    finally:
        db.chmod(0o644)
    kind, message = report["open_error"]
    assert kind == "SchemaMismatch"
    assert "needs migrating" in message
    assert "read-only" in message


def _in_a_small_tmpfs(store: Path, script: str) -> dict[str, Any]:
    """Run ``script`` (sh) in a private mount namespace with a 1 MiB tmpfs at $MNT holding a
    copy of the store, then the reader on it; the reader's report."""
    if not ROOT or shutil.which("unshare") is None:
        pytest.skip("mounting a small file system needs root and unshare")
    mnt = store.parent / "mnt"
    mnt.mkdir()
    steps = (
        f'mount -t tmpfs -o size=1m tmpfs "$MNT" && cp "{store}" "$MNT/m.db" && {script} && '
        f'"{sys.executable}" "{READER}" "$MNT/m.db"'
    )
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", steps],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "MNT": str(mnt)},
    )
    if out.returncode != 0 and "mount" in out.stderr and not out.stdout:
        pytest.skip(f"cannot mount a tmpfs here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    report: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return report


def test_a_store_on_a_full_disk_is_read_and_refuses_writes(store_dir: Path) -> None:
    fill = 'dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null; true'
    report = _in_a_small_tmpfs(store_dir / "m.db", fill)
    assert_read_not_written(report, "the medium is full")


def test_a_store_on_a_read_only_mount_is_read_and_refuses_writes(store_dir: Path) -> None:
    report = _in_a_small_tmpfs(store_dir / "m.db", 'mount -o remount,ro "$MNT"')
    assert_read_not_written(report, "cannot be written")
