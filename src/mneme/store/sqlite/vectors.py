"""An in-memory vector index over the embeddings stored in SQLite, rebuilt from them when stale.

One index per (bank, model). Beside the matrix it keeps, per row, the columns that scope and
the hard filters need (author, privacy, knowers, status, type, time windows), so the semantic
channel applies scope and filters as a mask *before* ranking: a hidden unit never takes a slot,
and no result is filtered after the fact. The index is derived data: the embeddings table is the
truth, and ``index_state.generation`` tells when this copy no longer matches it (ADR 0003).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController

from mneme.core.model import Scope, UnitStatus, UnitType, Viewer, Visibility
from mneme.store.protocol import Filters, Scored, UnitChanges, Vector
from mneme.store.ranking import best_rows, pool_density
from mneme.store.sqlite.ivf import IVF_MIN_ROWS, CoarseQuantizer, probe_count


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _one_blas_thread() -> Any:
    """Score on one BLAS thread. OpenBLAS's idle threads spin after a product and starve the
    query embedder's torch threads on a small machine: recall p50 on a 1,800-unit bank went
    from 110 ms to 27 ms with one BLAS thread (the product itself takes well under 1 ms)."""
    return _blas().limit(limits=1, user_api="blas")


#: ``search_many`` scores the rows in blocks of this many (the score matrix of a block of
#: 65,536 rows and 256 queries is 64 MiB).
SEARCH_BLOCK_ROWS = 65_536
#: Agents whose known rows are kept as a boolean column, for personal-scope masks.
KNOWN_COLUMNS = 8
#: The per-row arrays, kept in step (a reorder by cluster permutes them all).
_ROW_ARRAYS = (
    "_mat",
    "_seq",
    "_author",
    "_private",
    "_status",
    "_type",
    "_occ_s",
    "_occ_e",
    "_val_f",
    "_val_u",
)

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    """Hold the index's lock: a reorder by cluster moves rows under a search's feet."""

    @functools.wraps(method)
    def inner(self: VectorIndex, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return inner  # type: ignore[return-value]


_STATUS = {s: i for i, s in enumerate(UnitStatus)}
_TYPE = {t: i for i, t in enumerate(UnitType)}
_NAN = float("nan")


def _lookup(codes: Mapping[Any, int], wanted: Iterable[Any]) -> np.ndarray:
    """A boolean table over codes: indexing it with a code column masks rows in one step
    (np.isin sorts on every call and cost more than the vector product on small banks)."""
    table = np.zeros(len(codes), dtype=bool)
    table[[codes[w] for w in wanted]] = True
    return table


def _epoch(value: dt.datetime | None, missing: float = _NAN) -> float:
    return missing if value is None else value.timestamp()


@dataclass(slots=True)
class IndexRow:
    unit_id: str
    vector: np.ndarray
    author: str
    visibility: Visibility
    status: UnitStatus
    type: UnitType
    occurred_start: dt.datetime | None
    occurred_end: dt.datetime | None
    valid_from: dt.datetime | None
    valid_until: dt.datetime | None
    knowers: Iterable[str] = field(default_factory=tuple)


class VectorIndex:
    """Rows of one bank and one embedding model, with masks for scope and filters."""

    def __init__(self, bank_id: str, model: str, dim: int, generation: int) -> None:
        self.bank_id = bank_id
        self.model = model
        self.dim = dim
        self.generation = generation
        self.last_rowid = 0  # the newest units row this index has read (for catching up)
        self.change_seq = 0  # the newest unit_changes row it has applied (ADR 0025)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._agents: dict[str, int] = {}
        # agent index -> rows it knows (a dict as an ordered set: membership in O(1); a list
        # made every add O(rows) and a 100k-unit ingest quadratic)
        self._knows: dict[int, dict[int, None]] = {}
        # ...and, for the agents that searched in personal scope lately, the same as a boolean
        # column kept in step (building it from the set costs O(rows known) a search: 15 ms
        # for an agent knowing 300k rows), least recently used first
        self._known: dict[int, np.ndarray] = {}
        self._ivf: CoarseQuantizer | None = None
        self._lock = threading.RLock()
        self._added = 0  # rows ever added: a row's ``_seq``, its age (ties rank the older first)
        cap = 64
        self._mat = np.zeros((cap, dim), dtype=np.float32)
        self._seq = np.zeros(cap, dtype=np.int64)
        self._author = np.zeros(cap, dtype=np.int32)
        self._private = np.zeros(cap, dtype=bool)
        self._status = np.zeros(cap, dtype=np.int8)
        self._type = np.zeros(cap, dtype=np.int8)
        self._occ_s = np.zeros(cap, dtype=np.float64)
        self._occ_e = np.zeros(cap, dtype=np.float64)
        self._val_f = np.zeros(cap, dtype=np.float64)
        self._val_u = np.zeros(cap, dtype=np.float64)

    def __len__(self) -> int:
        return len(self._ids)

    def _agent(self, agent_id: str) -> int:
        idx = self._agents.get(agent_id)
        if idx is None:
            idx = self._agents[agent_id] = len(self._agents)
        return idx

    def _grow(self) -> None:
        # The next power of two: an index read from its file (ADR 0052) is exactly full, and
        # doubling 1,003,107 rows would hold room for 2M.
        cap = max(64, 1 << self._mat.shape[0].bit_length())
        for name in _ROW_ARRAYS:
            old = getattr(self, name)
            new = np.zeros((cap, *old.shape[1:]), dtype=old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        for agent, column in self._known.items():
            self._known[agent] = np.concatenate([column, np.zeros(cap - len(column), bool)])

    def _reorder(self, order: np.ndarray) -> None:
        """Move row ``order[i]`` to ``i`` in every per-row structure (the ids, the knowers)."""
        n = len(order)
        for name in _ROW_ARRAYS:
            arr = getattr(self, name)
            arr[:n] = arr[order]
        self._ids = [self._ids[i] for i in order.tolist()]
        self._row = {uid: i for i, uid in enumerate(self._ids)}
        where = np.empty(n, dtype=np.int64)
        where[order] = np.arange(n, dtype=np.int64)
        self._knows = {
            agent: dict.fromkeys(where[np.fromiter(rows, np.int64, len(rows))].tolist())
            for agent, rows in self._knows.items()
        }
        self._known.clear()

    @_locked
    def add(self, row: IndexRow) -> None:
        if row.unit_id in self._row:
            return
        if row.vector.shape != (self.dim,):
            return  # a vector of another dimension belongs to another model's index
        i = len(self._ids)
        if i >= self._mat.shape[0]:
            self._grow()
        self._ids.append(row.unit_id)
        self._row[row.unit_id] = i
        self._mat[i] = row.vector
        self._seq[i] = self._added
        self._added += 1
        self._author[i] = self._agent(row.author)
        self._private[i] = row.visibility == Visibility.PRIVATE
        self._status[i] = _STATUS[row.status]
        self._type[i] = _TYPE[row.type]
        start = _epoch(row.occurred_start)
        self._occ_s[i] = start
        self._occ_e[i] = _epoch(row.occurred_end, start)
        self._val_f[i] = _epoch(row.valid_from, -math.inf)
        self._val_u[i] = _epoch(row.valid_until, math.inf)
        if self._ivf is not None:
            self._ivf.add(i, self._mat[i])
        for agent in row.knowers:
            self.add_knower(row.unit_id, agent)

    @_locked
    def add_knower(self, unit_id: str, agent_id: str) -> None:
        i = self._row.get(unit_id)
        if i is None:
            return
        agent = self._agent(agent_id)
        self._knows.setdefault(agent, {})[i] = None
        column = self._known.get(agent)
        if column is not None:
            column[i] = True

    @_locked
    def set_state(
        self,
        unit_id: str,
        status: UnitStatus,
        valid_from: dt.datetime | None,
        valid_until: dt.datetime | None,
    ) -> None:
        i = self._row.get(unit_id)
        if i is None:
            return
        self._status[i] = _STATUS[status]
        self._val_f[i] = _epoch(valid_from, -math.inf)
        self._val_u[i] = _epoch(valid_until, math.inf)

    @_locked
    def replace_knowers(self, knowers: dict[str, list[str]]) -> None:
        """Each named unit's knowers become exactly those given (another process added or
        removed some)."""
        for unit_id, agents in knowers.items():
            i = self._row.get(unit_id)
            if i is None:
                continue
            keep = {self._agent(a) for a in agents}
            for agent, rows in self._knows.items():
                if agent not in keep and i in rows:
                    del rows[i]
                    column = self._known.get(agent)
                    if column is not None:
                        column[i] = False
            for agent_id in agents:
                self.add_knower(unit_id, agent_id)

    @_locked
    def set_knowers(self, knowers: dict[str, list[str]]) -> None:
        self._knows = {}
        self._known.clear()
        for unit_id, agents in knowers.items():
            for agent in agents:
                self.add_knower(unit_id, agent)

    @_locked
    def update(self, unit_id: str, changes: UnitChanges) -> None:
        i = self._row.get(unit_id)
        if i is None:
            return
        if changes.status is not None:
            self._status[i] = _STATUS[changes.status]
        if changes.valid_from is not None:
            self._val_f[i] = _epoch(changes.valid_from)
        if changes.valid_until is not None:
            self._val_u[i] = _epoch(changes.valid_until)
        if "valid_until" in changes.clear:
            self._val_u[i] = math.inf

    def _mask(self, viewer: Viewer, filters: Filters, rows: np.ndarray | None = None) -> np.ndarray:
        """Which rows (all of them, or ``rows``) the viewer may see and the filters keep."""
        if filters.session is not None:
            raise ValueError("the vector index does not filter by session; list_units does")
        if filters.visibility is not None:
            raise ValueError("the vector index does not filter by visibility; list_units does")
        n = len(self._ids)
        sel: slice | np.ndarray = slice(0, n) if rows is None else rows
        size = n if rows is None else len(rows)
        agent = self._agents.get(viewer.agent_id, -1)
        mine = self._author[sel] == agent
        mask = (
            np.ones(size, dtype=bool) if viewer.scope == Scope.OWNER else ~self._private[sel] | mine
        )
        if viewer.scope == Scope.PERSONAL:
            mask &= self._known_column(agent)[sel]
        if filters.statuses is not None:
            mask &= _lookup(_STATUS, filters.statuses)[self._status[sel]]
        if filters.types is not None:
            mask &= _lookup(_TYPE, filters.types)[self._type[sel]]
        if filters.occurred_from is not None or filters.occurred_to is not None:
            lo = _epoch(filters.occurred_from, -math.inf)
            hi = _epoch(filters.occurred_to, math.inf)
            s, e = self._occ_s[sel], self._occ_e[sel]
            with np.errstate(invalid="ignore"):
                mask &= (s <= hi) & ((e > lo) | (s >= lo))
        if filters.valid_at is not None:
            t = filters.valid_at.timestamp()
            mask &= (self._val_f[sel] <= t) & (self._val_u[sel] > t)
        if filters.include_ids is not None:
            only = np.zeros(n, dtype=bool)
            only[self._rows_of(filters.include_ids)] = True
            mask &= only[sel]
        if filters.exclude_ids:
            hide = np.zeros(n, dtype=bool)
            hide[self._rows_of(filters.exclude_ids)] = True
            mask &= ~hide[sel]
        return mask

    def _known_column(self, agent: int) -> np.ndarray:
        """The rows ``agent`` knows, as a boolean column over the matrix's capacity."""
        column = self._known.pop(agent, None)
        if column is None:
            column = np.zeros(self._mat.shape[0], dtype=bool)
            knows = self._knows.get(agent)
            if knows:
                column[np.fromiter(knows, dtype=np.int64, count=len(knows))] = True
        self._known[agent] = column  # the most recently used last
        while len(self._known) > KNOWN_COLUMNS:
            del self._known[next(iter(self._known))]
        return column

    def _rows_of(self, unit_ids: Iterable[str]) -> np.ndarray:
        found = [self._row[u] for u in unit_ids if u in self._row]
        return np.asarray(sorted(found), dtype=np.int64)

    @_locked
    def search_many(
        self, viewer: Viewer, queries: np.ndarray, filters: Filters, limit: int
    ) -> list[list[Scored]]:
        """``search`` for many query vectors at once (rows: queries).

        The write path asks for the neighbours of every atom of a batch. Below the coarse
        quantizer's threshold one exact matrix product over the bank's rows (in blocks, so the
        score matrix stays small) replaces a product, a mask and a sort per atom; past it each
        probed cluster is scored once for all the queries that probe it.
        """
        q = np.asarray(queries, dtype=np.float32)
        n = len(self._ids)
        if q.ndim != 2 or q.shape[1] != self.dim:
            return [[] for _ in range(len(q))]
        if n == 0 or limit <= 0 or len(q) == 0:
            return [[] for _ in range(len(q))]
        if n >= IVF_MIN_ROWS and filters.include_ids is None:
            return self._search_many_partitioned(viewer, q, filters, limit)
        mask = self._mask(viewer, filters)
        k = min(limit, int(mask.sum()))
        if k == 0:
            return [[] for _ in range(len(q))]
        # Scores are laid out (queries, rows): each query's scores are contiguous, so the
        # per-query partial sort reads memory in order (the transposed layout cost 13% of a
        # 25k-unit ingest in argpartition alone).
        best_s = np.full((len(q), 0), -np.inf, dtype=np.float32)
        best_r = np.zeros((len(q), 0), dtype=np.int64)
        lines = np.arange(len(q))[:, None]
        for start in range(0, n, SEARCH_BLOCK_ROWS):
            stop = min(n, start + SEARCH_BLOCK_ROWS)
            with _one_blas_thread():
                scores = q @ self._mat[start:stop].T  # (queries, rows)
            scores[:, ~mask[start:stop]] = -np.inf
            kk = min(k, stop - start)
            top = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
            best_s = np.concatenate([best_s, scores[lines, top]], axis=1)
            best_r = np.concatenate([best_r, top + start], axis=1)
            if best_s.shape[1] > k:
                keep = np.argpartition(-best_s, k - 1, axis=1)[:, :k]
                best_s, best_r = best_s[lines, keep], best_r[lines, keep]
        out: list[list[Scored]] = []
        for j in range(len(q)):
            s, r = best_s[j], best_r[j]
            order = np.lexsort((self._seq[r], -s))  # score desc, then age: as ``search``
            out.append([Scored(self._ids[int(r[i])], float(s[i])) for i in order if s[i] > -np.inf])
        return out

    def _search_many_partitioned(
        self, viewer: Viewer, q: np.ndarray, filters: Filters, limit: int
    ) -> list[list[Scored]]:
        """Many searches through the coarse quantizer: the same probes as ``search`` per query,
        but each probed cluster is read once, for all the queries that probe it.

        Each (query, probe) pair has ``limit`` slots in a (queries, probes x limit) table that
        its cluster's best rows fill; each query's best ``limit`` are then taken from its row.
        """
        ivf = self._quantizer()
        mask = self._mask(viewer, filters)
        n_q = len(q)
        with _one_blas_thread():
            near = ivf.nearest_lists(q, probe_count(ivf.lists))
            probes = near.shape[1]
            pairs = np.argsort(near.ravel(), kind="stable")  # (query, probe) pairs by cluster
            by_cluster = near.ravel()[pairs]
            cuts = np.flatnonzero(np.diff(by_cluster)) + 1
            best_s = np.full((n_q, probes * limit), -np.inf, dtype=np.float32)
            best_r = np.zeros((n_q, probes * limit), dtype=np.int64)
            for group in np.split(pairs, cuts):
                start, stop, tail = ivf.cluster(int(near.ravel()[group[0]]))
                size = stop - start + len(tail)
                if size == 0:
                    continue
                who, slot = np.divmod(group, probes)
                wanted = q[who]
                # (queries of this cluster, its rows): the sorted run in place, the tail gathered
                scores = wanted @ self._mat[start:stop].T
                if len(tail):
                    scores = np.concatenate([scores, wanted @ self._mat[tail].T], axis=1)
                rows = np.concatenate([np.arange(start, stop), tail]) if len(tail) else None
                seen = mask[start:stop] if rows is None else mask[rows]
                scores[:, ~seen] = -np.inf
                kk = min(limit, size)
                top = np.argpartition(-scores, kk - 1, axis=1)[:, :kk] if kk < size else None
                if top is None:
                    top = np.broadcast_to(np.arange(size), (len(who), size))
                cols = slot[:, None] * limit + np.arange(kk)
                best_s[who[:, None], cols] = np.take_along_axis(scores, top, axis=1)
                best_r[who[:, None], cols] = top + start if rows is None else rows[top]
        k = min(limit, best_s.shape[1])
        top = np.argpartition(-best_s, k - 1, axis=1)[:, :k]
        top_s = np.take_along_axis(best_s, top, axis=1).ravel()
        top_r = np.take_along_axis(best_r, top, axis=1).ravel()
        who = np.repeat(np.arange(n_q), k)
        order = np.lexsort((self._seq[top_r], -top_s, who))  # per query: score desc, then age
        top_s, top_r, who = top_s[order], top_r[order], who[order]
        live = top_s > -np.inf
        out: list[list[Scored]] = [[] for _ in range(n_q)]
        ids = self._ids
        for j, r, v in zip(
            who[live].tolist(), top_r[live].tolist(), top_s[live].tolist(), strict=True
        ):
            out[j].append(Scored(ids[r], v))
        visible = int(mask.sum())
        for j, hits in enumerate(out):
            if len(hits) < min(limit, visible):  # too few visible in its probes: widen
                out[j] = self.search(viewer, q[j], filters, limit)
        return out

    @_locked
    def prepare(self) -> None:
        """Train the coarse quantizer now if the index is large enough to search through it,
        as its first search would (so a saved index holds it; ADR 0052)."""
        if len(self._ids) >= IVF_MIN_ROWS:
            self._quantizer()

    @property
    def layout(self) -> tuple[int, int, int]:
        """(generation, rows the quantizer was trained on, rows sorted by cluster): when it
        changes, the index differs from what was saved."""
        ivf = self._ivf
        return (
            (self.generation, ivf.trained_rows, ivf.sorted_rows) if ivf else (self.generation, 0, 0)
        )

    def _quantizer(self) -> CoarseQuantizer:
        """The coarse quantizer, trained now if missing or if the rows doubled since; the rows
        sorted by cluster again when the unsorted tails have grown too long."""
        n = len(self._ids)
        if self._ivf is None or n >= 2 * self._ivf.trained_rows:
            with _one_blas_thread():
                self._ivf = CoarseQuantizer.train(self._mat[:n])
        if self._ivf.needs_sort(n):
            order = self._ivf.sort_order(n)
            self._reorder(order)
            self._ivf.sorted_by(order)
        return self._ivf

    def _candidates(
        self, viewer: Viewer, q: np.ndarray, filters: Filters, limit: int
    ) -> tuple[np.ndarray | None, list[tuple[int, int]], np.ndarray]:
        """The rows to rank (None: all of them), as runs of the matrix and scattered rows, and
        their visibility mask."""
        n = len(self._ids)
        if filters.include_ids is not None:
            rows = self._rows_of(filters.include_ids)  # a named few: rank exactly those
            return rows, [], self._mask(viewer, filters, rows)
        if n < IVF_MIN_ROWS:
            return None, [], self._mask(viewer, filters)
        ivf = self._quantizer()
        probes = probe_count(ivf.lists)
        while True:
            runs, tail = ivf.spans(ivf.nearest_lists(q, probes)[0])
            rows = np.concatenate([*(np.arange(a, b) for a, b in runs), tail])
            mask = self._mask(viewer, filters, rows)
            # Too few visible rows among the probed clusters: widen (at the end, all of them).
            if int(mask.sum()) >= limit or probes >= ivf.lists:
                return rows, runs, mask
            probes *= 4

    @_locked
    def density(self, viewer: Viewer, unit_ids: Sequence[str], neighbours: int) -> dict[str, float]:
        """``pool_density`` over the rows of the units among ``unit_ids`` the viewer may see;
        {} when no more than ``neighbours`` of them are."""
        rows = self._rows_of(unit_ids)
        seen = rows[self._mask(viewer, Filters(), rows)] if len(rows) else rows
        if neighbours < 1 or len(seen) <= neighbours:
            return {}
        with _one_blas_thread():
            density = pool_density(self._mat[seen], neighbours)
        return {self._ids[int(r)]: float(d) for r, d in zip(seen, density, strict=True)}

    @_locked
    def search(self, viewer: Viewer, query: Vector, filters: Filters, limit: int) -> list[Scored]:
        n = len(self._ids)
        if n == 0 or limit <= 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        if q.shape != (self.dim,):
            return []
        rows, runs, mask = self._candidates(viewer, q, filters, limit)
        visible = int(mask.sum())
        if visible == 0:
            return []
        # Score the candidate rows (slices of the matrix, no copy, where a cluster is sorted),
        # then hide what the viewer may not see before ranking: the mask is the scope, applied
        # inside the store.
        with _one_blas_thread():
            if rows is None:
                scores = self._mat[:n] @ q
            else:
                tail = rows[sum(b - a for a, b in runs) :]
                parts = [self._mat[a:b] @ q for a, b in runs]
                scores = (
                    np.concatenate([*parts, self._mat[tail] @ q])
                    if parts
                    else (self._mat[rows] @ q)
                )
        scores[~mask] = -np.inf
        found = rows if rows is not None else None
        top = best_rows(
            scores, min(limit, visible), self._seq[:n] if found is None else self._seq[found]
        )
        ids = top if found is None else found[top]
        return [Scored(self._ids[int(i)], float(scores[t])) for i, t in zip(ids, top, strict=True)]
