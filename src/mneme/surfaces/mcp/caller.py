"""Who an MCP call acts as: the principal of its HTTP request, or the server's own.

Over HTTP, ``mneme serve`` checks every request to ``/mcp`` for a bearer token and puts the
token's ``Principal`` in the ASGI scope (``authority.PRINCIPAL_KEY``); each tool call acts as
the principal of the request that carried it. Over stdio (``mneme mcp``), and over HTTP run
with ``--no-auth``, the server was built with one fixed principal. With neither, every call is
refused: there is no anonymous caller.

The server checks the principal against the operation's capability and bank before a tool
runs (``MnemeServer.call_tool``) and leaves the granted ``Access`` here for the tool to read:
tools take the bank, the agent and what they may see from it, never from their arguments.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from mneme.errors import MnemeError
from mneme.surfaces.authority import PRINCIPAL_KEY, Access, Principal

_granted: ContextVar[Access | None] = ContextVar("mneme_mcp_access", default=None)


class Unauthenticated(MnemeError):
    """No principal for a call: MCP over HTTP without a bearer token."""

    code = "unauthorized"


def of_request(request: Any, fixed: Principal | None) -> Principal:
    """The principal of one call: its HTTP request's, else the server's fixed one.

    Raises:
        Unauthenticated: neither exists.
    """
    scope = getattr(request, "scope", None)
    found = scope.get(PRINCIPAL_KEY) if isinstance(scope, dict) else None
    if isinstance(found, Principal):
        return found
    if fixed is not None:
        return fixed
    raise Unauthenticated(
        "this MCP server has no caller for the request: over HTTP it needs a bearer token "
        "(Authorization: Bearer <token>, from `mneme token create`)"
    )


def grant(access: Access) -> object:
    """Record the access the server granted to the call now running; returns a reset token."""
    return _granted.set(access)


def revoke(token: Any) -> None:
    _granted.reset(token)


def granted() -> Access:
    """The access granted to the running call (its bank and principal)."""
    access = _granted.get()
    if access is None:  # a tool called around the server's check: refuse, never guess
        raise Unauthenticated("no caller was granted for this call")
    return access
