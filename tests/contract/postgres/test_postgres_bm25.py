"""PostgreSQL's BM25 statistics (ADR 0019): document frequencies and postings kept exact by
every path that writes units, and a ranking equal to the exact query they replaced.

The reference is the query the lexical channel ran before schema 9: it counted each query
lexeme's documents through the GIN index and unnested every matching unit's ``tsv``, on every
query. It is kept here, verbatim, as the definition the fast path must equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.core.model import Scope, UnitStatus, Viewer, Visibility
from mneme.memory import copy_between, open_store
from mneme.store.postgres import PostgresStore
from mneme.store.postgres.scoping import where
from mneme.store.protocol import Filters

_LEXEME = "('''' || replace(replace({x}, '\\', '\\\\'), '''', '''''') || '''')::tsquery"
OLD_BM25 = f"""
WITH q AS MATERIALIZED (
    SELECT DISTINCT x.lexeme FROM unnest(to_tsvector('english', %s)) AS x
), st AS MATERIALIZED (
    SELECT greatest(s.docs, 1)::float8 AS n,
           greatest(s.total_len::float8 / greatest(s.docs, 1), 1.0) AS avgdl
    FROM (SELECT coalesce(max(docs), 0) AS docs, coalesce(max(total_len), 0) AS total_len
          FROM index_state WHERE bank_id = %s) s
), df AS MATERIALIZED (
    SELECT q.lexeme, (SELECT count(*) FROM units d WHERE d.bank_id = %s
                      AND d.tsv @@ {_LEXEME.format(x="q.lexeme")}) AS n
    FROM q
), m AS MATERIALIZED (
    SELECT string_agg({_LEXEME.format(x="lexeme")}::text, ' | ')::tsquery AS query FROM q
)
SELECT u.id, sum(
    greatest(ln((st.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
    * (cardinality(t.positions) * (1.2 + 1))
    / (cardinality(t.positions) + 1.2 * (1 - 0.75 + 0.75 * u.doc_len / st.avgdl))
) AS score
FROM units u CROSS JOIN st CROSS JOIN m
CROSS JOIN LATERAL unnest(u.tsv) AS t
JOIN df ON df.lexeme = t.lexeme
WHERE u.tsv @@ m.query AND {{clause}}
GROUP BY u.id ORDER BY score DESC, u.id LIMIT %s
"""

# What the two tables must hold: recomputed from the units' tsv.
EXPECTED_DF = (
    "SELECT u.bank_id, x.lexeme, count(*) FROM units u CROSS JOIN LATERAL unnest(u.tsv) AS x "
    "GROUP BY 1, 2 ORDER BY 1, 2"
)
EXPECTED_POSTINGS = (
    "SELECT u.bank_id, x.lexeme, u.id, cardinality(x.positions), u.doc_len "
    "FROM units u CROSS JOIN LATERAL unnest(u.tsv) AS x ORDER BY 1, 2, 3"
)


def _assert_exact(store: PostgresStore) -> None:
    q = store.db.query
    df = q("SELECT bank_id, lexeme, n FROM lexeme_df ORDER BY 1, 2")
    assert [tuple(r) for r in df] == [tuple(r) for r in q(EXPECTED_DF)]
    postings = q(
        "SELECT bank_id, lexeme, unit_id, tf, doc_len FROM lexeme_postings ORDER BY 1, 2, 3"
    )
    assert [tuple(r) for r in postings] == [tuple(r) for r in q(EXPECTED_POSTINGS)]
    state = q("SELECT bank_id, docs, total_len FROM index_state ORDER BY 1")
    counted = q(
        "SELECT b.id, count(u.id), coalesce(sum(u.doc_len), 0) FROM banks b "
        "LEFT JOIN units u ON u.bank_id = b.id GROUP BY b.id ORDER BY 1"
    )
    assert [tuple(r) for r in state] == [tuple(r) for r in counted]


def _old(
    store: PostgresStore, viewer: Any, terms: list[str], filters: Filters, limit: int
) -> list[tuple[str, float]]:
    """The old query's ranking. Its float sums depended on the order a unit's terms reached
    the aggregate, so units with equal scores could differ in the last bits: the reference is
    its whole ranking with scores compared to 1e-9, ties to the smaller id, cut at ``limit``."""
    clause, params = where(viewer, filters)
    text = " ".join(terms)
    rows = store.db.query(
        OLD_BM25.replace("{clause}", clause),
        (text, viewer.bank_id, viewer.bank_id, *params, 100_000),
    )
    ranked = sorted(((str(r[0]), float(r[1])) for r in rows), key=lambda r: (-round(r[1], 9), r[0]))
    return ranked[:limit]


def _new(
    store: PostgresStore, viewer: Any, terms: list[str], filters: Filters, limit: int
) -> list[tuple[str, float]]:
    return [
        (s.unit_id, s.score) for s in store.channels.search_lexical(viewer, terms, filters, limit)
    ]


def _same(old: list[tuple[str, float]], new: list[tuple[str, float]]) -> None:
    assert [i for i, _ in new] == [i for i, _ in old]
    for (_, a), (_, b) in zip(old, new, strict=True):
        assert b == pytest.approx(a, abs=1e-9)


def _corpus(make: Any) -> None:
    """b1: a common word ("project", in most units), rarer names, repeated words and long and
    short texts; shared units of a1 and a2, private ones of each; b2 shares the words."""
    make.bank("b1")
    make.bank("b2")
    people = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farida"]
    for i in range(90):
        who = people[i % len(people)]
        text = f"{who} reviewed the project plan on day {i}"
        if i % 3 == 0:
            text += " and the project budget, project risks and project staffing"
        if i % 7 == 0:
            text = f"{who} zebra {i}"
        visibility = Visibility.PRIVATE if i % 5 == 0 else Visibility.SHARED
        status = UnitStatus.SUPERSEDED if i % 11 == 0 else UnitStatus.ACTIVE
        make.unit(text, agent="a1" if i % 2 else "a2", visibility=visibility, status=status)
    for i in range(30):
        make.unit(f"Alice zebra project {i}", bank_id="b2")


QUERIES = [
    ["project"],  # in most units: idf at its floor
    ["alice"],
    ["zebra"],
    ["alice", "project"],
    ["farida", "zebra", "budget"],
    ["staffing", "risks", "plan", "day"],
    ["reviewed", "the"],  # a stop word: no lexeme
    ["nothing"],
    ["it's", "don't", "o'brien\\"],  # quotes and backslashes stay plain text
]


def test_ranking_equals_the_exact_query_it_replaced_in_every_scope(pg_make: Any) -> None:
    store = pg_make.store
    _corpus(pg_make)
    with store.db.transaction():
        store.db.execute("ANALYZE")
    viewers = [
        pg_make.viewer("a1", Scope.COLLECTIVE),
        pg_make.viewer("a1", Scope.PERSONAL),
        pg_make.viewer("a2", Scope.PERSONAL),
        pg_make.viewer("a3", Scope.COLLECTIVE),  # sees no private unit at all
        pg_make.viewer("owner", Scope.OWNER),
        pg_make.viewer("a1", Scope.COLLECTIVE, bank="b2"),
    ]
    filters = [
        Filters(),
        Filters(statuses=frozenset({UnitStatus.ACTIVE})),
        Filters(exclude_ids=frozenset({"u0002", "u0004"})),
    ]
    checked = 0
    for viewer in viewers:
        for f in filters:
            for terms in QUERIES:
                for limit in (1, 5, 60):
                    old = _old(store, viewer, terms, f, limit)
                    _same(old, _new(store, viewer, terms, f, limit))
                    checked += bool(old)
    assert checked > 200


def test_another_agents_private_units_never_appear_and_widening_finds_the_visible_ones(
    pg_make: Any,
) -> None:
    """The bank's top 64+ by BM25 are all a2's private units: a1's search must look past them
    (the first fetch holds none it may see) and return exactly the scoped ranking."""
    store = pg_make.store
    pg_make.bank()
    for i in range(150):
        pg_make.unit(f"orchid orchid orchid note {i}", agent="a2", visibility=Visibility.PRIVATE)
    visible = [pg_make.unit(f"orchid seen by everyone {i} with a longer tail") for i in range(12)]
    viewer = pg_make.viewer("a1", Scope.COLLECTIVE)
    hits = _new(store, viewer, ["orchid"], Filters(), 10)
    assert {i for i, _ in hits} <= {u.id for u in visible}
    assert len(hits) == 10
    _same(_old(store, viewer, ["orchid"], Filters(), 10), hits)
    # the author sees hers first; their statistics are the bank's either way
    own = _new(store, pg_make.viewer("a2", Scope.COLLECTIVE), ["orchid"], Filters(), 10)
    assert len(own) == 10
    assert not {i for i, _ in own} & {u.id for u in visible}


def test_document_frequencies_and_postings_stay_exact_through_writes_and_purge(
    pg_database: str,
) -> None:
    mem = mneme.Memory.open(pg_database, embedder="hashing:15")
    try:
        store = mem._store
        assert isinstance(store, PostgresStore)
        kept = mem.retain(
            "Alice lives in Lisbon. Bob plays chess on Sundays.", bank="b1", agent="a1"
        )
        gone = mem.retain("Alice lives in Zanzibar with a zebra.", bank="b1", agent="a2")
        mem.retain("Carol keeps a diary about Lisbon.", bank="b2", agent="c1", visibility="private")
        mem.retain("Alice lives in Lisbon.", bank="b1", agent="a3")  # a repeat: a new knower
        _assert_exact(store)
        assert store.db.scalar("SELECT count(*) FROM lexeme_df WHERE lexeme = 'zebra'") == 1
        mem.admin.purge(gone.memory_ids[0], actor="dpo", reason="erasure request")
        _assert_exact(store)
        assert store.db.scalar("SELECT count(*) FROM lexeme_df WHERE lexeme = 'zebra'") == 0
        assert store.db.scalar("SELECT n FROM lexeme_df WHERE bank_id = 'b1' AND lexeme = 'alic'")
        hits = mem.recall("Where does Alice live?", bank="b1", agent="a1", scope="collective")
        assert hits[0].unit.id in kept.memory_ids
    finally:
        mem.close()


def test_copy_round_trip_rebuilds_exact_statistics(tmp_path: Path, pg_database: str) -> None:
    first, back = str(tmp_path / "first.db"), str(tmp_path / "back.db")
    mem = mneme.Memory.open(first, embedder="hashing:15")
    try:
        for i, city in enumerate(["Lisbon", "Porto", "Lisbon", "Faro", "Braga"]):
            mem.retain(f"Agent {i} visited {city} twice, {city} in spring.", bank="b1", agent="a1")
        mem.retain("Bank two mentions Lisbon once.", bank="b2", agent="x")
    finally:
        mem.close()
    copy_between(first, pg_database)
    store = open_store(pg_database)
    try:
        assert isinstance(store, PostgresStore)
        _assert_exact(store)
        assert store.db.scalar("SELECT count(*) FROM lexeme_df") > 10
        viewer = Viewer("b1", "a1", Scope.COLLECTIVE)
        for terms in (["lisbon"], ["spring", "porto"], ["agent", "visited", "twice"]):
            _same(
                _old(store, viewer, terms, Filters(), 10), _new(store, viewer, terms, Filters(), 10)
            )
    finally:
        store.close()
    copy_between(pg_database, back)  # and out again: the derived tables are not portable rows
    mem = mneme.Memory.open(back, embedder="hashing:15")
    try:
        assert mem.recall("Lisbon in spring", bank="b1", agent="a1", scope="collective")
    finally:
        mem.close()


def test_migration_9_backfills_the_statistics_of_existing_units(pg_database: str) -> None:
    mem = mneme.Memory.open(pg_database, embedder="hashing:15")
    try:
        mem.retain("Alice lives in Lisbon. Bob plays chess on Sundays.", bank="b1", agent="a1")
        mem.retain("Dora repairs boats in Lisbon harbour.", bank="b2", agent="a1")
    finally:
        mem.close()
    store = PostgresStore(pg_database)
    try:
        with store.db.transaction():  # back to schema 8, as an older mneme left it
            store.db.execute("DROP TABLE lexeme_postings, lexeme_df")
            store.db.execute("DELETE FROM schema_version WHERE version >= 9")
    finally:
        store.close()
    store = PostgresStore(pg_database)
    try:
        assert store.db.scalar("SELECT count(*) FROM schema_version WHERE version = 9") == 1
        _assert_exact(store)
        assert store.db.scalar("SELECT n FROM lexeme_df WHERE bank_id = 'b2' AND lexeme = 'lisbon'")
    finally:
        store.close()
