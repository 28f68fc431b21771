"""Sources: what an agent handed over, verbatim and immutable, and where an id lives."""

from __future__ import annotations

from collections.abc import Sequence

from mneme.core.model import Scope, Source, Viewer, Visibility
from mneme.errors import Conflict
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns, chunks

SOURCE = Columns("sources")

#: Tables whose ids are global: locate() finds the bank of any of them in one statement.
ID_TABLES = ("units", "sources", "claims", "conflicts", "sweep_proposals")


def knower_wrote(e: str) -> str:
    """SQL: the knower of evidence row ``e`` wrote a source of its id (ids are the writer's,
    ADR 0107; an observation's rows cite the sources of its evidence, which it did not write)."""
    return (
        f"EXISTS (SELECT 1 FROM sources w WHERE w.bank_id = {e}.bank_id "
        f"AND w.id = {e}.source_id AND w.agent_id = {e}.agent_id)"
    )


#: Over an evidence row ``e`` and a source ``s`` of its id: the source its knower wrote; a
#: knower that wrote none of that id rests on whichever the viewer may see.
WRITTEN_BY_KNOWER = f"(s.agent_id = e.agent_id OR NOT {knower_wrote('e')})"


class Sources(Part):
    def put_source(self, source: Source) -> None:
        s = source
        # ON CONFLICT DO NOTHING rather than catching the unique violation: an error would
        # abort a whole PostgreSQL transaction. Either key may clash: the writer's own id
        # (bank, id, writer) or the bank's shared one (at most one shared source an id).
        added = self.sql.write(
            SOURCE.insert + " ON CONFLICT DO NOTHING",
            SOURCE.row(self.sql.dialect, s),
        )
        if not added:
            raise Conflict(f"source {s.id} already exists in bank {s.bank_id}")
        self.engine.audit(
            s.bank_id,
            s.agent_id,
            "source.put",
            s.id,
            None,
            {"content_hash": s.content_hash, "kind": s.kind},
            "retain",
        )

    def get_source(self, viewer: Viewer, source_id: str) -> Source | None:
        """The source of that id the viewer may see. Ids are the writer's (ADR 0107): another
        agent's private source may hold the id of a shared one, so the viewer's own comes
        first, then the shared one, then (seen by the owner) the earliest written."""
        sql = f"SELECT {SOURCE.select} FROM sources s WHERE s.bank_id = ? AND s.id = ?"
        params: list[str] = [viewer.bank_id, source_id]
        sql, params = _visible(viewer, sql, params)
        sql += (
            " ORDER BY CASE WHEN s.agent_id = ? THEN 0 WHEN s.visibility = 'shared' THEN 1 "
            "ELSE 2 END, s.recorded_at, s.agent_id LIMIT 1"
        )
        rows = self.sql.rows(sql, [*params, viewer.agent_id])
        if not rows:
            return None
        v = SOURCE.decode(self.sql.dialect, rows[0])
        v["recorded_at"] = v["recorded_at"] or EPOCH
        v["visibility"] = Visibility(v["visibility"])
        v["metadata"] = v["metadata"] or {}
        return Source(**v)

    def source_writers(self, viewer: Viewer, source_id: str) -> list[str]:
        sql = "SELECT s.agent_id FROM sources s WHERE s.bank_id = ? AND s.id = ?"
        sql, params = _visible(viewer, sql, [viewer.bank_id, source_id])
        return [str(r[0]) for r in self.sql.rows(sql + " ORDER BY s.agent_id", params)]

    def evidence_texts(self, viewer: Viewer, unit_ids: Sequence[str]) -> dict[str, list[str]]:
        """The texts of the sources each of ``unit_ids`` rests on that the viewer may see,
        oldest first (a unit with none is absent): one query a chunk of ids."""
        out: dict[str, list[str]] = {}
        for chunk in chunks(unit_ids):
            among, values = self.sql.dialect.one_of("e.unit_id", chunk)
            sql = (
                "SELECT e.unit_id, s.text FROM unit_evidence e JOIN sources s "
                f"ON s.bank_id = e.bank_id AND s.id = e.source_id AND {WRITTEN_BY_KNOWER} "
                f"WHERE e.bank_id = ? AND {among}"
            )
            sql, params = _visible(viewer, sql, [viewer.bank_id, *values])
            for uid, text in self.sql.rows(sql + " ORDER BY e.at, e.source_id", params):
                out.setdefault(uid, []).append(text)
        return out

    def locate(self, object_id: str) -> str | None:
        rows = self.sql.rows(
            " UNION ALL ".join(
                f"SELECT * FROM (SELECT bank_id FROM {table} WHERE id = ? LIMIT 1) AS {table}"
                for table in ID_TABLES
            )
            + " LIMIT 1",
            (object_id,) * len(ID_TABLES),
        )
        return str(rows[0][0]) if rows else None

    def source_banks(self, source_id: str) -> list[str]:
        rows = self.sql.rows(
            "SELECT DISTINCT bank_id FROM sources WHERE id = ? ORDER BY bank_id LIMIT 2",
            (source_id,),
        )
        return [str(r[0]) for r in rows]


def _visible(viewer: Viewer, sql: str, params: list[str]) -> tuple[str, list[str]]:
    """``sql`` (over sources ``s``) narrowed to the sources the viewer may see."""
    if viewer.scope != Scope.OWNER:
        sql += " AND (s.visibility = 'shared' OR s.agent_id = ?)"
        params = [*params, viewer.agent_id]
    if viewer.scope == Scope.PERSONAL:
        sql += " AND s.agent_id = ?"
        params = [*params, viewer.agent_id]
    return sql, params
