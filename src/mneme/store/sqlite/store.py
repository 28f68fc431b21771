"""The SQLite store: the embedded default backend of mneme's Store protocol."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

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
from mneme.errors import Conflict, NotFound
from mneme.store.codec import dumps, loads, parse_ts, ts, unit_summary, vector_bytes, vector_from
from mneme.store.protocol import (
    AuditRecord,
    Capabilities,
    EmbeddingRow,
    Filters,
    Link,
    Scored,
    StoreStats,
    QueueItem,
    UnitChanges,
    Vector,
)
from mneme.store.ranking import temporal_order
from mneme.store.sqlite.database import Database
from mneme.store.sqlite.scoping import fts_query, where
from mneme.store.sqlite.vectors import IndexRow, VectorIndex

#: Entities mentioned by more units than this are hubs (a speaker's name in every line of a
#: transcript): they link everything to everything and carry no signal for graph expansion.
MAX_ENTITY_DEGREE = 48

_UNIT_COLS = (
    "bank_id, id, text, content_key, network, type, status, confidence, agent_id, visibility, "
    "occurred_start, occurred_end, valid_from, valid_until, recorded_at, retired_at, "
    "mentioned_at, embedding_model, embedding_dim, superseded_by, supersedes, contradictions, "
    "categories, metadata"
)


class SQLiteStore:
    capabilities = Capabilities(
        name="sqlite",
        native_vector_index=False,
        concurrent_writers=False,
        row_level_security=False,
    )

    def __init__(self, path: str, *, read_only: bool = False, migrate: bool = True) -> None:
        self.db = Database(path, read_only=read_only)
        self.path = self.db.path
        self._indexes: dict[tuple[str, str], VectorIndex] = {}
        self._touched: set[str] = set()
        if migrate:
            self.migrate()
        else:
            self.db.schema_version()  # refuse a foreign file early

    # -- lifecycle ----------------------------------------------------------------------

    def schema_version(self) -> int:
        return self.db.schema_version()

    def migrate(self) -> list[int]:
        return self.db.migrate()

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def close(self) -> None:
        self._indexes.clear()
        self.db.close()

    def stats(self) -> StoreStats:
        q = self.db.query
        by_model = {
            str(m): int(n) for m, n in q("SELECT model, count(*) FROM embeddings GROUP BY model")
        }
        return StoreStats(
            banks=int(q("SELECT count(*) FROM banks")[0][0]),
            sources=int(q("SELECT count(*) FROM sources")[0][0]),
            units=int(q("SELECT count(*) FROM units")[0][0]),
            entities=int(q("SELECT count(*) FROM entities")[0][0]),
            edges=int(q("SELECT count(*) FROM edges")[0][0]),
            embeddings_by_model=by_model,
        )

    def _w(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        assert self.db.in_transaction, "writes run inside Store.transaction()"
        return self.db.execute(sql, params)

    def _touch(self, bank_id: str) -> None:
        """Bump the bank's index generation once per transaction, and keep indexes in step."""
        if bank_id in self._touched:
            return
        self._touched.add(bank_id)
        self._w(
            "INSERT INTO index_state (bank_id, generation) VALUES (?, 1) "
            "ON CONFLICT (bank_id) DO UPDATE SET generation = generation + 1",
            (bank_id,),
        )
        gen = int(
            self.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))[0][0]
        )

        def committed() -> None:
            self._touched.discard(bank_id)
            for (b, _m), idx in list(self._indexes.items()):
                if b == bank_id:
                    if idx.generation == gen - 1:
                        idx.generation = gen  # our own changes were applied as they happened
                    else:
                        del self._indexes[(b, _m)]  # another writer got in between: rebuild

        def rolled_back() -> None:
            self._touched.discard(bank_id)
            for key in [k for k in self._indexes if k[0] == bank_id]:
                del self._indexes[key]  # in-memory changes of the failed transaction are void

        self.db.after(committed, rolled_back)

    # -- banks and agents ---------------------------------------------------------------

    def ensure_bank(self, bank: Bank) -> Bank:
        existing = self.get_bank(bank.id)
        if existing:
            return existing
        self._w(
            "INSERT INTO banks (id, name, created_at, config) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO NOTHING",
            (bank.id, bank.name, ts(bank.created_at), dumps(dict(bank.config))),
        )
        self._w(
            "INSERT INTO index_state (bank_id, generation) VALUES (?, 0) "
            "ON CONFLICT (bank_id) DO NOTHING",
            (bank.id,),
        )
        self.audit(
            bank.id,
            "system",
            "bank.create",
            bank.id,
            None,
            {"name": bank.name, "config": dict(bank.config)},
            "first write to the bank",
        )
        return self.get_bank(bank.id) or bank

    def get_bank(self, bank_id: str) -> Bank | None:
        rows = self.db.query(
            "SELECT id, name, created_at, config FROM banks WHERE id = ?", (bank_id,)
        )
        if not rows:
            return None
        r = rows[0]
        return Bank(
            id=r[0], name=r[1], created_at=parse_ts(r[2]) or _epoch(), config=loads(r[3], {})
        )

    def list_banks(self) -> list[Bank]:
        return [
            b
            for (i,) in self.db.query("SELECT id FROM banks ORDER BY id")
            if (b := self.get_bank(i)) is not None
        ]

    def heartbeat(self, agent: Agent) -> None:
        self._w(
            "INSERT INTO agents (bank_id, id, host, status, first_seen, last_seen) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (bank_id, id) DO UPDATE SET "
            "host = coalesce(excluded.host, agents.host), status = excluded.status, "
            "last_seen = max(agents.last_seen, excluded.last_seen)",
            (
                agent.bank_id,
                agent.id,
                agent.host,
                agent.status,
                ts(agent.first_seen),
                ts(agent.last_seen),
            ),
        )

    def list_agents(self, bank_id: str) -> list[Agent]:
        rows = self.db.query(
            "SELECT bank_id, id, host, status, first_seen, last_seen FROM agents "
            "WHERE bank_id = ? ORDER BY last_seen DESC, id",
            (bank_id,),
        )
        return [
            Agent(
                bank_id=r[0],
                id=r[1],
                host=r[2],
                status=r[3],
                first_seen=parse_ts(r[4]) or _epoch(),
                last_seen=parse_ts(r[5]) or _epoch(),
            )
            for r in rows
        ]

    # -- sources ------------------------------------------------------------------------

    def put_source(self, source: Source) -> None:
        try:
            self._w(
                "INSERT INTO sources (bank_id, id, text, content_hash, kind, agent_id, "
                "session_id, task_id, occurred_at, mentioned_at, recorded_at, trust, "
                "visibility, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    source.bank_id,
                    source.id,
                    source.text,
                    source.content_hash,
                    source.kind,
                    source.agent_id,
                    source.session_id,
                    source.task_id,
                    ts(source.occurred_at),
                    ts(source.mentioned_at),
                    ts(source.recorded_at),
                    source.trust,
                    source.visibility.value,
                    dumps(dict(source.metadata)),
                ),
            )
        except Exception as exc:
            if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                raise Conflict(
                    f"source {source.id} already exists in bank {source.bank_id}"
                ) from exc
            raise
        self.audit(
            source.bank_id,
            source.agent_id,
            "source.put",
            source.id,
            None,
            {"content_hash": source.content_hash, "kind": source.kind},
            "retain",
        )

    def get_source(self, viewer: Viewer, source_id: str) -> Source | None:
        rows = self.db.query(
            "SELECT bank_id, id, text, content_hash, kind, agent_id, session_id, task_id, "
            "occurred_at, mentioned_at, recorded_at, trust, visibility, metadata FROM sources s "
            "WHERE s.bank_id = ? AND s.id = ? AND (s.visibility = 'shared' OR s.agent_id = ? "
            f"OR {int(viewer.scope == Scope.OWNER)}) "
            + ("AND s.agent_id = ?" if viewer.scope == Scope.PERSONAL else ""),
            (viewer.bank_id, source_id, viewer.agent_id)
            + ((viewer.agent_id,) if viewer.scope == Scope.PERSONAL else ()),
        )
        if not rows:
            return None
        r = rows[0]
        return Source(
            bank_id=r[0],
            id=r[1],
            text=r[2],
            content_hash=r[3],
            kind=r[4],
            agent_id=r[5],
            session_id=r[6],
            task_id=r[7],
            occurred_at=parse_ts(r[8]),
            mentioned_at=parse_ts(r[9]),
            recorded_at=parse_ts(r[10]) or _epoch(),
            trust=r[11],
            visibility=Visibility(r[12]),
            metadata=loads(r[13], {}),
        )

    def locate(self, object_id: str) -> str | None:
        for sql in (
            "SELECT bank_id FROM units WHERE id = ? LIMIT 1",
            "SELECT bank_id FROM sources WHERE id = ? LIMIT 1",
        ):
            rows = self.db.query(sql, (object_id,))
            if rows:
                return str(rows[0][0])
        return None

    # -- units --------------------------------------------------------------------------

    def put_unit(self, unit: Unit, vector: Vector | None) -> None:
        owner = unit.agent_id if unit.visibility == Visibility.PRIVATE else ""
        self._w(
            f"INSERT INTO units ({_UNIT_COLS}, owner) VALUES ({','.join('?' * 25)})",
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
                ts(unit.occurred_start),
                ts(unit.occurred_end),
                ts(unit.valid_from),
                ts(unit.valid_until),
                ts(unit.recorded_at),
                ts(unit.retired_at),
                ts(unit.mentioned_at),
                unit.embedding_model,
                unit.embedding_dim,
                unit.superseded_by,
                dumps(list(unit.supersedes)),
                dumps(list(unit.contradictions)),
                dumps(list(unit.categories)),
                dumps(dict(unit.metadata)),
                owner,
            ),
        )
        self._touch(unit.bank_id)
        first_source = unit.evidence[0] if unit.evidence else None
        for agent in unit.knowers or (unit.agent_id,):
            self._w(
                "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, agent, first_source, ts(unit.recorded_at)),
            )
        for source_id in unit.evidence:
            self._w(
                "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (unit.bank_id, unit.id, source_id, unit.agent_id, ts(unit.recorded_at)),
            )
        if vector is not None and unit.embedding_model:
            self._store_vector(unit.bank_id, unit.id, unit.embedding_model, vector)
            idx = self._indexes.get((unit.bank_id, unit.embedding_model))
            if idx is not None:
                idx.add(
                    _index_row(
                        unit, np.asarray(vector, dtype=np.float32), unit.knowers or (unit.agent_id,)
                    )
                )
        self.audit(
            unit.bank_id, unit.agent_id, "unit.put", unit.id, None, unit_summary(unit), "retain"
        )

    def _store_vector(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        blob = vector_bytes(vector)
        self._w(
            "INSERT INTO embeddings (bank_id, unit_id, model, dim, vector) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (bank_id, unit_id, model) DO UPDATE SET "
            "dim = excluded.dim, vector = excluded.vector",
            (bank_id, unit_id, model, len(blob) // 4, blob),
        )

    def find_by_content_key(
        self, bank_id: str, content_key: str, visibility: Visibility, agent_id: str
    ) -> Unit | None:
        owner = agent_id if visibility == Visibility.PRIVATE else ""
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units WHERE bank_id = ? AND content_key = ? AND owner = ?",
            (bank_id, content_key, owner),
        )
        units = self._hydrate(rows)
        return units[0] if units else None

    def add_evidence(
        self, bank_id: str, unit_id: str, source_id: str, agent_id: str, at: dt.datetime
    ) -> bool:
        self._w(
            "INSERT INTO unit_evidence VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, source_id, agent_id, ts(at)),
        )
        cur = self._w(
            "INSERT INTO unit_knowers VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bank_id, unit_id, agent_id, source_id, ts(at)),
        )
        new_knower = cur.rowcount > 0
        if new_knower:
            self._touch(bank_id)
            for (b, _m), idx in self._indexes.items():
                if b == bank_id:
                    idx.add_knower(unit_id, agent_id)
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
        before = self._one(bank_id, unit_id)
        sets: list[str] = []
        params: list[Any] = []
        for col, value in (
            ("status", changes.status and changes.status.value),
            ("confidence", changes.confidence),
            ("valid_from", ts(changes.valid_from)),
            ("valid_until", ts(changes.valid_until)),
            ("retired_at", ts(changes.retired_at)),
            ("superseded_by", changes.superseded_by),
        ):
            if value is not None:
                sets.append(f"{col} = ?")
                params.append(value)
        for col, extra, current in (
            ("supersedes", changes.add_supersedes, before.supersedes),
            ("contradictions", changes.add_contradictions, before.contradictions),
            ("categories", changes.add_categories, before.categories),
        ):
            if extra:
                merged = list(dict.fromkeys([*current, *extra]))
                sets.append(f"{col} = ?")
                params.append(dumps(merged))
        if changes.metadata:
            sets.append("metadata = ?")
            params.append(dumps({**before.metadata, **changes.metadata}))
        if not sets:
            return before
        self._w(
            f"UPDATE units SET {', '.join(sets)} WHERE bank_id = ? AND id = ?",
            (*params, bank_id, unit_id),
        )
        self._touch(bank_id)
        for (b, _m), idx in self._indexes.items():
            if b == bank_id:
                idx.update(unit_id, changes)
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

    def _one(self, bank_id: str, unit_id: str) -> Unit:
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units WHERE bank_id = ? AND id = ?", (bank_id, unit_id)
        )
        units = self._hydrate(rows)
        if not units:
            raise NotFound(f"no unit {unit_id} in bank {bank_id}")
        return units[0]

    def get_units(self, viewer: Viewer, ids: Sequence[str]) -> dict[str, Unit]:
        if not ids:
            return {}
        out: dict[str, Unit] = {}
        clause, params = where(viewer, Filters())
        unique = list(dict.fromkeys(ids))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            rows = self.db.query(
                f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} "
                f"AND u.id IN ({','.join('?' * len(chunk))})",
                (*params, *chunk),
            )
            out.update({u.id: u for u in self._hydrate(rows)})
        return out

    def units_of_source(self, viewer: Viewer, source_id: str) -> list[Unit]:
        clause, params = where(viewer, Filters())
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} AND EXISTS (SELECT 1 FROM "
            "unit_evidence ev WHERE ev.bank_id = u.bank_id AND ev.unit_id = u.id "
            "AND ev.source_id = ?) ORDER BY u.rowid",
            (*params, source_id),
        )
        return self._hydrate(rows)

    def list_units(
        self, viewer: Viewer, filters: Filters, limit: int, offset: int = 0
    ) -> list[Unit]:
        clause, params = where(viewer, filters)
        rows = self.db.query(
            f"SELECT {_UNIT_COLS} FROM units u WHERE {clause} "
            "ORDER BY u.recorded_at DESC, u.id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return self._hydrate(rows)

    def _hydrate(self, rows: Sequence[Any]) -> list[Unit]:
        if not rows:
            return []
        keys = [(r[0], r[1]) for r in rows]
        knowers = self._group(
            "SELECT unit_id, agent_id FROM unit_knowers", keys, "ORDER BY first_at, agent_id"
        )
        evidence = self._group(
            "SELECT unit_id, source_id FROM unit_evidence", keys, "ORDER BY at, source_id"
        )
        names = self._group(
            "SELECT m.unit_id, e.name FROM mentions m JOIN entities e "
            "ON e.bank_id = m.bank_id AND e.id = m.entity_id",
            keys,
            "ORDER BY e.name",
            alias="m",
        )
        return [
            _unit(r, knowers.get(r[1], ()), evidence.get(r[1], ()), names.get(r[1], ()))
            for r in rows
        ]

    def _group(
        self, select: str, keys: Sequence[tuple[str, str]], order: str, alias: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        prefix = f"{alias}." if alias else ""
        by_bank: dict[str, list[str]] = {}
        for bank, uid in keys:
            by_bank.setdefault(bank, []).append(uid)
        for bank, ids in by_bank.items():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                rows = self.db.query(
                    f"{select} WHERE {prefix}bank_id = ? AND {prefix}unit_id IN "
                    f"({','.join('?' * len(chunk))}) {order}",
                    (bank, *chunk),
                )
                for uid, value in rows:
                    out.setdefault(uid, []).append(value)
        return {k: tuple(v) for k, v in out.items()}

    # -- entities, mentions, edges ------------------------------------------------------

    def upsert_entity(self, entity: Entity) -> Entity:
        rows = self.db.query(
            "SELECT id, name, kind, aliases FROM entities WHERE bank_id = ? AND key = ?",
            (entity.bank_id, entity.key),
        )
        if not rows:
            self._w(
                "INSERT INTO entities (bank_id, id, name, key, kind, aliases) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    entity.bank_id,
                    entity.id,
                    entity.name,
                    entity.key,
                    entity.kind,
                    dumps(list(entity.aliases)),
                ),
            )
            return entity
        eid, name, kind, aliases = rows[0]
        known = loads(aliases, [])
        merged = list(dict.fromkeys([*known, *entity.aliases]))
        better_kind = kind if kind != "thing" else entity.kind
        if merged != known or better_kind != kind:
            self._w(
                "UPDATE entities SET aliases = ?, kind = ? WHERE bank_id = ? AND id = ?",
                (dumps(merged), better_kind, entity.bank_id, eid),
            )
        return Entity(
            id=eid,
            bank_id=entity.bank_id,
            name=name,
            key=entity.key,
            kind=better_kind,
            aliases=tuple(merged),
        )

    def add_mentions(self, bank_id: str, unit_id: str, entity_ids: Sequence[str]) -> None:
        for eid in dict.fromkeys(entity_ids):
            self._w(
                "INSERT INTO mentions VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (bank_id, unit_id, eid),
            )

    def put_edge(self, edge: Edge) -> None:
        self._w(
            "INSERT INTO edges (bank_id, id, src, dst, type, weight, confidence, made_by, "
            "created_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                edge.bank_id,
                edge.id,
                edge.src,
                edge.dst,
                edge.type,
                edge.weight,
                edge.confidence,
                edge.made_by,
                ts(edge.created_at),
                dumps(dict(edge.metadata)),
            ),
        )
        self.audit(
            edge.bank_id,
            edge.made_by,
            "edge.put",
            edge.id,
            None,
            {"src": edge.src, "dst": edge.dst, "type": edge.type},
            "link",
        )

    def edges_of(self, viewer: Viewer, unit_id: str) -> list[Edge]:
        """Edges touching a visible unit whose other end is visible too (or is a source)."""
        clause_a, pa = where(viewer, Filters(), "a")
        clause_b, pb = where(viewer, Filters(), "b")
        rows = self.db.query(
            "SELECT e.bank_id, e.id, e.src, e.dst, e.type, e.weight, e.confidence, e.made_by, "
            "e.created_at, e.metadata FROM edges e "
            f"JOIN units a ON a.bank_id = e.bank_id AND a.id = ? AND {clause_a} "
            "LEFT JOIN units b ON b.bank_id = e.bank_id "
            "AND b.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "WHERE e.bank_id = ? AND (e.src = a.id OR e.dst = a.id) "
            "AND (b.id IS NULL AND EXISTS (SELECT 1 FROM sources s WHERE s.bank_id = e.bank_id "
            "AND s.id = CASE WHEN e.src = a.id THEN e.dst ELSE e.src END "
            "AND (s.visibility = 'shared' OR s.agent_id = ?)) "
            f"OR b.id IS NOT NULL AND {clause_b}) ORDER BY e.created_at, e.id",
            (unit_id, *pa, viewer.bank_id, viewer.agent_id, *pb),
        )
        return [
            Edge(
                bank_id=r[0],
                id=r[1],
                src=r[2],
                dst=r[3],
                type=r[4],
                weight=r[5],
                confidence=r[6],
                made_by=r[7],
                created_at=parse_ts(r[8]) or _epoch(),
                metadata=loads(r[9], {}),
            )
            for r in rows
        ]

    # -- embeddings ---------------------------------------------------------------------

    def put_embedding(self, bank_id: str, unit_id: str, model: str, vector: Vector) -> None:
        before = self._one(bank_id, unit_id)
        self._store_vector(bank_id, unit_id, model, vector)
        self._w(
            "UPDATE units SET embedding_model = ?, embedding_dim = ? WHERE bank_id = ? AND id = ?",
            (model, len(vector), bank_id, unit_id),
        )
        self._touch(bank_id)
        self._indexes.pop((bank_id, model), None)
        self.audit(
            bank_id,
            "system",
            "unit.reembed",
            unit_id,
            {"embedding_model": before.embedding_model},
            {"embedding_model": model, "embedding_dim": len(vector)},
            "reembed",
        )

    def iter_for_embedding(
        self, bank_id: str | None, model: str, batch: int
    ) -> Iterator[list[EmbeddingRow]]:
        last = ""
        while True:
            rows = self.db.query(
                "SELECT u.id, u.text, u.embedding_model FROM units u WHERE u.id > ? "
                + ("AND u.bank_id = ? " if bank_id else "")
                + "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.bank_id = u.bank_id "
                "AND e.unit_id = u.id AND e.model = ?) ORDER BY u.id LIMIT ?",
                (last, *((bank_id,) if bank_id else ()), model, batch),
            )
            if not rows:
                return
            last = rows[-1][0]
            yield [EmbeddingRow(unit_id=r[0], text=r[1], model=r[2]) for r in rows]

    # -- recall channels ----------------------------------------------------------------

    def search_lexical(
        self, viewer: Viewer, terms: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        match = fts_query(list(terms))
        if not match:
            return []
        clause, params = where(viewer, filters)
        rows = self.db.query(
            "SELECT u.id, bm25(units_fts) AS s FROM units_fts "
            "JOIN units u ON u.rowid = units_fts.rowid "
            f"WHERE units_fts MATCH ? AND {clause} ORDER BY s, u.id LIMIT ?",
            (match, *params, limit),
        )
        # FTS5's bm25() is lower-is-better; flip it so every channel is higher-is-better.
        return [Scored(r[0], -float(r[1])) for r in rows]

    def search_semantic(
        self, viewer: Viewer, vector: Vector, model: str, filters: Filters, limit: int
    ) -> list[Scored]:
        idx = self._index(viewer.bank_id, model, len(vector))
        return idx.search(viewer, vector, filters, limit)

    def _index(self, bank_id: str, model: str, dim: int) -> VectorIndex:
        gen_rows = self.db.query("SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,))
        gen = int(gen_rows[0][0]) if gen_rows else 0
        idx = self._indexes.get((bank_id, model))
        if idx is not None and (idx.generation == gen or self.db.in_transaction):
            return idx
        idx = self._build_index(bank_id, model, dim, gen)
        self._indexes[(bank_id, model)] = idx
        return idx

    def _build_index(self, bank_id: str, model: str, dim: int, gen: int) -> VectorIndex:
        """Rebuild from the embeddings table: the truth the in-memory index derives from."""
        idx = VectorIndex(bank_id, model, dim, gen)
        knowers: dict[str, list[str]] = {}
        for uid, agent in self.db.query(
            "SELECT unit_id, agent_id FROM unit_knowers WHERE bank_id = ?", (bank_id,)
        ):
            knowers.setdefault(uid, []).append(agent)
        rows = self.db.query(
            "SELECT u.id, e.vector, u.agent_id, u.visibility, u.status, u.type, "
            "u.occurred_start, u.occurred_end, u.valid_from, u.valid_until FROM embeddings e "
            "JOIN units u ON u.bank_id = e.bank_id AND u.id = e.unit_id "
            "WHERE e.bank_id = ? AND e.model = ? AND e.dim = ? ORDER BY u.rowid",
            (bank_id, model, dim),
        )
        for r in rows:
            idx.add(
                IndexRow(
                    unit_id=r[0],
                    vector=vector_from(r[1]),
                    author=r[2],
                    visibility=Visibility(r[3]),
                    status=UnitStatus(r[4]),
                    type=UnitType(r[5]),
                    occurred_start=parse_ts(r[6]),
                    occurred_end=parse_ts(r[7]),
                    valid_from=parse_ts(r[8]),
                    valid_until=parse_ts(r[9]),
                    knowers=knowers.get(r[0], ()),
                )
            )
        return idx

    def search_temporal(
        self, viewer: Viewer, start: dt.datetime, end: dt.datetime, filters: Filters, limit: int
    ) -> list[Scored]:
        clause, params = where(viewer, filters)
        mid = start + (end - start) / 2
        rows = self.db.query(
            f"SELECT u.id, u.occurred_start, u.occurred_end FROM units u WHERE {clause} "
            "AND u.occurred_start < ? AND (coalesce(u.occurred_end, u.occurred_start) > ? "
            "OR u.occurred_start >= ?) "
            "ORDER BY abs(julianday(u.occurred_start) - julianday(?)), u.id LIMIT ?",
            (*params, ts(end), ts(start), ts(start), ts(mid), limit * 4),
        )
        return temporal_order(
            [(r[0], parse_ts(r[1]) or start, parse_ts(r[2])) for r in rows], start, end, limit
        )

    def search_entities(
        self, viewer: Viewer, keys: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return []
        clause, params = where(viewer, filters)
        rows = self.db.query(
            "WITH ent AS (SELECT e.bank_id, e.id, (SELECT count(*) FROM mentions d "
            "WHERE d.bank_id = e.bank_id AND d.entity_id = e.id) AS deg FROM entities e "
            f"WHERE e.bank_id = ? AND e.key IN ({','.join('?' * len(keys))})) "
            "SELECT u.id, ent.deg FROM ent JOIN mentions m ON m.bank_id = ent.bank_id "
            "AND m.entity_id = ent.id JOIN units u ON u.bank_id = m.bank_id AND u.id = m.unit_id "
            f"WHERE ent.deg <= ? AND {clause} ORDER BY ent.deg, u.id LIMIT ?",
            (viewer.bank_id, *keys, MAX_ENTITY_DEGREE, *params, limit * 4),
        )
        scores: dict[str, float] = {}
        for uid, deg in rows:
            # Rarer entities say more: weight by inverse log degree, summed over entities.
            scores[uid] = scores.get(uid, 0.0) + 1.0 / (1.0 + float(np.log1p(float(deg))))
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [Scored(uid, s) for uid, s in ranked]

    def graph_links(
        self, viewer: Viewer, unit_ids: Sequence[str], filters: Filters, limit: int
    ) -> list[Link]:
        if not unit_ids:
            return []
        seeds = list(dict.fromkeys(unit_ids))
        marks = ",".join("?" * len(seeds))
        clause, params = where(viewer, filters, "b")
        links: list[Link] = []
        # typed edges between units, both directions
        rows = self.db.query(
            "SELECT e.src, e.dst, e.type, e.weight * e.confidence, e.id FROM edges e "
            "JOIN units b ON b.bank_id = e.bank_id "
            "AND b.id = CASE WHEN e.src IN (" + marks + ") THEN e.dst ELSE e.src END "
            f"WHERE e.bank_id = ? AND (e.src IN ({marks}) OR e.dst IN ({marks})) AND {clause} "
            "ORDER BY e.weight DESC, e.id LIMIT ?",
            (*seeds, viewer.bank_id, *seeds, *seeds, *params, limit),
        )
        seedset = set(seeds)
        for src, dst, typ, w, eid in rows:
            a, b = (src, dst) if src in seedset else (dst, src)
            links.append(Link(a, b, typ, float(w), eid))
        # shared entities (hubs excluded), weighted by rarity
        rows = self.db.query(
            "WITH deg AS (SELECT entity_id, count(*) AS n FROM mentions WHERE bank_id = ? "
            f"AND entity_id IN (SELECT entity_id FROM mentions WHERE bank_id = ? "
            f"AND unit_id IN ({marks})) GROUP BY entity_id HAVING count(*) <= ?) "
            "SELECT m1.unit_id, m2.unit_id, en.name, deg.n FROM mentions m1 "
            "JOIN deg ON deg.entity_id = m1.entity_id "
            "JOIN mentions m2 ON m2.bank_id = m1.bank_id AND m2.entity_id = m1.entity_id "
            "AND m2.unit_id != m1.unit_id "
            "JOIN entities en ON en.bank_id = m1.bank_id AND en.id = m1.entity_id "
            "JOIN units b ON b.bank_id = m2.bank_id AND b.id = m2.unit_id "
            f"WHERE m1.bank_id = ? AND m1.unit_id IN ({marks}) AND {clause} "
            "ORDER BY deg.n, m2.unit_id LIMIT ?",
            (
                viewer.bank_id,
                viewer.bank_id,
                *seeds,
                MAX_ENTITY_DEGREE,
                viewer.bank_id,
                *seeds,
                *params,
                limit,
            ),
        )
        for a, b, name, n in rows:
            links.append(Link(a, b, "ENTITY", 1.0 / (1.0 + np.log1p(float(n))), name))
        # sibling atoms of the same source
        rows = self.db.query(
            "SELECT e1.unit_id, e2.unit_id, e1.source_id FROM unit_evidence e1 "
            "JOIN unit_evidence e2 ON e2.bank_id = e1.bank_id AND e2.source_id = e1.source_id "
            "AND e2.unit_id != e1.unit_id "
            "JOIN units b ON b.bank_id = e2.bank_id AND b.id = e2.unit_id "
            f"WHERE e1.bank_id = ? AND e1.unit_id IN ({marks}) AND {clause} "
            "ORDER BY e2.unit_id LIMIT ?",
            (viewer.bank_id, *seeds, *params, limit),
        )
        links.extend(Link(a, b, "SOURCE", 0.5, sid) for a, b, sid in rows)
        return links

    # -- ingest buffer ------------------------------------------------------------------

    def enqueue(self, item: QueueItem) -> None:
        self._w(
            "INSERT INTO ingest_queue (bank_id, id, payload, status, attempts, created_at, "
            "updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            (
                item.bank_id,
                item.id,
                dumps(dict(item.payload)),
                ts(item.created_at),
                ts(item.created_at),
            ),
        )

    def claim_queued(self, now: dt.datetime) -> QueueItem | None:
        rows = self._w(
            "UPDATE ingest_queue SET status = 'processing', attempts = attempts + 1, "
            "updated_at = ? WHERE id = (SELECT id FROM ingest_queue WHERE status = 'pending' "
            f"ORDER BY created_at, id LIMIT 1) RETURNING {_QUEUE_COLS}",
            (ts(now),),
        ).fetchall()
        return _queue_item(rows[0]) if rows else None

    def finish_queued(
        self,
        item_id: str,
        status: str,
        result: Mapping[str, Any] | None,
        error: str | None,
        now: dt.datetime,
    ) -> None:
        self._w(
            "UPDATE ingest_queue SET status = ?, result = ?, error = ?, updated_at = ? "
            "WHERE id = ?",
            (status, None if result is None else dumps(dict(result)), error, ts(now), item_id),
        )

    def get_queued(self, item_id: str) -> QueueItem | None:
        rows = self.db.query(f"SELECT {_QUEUE_COLS} FROM ingest_queue WHERE id = ?", (item_id,))
        return _queue_item(rows[0]) if rows else None

    def requeue_processing(self, now: dt.datetime) -> int:
        cur = self._w(
            "UPDATE ingest_queue SET status = 'pending', updated_at = ? "
            "WHERE status = 'processing'",
            (ts(now),),
        )
        return int(cur.rowcount)

    # -- audit --------------------------------------------------------------------------

    def audit(
        self,
        bank_id: str,
        actor: str,
        op: str,
        target: str,
        before: Mapping[str, Any] | None,
        after: Mapping[str, Any] | None,
        reason: str,
    ) -> None:
        head = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        prev = head[0][1] if head else GENESIS
        count = int(head[0][2]) if head else 0
        at = ts(dt.datetime.now(dt.UTC))
        before_s = None if before is None else dumps(dict(before))
        after_s = None if after is None else dumps(dict(after))
        fields = {
            "bank_id": bank_id,
            "at": at,
            "actor": actor,
            "op": op,
            "target": target,
            "before": before_s,
            "after": after_s,
            "reason": reason,
        }
        digest = record_hash(prev, fields)
        cur = self._w(
            "INSERT INTO audit_log (bank_id, at, actor, op, target, before, after, "
            "reason, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (bank_id, at, actor, op, target, before_s, after_s, reason, prev, digest),
        )
        self._w(
            "INSERT INTO audit_head (bank_id, seq, hash, count) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (bank_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "count = excluded.count",
            (bank_id, cur.lastrowid, digest, count + 1),
        )

    def audit_records(self, bank_id: str | None = None) -> Iterator[AuditRecord]:
        rows = self.db.query(
            "SELECT seq, bank_id, at, actor, op, target, before, after, reason, prev_hash, hash "
            "FROM audit_log " + ("WHERE bank_id = ? " if bank_id else "") + "ORDER BY seq",
            (bank_id,) if bank_id else (),
        )
        for r in rows:
            yield AuditRecord(
                seq=r[0],
                bank_id=r[1],
                at=parse_ts(r[2]) or _epoch(),
                actor=r[3],
                op=r[4],
                target=r[5],
                before=_loads_lenient(r[6]),
                after=_loads_lenient(r[7]),
                reason=r[8],
                prev_hash=r[9],
                hash=r[10],
                hashed={
                    "bank_id": r[1],
                    "at": r[2],
                    "actor": r[3],
                    "op": r[4],
                    "target": r[5],
                    "before": r[6],
                    "after": r[7],
                    "reason": r[8],
                },
            )

    def audit_head(self, bank_id: str) -> tuple[int, str, int] | None:
        rows = self.db.query(
            "SELECT seq, hash, count FROM audit_head WHERE bank_id = ?", (bank_id,)
        )
        return (int(rows[0][0]), str(rows[0][1]), int(rows[0][2])) if rows else None


_QUEUE_COLS = "id, bank_id, payload, status, attempts, created_at, updated_at, result, error"


def _queue_item(r: Sequence[Any]) -> QueueItem:
    return QueueItem(
        id=r[0],
        bank_id=r[1],
        payload=loads(r[2], {}),
        status=r[3],
        attempts=int(r[4]),
        created_at=parse_ts(r[5]) or _epoch(),
        updated_at=parse_ts(r[6]) or _epoch(),
        result=loads(r[7]),
        error=r[8],
    )


def _loads_lenient(value: str | None) -> Any:
    """Audit JSON as stored; a record edited into invalid JSON still reads (verify flags it)."""
    try:
        return loads(value)
    except ValueError:
        return {"unreadable": value}


def _epoch() -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _index_row(unit: Unit, vector: np.ndarray, knowers: Sequence[str]) -> IndexRow:
    return IndexRow(
        unit_id=unit.id,
        vector=vector,
        author=unit.agent_id,
        visibility=unit.visibility,
        status=unit.status,
        type=unit.type,
        occurred_start=unit.occurred_start,
        occurred_end=unit.occurred_end,
        valid_from=unit.valid_from,
        valid_until=unit.valid_until,
        knowers=knowers,
    )


def _unit(
    r: Sequence[Any], knowers: tuple[str, ...], evidence: tuple[str, ...], entities: tuple[str, ...]
) -> Unit:
    return Unit(
        bank_id=r[0],
        id=r[1],
        text=r[2],
        content_key=r[3],
        network=Network(r[4]),
        type=UnitType(r[5]),
        status=UnitStatus(r[6]),
        confidence=float(r[7]),
        agent_id=r[8],
        visibility=Visibility(r[9]),
        occurred_start=parse_ts(r[10]),
        occurred_end=parse_ts(r[11]),
        valid_from=parse_ts(r[12]),
        valid_until=parse_ts(r[13]),
        recorded_at=parse_ts(r[14]) or _epoch(),
        retired_at=parse_ts(r[15]),
        mentioned_at=parse_ts(r[16]),
        embedding_model=r[17],
        embedding_dim=r[18],
        superseded_by=r[19],
        supersedes=tuple(loads(r[20], [])),
        contradictions=tuple(loads(r[21], [])),
        categories=tuple(loads(r[22], [])),
        metadata=loads(r[23], {}),
        knowers=knowers,
        evidence=evidence,
        entities=entities,
    )
