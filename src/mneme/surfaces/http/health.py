"""The health watchdog over HTTP (ADR 0054): its latest report, its journal, and resuming a
stage it paused. Store-wide, like the statistics: an admin token for every bank (``*``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from mneme.surfaces.authority import authorize
from mneme.surfaces.http.auth import Caller
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES

router = APIRouter(responses=ERROR_RESPONSES)


@router.get(
    "/v1/health",
    tags=["admin"],
    summary="The watchdog's report (admin)",
    description="The background watchdog's latest pass (or a fresh check when none ran): "
    "severity (ok, warn, critical), each detector's verdict, the findings with their "
    "evidence and the reactions taken, the store's sizes, the ingest queue, the stages (a "
    "paused one says why), and the reactions so far by kind. An admin token for every bank.",
)
def health(mem: Mem, who: Caller) -> JSONResponse:
    authorize(who, "status")
    return answer(mem.admin.watch_status())


@router.get(
    "/v1/health/journal",
    tags=["admin"],
    summary="The watchdog's journal (admin)",
    description="The newest reactions the watchdog journaled (heal, alert, hook, pause, "
    "resume, cleared), oldest first: detector, evidence, action and outcome of each.",
)
def journal(
    mem: Mem,
    who: Caller,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 50,
) -> JSONResponse:
    authorize(who, "status")
    return answer({"entries": mem.admin.watch_journal(limit)})


@router.post(
    "/v1/health/stages/{stage}/resume",
    tags=["admin"],
    summary="Resume a paused stage (admin)",
    description="Lets a background stage the watchdog paused for a flood run again "
    "(journaled with the token's agent). resumed=false: it was not paused.",
)
def resume(
    stage: Annotated[str, Path(max_length=64, pattern=r"^[a-z_]+$", description="The stage.")],
    mem: Mem,
    who: Caller,
) -> JSONResponse:
    authorize(who, "status")
    done: Any = mem.admin.resume_stage(stage, actor=who.agent)
    return answer({"stage": stage, "resumed": done})
