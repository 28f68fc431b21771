"""PostgreSQL connections, transactions, migrations and error translation.

A connection pool serves reads (autocommit, one statement each). A write transaction binds one
pooled connection to the calling thread until it ends; nested ``transaction()`` calls on that
thread become savepoints, and ``after()`` hooks run when the outermost one ends, exactly as in
the SQLite backend's ``Database``. Unlike SQLite, several threads or processes may hold write
transactions at once: per-bank serialization happens where it matters (the audit chain head and
the index state row are locked inside the transaction).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from mneme.errors import BackendUnavailable, Conflict, MnemeError, SchemaMismatch
from mneme.lifecycle import close_at_exit, forget_at_exit

_MIGRATION = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@|(password\s*=\s*)\S+", re.IGNORECASE)

#: Serializes schema changes across processes (two stores migrating one database at once).
MIGRATION_LOCK = 0x6D6E656D65  # "mneme"

NEEDS_VECTOR = (
    "the pgvector extension is not installed in this database; run "
    "`CREATE EXTENSION vector;` as a superuser (or a role allowed to create it), then retry"
)


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every packaged migration, in order."""
    out = []
    for entry in resources.files("mneme.store.postgres").joinpath("migrations").iterdir():
        m = _MIGRATION.match(entry.name)
        if m:
            out.append((int(m[1]), m[2], entry.read_text(encoding="utf-8")))
    return sorted(out)


def latest_version() -> int:
    return migrations()[-1][0]


def redact(dsn: str) -> str:
    """The DSN without its password, fit for an error message."""
    return _PASSWORD.sub(lambda m: (m[1] + "***@") if m[1] else (m[2] + "***"), dsn)


def translate(exc: Exception, where: str) -> MnemeError:
    """A driver error as one of mneme's errors, keeping the server's message."""
    msg = str(exc).strip()
    if isinstance(exc, PoolTimeout | psycopg.OperationalError | pg_errors.AdminShutdown):
        return BackendUnavailable(f"the PostgreSQL server {where} cannot be reached: {msg}")
    if isinstance(exc, pg_errors.UniqueViolation):
        return Conflict(f"duplicate row on {where}: {msg}")
    if isinstance(exc, pg_errors.UndefinedFile | pg_errors.FeatureNotSupported) and (
        "vector" in msg
    ):
        return SchemaMismatch(NEEDS_VECTOR + f" ({msg})")
    if isinstance(exc, pg_errors.UndefinedTable | pg_errors.UndefinedColumn):
        return SchemaMismatch(f"{where} is not a migrated mneme store: {msg}")
    return MnemeError(f"database error on {where}: {msg}")


@dataclass
class _Tx:
    """The write transaction this thread holds."""

    conn: psycopg.Connection[Any]
    depth: int = 0
    on_commit: list[Callable[[], None]] = field(default_factory=list)
    on_rollback: list[Callable[[], None]] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)  # banks whose index_state was bumped
    # bank -> (hash, count) of its audit chain head, known while this transaction holds the
    # bank's audit lock; forgotten when a savepoint rolls back (its records are gone).
    audit_heads: dict[str, tuple[str, int]] = field(default_factory=dict)
    # bank -> seq of the first audit record this transaction wrote (kept across savepoints):
    # its newest record of the bank from there on is the one that seals its rows (ADR 0035).
    audit_first: dict[str, int] = field(default_factory=dict)
    # Reads remembered for the rest of the transaction (PostgresBase._memoized says which);
    # forgotten when a savepoint rolls back.
    memo: dict[Any, Any] = field(default_factory=dict)


#: Candidate list size of the HNSW search (pgvector's default is 40).
EF_SEARCH = 100


def _configure(conn: psycopg.Connection[Any]) -> None:
    # UTC sessions: timestamps read back as UTC, and naive datetimes are taken as UTC (the
    # same rule as the SQLite codec).
    conn.execute("SET TIME ZONE 'UTC'")
    # mneme's own sessions record the rows they write, to seal them at commit (ADR 0035).
    conn.execute("SET mneme.sealing = 'on'")
    # The semantic channel keeps walking the HNSW graph until `limit` rows pass scope and
    # filters, in exact distance order: set once per session, not once per search (a round
    # trip per atom on the write path). pgvector takes these over when it loads.
    conn.execute("SET hnsw.iterative_scan = 'strict_order'")
    conn.execute(f"SET hnsw.ef_search = {int(EF_SEARCH)}")


def _close_pool(pool: ConnectionPool[Any]) -> None:
    if not pool.closed:
        pool.close(timeout=2.0)


class Database:
    """A pool of connections to one PostgreSQL database."""

    def __init__(
        self, dsn: str, *, min_size: int = 1, max_size: int = 8, connect_timeout: float = 10.0
    ) -> None:
        self.dsn = dsn
        self.where = redact(dsn)
        # One direct connection first: the pool would retry in the background and end in a
        # vague PoolTimeout, while this says at once that the server is down or refused us.
        try:
            probe = psycopg.connect(dsn, autocommit=True, connect_timeout=int(connect_timeout))
        except psycopg.Error as exc:
            raise BackendUnavailable(
                f"cannot connect to the PostgreSQL server {self.where}: {str(exc).strip()}"
            ) from exc
        probe.close()
        self._timeout = connect_timeout
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            dsn,
            min_size=min_size,
            max_size=max_size,
            open=False,
            timeout=connect_timeout,
            kwargs={"autocommit": True, "connect_timeout": int(connect_timeout)},
            configure=_configure,
            check=ConnectionPool.check_connection,
            name="mneme",
        )
        try:
            self.pool.open(wait=True, timeout=connect_timeout)
        except PoolTimeout as exc:
            raise BackendUnavailable(f"cannot open a pool to {self.where}: {exc}") from exc
        # Left open at exit, the pool closes before a hook registered earlier (a test server's
        # stop) shuts the server down under its workers, which would log each failed
        # reconnection as an error (seen in the acceptance run).
        self._close_at_exit = close_at_exit(self.pool, _close_pool)
        self._local = threading.local()
        #: Runs inside every outer write transaction just before it commits (the store seals
        #: the rows the transaction wrote and keys its audit heads, ADR 0035).
        self.before_commit: Callable[[], None] | None = None

    # -- connections ---------------------------------------------------------------------

    @property
    def _tx(self) -> _Tx | None:
        tx: _Tx | None = getattr(self._local, "tx", None)
        return tx

    @contextmanager
    def conn(self) -> Iterator[psycopg.Connection[Any]]:
        """This thread's transaction connection, or a pooled autocommit one."""
        tx = self._tx
        if tx is not None:
            yield tx.conn
            return
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise translate(exc, self.where) from exc

    def execute(self, sql: str | bytes | Any, params: Any = None) -> int:
        """Run one statement; the number of rows it touched."""
        with self.conn() as conn:
            try:
                return conn.execute(sql, params).rowcount
            except psycopg.Error as exc:
                raise translate(exc, self.where) from exc

    def run(self, sql: str, params: Any = None) -> int:
        """Run one statement; the number of rows it touched (the shared executor's name)."""
        return self.execute(sql, params)

    def execute_many(self, sql: str | Any, rows: Sequence[Any]) -> None:
        """Run one statement for every parameter row, pipelined in one round trip."""
        with self.conn() as conn:
            try:
                with conn.cursor() as cur:
                    cur.executemany(sql, rows)
            except psycopg.Error as exc:
                raise translate(exc, self.where) from exc

    def query(self, sql: str | Any, params: Any = None) -> list[tuple[Any, ...]]:
        with self.conn() as conn:
            try:
                return conn.execute(sql, params).fetchall()
            except psycopg.Error as exc:
                raise translate(exc, self.where) from exc

    def scalar(self, sql: str | Any, params: Any = None) -> Any:
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    # -- transactions --------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction; nested calls become savepoints. Rollback never hides the error."""
        tx = self._tx
        if tx is None:
            yield from self._outer()
            return
        name = f"sp{tx.depth}"
        self._raw(tx.conn, f"SAVEPOINT {name}")
        tx.depth += 1
        try:
            yield
        except BaseException:
            tx.depth -= 1
            tx.audit_heads.clear()
            tx.memo.clear()
            try:
                tx.conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                tx.conn.execute(f"RELEASE SAVEPOINT {name}")
            except psycopg.Error:
                pass  # the original error matters more than a failed rollback
            raise
        tx.depth -= 1
        self._raw(tx.conn, f"RELEASE SAVEPOINT {name}")

    def _outer(self) -> Iterator[None]:
        try:
            cm = self.pool.connection()
            conn = cm.__enter__()
        except (PoolTimeout, psycopg.Error) as exc:
            raise translate(exc, self.where) from exc
        tx = _Tx(conn, depth=1)
        try:
            self._raw(conn, "BEGIN")
            self._local.tx = tx
            try:
                yield
            except BaseException:
                self._local.tx = None
                try:
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    pass  # the original error matters more than a failed rollback
                self._finish(tx, commit=False)
                raise
            if self.before_commit is not None:
                try:
                    self.before_commit()
                except BaseException:
                    self._local.tx = None
                    try:
                        conn.execute("ROLLBACK")
                    except psycopg.Error:
                        pass  # the original error matters more than a failed rollback
                    self._finish(tx, commit=False)
                    raise
            self._local.tx = None
            try:
                conn.execute("COMMIT")
            except psycopg.Error as exc:
                try:
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    pass
                self._finish(tx, commit=False)
                raise translate(exc, self.where) from exc
            self._finish(tx, commit=True)
        finally:
            self._local.tx = None
            cm.__exit__(None, None, None)

    def _raw(self, conn: psycopg.Connection[Any], sql: str) -> None:
        try:
            conn.execute(sql)
        except psycopg.Error as exc:
            raise translate(exc, self.where) from exc

    @staticmethod
    def _finish(tx: _Tx, *, commit: bool) -> None:
        hooks = tx.on_commit if commit else tx.on_rollback
        tx.on_commit, tx.on_rollback = [], []
        for hook in hooks:
            hook()

    def after(self, on_commit: Callable[[], None], on_rollback: Callable[[], None]) -> None:
        """Run a hook when the current transaction ends (keeps in-memory state in step)."""
        tx = self._tx
        if tx is None:
            raise MnemeError("Database.after() needs an open transaction")
        tx.on_commit.append(on_commit)
        tx.on_rollback.append(on_rollback)

    @property
    def in_transaction(self) -> bool:
        return self._tx is not None

    def audit_heads(self) -> dict[str, tuple[str, int]]:
        """Audit chain heads this thread's transaction holds the lock of (see ``_Tx``)."""
        tx = self._tx
        return tx.audit_heads if tx is not None else {}

    def audit_first(self) -> dict[str, int]:
        """Banks this thread's transaction wrote audit records to, and its first seq there."""
        tx = self._tx
        return tx.audit_first if tx is not None else {}

    def memo(self) -> dict[Any, Any] | None:
        """This thread's transaction's remembered reads (None outside a transaction)."""
        tx = self._tx
        return tx.memo if tx is not None else None

    def touched(self) -> set[str]:
        """Banks this thread's transaction already bumped in index_state."""
        tx = self._tx
        return tx.touched if tx is not None else set()

    # -- schema --------------------------------------------------------------------------

    def schema_version(self) -> int:
        if self.scalar("SELECT to_regclass('schema_version') IS NOT NULL"):
            return int(self.scalar("SELECT coalesce(max(version), 0) FROM schema_version"))
        if self.scalar("SELECT to_regclass('units') IS NOT NULL"):
            raise SchemaMismatch(
                f"{self.where} has a units table and no schema_version: not a mneme store"
            )
        return 0

    def check_vector(self) -> None:
        """Refuse a database without pgvector, saying how to install it."""
        if not self.scalar("SELECT count(*) FROM pg_extension WHERE extname = 'vector'"):
            raise SchemaMismatch(NEEDS_VECTOR)

    def migrate(self) -> list[int]:
        """Apply every migration newer than the database's version, each in its own transaction.

        Raises:
            SchemaMismatch: the schema is newer than this code, or pgvector is missing.
        """
        latest = latest_version()
        applied: list[int] = []
        with self.transaction():
            # Two processes opening one fresh database must not both run 0001.
            self.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            current = self.schema_version()
            if current > latest:
                raise SchemaMismatch(
                    f"{self.where} has schema version {current}, newer than this mneme "
                    f"understands ({latest}); upgrade mneme"
                )
            if current < latest:
                self._ensure_vector()
            for version, name, sql in migrations():
                if version <= current:
                    continue
                with self.transaction():
                    self.execute(
                        "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                        "name text NOT NULL, applied_at timestamptz NOT NULL)"
                    )
                    self.execute(sql.encode("utf-8"))
                    self.execute(
                        "INSERT INTO schema_version VALUES (%s, %s, %s)",
                        (version, name, dt.datetime.now(dt.UTC)),
                    )
                applied.append(version)
        self.check_vector()
        return applied

    def _ensure_vector(self) -> None:
        if self.scalar("SELECT count(*) FROM pg_extension WHERE extname = 'vector'"):
            return
        try:
            with self.transaction():
                self.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except MnemeError as exc:
            raise SchemaMismatch(f"{NEEDS_VECTOR} ({exc})") from exc

    def close(self) -> None:
        forget_at_exit(self._close_at_exit)
        self.pool.close()
