"""Whole-store import for PostgreSQL (``mneme db copy``; export is ``store.sql.portable``):
rows in the portable form of ``mneme.store.tables``, imported verbatim with no audit record.

Derived columns are rebuilt on import: ``tsv`` (generated), ``doc_len`` (computed as put_unit
does), ``units.seq`` (insertion order: units arrive in the order they were written), the BM25
statistics (``index_state``'s counts, and the bank's ``lexeme_postings`` and ``lexeme_df``,
rebuilt when its ``index_state`` row arrives, after its units), the identity sequences of
``audit_log`` and ``review_events`` (moved past the imported seqs), and the HNSW index of each
imported (model, dim).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg

from mneme.store.postgres.database import translate
from mneme.store.postgres.dialect import DIALECT
from mneme.store.postgres.lexical import DOC_LEN, LexicalIndexMixin
from mneme.store.postgres.vectors import VectorIndexes
from mneme.store.tables import spec

_in = DIALECT.encode


class PortableMixin(LexicalIndexMixin):
    vectors: VectorIndexes

    def import_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        t = spec(table)
        if not rows:
            return
        self.sql.guard()
        names, marks, extra = (
            list(t.names),
            ["%s::vector" if k == "vector" else "%s" for _, k in t.columns],
            [],
        )
        if t.name == "units":
            names.append("doc_len")
            marks.append(DIALECT.compile(DOC_LEN))
        if t.name == "index_state":
            names += ["docs", "total_len"]
            marks += [
                "(SELECT count(*) FROM units WHERE bank_id = %s)",
                "(SELECT coalesce(sum(doc_len), 0) FROM units WHERE bank_id = %s)",
            ]
        overriding = " OVERRIDING SYSTEM VALUE" if "seq" in t.names else ""
        sql = f"INSERT INTO {t.name} ({', '.join(names)}){overriding} VALUES ({', '.join(marks)})"
        params = []
        for row in rows:
            values = [_in(k, row.get(c)) for c, k in t.columns]
            if t.name == "units":
                extra = [row["text"]]
            elif t.name == "index_state":
                extra = [row["bank_id"], row["bank_id"]]
            params.append((*values, *extra))
        with self.db.conn() as conn:
            try:
                with conn.cursor() as cur:
                    cur.executemany(sql, params)
            except psycopg.Error as exc:
                raise translate(exc, self.db.where) from exc
        # Imported rows keep the seals their copied records carry: not sealed again (ADR 0035).
        self.db.execute(
            "DELETE FROM audit_touched WHERE txid = txid_current() AND tbl = %s", (t.name,)
        )
        if overriding:
            # Identity columns go on past the imported values.
            self.db.execute(
                f"SELECT setval(pg_get_serial_sequence('{t.name}', 'seq'), "
                f"(SELECT max(seq) FROM {t.name}))"
            )
        if t.name == "index_state":
            # The bank's row is ours (inserted, uncommitted) before its lexeme rows are written.
            self._rebuild_lexemes(sorted({str(r["bank_id"]) for r in rows}))
        if t.name == "embeddings":
            for model, dim in {(r["model"], int(r["dim"])) for r in rows}:
                self.vectors.ensure(model, dim)
