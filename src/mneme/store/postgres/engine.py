from __future__ import annotations

import dataclasses
import threading
from contextlib import AbstractContextManager

from mneme import config
from mneme.config import VECTOR_INDEXES
from mneme.core.model import (
    Unit,
)
from mneme.errors import InvalidInput, MnemeError
from mneme.store.postgres.audit import AuditMixin
from mneme.store.postgres.channels import RecallChannels
from mneme.store.postgres.database import Database
from mneme.store.postgres.dialect import DIALECT
from mneme.store.postgres.lexical import DOC_LEN, LexicalIndexMixin
from mneme.store.postgres.portable import PortableMixin
from mneme.store.postgres.purge import PurgeMixin
from mneme.store.postgres.vectors import VectorIndexes
from mneme.store.protocol import (
    Capabilities,
    StoreStats,
    UnitChanges,
    Vector,
)
from mneme.store.sql.executor import Executor
from mneme.store.sql.units import UNIT_ROW, UnitWrite, forget_unit


class PostgresEngine(
    PurgeMixin,
    RecallChannels,
    PortableMixin,
    LexicalIndexMixin,
    AuditMixin,
):
    """The shared backend: one PostgreSQL database (one per team), many writers at once."""

    capabilities = Capabilities(
        name="postgres",
        native_vector_index=True,
        concurrent_writers=True,
        row_level_security=False,  # ADR 0006: scope lives in every query, not in policies
    )

    def __init__(
        self,
        dsn: str,
        *,
        migrate: bool = True,
        pool_size: int = 8,
        connect_timeout: float = 10.0,
        audit_key_file: str | None = None,
        vector_index: str | None = None,
    ) -> None:
        """See :class:`~mneme.store.postgres.store.PostgresStore`."""
        if vector_index is None:
            vector_index = config.load().pg_vector_index
        if vector_index not in VECTOR_INDEXES:
            raise InvalidInput(
                f"vector_index must be one of {', '.join(VECTOR_INDEXES)}, got {vector_index!r}"
            )
        self.db = Database(dsn, max_size=pool_size, connect_timeout=connect_timeout)
        self.sql = Executor(self.db, DIALECT)
        self.path = self.db.where
        self.vectors = VectorIndexes(self.db, build=vector_index == "hnsw")
        if not self.vectors.build:
            self.capabilities = dataclasses.replace(self.capabilities, native_vector_index=False)
        #: Units this process wrote since it last refreshed the planner's statistics.
        self._written = 0
        self._analyzed_at = 0
        self._stats_lock = threading.Lock()
        self.db.before_commit = self._audit_commit
        try:
            applied: list[int] = []
            if migrate:
                applied = self.migrate()
            else:
                self.db.schema_version()
                self.db.check_vector()
            # The audit key, then what the chain does not yet seal (ADR 0035).
            self._open_keys(audit_key_file)
            self._seal_store(applied)
        except BaseException:
            self.db.close()
            raise

    # -- lifecycle ----------------------------------------------------------------------

    def _grew(self) -> None:
        """Count a unit written; once the units this process wrote double (from 256), refresh
        the planner's statistics after the transaction commits.

        A fresh or fast-growing store is planned from statistics of when it was small (a
        table never analysed counts as one row): the semantic channel then joined every
        embedding of a bank to every active unit, 10-13 ms per write-path neighbour search on
        700 units, instead of using the HNSW index or the units' key. Autovacuum's analyse
        comes late, and never inside one long import.
        """
        with self._stats_lock:
            self._written += 1
            due = self._written >= max(256, 2 * self._analyzed_at)
            if due:
                self._analyzed_at = self._written
        if due:
            self.db.after(self._analyze, lambda: None)

    def _analyze(self) -> None:
        try:
            self.db.execute(
                "ANALYZE units, embeddings, edges, mentions, entities, claims, claim_units, "
                "unit_evidence, unit_knowers, lexeme_postings, lexeme_df"
            )
        except MnemeError:  # statistics are an optimisation: never fail a committed write
            pass

    def schema_version(self) -> int:
        return self.db.schema_version()

    @property
    def read_only(self) -> bool:
        return False  # a role without write grants gets the server's refusal on a write

    def migrate(self) -> list[int]:
        applied = self.db.migrate()
        if 9 in applied:  # the backfill of the BM25 postings (ADR 0019)
            self._vacuum_lexemes()
        return applied

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def close(self) -> None:
        self.db.close()

    def stats(self) -> StoreStats:
        q = self.db.scalar
        by_model = {
            str(m): int(n)
            for m, n in self.db.query("SELECT model, count(*) FROM embeddings GROUP BY model")
        }
        return StoreStats(
            banks=int(q("SELECT count(*) FROM banks")),
            sources=int(q("SELECT count(*) FROM sources")),
            units=int(q("SELECT count(*) FROM units")),
            entities=int(q("SELECT count(*) FROM entities")),
            edges=int(q("SELECT count(*) FROM edges")),
            embeddings_by_model=by_model,
        )

    def _bank_created(self, bank_id: str) -> None:
        """Nothing to add: the lexical index of PostgreSQL is one for all banks."""

    # -- the unit hooks of the shared SQL (store.sql.units) ------------------------------

    def _insert_unit(self, unit: Unit, write: UnitWrite) -> None:
        """The unit, its BM25 statistics, knowers, evidence and vector in one statement (five
        round trips before), then its postings under the index_state lock it took."""
        self._grew()
        self._touch(unit.bank_id)
        b, u = unit.bank_id, unit.id
        at = write.knowers[0][4] if write.knowers else None
        first = write.knowers[0][3] if write.knowers else None
        vec = write.vector
        self.sql.write(
            f"WITH u AS (INSERT INTO units ({UNIT_ROW.select}, doc_len) VALUES "
            f"({UNIT_ROW.marks}, {DOC_LEN}) RETURNING doc_len), "
            "s AS (UPDATE index_state SET docs = docs + 1, total_len = total_len + "
            "(SELECT doc_len FROM u) WHERE bank_id = ?), "
            "k AS (INSERT INTO unit_knowers SELECT ?, ?, a, ?::text, ?::timestamptz "
            "FROM unnest(?::text[]) AS a ON CONFLICT DO NOTHING), "
            "ev AS (INSERT INTO unit_evidence SELECT ?, ?, x, ?, ?::timestamptz "
            "FROM unnest(?::text[]) AS x ON CONFLICT DO NOTHING) "
            "INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
            "SELECT ?, ?, ?::text, ?::int, ?::vector WHERE ?::boolean "
            "ON CONFLICT (bank_id, unit_id, model) DO UPDATE SET dim = excluded.dim, "
            "vector = excluded.vector",
            (
                *write.row,
                unit.text,
                b,
                b,
                u,
                first,
                at,
                [k[2] for k in write.knowers],
                b,
                u,
                unit.agent_id,
                at,
                [e[2] for e in write.evidence],
                b,
                u,
                vec[2] if vec else None,
                vec[3] if vec else None,
                vec[4] if vec else None,
                vec is not None,
            ),
        )
        self._index_lexemes(b, [u])  # under the index_state lock the statement took

    def _unit_changed(
        self, bank_id: str, unit_id: str, changes: UnitChanges | None, new_knower: str | None
    ) -> None:
        """The lean units this transaction remembered forget the changed one."""
        forget_unit(self.db.memo(), unit_id)

    def _vector_stored(
        self, bank_id: str, unit: Unit | None, model: str, vector: Vector, replaced: bool
    ) -> None:
        self.vectors.ensure(model, len(vector))
