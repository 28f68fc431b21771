"""Read-only resources: the rules in force, the effective configuration, and health.

Each is an operation of the shared role table (``OPERATIONS`` below): the rules are read by
any caller (the adopted ones of its own bank only); the configuration and health cover the
whole store, so only an admin for every bank reads them.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from mcp.server.fastmcp import FastMCP

from mneme.config import Config
from mneme.memory import Memory
from mneme.serialize import to_jsonable
from mneme.surfaces.authority import ALL_BANKS
from mneme.surfaces.mcp.caller import granted
from mneme.surfaces.mcp.runtime import Runtime

#: Each resource's operation in ``authority.OPERATIONS``.
OPERATIONS = {"memory://rules": "rules", "memory://config": "config", "memory://status": "status"}

REDACTED = "***"
#: Configuration keys that hold secrets, whatever their value.
SECRET_KEYS = frozenset({"embedder_api_key"})


_USERINFO = re.compile(r"(://[^:/@\s]+):[^@/\s]+@")


def redact_url(value: str) -> str:
    """Any URL or DSN inside ``value`` without its password (``user:***@host``)."""
    return _USERINFO.sub(rf"\1:{REDACTED}@", value)


def effective_config(config: Config) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in dataclasses.asdict(config).items():
        if key in SECRET_KEYS:
            out[key] = REDACTED if value else None
        elif isinstance(value, str):
            out[key] = redact_url(value)
        else:
            out[key] = to_jsonable(value)
    return out


def status(memory: Memory) -> dict[str, Any]:
    audit = memory.admin.audit_verify()
    return {
        "ok": all(r.ok for r in audit.values()),
        "schema_version": memory.admin.schema_version(),
        "stats": to_jsonable(memory.admin.stats()),
        "embedder": memory.embedder.model_id,
        "audit": {
            bank: {"ok": r.ok, **{k: v for k, v in to_jsonable(r).items() if k != "ok"}}
            for bank, r in audit.items()
        },
        "open_think_sessions": memory.think.open_count(),
    }


def register(server: FastMCP[Any], runtime: Runtime) -> None:
    """Add the resources; each reads the running server's Memory in a worker thread."""

    async def read(work: Any) -> str:
        return json.dumps(to_jsonable(await runtime.call(work)), ensure_ascii=False, indent=2)

    @server.resource(
        "memory://rules",
        name="rules",
        description="The memory charter in force (its text and checked rules) and the rules "
        "people adopted from repeated settlements in your bank (every bank, for an admin of "
        "all).",
        mime_type="application/json",
    )
    async def rules() -> str:
        bank = granted().bank
        return await read(lambda m: m.admin.rules(bank=None if bank == ALL_BANKS else bank))

    @server.resource(
        "memory://config",
        name="config",
        description="The effective configuration (defaults < file < environment), secrets "
        "redacted. An admin for every bank only.",
        mime_type="application/json",
    )
    async def config() -> str:
        return await read(lambda m: effective_config(m.config))

    @server.resource(
        "memory://status",
        name="status",
        description="Health: store counts, schema version, embedder, the audit chain check "
        "per bank, and open thinking sessions. An admin for every bank only.",
        mime_type="application/json",
    )
    async def health() -> str:
        return await read(status)
