"""Presence: the swarm roster. Agents enroll, heartbeat, say farewell; records are never deleted.

Every write that carries an agent id heartbeats that agent too (the write path does it). An
agent silent for longer than the TTL is counted as ``hidden_stale`` rather than listed; its
record stays, because it anchors who wrote what.
"""

from __future__ import annotations

import datetime as dt
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mneme import validate
from mneme.core.model import Agent
from mneme.errors import InvalidInput, NotFound
from mneme.store.protocol import Banks, Transactions


class PresenceStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks


#: An agent silent for longer than this is counted as hidden_stale in the roster.
PRESENCE_TTL = dt.timedelta(minutes=30)
STATUSES = ("active", "idle", "busy", "departed")


@dataclass(frozen=True, slots=True)
class Roster:
    bank_id: str
    live: tuple[Agent, ...]
    hidden_stale: int
    departed: int = 0


class Presence:
    def __init__(self, store: PresenceStore, clock: Callable[[], dt.datetime]) -> None:
        self.store = store
        self.clock = clock

    def heartbeat(
        self, *, bank: str, agent: str, status: str = "active", host: str | None = None
    ) -> Agent:
        """Record that an agent is alive (enroll is the first heartbeat)."""
        bank = validate.ident(bank, "bank")
        agent = validate.ident(agent, "agent")
        if status not in STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        if host is not None and (not isinstance(host, str) or len(host) > 255):
            raise InvalidInput("host must be a string of at most 255 characters")
        now = self.clock()
        with self.store.transaction():
            if self.store.banks.get_bank(bank) is None:
                raise NotFound(f"no bank {bank!r}: retain something into it first")
            self.store.banks.heartbeat(
                Agent(
                    id=agent,
                    bank_id=bank,
                    first_seen=now,
                    last_seen=now,
                    host=host or socket.gethostname(),
                    status=status,
                )
            )
        return next(a for a in self.store.banks.list_agents(bank) if a.id == agent)

    def enroll(self, *, bank: str, agent: str, host: str | None = None) -> Agent:
        """Announce an agent to a bank's roster (its first heartbeat)."""
        return self.heartbeat(bank=bank, agent=agent, host=host)

    def farewell(self, *, bank: str, agent: str) -> Agent:
        """The agent leaves: it drops off the live roster; its record stays forever."""
        return self.heartbeat(bank=bank, agent=agent, status="departed")

    def roster(self, bank: str, *, ttl: dt.timedelta = PRESENCE_TTL) -> Roster:
        """Agents seen within the TTL; the silent ones are counted, never deleted."""
        agents = self.store.banks.list_agents(validate.ident(bank, "bank"))
        cutoff = self.clock() - ttl
        live = tuple(a for a in agents if a.last_seen >= cutoff and a.status != "departed")
        departed = sum(a.status == "departed" for a in agents)
        return Roster(
            bank_id=bank,
            live=live,
            hidden_stale=len(agents) - len(live) - departed,
            departed=departed,
        )
