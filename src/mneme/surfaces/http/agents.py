"""Agents: the swarm roster of a bank, and an agent's own presence (enroll, heartbeat, farewell).

The agent is always the token's: an agent announces itself, never another.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from mneme.surfaces.http.auth import Access, allowed
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import EnrollIn, HeartbeatIn

router = APIRouter(
    prefix="/v1/banks/{bank:mneme_id}/agents", tags=["agents"], responses=ERROR_RESPONSES
)


@router.get(
    "",
    summary="The roster",
    description="Agents seen lately in the bank; the ones silent past the presence TTL are "
    "only counted (hidden_stale).",
)
def roster(mem: Mem, acc: Annotated[Access, Depends(allowed("roster"))]) -> JSONResponse:
    return answer(mem.swarm.roster(acc.bank))


@router.post(
    "/enroll",
    summary="Enroll this agent",
    description="Announce the token's agent to the bank's roster (its first heartbeat). 404 "
    "when the bank holds nothing yet.",
)
def enroll(
    body: EnrollIn, mem: Mem, acc: Annotated[Access, Depends(allowed("enroll"))]
) -> JSONResponse:
    return answer(mem.swarm.enroll(bank=acc.bank, agent=acc.agent, host=body.host))


@router.post(
    "/heartbeat",
    summary="Heartbeat",
    description="Record that the token's agent is alive, with its status.",
)
def heartbeat(
    body: HeartbeatIn, mem: Mem, acc: Annotated[Access, Depends(allowed("heartbeat"))]
) -> JSONResponse:
    return answer(mem.swarm.heartbeat(bank=acc.bank, agent=acc.agent, status=body.status))


@router.post(
    "/farewell",
    summary="Farewell",
    description="The token's agent leaves the roster (its record stays: it anchors authorship).",
)
def farewell(mem: Mem, acc: Annotated[Access, Depends(allowed("farewell"))]) -> JSONResponse:
    return answer(mem.swarm.farewell(bank=acc.bank, agent=acc.agent))
