"""The PostgreSQL store: mneme's Store protocol on PostgreSQL with pgvector and full-text search.

Same semantics as the SQLite backend (the reference): the same scope rules inside every query,
the same ordering tie-breaks, the same audit chain. What differs is native: an HNSW index per
embedding model instead of an in-RAM matrix (``vectors.py``), a tsvector column with a GIN index
and BM25 in SQL instead of FTS5 (``channels.py``), and many concurrent writers.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from psycopg.types.json import Jsonb

from mneme.core.chain import GENESIS, record_hash
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
from mneme.errors import Conflict, MnemeError, NotFound
from mneme.store.codec import dumps, loads, ts, unit_summary
from mneme.store.postgres.channels import RecallChannels
from mneme.store.postgres.database import Database
from mneme.store.postgres.scoping import where
from mneme.store.postgres.vectors import VectorIndexes, literal
from mneme.store.protocol import (
    AuditRecord,
    Capabilities,
    EmbeddingRow,
    Filters,
    StoreStats,
    UnitChanges,
    Vector,
)

_UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)

#: The token count BM25 normalises by. FTS5 counts every token, stop words included, so this
#: counts the parser's word tokens (not blanks, not the parts of a hyphenated word) rather than
#: the tsvector's lexemes: with lexemes only, "Alice moved to Lisbon" and "Alice in Lisbon"
#: would be the same length and the two backends would break ties differently.
_DOC_LEN = ("(SELECT count(*) FROM ts_debug('english', %s) WHERE alias NOT IN "
            "('blank', 'hword_part', 'hword_asciipart', 'hword_numpart'))")


class PostgresStore(RecallChannels):
    """The shared backend: one PostgreSQL database (one per team), many writers at once."""

    capabilities = Capabilities(
        name="postgres", native_vector_index=True, concurrent_writers=True,
        row_level_security=False,  # ADR 0006: scope lives in every query, not in policies
    )

    def __init__(self, dsn: str, *, migrate: bool = True, pool_size: int = 8,
                 connect_timeout: float = 10.0) -> None:
        """Connect to ``dsn`` (a ``postgresql://`` URL or a libpq key=value string).

        Raises:
            BackendUnavailable: the server cannot be reached or refuses the credentials.
            SchemaMismatch: the schema is newer than this code, or pgvector is missing.
        """
        self.db = Database(dsn, max_size=pool_size, connect_timeout=connect_timeout)
        self.path = self.db.where
        self.vectors = VectorIndexes(self.db)
        try:
            if migrate:
                self.migrate()
            else:
                self.db.schema_version()
                self.db.check_vector()
        except BaseException:
            self.db.close()
            raise

    # -- lifecycle ----------------------------------------------------------------------

    def schema_version(self) -> int:
        return self.db.schema_version()

    def migrate(self) -> list[int]:
        return self.db.migrate()

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def close(self) -> None:
        self.db.close()

    def stats(self) -> StoreStats:
        q = self.db.scalar
        by_model = {str(m): int(n) for m, n in self.db.query(
            "SELECT model, count(*) FROM embeddings GROUP BY model")}
        return StoreStats(
            banks=int(q("SELECT count(*) FROM banks")),
            sources=int(q("SELECT count(*) FROM sources")),
            units=int(q("SELECT count(*) FROM units")),
            entities=int(q("SELECT count(*) FROM entities")),
            edges=int(q("SELECT count(*) FROM edges")),
            embeddings_by_model=by_model,
        )

    def _w(self, sql: Any, params: Any = None) -> int:
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")
        return self.db.execute(sql, params)

    def _touch(self, bank_id: str) -> None:
        """Bump the bank's index generation once per transaction (parity with SQLite)."""
        touched = self.db.touched()
        if bank_id in touched:
            return
        touched.add(bank_id)
        self._w("INSERT INTO index_state (bank_id, generation) VALUES (%s, 1) "
                "ON CONFLICT (bank_id) DO UPDATE SET generation = index_state.generation + 1",
                (bank_id,))

    # -- banks and agents ---------------------------------------------------------------

    def ensure_bank(self, bank: Bank) -> Bank:
        existing = self.get_bank(bank.id)
        if existing:
            return existing
        created = self._w("INSERT INTO banks (id, name, created_at, config) "
                          "VALUES (%s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                          (bank.id, bank.name, _utc(bank.created_at), Jsonb(dict(bank.config))))
        self._w("INSERT INTO index_state (bank_id, generation) VALUES (%s, 0) "
                "ON CONFLICT (bank_id) DO NOTHING", (bank.id,))
        if created:  # another writer may have made it between our read and our insert
            self.audit(bank.id, "system", "bank.create", bank.id, None,
                       {"name": bank.name, "config": dict(bank.config)}, "first write to the bank")
        return self.get_bank(bank.id) or bank

    def get_bank(self, bank_id: str) -> Bank | None:
        rows = self.db.query("SELECT id, name, created_at, config FROM banks WHERE id = %s",
                             (bank_id,))
        if not rows:
            return None
        r = rows[0]
        return Bank(id=r[0], name=r[1], created_at=_utc(r[2]), config=r[3] or {})

    def list_banks(self) -> list[Bank]:
        rows = self.db.query("SELECT id, name, created_at, config FROM banks ORDER BY id")
        return [Bank(id=r[0], name=r[1], created_at=_utc(r[2]), config=r[3] or {})
                for r in rows]

    def heartbeat(self, agent: Agent) -> None:
        self._w(
            "INSERT INTO agents (bank_id, id, host, status, first_seen, last_seen) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (bank_id, id) DO UPDATE SET "
            "host = coalesce(excluded.host, agents.host), status = excluded.status, "
            "last_seen = greatest(agents.last_seen, excluded.last_seen)",
            (agent.bank_id, agent.id, agent.host, agent.status, _utc(agent.first_seen),
             _utc(agent.last_seen)),
        )

    def list_agents(self, bank_id: str) -> list[Agent]:
        rows = self.db.query(
            "SELECT bank_id, id, host, status, first_seen, last_seen FROM agents "
            "WHERE bank_id = %s ORDER BY last_seen DESC, id", (bank_id,))
        return [Agent(bank_id=r[0], id=r[1], host=r[2], status=r[3], first_seen=_utc(r[4]),
                      last_seen=_utc(r[5])) for r in rows]

    # -- sources ------------------------------------------------------------------------

    def put_source(self, source: Source) -> None:
        # ON CONFLICT DO NOTHING rather than catching the unique violation: an error would
        # abort the whole PostgreSQL transaction, while SQLite's caller could carry on.
        added = self._w(
            "INSERT INTO sources (bank_id, id, text, content_hash, kind, agent_id, "
            "session_id, task_id, occurred_at, mentioned_at, recorded_at, trust, "
            "visibility, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "%s, %s) ON CONFLICT (bank_id, id) DO NOTHING",
            (source.bank_id, source.id, source.text, source.content_hash, source.kind,
             source.agent_id, source.session_id, source.task_id, _utc(source.occurred_at),
             _utc(source.mentioned_at), _utc(source.recorded_at), source.trust,
             source.visibility.value, Jsonb(dict(source.metadata))),
        )
        if not added:
            raise Conflict(f"source {source.id} already exists in bank {source.bank_id}")
        self.audit(source.bank_id, source.agent_id, "source.put", source.id, None,
                   {"content_hash": source.content_hash, "kind": source.kind}, "retain")

    def get_source(self, viewer: Viewer, source_id: str) -> Source | None:
        rows = self.db.query(
            "SELECT bank_id, id, text, content_hash, kind, agent_id, session_id, task_id, "
            "occurred_at, mentioned_at, recorded_at, trust, visibility, metadata FROM sources s "
            "WHERE s.bank_id = %s AND s.id = %s AND (s.visibility = 'shared' OR s.agent_id = %s "
            f"OR {'true' if viewer.scope == Scope.OWNER else 'false'}) "
            + ("AND s.agent_id = %s" if viewer.scope == Scope.PERSONAL else ""),
            (viewer.bank_id, source_id, viewer.agent_id)
            + ((viewer.agent_id,) if viewer.scope == Scope.PERSONAL else ()),
        )
        if not rows:
            return None
        r = rows[0]
        return Source(bank_id=r[0], id=r[1], text=r[2], content_hash=r[3], kind=r[4],
                      agent_id=r[5], session_id=r[6], task_id=r[7], occurred_at=_utc_opt(r[8]),
                      mentioned_at=_utc_opt(r[9]), recorded_at=_utc(r[10]), trust=r[11],
                      visibility=Visibility(r[12]), metadata=r[13] or {})

    def locate(self, object_id: str) -> str | None:
        for sql in ("SELECT bank_id FROM units WHERE id = %s LIMIT 1",
                    "SELECT bank_id FROM sources WHERE id = %s LIMIT 1"):
            rows = self.db.query(sql, (object_id,))
            if rows:
                return str(rows[0][0])
        return None

    # -- units --------------------------------------------------------------------------

    def put_unit(self, unit: Unit, vector: Vector | None) -> None:
        owner = unit.agent_id if unit.visibility == Visibility.PRIVATE else ""
        self._w(
            f"INSERT INTO units ({_UNIT_COLS}, owner, doc_len) VALUES "
            f"({','.join(['%s'] * 25)}, {_DOC_LEN})",
            (unit.bank_id, unit.id, unit.text, unit.content_key, unit.network.value,
             unit.type.value, unit.status.value, unit.confidence, unit.agent_id,
             unit.visibility.value, _utc(unit.occurred_start), _utc(unit.occurred_end),
             _utc(unit.valid_from), _utc(unit.valid_until), _utc(unit.recorded_at),
             _utc(unit.retired_at), _utc(unit.mentioned_at), unit.embedding_model,
             unit.embedding_dim, unit.superseded_by, Jsonb(list(unit.supersedes)),
             Jsonb(list(unit.contradictions)), Jsonb(list(unit.categories)),
             Jsonb(dict(unit.metadata)), owner, unit.text),
        )
        self._touch(unit.bank_id)
        self._w("UPDATE index_state SET docs = docs + 1, total_len = total_len + "
                "(SELECT doc_len FROM units WHERE bank_id = %s AND id = %s) WHERE bank_id = %s",
                (unit.bank_id, unit.id, unit.bank_id))
        first_source = unit.evidence[0] if unit.evidence else None
        for agent in unit.knowers or (unit.agent_id,):
            self._w("INSERT INTO unit_knowers VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (unit.bank_id, unit.id, agent, first_source, _utc(unit.recorded_at)))
        for source_id in unit.evidence:
            self._w("INSERT INTO unit_evidence VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    (unit.bank_id, unit.id, source_id, unit.agent_id, _utc(unit.recorded_at)))
        if vector is not None and unit.embedding_model:
            self._store_vector(unit.bank_id, unit.id, unit.embedding_model, vector)
        self.audit(unit.bank_id, unit.agent_id, "unit.put", unit.id, None, unit_summary(unit),
                   "retain")

    def _store_vector(self, bank_id: str, unit_id: str, model: str,
                      vector: Vector) -> None:
        dim = len(vector)
        self._w("INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
                "VALUES (%s, %s, %s, %s, %s::vector) ON CONFLICT (bank_id, unit_id, model) "
                "DO UPDATE SET dim = excluded.dim, vector = excluded.vector",
                (bank_id, unit_id, model, dim, literal(vector)))
        self.vectors.ensure(model, dim)

    def find_by_content_key(self, bank_id: str, content_key: str, visibility: Visibility,
                            agent_id: str) -> Unit | None:
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units WHERE bank_id = %s AND content_key = %s "
            "AND owner = %s", (bank_id, content_key, owner))
        units = self._hydrate(rows)
        return units[0] if units else None

    def add_evidence(self, bank_id: str, unit_id: str, source_id: str, agent_id: str,
                     at: dt.datetime) -> bool:
        self._w("INSERT INTO unit_evidence VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (bank_id, unit_id, source_id, agent_id, _utc(at)))
        new_knower = self._w(
            "INSERT INTO unit_knowers VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, agent_id, source_id, _utc(at))) > 0
        if new_knower:
            self._touch(bank_id)
        self.audit(bank_id, agent_id, "unit.evidence", unit_id, None,
                   {"source_id": source_id, "new_knower": new_knower}, "repeat of a known fact")
        return new_knower

    def update_unit(self, bank_id: str, unit_id: str, changes: UnitChanges, *, actor: str,
                    reason: str) -> Unit:
        before = self._one(bank_id, unit_id, lock=True)
        sets: list[str] = []
        params: list[Any] = []
        for col, value in (("status", changes.status and changes.status.value),
                           ("confidence", changes.confidence),
                           ("valid_from", _utc(changes.valid_from)),
                           ("valid_until", _utc(changes.valid_until)),
                           ("retired_at", _utc(changes.retired_at)),
                           ("superseded_by", changes.superseded_by)):
            if value is not None:
                sets.append(f"{col} = %s")
                params.append(value)
        for col, extra, current in (("supersedes", changes.add_supersedes, before.supersedes),
                                    ("contradictions", changes.add_contradictions,
                                     before.contradictions),
                                    ("categories", changes.add_categories, before.categories)):
            if extra:
                sets.append(f"{col} = %s")
                params.append(Jsonb(list(dict.fromkeys([*current, *extra]))))
        if changes.metadata:
            sets.append("metadata = %s")
            params.append(Jsonb({**before.metadata, **changes.metadata}))
        if not sets:
            return before
        self._w(f"UPDATE units SET {', '.join(sets)} WHERE bank_id = %s AND id = %s",
                (*params, bank_id, unit_id))
        self._touch(bank_id)
        after = self._one(bank_id, unit_id)
        self.audit(bank_id, actor, "unit.update", unit_id, unit_summary(before),
                   unit_summary(after), reason)
        return after

    def _one(self, bank_id: str, unit_id: str, *, lock: bool = False) -> Unit:
        # FOR UPDATE: two writers merging lists into one unit must not lose each other's items.
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units WHERE bank_id = %s AND id = %s"
            + (" FOR UPDATE" if lock and self.db.in_transaction else ""), (bank_id, unit_id))
        units = self._hydrate(rows)
        if not units:
            raise NotFound(f"no unit {unit_id} in bank {bank_id}")
        return units[0]

    def get_units(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, Unit]:
        if not ids:
            return {}
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} AND u.id = ANY(%s::text[])",
            (*params, list(dict.fromkeys(ids))))
        return {u.id: u for u in self._hydrate(rows)}

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]:
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} AND EXISTS (SELECT 1 FROM "
            "unit_evidence ev WHERE ev.bank_id = u.bank_id AND ev.unit_id = u.id "
            "AND ev.source_id = %s) ORDER BY u.seq", (*params, source_id))
        return self._hydrate(rows)

    def list_units(self, viewer: Viewer, filters: Filters, limit: int,
                   offset: int = 0) -> list[Unit]:
        clause, params = where(viewer, filters)
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} "
            "ORDER BY u.recorded_at DESC, u.id DESC LIMIT %s OFFSET %s",
            (*params, limit, offset))
        return self._hydrate(rows)

    def _hydrate(self, rows: Sequence[Any]) -> list[Unit]:
        if not rows:
            return []
        keys = [(r[0], r[1]) for r in rows]
        knowers = self._group("SELECT unit_id, agent_id FROM unit_knowers", keys,
                              "ORDER BY first_at, agent_id")
        evidence = self._group("SELECT unit_id, source_id FROM unit_evidence", keys,
                               "ORDER BY at, source_id")
        names = self._group(
            "SELECT m.unit_id, e.name FROM mentions m JOIN entities e "
            "ON e.bank_id = m.bank_id AND e.id = m.entity_id", keys, "ORDER BY e.name",
            alias="m")
        return [_unit(r, knowers.get(r[1], ()), evidence.get(r[1], ()), names.get(r[1], ()))
                for r in rows]

    def _group(self, select: str, keys: Sequence[tuple[str, str]], order: str,
               alias: str | None = None) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        prefix = f"{alias}." if alias else ""
        by_bank: dict[str, list[str]] = {}
        for bank, uid in keys:
            by_bank.setdefault(bank, []).append(uid)
        for bank, ids in by_bank.items():
            rows = self.db.query(
                f"{select} WHERE {prefix}bank_id = %s AND {prefix}unit_id = ANY(%s::text[]) "
                f"{order}", (bank, ids))
            for uid, value in rows:
                out.setdefault(uid, []).append(value)
        return {k: tuple(v) for k, v in out.items()}

    # -- entities, mentions, edges ------------------------------------------------------

    def upsert_entity(self, entity: Entity) -> Entity:
        rows = self.db.query(
            "SELECT id, name, kind, aliases FROM entities WHERE bank_id = %s AND key = %s"
            + (" FOR UPDATE" if self.db.in_transaction else ""), (entity.bank_id, entity.key))
        if not rows:
            self._w("INSERT INTO entities (bank_id, id, name, key, kind, aliases) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    (entity.bank_id, entity.id, entity.name, entity.key, entity.kind,
                     Jsonb(list(entity.aliases))))
            return entity
        eid, name, kind, aliases = rows[0]
        known = list(aliases or [])
        merged = list(dict.fromkeys([*known, *entity.aliases]))
        better_kind = kind if kind != "thing" else entity.kind
        if merged != known or better_kind != kind:
            self._w("UPDATE entities SET aliases = %s, kind = %s WHERE bank_id = %s AND id = %s",
                    (Jsonb(merged), better_kind, entity.bank_id, eid))
        return Entity(id=eid, bank_id=entity.bank_id, name=name, key=entity.key,
                      kind=better_kind, aliases=tuple(merged))

    def add_mentions(self, bank_id: str, unit_id: str, entity_ids: Sequence[str]) -> None:
        for eid in dict.fromkeys(entity_ids):
            self._w("INSERT INTO mentions VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    (bank_id, unit_id, eid))

    def put_edge(self, edge: Edge) -> None:
        self._w("INSERT INTO edges (bank_id, id, src, dst, type, weight, confidence, made_by, "
                "created_at, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (edge.bank_id, edge.id, edge.src, edge.dst, edge.type, edge.weight,
                 edge.confidence, edge.made_by, _utc(edge.created_at),
                 Jsonb(dict(edge.metadata))))
        self.audit(edge.bank_id, edge.made_by, "edge.put", edge.id, None,
                   {"src": edge.src, "dst": edge.dst, "type": edge.type}, "link")

    def edges_of(self, viewer: Viewer, unit_id: str) -> list[Edge]:
        """Edges touching a visible unit whose other end is visible too (or is a source)."""
        clause_a, pa = where(viewer, Filters(), "a")
        clause_b, pb = where(viewer, Filters(), "b")
        rows = self.db.query(
            "SELECT e.bank_id, e.id, e.src, e.dst, e.type, e.weight, e.confidence, e.made_by, "
            "e.created_at, e.metadata FROM edges e "
            f"JOIN units a ON a.bank_id = e.bank_id AND a.id = %s AND {clause_a} "
            "LEFT JOIN units b ON b.bank_id = e.bank_id "
            "AND b.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "WHERE e.bank_id = %s AND (e.src = a.id OR e.dst = a.id) "
            "AND (b.id IS NULL AND EXISTS (SELECT 1 FROM sources s WHERE s.bank_id = e.bank_id "
            "AND s.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "AND (s.visibility = 'shared' OR s.agent_id = %s)) "
            f"OR b.id IS NOT NULL AND {clause_b}) ORDER BY e.created_at, e.id",
            (unit_id, *pa, viewer.bank_id, viewer.agent_id, *pb))
        return [Edge(bank_id=r[0], id=r[1], src=r[2], dst=r[3], type=r[4], weight=r[5],
                     confidence=r[6], made_by=r[7], created_at=_utc(r[8]),
                     metadata=r[9] or {}) for r in rows]

    # -- embeddings ---------------------------------------------------------------------

    def put_embedding(self, bank_id: str, unit_id: str, model: str,
                      vector: Vector) -> None:
        before = self._one(bank_id, unit_id, lock=True)
        self._store_vector(bank_id, unit_id, model, vector)
        self._w("UPDATE units SET embedding_model = %s, embedding_dim = %s "
                "WHERE bank_id = %s AND id = %s", (model, len(vector), bank_id, unit_id))
        self._touch(bank_id)
        self.audit(bank_id, "system", "unit.reembed", unit_id,
                   {"embedding_model": before.embedding_model},
                   {"embedding_model": model, "embedding_dim": len(vector)}, "reembed")

    def iter_for_embedding(self, bank_id: str | None, model: str,
                           batch: int) -> Iterator[list[EmbeddingRow]]:
        last = ""
        while True:
            rows = self.db.query(
                "SELECT u.id, u.text, u.embedding_model FROM units u WHERE u.id > %s "
                + ("AND u.bank_id = %s " if bank_id else "")
                + "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.bank_id = u.bank_id "
                "AND e.unit_id = u.id AND e.model = %s) ORDER BY u.id LIMIT %s",
                (last, *((bank_id,) if bank_id else ()), model, batch))
            if not rows:
                return
            last = rows[-1][0]
            yield [EmbeddingRow(unit_id=r[0], text=r[1], model=r[2]) for r in rows]

    # -- audit --------------------------------------------------------------------------

    def audit(self, bank_id: str, actor: str, op: str, target: str,
              before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
              reason: str) -> None:
        # Concurrent writers to one bank would both extend the same head and fork the chain:
        # the per-bank lock orders them, and it holds until commit, so seq order is chain order.
        self._w("SELECT pg_advisory_xact_lock(hashtext('mneme.audit'), hashtext(%s))",
                (bank_id,))
        head = self.db.query("SELECT seq, hash, count FROM audit_head WHERE bank_id = %s",
                             (bank_id,))
        prev = head[0][1] if head else GENESIS
        count = int(head[0][2]) if head else 0
        now = dt.datetime.now(dt.UTC)
        at = ts(now)
        before_s = None if before is None else dumps(dict(before))
        after_s = None if after is None else dumps(dict(after))
        fields = {"bank_id": bank_id, "at": at, "actor": actor, "op": op, "target": target,
                  "before": before_s, "after": after_s, "reason": reason}
        digest = record_hash(prev, fields)
        self._w("WITH rec AS (INSERT INTO audit_log (bank_id, at, actor, op, target, before, "
                "after, reason, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "RETURNING seq) "
                "INSERT INTO audit_head (bank_id, seq, hash, count) "
                "SELECT %s, rec.seq, %s, %s FROM rec "
                "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
                "count = excluded.count",
                (bank_id, now, actor, op, target, before_s, after_s, reason, prev, digest,
                 bank_id, digest, count + 1))

    def audit_records(self, bank_id: str | None = None) -> Iterator[AuditRecord]:
        rows = self.db.query(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash "
            "FROM audit_log " + ("WHERE bank_id = %s " if bank_id else "") + "ORDER BY seq",
            (bank_id,) if bank_id else None)
        for r in rows:
            at = _utc(r[2])
            yield AuditRecord(seq=int(r[0]), bank_id=r[1], at=at, actor=r[3], op=r[4],
                              target=r[5], before=_loads_lenient(r[6]),
                              after=_loads_lenient(r[7]), reason=r[8], prev_hash=r[9],
                              hash=r[10], hashed={
                                  "bank_id": r[1], "at": ts(at), "actor": r[3], "op": r[4],
                                  "target": r[5], "before": r[6], "after": r[7],
                                  "reason": r[8]})

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query("SELECT seq, hash, count FROM audit_head WHERE bank_id = %s",
                             (bank_id,))
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None


def _loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}


def _utc_opt(value: dt.datetime | None) -> dt.datetime | None:
    """Aware UTC; a naive datetime is taken as UTC (the SQLite codec's rule)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def _utc(value: dt.datetime | None) -> Any:
    return _utc_opt(value)


def _unit(r: Sequence[Any], knowers: tuple[str, ...], evidence: tuple[str, ...],
          entities: tuple[str, ...]) -> Unit:
    return Unit(
        bank_id=r[0], id=r[1], text=r[2], content_key=r[3], network=Network(r[4]),
        type=UnitType(r[5]), status=UnitStatus(r[6]), confidence=float(r[7]), agent_id=r[8],
        visibility=Visibility(r[9]), occurred_start=_utc_opt(r[10]),
        occurred_end=_utc_opt(r[11]), valid_from=_utc_opt(r[12]), valid_until=_utc_opt(r[13]),
        recorded_at=_utc(r[14]), retired_at=_utc_opt(r[15]), mentioned_at=_utc_opt(r[16]),
        embedding_model=r[17], embedding_dim=r[18], superseded_by=r[19],
        supersedes=tuple(r[20] or ()), contradictions=tuple(r[21] or ()),
        categories=tuple(r[22] or ()), metadata=r[23] or {}, knowers=knowers,
        evidence=evidence, entities=entities,
    )
