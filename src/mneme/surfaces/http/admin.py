"""Health, the caller's identity, banks, statistics and the audit log."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from mneme.surfaces.http.auth import Access, Caller, allowed, authorize
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES
from mneme.surfaces.http.schemas import ID_PATTERN, BankIn, Body, Note
from mneme.surfaces.http.tokens import ALL_BANKS

router = APIRouter(responses=ERROR_RESPONSES)

PolicyKey = Literal[
    "secret",
    "personal",
    "api_key",
    "token",
    "private_key",
    "password",
    "card_number",
    "email",
    "phone",
]
PolicyAction = Literal["store", "redact", "refuse", "default"]


class SensitivePolicyIn(Body):
    """Rules laid over the bank's sensitive-data policy (ADR 0034)."""

    rules: dict[PolicyKey, PolicyAction] = Field(
        description="Category (secret, personal) or kind -> store | redact | refuse; "
        "default drops the bank's rule.",
        max_length=16,
    )
    reason: Note = Field(default="", description="Why (kept in the audit record).")


class Health(BaseModel):
    """The server runs."""

    status: Literal["ok"]


class Identity(BaseModel):
    """The bank, agent and role a bearer token stands for."""

    token_id: str = Field(description="The token's id (not its secret).")
    bank: str = Field(description='The bank, or "*" (an admin of every bank).')
    agent: str = Field(description="The agent the token acts as.")
    role: Literal["agent", "reviewer", "admin"]


@router.get(
    "/healthz",
    tags=["health"],
    summary="Liveness",
    description="No token needed. Answers {status: ok} while the server runs; says nothing "
    "about the store's content.",
    responses={200: {"model": Health, "description": "The server runs."}},
)
def healthz() -> JSONResponse:
    return JSONResponse({"status": "ok"})


@router.get(
    "/v1/whoami",
    tags=["admin"],
    summary="Who the token is",
    description="The bank, agent and role the bearer token stands for.",
    responses={200: {"model": Identity, "description": "The token's principal."}},
)
def whoami(who: Caller) -> JSONResponse:
    return answer(
        {"token_id": who.token_id, "bank": who.bank, "agent": who.agent, "role": who.role}
    )


@router.get(
    "/v1/banks",
    tags=["admin"],
    summary="List banks",
    description="Every bank for an admin token for all banks; otherwise the token's bank, "
    "when it exists.",
)
def banks(mem: Mem, who: Caller) -> JSONResponse:
    found = [b for b in mem.admin.banks() if who.may_use_bank(b.id)]
    return answer({"banks": found})


@router.post(
    "/v1/banks",
    tags=["admin"],
    summary="Create a bank (admin)",
    description="Makes a bank (201), or answers the existing one (200). A bank is made only "
    "this way, by `mneme banks create`, or by `create_bank: true` on a write: a mistyped bank "
    "elsewhere is a 404 naming the banks the token may use. An admin token for every bank "
    "(`*`) or for that bank.",
    status_code=201,
)
def create_bank(body: BankIn, mem: Mem, who: Caller) -> JSONResponse:
    authorize(who, "create_bank", body.id)
    existed = mem.admin.bank(body.id) is not None
    made = mem.admin.create_bank(body.id, name=body.name, actor=who.agent)
    return answer(made, 200 if existed else 201)


@router.get(
    "/v1/stats",
    tags=["admin"],
    summary="Store statistics (admin)",
    description="Counts of banks, sources, memories, entities, edges and embeddings by model, "
    "over the whole store: an admin token for every bank (`*`) only.",
)
def stats(mem: Mem, who: Caller) -> JSONResponse:
    # The counts cover every bank: a bank's admin would learn of the others (STORE_WIDE).
    authorize(who, "stats")
    return answer(mem.admin.stats())


@router.get(
    "/v1/audit/verify",
    tags=["admin"],
    summary="Verify the audit hash chain (admin)",
    description="Checks each bank's hash-chained mutation log for edits, deletions, "
    "reordering and truncation. ok=false names the first bad record.",
)
def audit_verify(
    mem: Mem,
    who: Caller,
    bank: Annotated[
        str | None, Query(max_length=128, pattern=ID_PATTERN, description="Only this bank.")
    ] = None,
) -> JSONResponse:
    if bank is None and who.bank != ALL_BANKS:
        bank = who.bank
    # The bank before the store says whether such a bank exists.
    authorize(who, "audit_verify", bank)
    reports = {b: r for b, r in mem.admin.audit_verify(bank).items() if who.may_use_bank(b)}
    return answer({"ok": all(r.ok for r in reports.values()), "banks": reports})


@router.get(
    "/v1/banks/{bank:mneme_id}/audit",
    tags=["admin"],
    summary="Recent audit records (admin)",
    description="The newest mutation records of a bank (who, what, before, after, why), "
    "newest first.",
)
def audit_records(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("audit"))],
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many.")] = 100,
) -> JSONResponse:
    recent = mem.admin.audit_log(acc.bank, last=limit)
    records = [
        {
            "seq": r.seq,
            "at": r.at,
            "actor": r.actor,
            "op": r.op,
            "target": r.target,
            "before": r.before,
            "after": r.after,
            "reason": r.reason,
            "hash": r.hash,
        }
        for r in reversed(recent)
    ]
    return answer({"bank": acc.bank, "records": records})


@router.get(
    "/v1/banks/{bank:mneme_id}/sensitive",
    tags=["admin"],
    summary="The bank's sensitive-data policy (admin)",
    description="How writes to the bank treat secrets (api_key, token, private_key, password, "
    "card_number) and personal data (email, phone): the rules set on the bank, and the action "
    "(store, redact or refuse) each category and kind gets. Every finding is audited.",
)
def sensitive_policy(
    mem: Mem, acc: Annotated[Access, Depends(allowed("sensitive_policy"))]
) -> JSONResponse:
    return answer(mem.admin.sensitive_policy(acc.bank))


@router.put(
    "/v1/banks/{bank:mneme_id}/sensitive",
    tags=["admin"],
    summary="Set the bank's sensitive-data policy (admin)",
    description="Lays the rules over the bank's policy (a rule set to default is dropped); "
    "audited as bank.configure with the token's agent as the actor. Creates the bank if it "
    "has not been written to yet.",
)
def set_sensitive_policy(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("set_sensitive_policy"))],
    body: SensitivePolicyIn,
) -> JSONResponse:
    return answer(
        mem.admin.set_sensitive_policy(
            acc.bank,
            {str(k): str(v) for k, v in body.rules.items()},
            actor=acc.agent,
            reason=body.reason,
        )
    )
