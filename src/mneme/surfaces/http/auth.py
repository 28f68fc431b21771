"""Authentication and authorization: bearer token -> Principal, and what each role may do.

Roles:

- ``agent``: reads and writes its own bank as itself (the agent id comes from the token);
  personal and collective recall; never another agent's personal scope or private units; no
  review decisions, conflict resolutions, rejections or restores.
- ``reviewer``: the review queue and its decisions, conflicts, reject and restore; reads the
  bank's memories as the store's owner would (private units included) to judge them. Writes no
  memories.
- ``admin``: everything, including the audit log and store statistics; a token for bank ``*``
  reaches every bank.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from mneme.surfaces.http.problems import ApiError
from mneme.surfaces.http.tokens import Principal, TokenStore

#: What each role may do, by capability.
CAPABILITIES: dict[str, frozenset[str]] = {
    "agent": frozenset({"read", "write"}),
    "reviewer": frozenset({"read", "review"}),
    "admin": frozenset({"read", "write", "review", "admin"}),
}

_bearer = HTTPBearer(
    auto_error=False,
    description="A token from `mneme token create`; it names a bank, an agent and a role.",
)

BANK_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$"


def _unauthorized(message: str) -> ApiError:
    return ApiError(
        401, "unauthorized", message, headers={"WWW-Authenticate": 'Bearer realm="mneme"'}
    )


def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    """The caller, from ``Authorization: Bearer <token>``; 401 when missing or unknown."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise _unauthorized("a bearer token is required (Authorization: Bearer <token>)")
    tokens: TokenStore = request.app.state.tokens
    found = tokens.lookup(credentials.credentials)
    if found is None:
        raise _unauthorized("the token is unknown or was revoked")
    return found


Caller = Annotated[Principal, Depends(principal)]


def require(who: Principal, capability: str) -> None:
    """403 unless the caller's role carries the capability."""
    if capability not in CAPABILITIES.get(who.role, frozenset()):
        raise ApiError(
            403,
            "forbidden",
            f"the {who.role} role may not do this (it needs the {capability!r} capability)",
        )


def require_bank(who: Principal, bank: str) -> None:
    """403 when the token is for another bank."""
    if not who.may_use_bank(bank):
        raise ApiError(403, "forbidden", f"this token is for bank {who.bank!r}, not {bank!r}")


BankPath = Annotated[
    str, Path(description="The bank (isolation unit).", max_length=128, pattern=BANK_PATTERN)
]


@dataclass(frozen=True, slots=True)
class Access:
    """A caller allowed into a bank: the bank from the path, the rest from the token."""

    bank: str
    who: Principal

    @property
    def agent(self) -> str:
        return self.who.agent


def _bank_capability(capability: str) -> Callable[[str, Principal], Access]:
    def dependency(bank: BankPath, who: Caller) -> Access:
        require_bank(who, bank)
        require(who, capability)
        return Access(bank, who)

    dependency.__name__ = f"bank_{capability}"
    return dependency


#: Dependencies for routes under /v1/banks/{bank}: the token must be for the bank and its
#: role must carry the capability.
Reader = Annotated[Access, Depends(_bank_capability("read"))]
Writer = Annotated[Access, Depends(_bank_capability("write"))]
Reviewer = Annotated[Access, Depends(_bank_capability("review"))]
BankAdmin = Annotated[Access, Depends(_bank_capability("admin"))]


def admin(who: Caller) -> Principal:
    require(who, "admin")
    return who


Admin = Annotated[Principal, Depends(admin)]


def sees_everything(who: Principal) -> bool:
    """Reviewers and admins read a bank as its owner (private units included)."""
    return who.role in ("reviewer", "admin")
