"""The in-memory indexes as arrays and back: what an index file holds (ADR 0052).

A vector index is its matrix, its per-row scope and filter columns, its ids, the agents it
knows by number, who knows which row, and its coarse quantizer (centroids, each row's cluster,
how far the rows are sorted by cluster): everything a search reads, so a restored index answers
exactly as the one saved, ties included (``_seq`` is saved too). A lexical index is its terms'
postings, its rows' rowids and token counts. The restored arrays are the file's copy-on-write
maps: later writes go to memory, never to the file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mneme.store.sqlite.indexfile import strings, unstrings
from mneme.store.sqlite.ivf import CoarseQuantizer
from mneme.store.sqlite.lexical import LexicalIndex, _Posting
from mneme.store.sqlite.vectors import _ROW_ARRAYS, VectorIndex


def vector_arrays(idx: VectorIndex) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(stamp fields, arrays) of ``idx``; the caller holds its lock."""
    n = len(idx)
    arrays: dict[str, np.ndarray] = {
        name.lstrip("_"): getattr(idx, name)[:n] for name in _ROW_ARRAYS
    }
    arrays["ids"] = strings(idx._ids)
    agents = sorted(idx._agents, key=idx._agents.__getitem__)
    arrays["agents"] = strings(agents)
    who = [np.full(len(rows), a, dtype=np.int32) for a, rows in idx._knows.items()]
    rows = [np.fromiter(r, dtype=np.int64, count=len(r)) for r in idx._knows.values()]
    arrays["knows_agent"] = np.concatenate(who) if who else np.zeros(0, np.int32)
    arrays["knows_row"] = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    if idx._ivf is not None:
        arrays.update(idx._ivf.state(n))
    stamp = {
        "bank": idx.bank_id,
        "model": idx.model,
        "dim": idx.dim,
        "rows": n,
        "added": idx._added,
        "generation": idx.generation,
        "change_seq": idx.change_seq,
        "last_rowid": idx.last_rowid,
    }
    return stamp, arrays


def vector_index(stamp: dict[str, Any], arrays: dict[str, np.ndarray]) -> VectorIndex:
    """The index ``vector_arrays`` saved (the stamp already checked by the caller)."""
    idx = VectorIndex(str(stamp["bank"]), str(stamp["model"]), int(stamp["dim"]), -1)
    n = int(stamp["rows"])
    for name in _ROW_ARRAYS:
        arr = arrays[name.lstrip("_")]
        if len(arr) != n:
            raise ValueError(f"column {name} has {len(arr)} rows, the stamp says {n}")
        setattr(idx, name, arr)
    if idx._mat.shape != (n, idx.dim):
        raise ValueError(f"matrix shape {idx._mat.shape}, expected ({n}, {idx.dim})")
    idx._ids = unstrings(arrays["ids"])
    if len(idx._ids) != n:
        raise ValueError(f"{len(idx._ids)} ids for {n} rows")
    idx._row = {uid: i for i, uid in enumerate(idx._ids)}
    if len(idx._row) != n:
        raise ValueError("the same id on two rows")
    idx._agents = {a: i for i, a in enumerate(unstrings(arrays["agents"]))}
    knows_agent, knows_row = arrays["knows_agent"], arrays["knows_row"]
    if len(knows_row) and (int(knows_row.max()) >= n or int(knows_row.min()) < 0):
        raise ValueError("a knower of a row past the end")
    if len(knows_agent) and int(knows_agent.max()) >= len(idx._agents):
        raise ValueError("a knower that is no agent")
    order = np.argsort(knows_agent, kind="stable")
    agent_sorted, row_sorted = knows_agent[order], knows_row[order]
    cuts = np.flatnonzero(np.diff(agent_sorted)) + 1
    for a_part, r_part in zip(
        np.split(agent_sorted, cuts), np.split(row_sorted, cuts), strict=True
    ):
        if len(a_part):
            idx._knows[int(a_part[0])] = dict.fromkeys(r_part.tolist())
    if "ivf_centroids" in arrays:
        trained, sorted_rows = (int(v) for v in arrays["ivf_meta"])
        assign = arrays["ivf_assign"]
        centroids = arrays["ivf_centroids"]
        if len(assign) != n or sorted_rows > n or centroids.shape[1:] != (idx.dim,):
            raise ValueError("the coarse quantizer does not fit the rows")
        if len(assign) and (int(assign.max()) >= len(centroids) or int(assign.min()) < 0):
            raise ValueError("a row in a cluster that does not exist")
        idx._ivf = CoarseQuantizer.restore(centroids, trained, assign, sorted_rows)
    idx._added = int(stamp["added"])
    idx.generation = int(stamp["generation"])
    idx.change_seq = int(stamp["change_seq"])
    idx.last_rowid = int(stamp["last_rowid"])
    return idx


def lexical_arrays(idx: LexicalIndex) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(stamp fields, arrays) of ``idx``; the caller holds its lock."""
    terms = list(idx._postings)
    sizes = np.array([idx._postings[t].n for t in terms], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    posts = [idx._postings[t] for t in terms]
    pos = [p.pos[: p.n] for p in posts]
    tf = [p.tf[: p.n] for p in posts]
    arrays = {
        "terms": strings(terms),
        "starts": starts,
        "pos": np.concatenate(pos).astype(np.int32) if pos else np.zeros(0, np.int32),
        "tf": np.concatenate(tf).astype(np.int32) if tf else np.zeros(0, np.int32),
        "rowid": idx._rowid[: idx._rows],
        "len": idx._len[: idx._rows],
    }
    stamp = {
        "bank": idx.bank_id,
        "table": idx.table,
        "rows": idx._rows,
        "tokens": idx._tokens,
        "generation": idx.generation,
        "last_rowid": idx.last_rowid,
    }
    return stamp, arrays


def lexical_index(stamp: dict[str, Any], arrays: dict[str, np.ndarray]) -> LexicalIndex:
    """The index ``lexical_arrays`` saved (the stamp already checked by the caller)."""
    idx = LexicalIndex(str(stamp["bank"]), str(stamp["table"]))
    n = int(stamp["rows"])
    rowid, lengths = arrays["rowid"], arrays["len"]
    if len(rowid) != n or len(lengths) != n:
        raise ValueError(f"{len(rowid)} rowids and {len(lengths)} lengths for {n} rows")
    if int(lengths.sum()) != int(stamp["tokens"]):
        raise ValueError("the rows' lengths do not add up to the token count")
    terms = unstrings(arrays["terms"])
    starts, pos, tf = arrays["starts"], arrays["pos"], arrays["tf"]
    if len(starts) != len(terms) + 1 or int(starts[-1]) != len(pos) or len(pos) != len(tf):
        raise ValueError("the postings do not fit their offsets")
    if len(pos) and (int(pos.max()) >= n or int(pos.min()) < 0):
        raise ValueError("a posting of a row past the end")
    bounds = starts.tolist()
    postings = {}
    for i, term in enumerate(terms):
        postings[term] = _Posting(pos[bounds[i] : bounds[i + 1]], tf[bounds[i] : bounds[i + 1]])
    idx._postings = postings
    idx._rowid = np.array(rowid, dtype=np.int64)
    idx._len = np.array(lengths, dtype=np.float64)
    idx._rows = n
    idx._tokens = int(stamp["tokens"])
    idx.generation = int(stamp["generation"])
    return idx
