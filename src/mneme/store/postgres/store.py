from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from psycopg.types.json import Jsonb

from mneme import config
from mneme.config import VECTOR_INDEXES
from mneme.core.model import (
    Unit,
    UnitStatus,
    Viewer,
    Visibility,
)
from mneme.errors import InvalidInput, MnemeError, NotFound
from mneme.store.codec import unit_summary
from mneme.store.postgres.audit import AuditMixin
from mneme.store.postgres.batch import BatchReadsMixin
from mneme.store.postgres.channels import RecallChannels
from mneme.store.postgres.database import Database
from mneme.store.postgres.dialect import DIALECT, literal
from mneme.store.postgres.lexical import LexicalIndexMixin
from mneme.store.postgres.portable import PortableMixin
from mneme.store.postgres.purge import PurgeMixin
from mneme.store.postgres.rows import utc, utc_opt
from mneme.store.postgres.scoping import where
from mneme.store.postgres.vectors import VectorIndexes
from mneme.store.protocol import (
    CLEARABLE_UNIT_FIELDS,
    Capabilities,
    Filters,
    StoreStats,
    UnitBrief,
    UnitChanges,
    Vector,
)
from mneme.store.sql.entities import SharedEntities
from mneme.store.sql.executor import Executor
from mneme.store.sql.units import UNIT_COLS

_DOC_LEN = (
    "(SELECT count(*) FROM ts_debug('english', %s) WHERE alias NOT IN "
    "('blank', 'hword_part', 'hword_asciipart', 'hword_numpart'))"
)


class PostgresStore(
    SharedEntities,
    PurgeMixin,
    RecallChannels,
    PortableMixin,
    LexicalIndexMixin,
    BatchReadsMixin,
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
        """Connect to ``dsn`` (a ``postgresql://`` URL or a libpq key=value string).

        ``vector_index``: "hnsw" builds an HNSW index per embedding model on first use;
        "exact" builds none, so the semantic channel compares every visible vector. None
        takes the configured one (``Config.pg_vector_index``, ``MNEME_PG_VECTOR_INDEX``).

        Raises:
            BackendUnavailable: the server cannot be reached or refuses the credentials.
            SchemaMismatch: the schema is newer than this code, or pgvector is missing.
        """
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

    # -- units --------------------------------------------------------------------------

    def put_unit(self, unit: Unit, vector: Vector | None) -> None:
        self._grew()
        owner = unit.agent_id if unit.visibility == Visibility.PRIVATE else ""
        self._w(
            f"INSERT INTO units ({UNIT_COLS}, owner, doc_len) VALUES "
            f"({','.join(['%s'] * 25)}, {_DOC_LEN})",
            (
                unit.bank_id,
                unit.id,
                unit.text,
                unit.content_key,
                unit.network.value,
                unit.type.value,
                unit.status.value,
                unit.confidence,
                unit.agent_id,
                unit.visibility.value,
                utc(unit.occurred_start),
                utc(unit.occurred_end),
                utc(unit.valid_from),
                utc(unit.valid_until),
                utc(unit.recorded_at),
                utc(unit.retired_at),
                utc(unit.mentioned_at),
                unit.embedding_model,
                unit.embedding_dim,
                unit.superseded_by,
                Jsonb(list(unit.supersedes)),
                Jsonb(list(unit.contradictions)),
                Jsonb(list(unit.categories)),
                Jsonb(dict(unit.metadata)),
                owner,
                unit.text,
            ),
        )
        self._touch(unit.bank_id)
        self._w(
            "UPDATE index_state SET docs = docs + 1, total_len = total_len + "
            "(SELECT doc_len FROM units WHERE bank_id = %s AND id = %s) WHERE bank_id = %s",
            (unit.bank_id, unit.id, unit.bank_id),
        )
        self._index_lexemes(unit.bank_id, [unit.id])  # under the index_state lock just taken
        first_source = unit.evidence[0] if unit.evidence else None
        for agent in unit.knowers or (unit.agent_id,):
            self._w(
                "INSERT INTO unit_knowers VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, agent, first_source, utc(unit.recorded_at)),
            )
        for source_id in unit.evidence:
            self._w(
                "INSERT INTO unit_evidence VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, source_id, unit.agent_id, utc(unit.recorded_at)),
            )
        if vector is not None and unit.embedding_model:
            self._store_vector(unit.bank_id, unit.id, unit.embedding_model, vector)
        self.audit(
            unit.bank_id, unit.agent_id, "unit.put", unit.id, None, unit_summary(unit), "retain"
        )

    def _store_vector(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        dim = len(vector)
        self._w(
            "INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
            "VALUES (%s, %s, %s, %s, %s::vector) ON CONFLICT (bank_id, unit_id, model) "
            "DO UPDATE SET dim = excluded.dim, vector = excluded.vector",
            (bank_id, unit_id, model, dim, literal(vector)),
        )
        self.vectors.ensure(model, dim)

    def find_by_content_key(
        self, bank_id: str, content_key: str, visibility: Visibility, agent_id: str
    ) -> Unit | None:
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units WHERE bank_id = %s AND content_key = %s AND owner = %s",
            (bank_id, content_key, owner),
        )
        units = self._hydrate(rows)
        return units[0] if units else None

    def held_content_keys(
        self, bank_id: str, content_keys: Sequence[str], visibility: Visibility, agent_id: str
    ) -> set[str]:
        if not content_keys:
            return set()
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        rows = self.db.query(
            "SELECT content_key FROM units WHERE bank_id = %s AND owner = %s "
            "AND content_key = ANY(%s::text[])",
            (bank_id, owner, list(dict.fromkeys(content_keys))),
        )
        return {str(r[0]) for r in rows}

    def add_evidence(
        self, bank_id: str, unit_id: str, source_id: str, agent_id: str, at: dt.datetime
    ) -> bool:
        self._w(
            "INSERT INTO unit_evidence VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, source_id, agent_id, utc(at)),
        )
        new_knower = (
            self._w(
                "INSERT INTO unit_knowers VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (bank_id, unit_id, agent_id, source_id, utc(at)),
            )
            > 0
        )
        if new_knower:
            self._touch(bank_id)
        self.audit(
            bank_id,
            agent_id,
            "unit.evidence",
            unit_id,
            None,
            {"source_id": source_id, "new_knower": new_knower},
            "repeat of a known fact",
        )
        return new_knower

    def update_unit(
        self, bank_id: str, unit_id: str, changes: UnitChanges, *, actor: str, reason: str
    ) -> Unit:
        before = self._one(bank_id, unit_id, lock=True)
        sets: list[str] = []
        params: list[Any] = []
        for col, value in (
            ("status", changes.status and changes.status.value),
            ("confidence", changes.confidence),
            ("valid_from", utc(changes.valid_from)),
            ("valid_until", utc(changes.valid_until)),
            ("retired_at", utc(changes.retired_at)),
            ("superseded_by", changes.superseded_by),
        ):
            if value is not None:
                sets.append(f"{col} = %s")
                params.append(value)
        for col, extra, current in (
            ("supersedes", changes.add_supersedes, before.supersedes),
            ("contradictions", changes.add_contradictions, before.contradictions),
            ("categories", changes.add_categories, before.categories),
        ):
            if extra:
                sets.append(f"{col} = %s")
                params.append(Jsonb(list(dict.fromkeys([*current, *extra]))))
        if changes.metadata:
            sets.append("metadata = %s")
            params.append(Jsonb({**before.metadata, **changes.metadata}))
        unknown = changes.clear - CLEARABLE_UNIT_FIELDS
        if unknown:
            raise InvalidInput(f"cannot clear {sorted(unknown)} on a unit")
        sets.extend(f"{col} = NULL" for col in sorted(changes.clear))
        if not sets:
            return before
        self._w(
            f"UPDATE units SET {', '.join(sets)} WHERE bank_id = %s AND id = %s",
            (*params, bank_id, unit_id),
        )
        self._touch(bank_id)
        after = self._one(bank_id, unit_id)
        self.audit(
            bank_id,
            actor,
            "unit.update",
            unit_id,
            unit_summary(before),
            unit_summary(after),
            reason,
        )
        return after

    def _one(self, bank_id: str, unit_id: str, *, lock: bool = False) -> Unit:
        # FOR UPDATE: two writers merging lists into one unit must not lose each other's items.
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units WHERE bank_id = %s AND id = %s"
            + (" FOR UPDATE" if lock and self.db.in_transaction else ""),
            (bank_id, unit_id),
        )
        units = self._hydrate(rows)
        if not units:
            raise NotFound(f"no unit {unit_id} in bank {bank_id}")
        return units[0]

    def get_units(
        self, viewer: Viewer, ids: Sequence[str], *, lean: bool = False
    ) -> dict[str, Unit]:
        if not ids:
            return {}
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} AND u.id = ANY(%s::text[])",
            (*params, list(dict.fromkeys(ids))),
        )
        return {u.id: u for u in self._hydrate(rows, lean=lean)}

    def unit_briefs(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, UnitBrief]:
        if not ids:
            return {}
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            "SELECT u.id, u.status, u.occurred_start, u.occurred_end, u.recorded_at, "
            "u.valid_until, u.superseded_by, u.metadata ->> 'scope', "
            "(SELECT count(*) FROM unit_knowers k WHERE k.bank_id = u.bank_id "
            "AND k.unit_id = u.id), "
            "(SELECT ev.source_id FROM unit_evidence ev WHERE ev.bank_id = u.bank_id "
            "AND ev.unit_id = u.id ORDER BY ev.at, ev.source_id LIMIT 1) "
            f"FROM units u WHERE {clause} AND u.id = ANY(%s::text[])",
            (*params, list(dict.fromkeys(ids))),
        )
        return {
            r[0]: UnitBrief(
                id=r[0],
                status=UnitStatus(r[1]),
                occurred_start=utc_opt(r[2]),
                occurred_end=utc_opt(r[3]),
                recorded_at=utc(r[4]),
                valid_until=utc_opt(r[5]),
                superseded_by=r[6],
                scope=r[7],
                knowers=int(r[8]),
                family=r[9] or r[0],
            )
            for r in rows
        }

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]:
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} AND EXISTS (SELECT 1 FROM "
            "unit_evidence ev WHERE ev.bank_id = u.bank_id AND ev.unit_id = u.id "
            "AND ev.source_id = %s) ORDER BY u.seq",
            (*params, source_id),
        )
        return self._hydrate(rows)

    def list_units(
        self, viewer: Viewer, filters: Filters, limit: int, offset: int = 0, *, lean: bool = False
    ) -> list[Unit]:
        clause, params = where(viewer, filters)
        rows = self.db.query(
            f"SELECT {UNIT_COLS} FROM units u WHERE {clause} "
            "ORDER BY u.recorded_at DESC, u.id DESC LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return self._hydrate(rows, lean=lean)

    # -- embeddings ---------------------------------------------------------------------

    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        before = self._one(bank_id, unit_id, lock=True)
        self._store_vector(bank_id, unit_id, model, vector)
        self._w(
            "UPDATE units SET embedding_model = %s, embedding_dim = %s "
            "WHERE bank_id = %s AND id = %s",
            (model, len(vector), bank_id, unit_id),
        )
        self._touch(bank_id)
        self.audit(
            bank_id,
            "system",
            "unit.reembed",
            unit_id,
            {"embedding_model": before.embedding_model},
            {"embedding_model": model, "embedding_dim": len(vector)},
            "reembed",
        )
