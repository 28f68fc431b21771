"""Two processes on one SQLite file: one closing its store never deletes the WAL another is
writing, even when that other process opened the file twice.

A plain open() and close() of the database file drops every POSIX lock the process holds on it.
Opening a second store on a file this process already had open used to do exactly that (a
header check), leaving the first connection without its shared lock; a reader in another
process then closed as if it were the last user, checkpointed and deleted the WAL, and the
writer went on writing into an unlinked file (a 1M-unit store read as corrupt).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import mneme

CHILD = textwrap.dedent(
    """
    import sqlite3, sys
    from mneme import Memory
    path = sys.argv[1]
    first = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # this process's first handle
    first.execute("SELECT count(*) FROM sqlite_master").fetchall()
    mem = Memory.open(path, embedder="hashing", env={})  # ...and a second one on the same file
    mem.retain("Ada keeps bees in Lisbon.", bank="b", agent="a")
    print("written", flush=True)
    sys.stdin.readline()  # hold every connection open until the parent has closed its own
    mem.retain("Ada sold honey at the market.", bank="b", agent="a")
    mem.close()
    first.close()
    print("done", flush=True)
    """
)


def test_closing_a_store_leaves_another_process_wal_alone(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    mneme.Memory.open(str(path), embedder="hashing", env={}).close()
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        assert child.stdin is not None
        try:
            assert child.stdout.readline().strip() == "written"
            wal = Path(str(path) + "-wal")
            assert wal.exists()
            mem = mneme.Memory.open(str(path), embedder="hashing", env={})
            assert mem.recall("bees", bank="b", agent="a", scope="collective")
            mem.close()
            # the child still has the database open: its WAL must still be there, by its name
            assert wal.exists()
            if sys.platform.startswith("linux"):
                fds = Path(f"/proc/{child.pid}/fd")
                targets = [os.readlink(fd) for fd in fds.iterdir()]
                assert not [t for t in targets if "shared.db" in t and "(deleted)" in t]
            child.stdin.write("go\n")
            child.stdin.flush()
            assert child.stdout.readline().strip() == "done"
        finally:
            if child.poll() is None:
                child.kill()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    mem = mneme.Memory.open(str(path), embedder="hashing", env={})
    assert mem.recall("honey market", bank="b", agent="a", scope="collective")
    mem.close()
