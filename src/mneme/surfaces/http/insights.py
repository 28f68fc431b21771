"""Insights: list, run and verify the generative layer's hypotheses (ADR 0056), as the
background cadence and ``mneme insights`` do."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from mneme.surfaces.http.auth import Access, allowed
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import InsightsRunIn, InsightsVerifyIn

router = APIRouter(prefix="/v1/banks/{bank:mneme_id}/insights", tags=["insights"],
                   responses=ERROR_RESPONSES)  # fmt: skip

State = Annotated[
    Literal["proposed", "verified", "retired"] | None,
    Query(description="Only insights in this state."),
]
Limit = Annotated[int, Query(ge=1, le=1000, description="At most this many.")]


@router.get(
    "",
    summary="The bank's insights, best first",
    description="`{bank, state, insights}`: insight units (network `insight`), best score "
    "first: each one's text names "
    "its chain of categories and its witnesses in order; `metadata.insight` holds the "
    "witnesses, hops, PMIs, score, state (proposed, verified, retired) and its history. "
    "Any token of the bank may read them.",
)
def list_insights(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("insights"))],
    state: State = None,
    limit: Limit = 100,
) -> JSONResponse:
    found = mem.insights.list(acc.bank, state=state, limit=limit)
    return answer({"bank": acc.bank, "state": state, "insights": found})


@router.post(
    "/run",
    summary="One insight pass: categories, threads, new insights, verification",
    description="Tags the bank's untagged memories, finds threads, writes the new insights "
    "(at most the flood guard's `max_new`; above it the stage pauses for the bank until a "
    "run with `resume`) and verifies the ones held. Answers the pass's report (`created`, "
    "`verified`, `retired`, `candidates`, `held_back`, `paused`, `reason`, ...). A second "
    "call over unchanged memories writes nothing. Reviewers and admins; the caller is the "
    "actor audited.",
)
def run_insights(
    body: InsightsRunIn, mem: Mem, acc: Annotated[Access, Depends(allowed("insights_run"))]
) -> JSONResponse:
    return answer(mem.insights.run(acc.bank, agent=acc.agent, resume=body.resume).as_dict())


@router.post(
    "/verify",
    summary="Verify the bank's insights (or one) against their witnesses now",
    description="Every proposed or verified insight (or only `insight`) judged against its "
    "witnesses: all live and still linking: verified; one rejected, superseded, archived "
    "or gone: retired with the reason. Answers the report (`verified`, `retired`). 404 for "
    "an insight the bank does not hold. Reviewers and admins.",
)
def verify_insights(
    body: InsightsVerifyIn, mem: Mem, acc: Annotated[Access, Depends(allowed("insights_run"))]
) -> JSONResponse:
    report = mem.insights.verify(acc.bank, agent=acc.agent, insight=body.insight)
    return answer(report.as_dict())
