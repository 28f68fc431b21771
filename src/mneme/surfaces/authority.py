"""Who may do what, on every surface: the principal, its role, and one table of operations.

A caller is a ``Principal``: one bank (or ``*``, every bank, for an admin), one agent and one
role. The HTTP API takes it from the bearer token; MCP over HTTP from the same token; stdio
MCP (``mneme mcp``) from its configuration. Nothing a caller sends in a request body or a tool
argument can change it: the agent that writes, the actor of a decision, and what a read may
see all come from the principal.

``OPERATIONS`` is the one role matrix: every operation a surface offers names the capability
it needs, and ``CAPABILITIES`` says which roles carry it. HTTP routes and MCP tools both ask
``authorize`` with their operation's name, and a test walks the table on both surfaces.

Roles:

- ``agent``: reads and writes its own bank as itself; personal and collective recall; never
  another agent's personal scope or private units; no review decisions, conflict resolutions,
  rejections or restores.
- ``reviewer``: the review queue and its decisions, conflicts, reject and restore; reads the
  bank's memories as the store's owner would (private units included) to judge them. Writes
  no memories.
- ``admin``: everything, including the audit log; an admin for bank ``*`` reaches every bank
  and alone sees what covers the whole store (statistics, configuration, health).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# Refused lives with the other errors (the HTTP client subclasses it); re-exported as before.
from mneme.errors import InvalidInput, NotFound
from mneme.errors import Refused as Refused

if TYPE_CHECKING:
    from mneme.memory import Memory

ROLES = ("agent", "reviewer", "admin")
#: The bank of an admin principal that may touch every bank.
ALL_BANKS = "*"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/+-]{0,127}$")

#: The ASGI scope key under which the HTTP app hands a request's principal on (to MCP).
PRINCIPAL_KEY = "mneme.principal"

#: What each role may do, by capability.
CAPABILITIES: dict[str, frozenset[str]] = {
    "agent": frozenset({"read", "write"}),
    "reviewer": frozenset({"read", "review"}),
    "admin": frozenset({"read", "write", "review", "admin"}),
}

#: Every operation of the HTTP API and MCP, and the capability it needs. A surface that adds
#: an operation adds it here; the role-matrix test walks this table over both surfaces.
OPERATIONS: dict[str, str] = {
    # memories
    "retain": "write",
    "update": "write",
    "connect": "write",
    "add_status": "read",
    "recall": "read",
    "list": "read",
    "get": "read",
    "history": "read",
    "graph": "read",
    "source": "read",
    "banks": "read",
    "create_bank": "admin",
    "chain": "read",
    "concept": "read",
    # an agent answers only questions about its own memories (may_answer)
    "resolve_contradiction": "read",
    # review and conflicts: a person's decisions
    "review_queue": "review",
    "review_decide": "review",
    "reject": "review",
    "restore": "review",
    "conflicts": "review",
    "resolve_conflict": "review",
    "rules": "read",
    "adopt_rule": "review",
    # reflect (ADR 0051): a pass writes derived units bank-wide (observations of every
    # agent's shared evidence) and may override the bank's disposition; what it keeps is
    # curation of the bank, like a review decision, not an agent's own statement: "review"
    # (reviewers and admins). Agents get observations through recall; the server's
    # background cadence reflects every bank without any caller.
    "reflect": "review",
    # insights (ADR 0056): running or verifying a pass writes and judges hypotheses for the
    # whole bank, curation like reflect ("review"); reading them is reading ("read").
    "insights": "read",
    "insights_run": "review",
    # the swarm: an agent announces itself, never another
    "roster": "read",
    "enroll": "write",
    "heartbeat": "write",
    "farewell": "write",
    "swarm_status": "read",
    # the FastThink scratchpad (MCP): it exists to end in a memory
    "think": "write",
    # administration
    "audit": "admin",
    "audit_verify": "admin",
    "stats": "admin",
    "config": "admin",
    "status": "admin",
    # a bank's sensitive-data policy (ADR 0034): HTTP and the CLI
    "sensitive_policy": "admin",
    "set_sensitive_policy": "admin",
}

#: Operations whose answer covers every bank: only an admin for ``*`` may see them.
STORE_WIDE = frozenset({"stats", "config", "status"})


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: taken from its token (or configuration), never from its body."""

    token_id: str
    bank: str  # a bank id, or "*" (admin only): every bank
    agent: str
    role: str  # agent | reviewer | admin
    label: str = ""

    def may_use_bank(self, bank: str) -> bool:
        return self.bank == ALL_BANKS or self.bank == bank


@dataclass(frozen=True, slots=True)
class Access:
    """A principal allowed into one bank (the bank it named, or its own)."""

    bank: str
    who: Principal

    @property
    def agent(self) -> str:
        return self.who.agent


def check_id(kind: str, value: str) -> None:
    """Refuse a bank or agent id of the wrong shape (the value is shown cut short).

    Raises:
        InvalidInput: not 1-128 letters, digits or ``_ . : @ / + -``.
    """
    if not _ID.match(value):
        raise InvalidInput(
            f"{kind} {value[:40]!r}{'...' if len(value) > 40 else ''} is not a valid id "
            "(1-128 letters, digits or _ . : @ / + -, starting with a letter or digit)"
        )


def check_principal(bank: str, agent: str, role: str) -> None:
    """Refuse a principal no token could stand for.

    Raises:
        InvalidInput: an unknown role, a bad bank or agent id, or "*" for a non-admin.
    """
    if role not in ROLES:
        raise InvalidInput(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if bank == ALL_BANKS:
        if role != "admin":
            raise InvalidInput('only an admin may be for every bank ("*")')
    else:
        check_id("bank", bank)
    check_id("agent", agent)


def may(who: Principal, operation: str) -> bool:
    """Whether the principal's role allows the operation (its bank aside)."""
    try:
        authorize(who, operation)
    except Refused:
        return False
    return True


def require_bank(who: Principal, bank: str) -> None:
    """Refuse a bank the principal is not for (telling nothing of that bank)."""
    if not who.may_use_bank(bank):
        raise Refused(f"this caller is for bank {who.bank!r} only, not {bank!r}")


def authorize(who: Principal, operation: str, bank: str | None = None) -> None:
    """Refuse unless the principal may do ``operation`` (in ``bank``, when one is named).

    The bank is checked first, so a caller learns nothing about another bank's content.

    Raises:
        Refused: another bank, or a role without the operation's capability.
    """
    if bank is not None:
        require_bank(who, bank)
    capability = OPERATIONS[operation]
    if capability not in CAPABILITIES.get(who.role, frozenset()):
        raise Refused(
            f"the {who.role} role may not do this ({operation} needs the {capability!r} capability)"
        )
    if operation in STORE_WIDE and who.bank != ALL_BANKS:
        raise Refused(
            f"{operation} covers every bank; this caller is an admin of bank {who.bank!r} "
            "only (it needs bank '*')"
        )


def sees_everything(who: Principal) -> bool:
    """Reviewers and admins read a bank as its owner (private units included)."""
    return who.role in ("reviewer", "admin")


def viewer(who: Principal, scope: str = "collective") -> dict[str, Any]:
    """``Memory``'s viewer arguments for a caller: reviewers and admins read as the owner."""
    if sees_everything(who):
        return {"agent": None}
    return {"agent": who.agent, "scope": scope}


#: At most this many bank names are told in a "no such bank" answer.
NAMED_BANKS = 20


def visible_banks(memory: Memory, who: Principal) -> list[str]:
    """The banks the principal may use: every bank of the store for a caller of every bank,
    else its own (which exists by its token or configuration, written to or not)."""
    if who.bank == ALL_BANKS:
        return [b.id for b in memory.admin.banks()]
    return [who.bank]


def known_bank(memory: Memory, who: Principal, bank: str, *, create: bool = False) -> None:
    """Refuse a bank that does not exist, naming the banks the caller may use, unless
    ``create`` asks for it to be made now (issue 18: a typo never makes a bank).

    The principal's own bank is known by its token or configuration and needs no creating.

    Raises:
        NotFound: no such bank and ``create`` is off.
    """
    if bank == who.bank or memory.admin.bank(bank) is not None:
        return
    if create:
        memory.admin.create_bank(bank, actor=who.agent)
        return
    raise unknown_bank(bank, visible_banks(memory, who))


def unknown_bank(bank: str, banks: list[str]) -> NotFound:
    """The one answer for a bank that does not exist, on every surface."""
    shown = ", ".join(repr(b) for b in banks[:NAMED_BANKS]) or "none yet"
    more = f" and {len(banks) - NAMED_BANKS} more" if len(banks) > NAMED_BANKS else ""
    return NotFound(
        f"no bank {bank[:128]!r}; the banks you may use: {shown}{more}. A bank is made "
        "explicitly: create_bank, `mneme banks create`, or create_bank=true on a write"
    )


def may_answer(memory: Memory, who: Principal, bank: str, from_id: str) -> None:
    """An agent answers questions about its own writes only; reviewers and admins any.

    Raises:
        NotFound: ``from_id`` is not a memory of the bank (for reviewers and admins).
        Refused: an agent's principal, for a memory it did not state itself.
    """
    if sees_everything(who):
        memory.get(from_id, bank=bank)
        return
    try:
        memory.get(from_id, bank=bank, agent=who.agent, scope="personal")
    except LookupError as exc:
        raise Refused("an agent may settle only questions about its own memories") from exc
