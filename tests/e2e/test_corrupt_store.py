"""A damaged store file gives a clear error, never a traceback (issue 16, Low).

The attack found tracebacks where the damage is past the header, so the file opens and a later
read meets it: a text value whose bytes are no longer UTF-8 (read while rows are fetched, not
when the statement runs), a table's page overwritten. Through ``Memory`` each is a
SchemaMismatch; through the installed ``mneme`` script, exit 4 and one line on stderr (and no
crash: a recall channel still running when another met the damage used to have its connection
closed under it).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import SchemaMismatch

MNEME = Path(sys.executable).with_name("mneme")
PAGE = 4096


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    with mneme.Memory.open(str(path), embedder=HashingEmbedder()) as mem:
        for i in range(40):
            mem.retain(f"Lantern {i} hangs in the barn on hook {i}.", bank="b", agent="a")
    return path


def script(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MNEME_DB", "MNEME_EMBEDDER")}
    return subprocess.run(
        [str(MNEME), "--db", str(db), "--embedder", "hashing", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def assert_one_line_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    assert out.returncode == 4, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("error: ")
    for word in words:
        assert word in lines[0]


def garble(path: Path, sql: str) -> None:
    """Write bytes that are not UTF-8 where text belongs, as a damaged page would leave them."""
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_text_that_is_no_longer_utf8_is_a_clear_error_on_every_surface(store: Path) -> None:
    garble(store, "UPDATE audit_log SET after = CAST(x'7b22fffe22' AS TEXT) WHERE seq = 3")
    garble(store, "UPDATE units SET valid_from = CAST(x'32303234ff' AS TEXT) WHERE rowid = 5")
    with mneme.Memory.open(str(store), embedder=HashingEmbedder()) as mem:
        with pytest.raises(SchemaMismatch, match="is corrupt: a stored 'after' value"):
            mem.admin.audit_verify()
        with pytest.raises(SchemaMismatch, match="'valid_from' value is not valid UTF-8"):
            mem.list_memories(bank="b", limit=100)
    assert_one_line_error(script(store, "audit", "verify"), "is corrupt", "'after'")
    assert_one_line_error(script(store, "list", "--bank", "b", "--limit", "100"), "valid_from")


def test_an_overwritten_table_page_is_a_clear_error_on_every_surface(store: Path) -> None:
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'units'").fetchone()[0]
    conn.close()
    data = bytearray(store.read_bytes())
    start = (root - 1) * PAGE
    data[start : start + PAGE] = bytes((i * 37 + 11) % 256 for i in range(PAGE))
    store.write_bytes(bytes(data))

    mem = mneme.Memory.open(str(store), embedder=HashingEmbedder())
    try:
        with pytest.raises(SchemaMismatch, match="not a readable mneme database"):
            mem.list_memories(bank="b")
    finally:
        mem.close()
    # A search runs channels in threads: the one that meets the damage must not leave another
    # running while the store closes (that crashed the process with SIGSEGV now and then).
    search = ("search", "lantern", "--bank", "b", "--agent", "a")
    for args in (("list", "--bank", "b"), search, search, search, search):
        assert_one_line_error(script(store, *args), "not a readable mneme database")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d[:50], id="truncated-in-the-header"),
        pytest.param(lambda d: d[: len(d) // 2], id="truncated-half"),
        pytest.param(lambda d: bytes(range(256)) * 64, id="garbage"),
    ],
)
def test_a_truncated_or_garbage_file_is_refused_at_open(
    store: Path, damage: Callable[[bytes], bytes]
) -> None:
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    store.write_bytes(damage(store.read_bytes()))
    with pytest.raises(SchemaMismatch):
        mneme.Memory.open(str(store), embedder=HashingEmbedder())
    assert_one_line_error(script(store, "list", "--bank", "b"))
