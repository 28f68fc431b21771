"""Adopted rules: a decision settled the same way often enough to apply by itself."""

from __future__ import annotations

from mneme.core.model import Rule
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

RULE = Columns("adopted_rules")


class Rules(Part):
    def put_rule(self, rule: Rule) -> None:
        r = rule
        self.sql.write(
            RULE.insert,
            RULE.row(self.sql.dialect, r),
        )
        self.engine.audit(
            r.bank_id,
            r.adopted_by,
            "rule.adopt",
            r.id,
            None,
            {"kind": r.kind, "attribute": r.attribute, "decision": r.decision, "text": r.text},
            f"{r.precedents} identical settlements",
        )

    def list_rules(self, bank_id: str) -> list[Rule]:
        rows = self.sql.rows(
            f"SELECT {RULE.select} FROM adopted_rules WHERE bank_id = ? ORDER BY adopted_at, id",
            (bank_id,),
        )
        out = []
        for row in rows:
            v = RULE.decode(self.sql.dialect, row)
            out.append(
                Rule(
                    **{
                        **v,
                        "precedents": int(v["precedents"]),
                        "adopted_at": v["adopted_at"] or EPOCH,
                    }
                )
            )
        return out
