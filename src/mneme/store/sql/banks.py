"""Banks and the agents that write to them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mneme.core.model import Agent, Bank
from mneme.errors import NotFound
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

BANK = Columns("banks")
AGENT = Columns("agents")


class Banks(Part):
    def _banks(self, rows: Sequence[Any]) -> list[Bank]:
        out = []
        for row in rows:
            v = BANK.decode(self.sql.dialect, row)
            out.append(
                Bank(
                    id=v["id"],
                    name=v["name"],
                    created_at=v["created_at"] or EPOCH,
                    config=v["config"] or {},
                )
            )
        return out

    def ensure_bank(
        self, bank: Bank, *, actor: str = "system", reason: str = "first write to the bank"
    ) -> Bank:
        existing = self.get_bank(bank.id)
        if existing:
            return existing
        created = self.sql.write(
            BANK.insert + " ON CONFLICT (id) DO NOTHING", BANK.row(self.sql.dialect, bank)
        )
        self.sql.write(
            "INSERT INTO index_state (bank_id, generation) VALUES (?, 0) "
            "ON CONFLICT (bank_id) DO NOTHING",
            (bank.id,),
        )
        self.engine._forget(("bank", bank.id))
        if created:  # another writer may have made it between our read and our insert
            self.engine._bank_created(bank.id)
            self.engine.audit(
                bank.id,
                actor,
                "bank.create",
                bank.id,
                None,
                {"name": bank.name, "config": dict(bank.config)},
                reason,
            )
        return self.get_bank(bank.id) or bank

    def get_bank(self, bank_id: str) -> Bank | None:
        rows = self.engine._memoized(
            ("bank", bank_id),
            lambda: self.sql.rows(f"SELECT {BANK.select} FROM banks WHERE id = ?", (bank_id,)),
        )
        banks = self._banks(rows)
        return banks[0] if banks else None

    def set_bank_config(
        self, bank_id: str, config: Mapping[str, Any], *, actor: str, reason: str
    ) -> Bank:
        before = self.get_bank(bank_id)
        if before is None:
            raise NotFound(f"no bank {bank_id!r}")
        self.sql.write(
            "UPDATE banks SET config = ? WHERE id = ?",
            (self.sql.dialect.encode("json", dict(config)), bank_id),
        )
        self.engine._forget(("bank", bank_id))
        self.engine.audit(
            bank_id,
            actor,
            "bank.configure",
            bank_id,
            {"config": dict(before.config)},
            {"config": dict(config)},
            reason,
        )
        return self.get_bank(bank_id) or before

    def list_banks(self) -> list[Bank]:
        return self._banks(self.sql.rows(f"SELECT {BANK.select} FROM banks ORDER BY id"))

    def heartbeat(self, agent: Agent) -> None:
        self.sql.write(
            f"{AGENT.insert} ON CONFLICT (bank_id, id) DO UPDATE SET "
            "host = coalesce(excluded.host, agents.host), status = excluded.status, "
            f"last_seen = {self.sql.dialect.greatest}(agents.last_seen, excluded.last_seen)",
            AGENT.row(self.sql.dialect, agent),
        )

    def list_agents(self, bank_id: str) -> list[Agent]:
        rows = self.sql.rows(
            f"SELECT {AGENT.select} FROM agents WHERE bank_id = ? ORDER BY last_seen DESC, id",
            (bank_id,),
        )
        out = []
        for row in rows:
            v = AGENT.decode(self.sql.dialect, row)
            v["first_seen"] = v["first_seen"] or EPOCH
            v["last_seen"] = v["last_seen"] or EPOCH
            out.append(Agent(**v))
        return out
