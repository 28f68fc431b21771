"""Observations: run reflect on a bank (ADR 0051), as the background cadence does."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from mneme.surfaces.http.auth import Access, allowed
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import ReflectIn

router = APIRouter(
    prefix="/v1/banks/{bank:mneme_id}", tags=["observations"], responses=ERROR_RESPONSES
)


@router.post(
    "/reflect",
    summary="Reflect: consolidate the bank's evidence into observations",
    description="One reflect pass over the bank's live shared memories (ADR 0051): writes "
    "only the difference with the observations it holds (new, revised as a new version, "
    "retired) and answers the report: `evidence`, `created`, `revised` ([old, new] pairs), "
    "`retired`, `unchanged`, `skipped` ([group, why] pairs), `seconds`, `reason` (why "
    "nothing could be written) and the `disposition` used. A second call over unchanged "
    "evidence writes nothing. The body's `skepticism`, `literalism` and `max_cited` override "
    "the bank's disposition for this pass only (400 for a bad one). Reviewers and admins "
    "(the `reflect` operation needs the review capability); the caller is the actor audited.",
)
def reflect(
    body: ReflectIn, mem: Mem, acc: Annotated[Access, Depends(allowed("reflect"))]
) -> JSONResponse:
    report = mem.reflect(
        acc.bank,
        agent=acc.agent,
        skepticism=body.skepticism,
        literalism=body.literalism,
        max_cited=body.max_cited,
    )
    return answer(report)
