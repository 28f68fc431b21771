"""Authentication and authorization on HTTP: bearer token -> Principal, and the role check.

What each role may do is one table for every surface (``mneme.surfaces.authority``): a route
names its operation, and ``allowed(operation)`` checks the token's bank and role against it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from mneme.memory import Memory
from mneme.surfaces.authority import (
    CAPABILITIES,
    Access,
    Principal,
    authorize,
    known_bank,
    require_bank,
    sees_everything,
    viewer,
)
from mneme.surfaces.http.context import Mem
from mneme.surfaces.http.problems import ApiError
from mneme.surfaces.http.schemas import ID_PATTERN
from mneme.surfaces.http.tokens import TokenStore

__all__ = [
    "CAPABILITIES",
    "Access",
    "Caller",
    "allowed",
    "authorize",
    "known_bank",
    "principal",
    "require_bank",
    "sees_everything",
    "viewer",
]

_bearer = HTTPBearer(
    auto_error=False,
    description="A token from `mneme token create`; it names a bank, an agent and a role.",
)


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


BankPath = Annotated[
    str, Path(description="The bank (isolation unit).", max_length=128, pattern=ID_PATTERN)
]


#: Operations whose route decides itself whether the bank must exist (a write may make it).
MAKES_BANKS = frozenset({"retain"})


def allowed(operation: str) -> Callable[[str, Principal, Memory], Access]:
    """A dependency for a route under /v1/banks/{bank}: the token must be for the bank and
    its role must allow ``operation`` (403 otherwise), and the bank must exist (404 naming
    the banks the token may use; the token's own bank always exists)."""

    def dependency(bank: BankPath, who: Caller, mem: Mem) -> Access:
        authorize(who, operation, bank)
        if operation not in MAKES_BANKS:
            known_bank(mem, who, bank)
        return Access(bank, who)

    dependency.__name__ = f"may_{operation}"
    return dependency
