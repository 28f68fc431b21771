"""A bank's category vocabulary (ADR 0056): categories minted, aliases folded, listed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mneme.core.model import Category
from mneme.errors import NotFound
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

CATEGORY = Columns("categories")


class Categories(Part):
    def put_categories(self, categories: Sequence[Category], *, actor: str) -> None:
        """Insert new categories in one statement and one audit entry per bank."""
        if not categories:
            return
        d = self.sql.dialect
        self.sql.write_many(CATEGORY.insert, [CATEGORY.row(d, c) for c in categories])
        for bank in sorted({c.bank_id for c in categories}):
            mine = [c for c in categories if c.bank_id == bank]
            self.engine.audit(
                bank,
                actor,
                "category.mint",
                bank,
                None,
                {"categories": {c.id: c.name for c in mine}},
                f"{len(mine)} categories minted",
            )

    def add_category_aliases(
        self, bank_id: str, category_id: str, aliases: Sequence[str], *, actor: str
    ) -> Category:
        """Fold near-synonyms into a category (those it already holds are left out)."""
        found = {c.id: c for c in self.list_categories(bank_id)}.get(category_id)
        if found is None:
            raise NotFound(f"no category {category_id!r} in bank {bank_id!r}")
        new = [a for a in dict.fromkeys(aliases) if a not in found.aliases and a != found.name]
        if not new:
            return found
        merged = (*found.aliases, *new)
        self.sql.write(
            "UPDATE categories SET aliases = ? WHERE bank_id = ? AND id = ?",
            (self.sql.dialect.encode("json", list(merged)), bank_id, category_id),
        )
        self.engine.audit(
            bank_id,
            actor,
            "category.alias",
            category_id,
            {"aliases": list(found.aliases)},
            {"aliases": list(merged)},
            f"{len(new)} near-synonyms folded into {found.name!r}",
        )
        return replace(found, aliases=merged)

    def list_categories(self, bank_id: str) -> list[Category]:
        rows = self.sql.rows(
            f"SELECT {CATEGORY.select} FROM categories WHERE bank_id = ? ORDER BY created_at, id",
            (bank_id,),
        )
        out = []
        for row in rows:
            v = CATEGORY.decode(self.sql.dialect, row)
            out.append(
                Category(
                    **{
                        **v,
                        "aliases": tuple(v["aliases"] or ()),
                        "created_at": v["created_at"] or EPOCH,
                    }
                )
            )
        return out
