"""The configuration in force, and its reload without a restart (ADR 0057)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from mneme import config as config_mod
from mneme.config_types import flatten
from mneme.serialize import to_jsonable
from mneme.surfaces.http.auth import Caller, authorize
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES

router = APIRouter(responses=ERROR_RESPONSES)


def _settings(config: config_mod.Config) -> dict[str, object]:
    out: dict[str, object] = {}
    for path, value in flatten(config).items():
        if path in config_mod.SECRETS:
            out[path] = "***" if value else None
        elif isinstance(value, str):
            out[path] = config_mod.redact_dsn(value)
        else:
            out[path] = to_jsonable(value)
    return out


@router.get(
    "/v1/admin/config",
    tags=["admin"],
    summary="The configuration in force (admin)",
    description="Every setting by its dotted path (secrets as ***, DSN passwords hidden) and "
    "the reloads so far: how many, the last one's report (applied settings, or the setting "
    "it refused), and the changed settings that wait for a restart. An admin token for "
    "every bank (`*`) only.",
)
def get_config(mem: Mem, who: Caller) -> JSONResponse:
    authorize(who, "config")
    return answer({"settings": _settings(mem.config), "reload": mem.reload_status()})


@router.post(
    "/v1/admin/config/reload",
    tags=["admin"],
    summary="Reload the configuration (admin)",
    description="Reads the configuration layers again (defaults < file < environment) as "
    "SIGHUP does, and puts what changed in force without a restart: requests already "
    "running finish on the old clients. An invalid setting, or a client that cannot be "
    "built, changes nothing: ok is false and error names it. Settings that need a restart "
    "(the store, the embedder) are listed, not applied. An admin token for every bank only.",
)
def reload_config(mem: Mem, who: Caller) -> JSONResponse:
    authorize(who, "config")
    return answer(mem.reload())
