"""SQLite connections, transactions and migrations.

One writer connection guarded by a lock, thread-local reader connections (WAL lets them read
while the writer writes), ``BEGIN IMMEDIATE`` so a write transaction takes the file's write lock
up front, and a bounded retry so "database is locked" never reaches a caller while another
process holds that lock (issue 3, many agents at once).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import sqlite3
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from mneme.errors import BackendUnavailable, MnemeError, SchemaMismatch

_MIGRATION = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
LOCK_WAIT_SECONDS = 120.0


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every packaged migration, in order."""
    out = []
    for entry in resources.files("mneme.store.sqlite").joinpath("migrations").iterdir():
        m = _MIGRATION.match(entry.name)
        if m:
            out.append((int(m[1]), m[2], entry.read_text(encoding="utf-8")))
    return sorted(out)


def latest_version() -> int:
    return migrations()[-1][0]


_T = TypeVar("_T")


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    msg = str(exc).lower()
    return "locked" in msg or "busy" in msg


def _until_unlocked(step: Callable[[], _T], seconds: float, pause: tuple[float, float]) -> _T:
    """Run ``step``, again after a random pause in ``pause`` (seconds) while it meets a lock,
    until ``seconds`` have passed; then the lock error is raised."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(*pause))


_UNDECODABLE = re.compile(r"could not decode to utf-8 column '([^']*)'", re.IGNORECASE)


def translate(exc: sqlite3.Error, path: str) -> MnemeError:
    msg = str(exc)
    low = msg.lower()
    bad_text = _UNDECODABLE.search(msg)
    if bad_text:
        # A damaged page under a text column: say which column, not its garbled bytes.
        return SchemaMismatch(
            f"{path} is corrupt: a stored {bad_text[1]!r} value is not valid UTF-8 "
            "(restore it from a backup or an export)"
        )
    if "readonly" in low or "read-only" in low:
        return BackendUnavailable(f"the database {path} is read-only: {msg}")
    if (
        "not a database" in low
        or "malformed" in low
        or "file is encrypted" in low
        or "corrupt" in low
    ):
        return SchemaMismatch(f"{path} is not a readable mneme database ({msg})")
    if "unable to open" in low:
        return BackendUnavailable(f"cannot open the database {path}: {msg}")
    if "disk i/o" in low or "full" in low:
        return BackendUnavailable(f"the database {path} cannot be written: {msg}")
    if _is_locked(exc) if isinstance(exc, sqlite3.OperationalError) else False:
        return BackendUnavailable(f"the database {path} stayed locked by another writer: {msg}")
    return MnemeError(f"database error on {path}: {msg}")


class Database:
    """The connections to one SQLite file (or a private in-memory database)."""

    def __init__(self, path: str, *, read_only: bool = False, busy_timeout_ms: int = 30_000):
        self.read_only = read_only
        #: Why writes are refused, for the error a write gets.
        self.read_only_reason = "opened with read_only"
        self._busy_ms = busy_timeout_ms
        if path in ("", ":memory:"):
            # A named shared-cache memory database, so every connection of this store sees it.
            self.path = ":memory:"
            self._uri = f"file:mneme-{uuid.uuid4().hex}?mode=memory&cache=shared"
        else:
            self.path = str(Path(path).expanduser())
            if not read_only:
                parent = Path(self.path).parent
                if not parent.exists():
                    raise BackendUnavailable(f"cannot create {self.path}: {parent} does not exist")
                unwritable = _unwritable(self.path)
                if unwritable:
                    # Reading must not need a write (issue 16): a store on read-only media, or
                    # one this user may only read, opens for reading and refuses writes clearly.
                    self.read_only = True
                    self.read_only_reason = unwritable
            self._uri = self._file_uri("ro" if self.read_only else "rwc")
            self._check_file()
        self._local = threading.local()
        self._wlock = threading.RLock()
        self._all: list[sqlite3.Connection] = []
        self._writer = self._connect(writer=True)
        self._depth = 0
        #: Changes whenever a transaction begins or anything rolls back (a savepoint included):
        #: state cached for one transaction is valid only while the epoch stays the same.
        self.epoch = 0
        self._owner: int | None = None
        self._on_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []
        self._before_commit: list[Callable[[], None]] = []

    def _file_uri(self, mode: str, *, immutable: bool = False) -> str:
        # Percent-escaped: a "?" or "#" in a file name would otherwise end the path.
        where = urllib.parse.quote(str(Path(self.path).absolute()), safe="/")
        return f"file:{where}?mode={mode}" + ("&immutable=1" if immutable else "")

    def _check_file(self) -> None:
        p = Path(self.path)
        if not p.exists():
            if self.read_only:
                raise BackendUnavailable(f"{self.path} does not exist (opened read-only)")
            return
        if p.is_dir():
            raise BackendUnavailable(f"{self.path} is a directory, not a database file")
        try:
            self._probe()
        except _CannotWrite as exc:
            if not _may_read_immutable(self.path):
                raise translate(exc.error, self.path) from exc.error
            # SQLite could not make the files a reader of a WAL store needs beside it (a
            # directory nobody may write here, a full disk). With no write-ahead log to replay,
            # reading the file as immutable is exact: it is read as it is now, later writes by
            # others are not followed, and this store refuses writes (issue 16).
            if not self.read_only:  # else the reason it was opened read-only stands
                self.read_only = True
                self.read_only_reason = exc.reason
            self._uri = self._file_uri("ro", immutable=True)
            try:
                self._probe()
            except _CannotWrite as again:
                raise translate(again.error, self.path) from again.error

    def _probe(self) -> None:
        # Ask SQLite, never read the file ourselves: closing any descriptor of a file drops
        # every POSIX lock this process holds on it, so a plain open() and close() beside a
        # live connection left that connection without its shared lock, and another process
        # closing the database then took it for the last user and deleted the WAL under it
        # (seen on a 1M-unit store: a writer's WAL "(deleted)", readers saw a corrupt file).
        # SQLite's own opens and closes know about each other and keep the locks.
        try:
            probe = sqlite3.connect(self._uri, uri=True, timeout=self._busy_ms / 1000)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc) or "encrypted" in str(exc):
                raise SchemaMismatch(
                    f"{self.path} is not a SQLite database (a foreign or corrupt file)"
                ) from exc
            low = str(exc).lower()
            if "disk i/o" in low or "full" in low:
                raise _CannotWrite(exc, f"the medium is full or cannot be written: {exc}") from exc
            if "readonly" in low or "unable to open" in low:
                raise _CannotWrite(exc, f"SQLite cannot write beside the file: {exc}") from exc
            raise translate(exc, self.path) from exc
        finally:
            probe.close()

    def _connect(self, *, writer: bool) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self._uri,
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_ms / 1000,
            )
            self._shared_cache_wait(
                lambda: conn.execute(f"PRAGMA busy_timeout = {int(self._busy_ms)}")
            )
            if writer and not self.read_only and self.path != ":memory:":
                self._wal(conn)
                conn.execute("PRAGMA synchronous = NORMAL")
            if not writer or self.read_only:
                conn.execute("PRAGMA query_only = 1")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        self._all.append(conn)
        return conn

    def _wal(self, conn: sqlite3.Connection) -> None:
        """Put the file in WAL mode, only when it is not already (opening writes nothing it
        need not). A fresh file that several processes open at once: the switch needs the
        file to itself and SQLite answers "locked" at once, without waiting on the busy
        timeout, while another process switches or reads it; so it is tried again until the
        busy timeout has passed."""

        def switch() -> None:
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")

        _until_unlocked(switch, self._busy_ms / 1000, (0.005, 0.05))

    # -- connections ---------------------------------------------------------------------

    def conn(self) -> sqlite3.Connection:
        """The connection this thread should use: the writer inside its transaction."""
        if self._depth and self._owner == threading.get_ident():
            return self._writer
        reader = getattr(self._local, "reader", None)
        if reader is None:
            reader = self._local.reader = self._connect(writer=False)
        return reader

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        try:
            return self._shared_cache_wait(lambda: self.conn().execute(sql, params))
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc

    def _shared_cache_wait(self, step: Callable[[], _T]) -> _T:
        """Run ``step``; on an in-memory database, again while another connection's write
        transaction holds a table or the schema. Its connections share one cache, whose
        table locks answer "locked" at once (SQLITE_LOCKED: the busy timeout never applies),
        so a read beside a write failed (the ingest worker's poll while the caller wrote a
        new bank: "database schema is locked"). A file database waits in SQLite itself."""
        if self.path != ":memory:":
            return step()
        return _until_unlocked(step, self._busy_ms / 1000, (0.001, 0.01))

    def run(self, sql: str, params: Any = ()) -> int:
        """Run one statement; the number of rows it touched."""
        return int(self.execute(sql, params).rowcount)

    def execute_many(self, sql: str, rows: Sequence[Any]) -> None:
        try:
            self.conn().executemany(sql, rows)
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc

    def query(self, sql: str, params: Any = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        try:
            # Rows are read (and a damaged page found) while fetching, not in execute().
            return self._shared_cache_wait(
                lambda: list(self.conn().execute(sql, params).fetchall())
            )
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc

    # -- transactions --------------------------------------------------------------------

    def _begin(self) -> None:
        try:
            _until_unlocked(
                lambda: self._writer.execute("BEGIN IMMEDIATE"), LOCK_WAIT_SECONDS, (0.01, 0.01)
            )
        except sqlite3.OperationalError as exc:
            raise translate(exc, self.path) from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction; nested calls become savepoints. Rollback never hides the error."""
        if self.read_only:
            raise BackendUnavailable(
                f"the database {self.path} is read-only ({self.read_only_reason}): it can be "
                "read, not written"
            )
        with self._wlock:
            outer = self._depth == 0
            name = f"sp{self._depth}"
            if outer:
                self._begin()
                self._owner = threading.get_ident()
                self.epoch += 1
            else:
                self._writer.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                self.epoch += 1
                try:
                    if outer:
                        self._writer.execute("ROLLBACK")
                    else:
                        self._writer.execute(f"ROLLBACK TO {name}")
                        self._writer.execute(f"RELEASE {name}")
                except sqlite3.Error:
                    pass  # the original error matters more than a failed rollback
                if outer:
                    self._finish(commit=False)
                raise
            if outer:
                try:
                    # Writes deferred to the end of the transaction (the audit chain's head);
                    # they run while it is still open, so a failure rolls everything back.
                    while self._before_commit:
                        self._before_commit.pop(0)()
                except BaseException:
                    self._depth -= 1
                    self.epoch += 1
                    try:
                        self._writer.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                    self._finish(commit=False)
                    raise
            self._depth -= 1
            if not outer:
                self._writer.execute(f"RELEASE {name}")
                return
            try:
                self._writer.execute("COMMIT")
            except sqlite3.Error as exc:
                try:
                    self._writer.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                self._finish(commit=False)
                raise translate(exc, self.path) from exc
            self._finish(commit=True)

    def _finish(self, *, commit: bool) -> None:
        self._owner = None
        self._before_commit = []
        hooks = self._on_commit if commit else self._on_rollback
        self._on_commit, self._on_rollback = [], []
        for hook in hooks:
            hook()

    def before_commit(self, hook: Callable[[], None]) -> None:
        """Run a write just before the current outer transaction commits, inside it."""
        self._before_commit.append(hook)

    def on_writer(self, setup: Callable[[sqlite3.Connection], None]) -> None:
        """Configure the writing connection (the store's row-sealing triggers, ADR 0035)."""
        with self._wlock:
            try:
                setup(self._writer)
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from exc

    def after(self, on_commit: Callable[[], None], on_rollback: Callable[[], None]) -> None:
        """Run a hook when the current transaction ends (keeps in-memory state in step)."""
        self._on_commit.append(on_commit)
        self._on_rollback.append(on_rollback)

    def writers_held(self) -> threading.RLock:
        """Hold while this process's write transactions wait (none is open meanwhile)."""
        return self._wlock

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    @property
    def owns_transaction(self) -> bool:
        """Whether this thread is inside the write transaction (so it holds the file's lock)."""
        return self._depth > 0 and self._owner == threading.get_ident()

    def snapshot(self) -> sqlite3.Connection | None:
        """A private read-only connection to the file, for a caller that reads several
        statements in one read transaction and keeps temporary tables of its own (the lexical
        index's build); None for an in-memory database. The caller closes it."""
        if self.path == ":memory:":
            return None
        try:
            conn = sqlite3.connect(
                self._uri if self.read_only else self._file_uri("ro"),
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_ms / 1000,
            )
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from exc
        return conn

    # -- schema --------------------------------------------------------------------------

    def schema_version(self) -> int:
        # One statement, so one snapshot: two reads could straddle another process's first
        # migration (no schema_version in the first, its tables in the second) and call a
        # fresh store foreign.
        has_version, tables = self.query(
            "SELECT coalesce(sum(name = 'schema_version'), 0), count(*) FROM sqlite_master "
            "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )[0]
        if not has_version:
            if tables:
                raise SchemaMismatch(
                    f"{self.path} is a SQLite database but not a mneme store (it has tables "
                    "and no schema_version)"
                )
            return 0
        return int(self.query("SELECT coalesce(max(version), 0) FROM schema_version")[0][0])

    def migrate(self) -> list[int]:
        """Apply every migration newer than the file's version; each in its own transaction.

        The version read before is only a hint: another process may be migrating the same file
        at this moment (several agents' first opens of one fresh store, issue 16 item 8). Each
        migration runs under ``BEGIN IMMEDIATE``, which holds the file's write lock, and reads
        the version again inside it: a migration another process applied meanwhile is skipped,
        never run twice ("table banks already exists").

        Raises:
            SchemaMismatch: the file is newer than this mneme, not a mneme store, or needs
                migrating but cannot be written.
        """
        current = self._check_version(self.schema_version())
        applied: list[int] = []
        for version, name, sql in migrations():
            if version <= current:
                continue
            if self.read_only:
                raise SchemaMismatch(
                    f"{self.path} has schema version {current} and needs migrating to "
                    f"{latest_version()}, but it is read-only ({self.read_only_reason}); open it "
                    "once where it can be written (or run `mneme db migrate` there)"
                )
            if self._apply(version, name, sql):
                applied.append(version)
            current = version
        return applied

    def _check_version(self, current: int) -> int:
        latest = latest_version()
        if current > latest:
            raise SchemaMismatch(
                f"{self.path} has schema version {current}, newer than this mneme "
                f"understands ({latest}); upgrade mneme"
            )
        return current

    def _apply(self, version: int, name: str, sql: str) -> bool:
        """Apply one migration unless the file already has it; whether this call applied it."""
        now = dt.datetime.now(dt.UTC).isoformat()
        statements = [s for s in _split_sql(sql) if s.strip()]
        with self.transaction():
            # Read again under the write lock: the version seen before may be stale.
            if self._check_version(self.schema_version()) >= version:
                return False
            w = self._writer
            try:
                w.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                    "name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
                for stmt in statements:
                    w.execute(stmt)
                w.execute("INSERT INTO schema_version VALUES (?, ?, ?)", (version, name, now))
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from exc
        return True

    def close(self) -> None:
        for conn in self._all:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._all.clear()


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    out: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        stripped = line.strip()
        if stripped.startswith("--") and not buf:
            continue
        buf.append(line)
        text = "\n".join(buf)
        if sqlite3.complete_statement(text):
            out.append(text)
            buf = []
    if "\n".join(buf).strip():
        out.append("\n".join(buf))
    return out


class _CannotWrite(Exception):
    """The probe of an existing file failed for want of somewhere to write (not a lock)."""

    def __init__(self, error: sqlite3.Error, reason: str) -> None:
        super().__init__(reason)
        self.error = error
        self.reason = reason


def _unwritable(path: str) -> str | None:
    """Why this process cannot write the existing store at ``path`` (None: it can, or the
    file does not exist yet). SQLite writes beside the file too (its journal, or the WAL and
    its shared memory), so a directory that cannot be written is as read-only as the file."""
    p = Path(path)
    if not p.is_file():
        return None
    if not os.access(p, os.W_OK):
        return "the file cannot be written by this user or on this medium"
    if not os.access(p.absolute().parent, os.W_OK):
        return "its directory cannot be written by this user or on this medium"
    return None


def _may_read_immutable(path: str) -> bool:
    """Whether nothing waits in a write-ahead log that an immutable read would miss."""
    wal = Path(path + "-wal")
    try:
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False
