"""The recall channels over SQLite: FTS5 BM25, the vector index, time, entities, graph."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from mneme.core.model import UnitStatus, UnitType, Viewer, Visibility
from mneme.store.codec import parse_ts, ts, vector_from
from mneme.store.protocol import Filters, Scored, Vector
from mneme.store.ranking import temporal_order
from mneme.store.sqlite import changes
from mneme.store.sqlite.database import translate
from mneme.store.sqlite.dialect import DIALECT
from mneme.store.sqlite.lexicon import LexiconMixin
from mneme.store.sqlite.scoping import fts_query, where
from mneme.store.sqlite.vectors import IndexRow, VectorIndex

#: Entities mentioned by more units than this are hubs (a speaker's name in every line of a


class ChannelsMixin(LexiconMixin):
    def search_lexical(
        self, viewer: Viewer, terms: Sequence[str], filters: Filters, limit: int
    ) -> list[Scored]:
        match = fts_query(list(terms))
        table = self._fts(viewer.bank_id)
        if not match or table is None:
            return []
        clause, params = where(viewer, filters)
        # Two steps: the best-ranked matches from the bank's FTS table alone (FTS5 keeps only
        # the top of its ranking), then scope and filters on those rows, widening until
        # `limit` of them are visible or the matches run out. Joining every match to its unit
        # first cost 34 ms a query at 100k units (7-9k matches), against 12 ms this way.
        # A large bank's best matches come from its in-memory postings, scored as FTS5 scores
        # them (ADR 0021); FTS5 itself answers for the rest.
        fetch = max(4 * limit, 64)
        while True:
            ranked: Sequence[Any] | None = self._lexical_ranked(
                viewer.bank_id, table, [t for t in terms if t.strip()], fetch
            )
            if ranked is None:
                ranked = self.db.query(
                    f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? "
                    "ORDER BY rank, rowid LIMIT ?",
                    (match, fetch),
                )
            score = {int(r[0]): float(r[1]) for r in ranked}
            visible: list[tuple[float, str]] = []
            rowids = list(score)
            for i in range(0, len(rowids), 500):
                chunk = rowids[i : i + 500]
                visible += [
                    (score[int(r[0])], str(r[1]))
                    for r in self.db.query(
                        f"SELECT u.rowid, u.id FROM units u WHERE u.rowid IN "
                        f"({','.join('?' * len(chunk))}) AND {clause}",
                        (*chunk, *params),
                    )
                ]
            if len(visible) >= limit or len(ranked) < fetch:
                break
            fetch *= 4
        visible.sort()
        # FTS5's bm25() is lower-is-better; flip it so every channel is higher-is-better.
        return [Scored(uid, -s) for s, uid in visible[:limit]]

    def search_semantic(
        self, viewer: Viewer, vector: Vector, model: str, filters: Filters, limit: int
    ) -> list[Scored]:
        idx = self._index(viewer.bank_id, model, len(vector))
        return idx.search(viewer, vector, self._by_ids(viewer.bank_id, filters), limit)

    def _by_ids(self, bank_id: str, filters: Filters) -> Filters:
        """The filters as the vector index takes them: a session (which the index does not
        hold) as the ids of the units said in it, read through the session index (ADR 0109);
        the index's own mask still applies scope and the rest."""
        if filters.session is None:
            return filters
        session = DIALECT.json_text("metadata", "session_id")  # the session index's expression
        rows = self.db.query(
            f"SELECT id FROM units WHERE bank_id = ? AND {session} = ?", (bank_id, filters.session)
        )
        ids = frozenset(str(r[0]) for r in rows)
        if filters.include_ids is not None:
            ids &= filters.include_ids
        return replace(filters, session=None, include_ids=ids)

    def semantic_density(
        self, viewer: Viewer, ids: Sequence[str], model: str, neighbours: int
    ) -> dict[str, float]:
        """From the bank's vector index (the one the semantic channel searched: no read of
        the file); {} before the bank has one."""
        held = self._indexes.get((viewer.bank_id, model))
        if held is None:
            return {}
        return self._index(viewer.bank_id, model, held.dim).density(viewer, ids, neighbours)

    def search_semantic_many(
        self, viewer: Viewer, vectors: Sequence[Vector], model: str, filters: Filters, limit: int
    ) -> list[list[Scored]]:
        if len(vectors) == 0:
            return []
        matrix = np.asarray(vectors, dtype=np.float32)
        idx = self._index(viewer.bank_id, model, matrix.shape[1])
        return idx.search_many(viewer, matrix, self._by_ids(viewer.bank_id, filters), limit)

    def _index(self, bank_id: str, model: str, dim: int) -> VectorIndex:
        gen_rows = self._memoized(
            ("generation", bank_id),
            lambda: self.db.query(
                "SELECT generation FROM index_state WHERE bank_id = ?", (bank_id,)
            ),
        )
        gen = int(gen_rows[0][0]) if gen_rows else 0
        idx = self._indexes.get((bank_id, model))
        if idx is None:
            # A restart: the index file beside the database, if it is sound and ours (ADR 0052).
            # Inside a write transaction too (the first write after a restart): it is caught
            # up through this transaction's connection, as a build would read it, and dropped
            # with the transaction if it rolls back.
            loaded = self._loaded_index(bank_id, model, dim, gen)
            if loaded is not None:
                self._indexes[(bank_id, model)] = loaded
                return loaded
        elif idx is not None:
            # Inside our own write transaction the generation already counts our bump, which
            # the index applied as it went; anything else means another writer got in.
            ours = bank_id in self._touched and self.db.in_transaction
            if idx.generation == gen or (ours and idx.generation == gen - 1):
                return idx
            if self._refresh(idx, gen):
                return idx
        idx = self._build_index(bank_id, model, dim, gen)
        self._indexes[(bank_id, model)] = idx
        self.index_files.stats.built += 1
        if self.index_files.writable and len(idx) >= self.index_files.min_rows:
            idx.prepare()  # the quantizer too, before the index is saved
        self._save_indexes()
        return idx

    def _loaded_index(self, bank_id: str, model: str, dim: int, gen: int) -> VectorIndex | None:
        """The bank's index read from its file and brought up to ``gen`` (the change log, the
        new rows), if it then holds every embedding of the model; tried once per (bank,
        model) in a store's life: an index dropped later is rebuilt from the rows, as ever."""
        files = self.index_files
        if not files.first_use(("vectors", bank_id, model)):
            return None
        idx = files.load_vectors(bank_id, model, dim)
        if idx is None:
            return None
        behind = idx.generation != gen
        if behind and not self._refresh(idx, gen):
            files.reject(bank_id, "units were deleted since it was saved")
            return None
        why = files.count_differs(idx)
        if why is not None:
            files.reject(bank_id, why)
            return None
        files.stats.loaded += 1
        files.stats.caught_up += behind
        return idx

    def _rows(self, bank_id: str, model: str, dim: int, after: int) -> Iterator[Any]:
        """The bank's vectors newer than ``after``, streamed: at 1M units a fetched list of them
        was a second gigabyte beside the matrix they fill."""
        cols = (
            "SELECT u.id, e.vector, u.agent_id, u.visibility, u.status, u.type, "
            "u.occurred_start, u.occurred_end, u.valid_from, u.valid_until, u.rowid "
        )
        if after == 0:  # the whole bank: from its embeddings
            cur = self.db.execute(
                f"{cols} FROM embeddings e JOIN units u ON u.bank_id = e.bank_id "
                "AND u.id = e.unit_id WHERE e.bank_id = ? AND e.model = ? AND e.dim = ? "
                "ORDER BY u.rowid",
                (bank_id, model, dim),
            )
        else:
            # Only the newest units: walk the rowid range (the bank's embeddings first read
            # every one of them: 88 ms for 10 new units at 100k, against 0.09 ms this way).
            cur = self.db.execute(
                f"{cols} FROM units u CROSS JOIN embeddings e ON e.bank_id = u.bank_id "
                "AND e.unit_id = u.id WHERE u.rowid > ? AND +u.bank_id = ? AND e.model = ? "
                "AND e.dim = ? ORDER BY u.rowid",
                (after, bank_id, model, dim),
            )
        try:
            while chunk := cur.fetchmany(4096):
                yield from chunk
        except sqlite3.Error as exc:
            raise translate(exc, self.db.path) from exc

    def _knowers(self, bank_id: str) -> dict[str, list[str]]:
        knowers: dict[str, list[str]] = {}
        for uid, agent in self.db.query(
            "SELECT unit_id, agent_id FROM unit_knowers WHERE bank_id = ?", (bank_id,)
        ):
            knowers.setdefault(uid, []).append(agent)
        return knowers

    def _add_rows(
        self, idx: VectorIndex, rows: Iterable[Any], knowers: dict[str, list[str]]
    ) -> None:
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
            idx.last_rowid = max(idx.last_rowid, int(r[10]))

    def _build_index(self, bank_id: str, model: str, dim: int, gen: int) -> VectorIndex:
        """Rebuild from the embeddings table: the truth the in-memory index derives from."""
        idx = VectorIndex(bank_id, model, dim, gen)
        # The log position first: a change committed while the rows stream in is applied
        # again by the next catch-up, which is harmless.
        idx.change_seq = changes.newest(self.db)
        self._add_rows(idx, self._rows(bank_id, model, dim, 0), self._knowers(bank_id))
        return idx

    def _refresh(self, idx: VectorIndex, gen: int) -> bool:
        """Catch up with other writers without re-reading every vector: new units, then the
        state and knowers of the units the change log names (ADR 0025). False when a rebuild
        is needed (units were deleted)."""
        found = changes.since(self.db, idx.bank_id, idx.change_seq)
        if found is None:
            return self._refresh_all(idx, gen)  # the log was pruned past this index
        if found.gone:
            return False
        ids = list(found.unit_ids)
        knowers = changes.knowers_of(self.db, idx.bank_id, ids)
        self._add_rows(idx, self._rows(idx.bank_id, idx.model, idx.dim, idx.last_rowid), knowers)
        self._set_states(idx, changes.states_of(self.db, idx.bank_id, ids))
        idx.replace_knowers({uid: knowers.get(uid, []) for uid in ids})
        idx.change_seq = found.seq
        idx.generation = gen
        return True

    def _refresh_all(self, idx: VectorIndex, gen: int) -> bool:
        """Catch up by reading the state of every unit and every knower of the bank."""
        seq = changes.newest(self.db)
        states = self.db.query(
            "SELECT id, status, valid_from, valid_until FROM units WHERE bank_id = ?",
            (idx.bank_id,),
        )
        if len(states) < len(idx):
            return False  # units were purged: rebuild
        knowers = self._knowers(idx.bank_id)
        self._add_rows(idx, self._rows(idx.bank_id, idx.model, idx.dim, idx.last_rowid), knowers)
        self._set_states(idx, states)
        idx.set_knowers(knowers)
        idx.change_seq = seq
        idx.generation = gen
        return True

    @staticmethod
    def _set_states(idx: VectorIndex, rows: Iterable[Any]) -> None:
        """Apply (id, status, valid_from, valid_until) rows to the index."""
        for uid, status, valid_from, valid_until in rows:
            idx.set_state(uid, UnitStatus(status), parse_ts(valid_from), parse_ts(valid_until))

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
