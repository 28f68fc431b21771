"""Memories: retain, recall, and reading one memory (get, history, graph, sources, chain)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse

from mneme.serialize import hits_view
from mneme.surfaces.http.auth import (
    Access,
    Caller,
    allowed,
    authorize,
    known_bank,
    sees_everything,
    viewer,
)
from mneme.surfaces.http.context import Mem, answer
from mneme.surfaces.http.problems import ERROR_RESPONSES, ApiError
from mneme.surfaces.http.schemas import (
    ID_PATTERN,
    ChainIn,
    ConnectIn,
    ContextIn,
    ContextQuery,
    RecallIn,
    RecallQuery,
    RetainIn,
    UpdateIn,
)
from mneme.surfaces.http.tokens import ALL_BANKS, Principal

router = APIRouter(prefix="/v1", tags=["memories"], responses=ERROR_RESPONSES)

ObjectId = Annotated[
    str,
    Path(
        description="A memory (unit), source, claim or conflict id.",
        max_length=128,
        pattern=ID_PATTERN,
    ),
]
ScopeParam = Annotated[
    Literal["personal", "collective"],
    Query(description="For agent tokens: personal (its own) or collective (the bank's shared)."),
]
Limit = Annotated[int, Query(ge=1, le=1000, description="At most this many.")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="Skip this many (paging).")]


@router.get(
    "/memories",
    summary="List the memories of the token's bank",
    description="The newest memories of a bank, as the caller may see them. The bank defaults "
    "to the token's; an admin token for every bank must name one.",
)
def list_token_bank(
    mem: Mem,
    who: Caller,
    bank: Annotated[
        str | None, Query(max_length=128, pattern=ID_PATTERN, description="The bank.")
    ] = None,
    scope: ScopeParam = "collective",
    limit: Limit = 50,
    offset: Offset = 0,
) -> JSONResponse:
    bank = bank or (None if who.bank == ALL_BANKS else who.bank)
    if bank is None:
        raise ApiError(400, "invalid_input", "this token is for every bank: name one with ?bank=")
    authorize(who, "list", bank)
    units = mem.list_memories(bank=bank, limit=limit, offset=offset, **viewer(who, scope))
    return answer({"bank": bank, "memories": units})


@router.post(
    "/banks/{bank:mneme_id}/memories",
    summary="Retain: keep what happened",
    description="Stores the source, atomizes it into memories, links and judges them against "
    "what is known. A contradiction or a destructive change comes back as "
    "status=needs_clarification with questions; nothing known is overwritten. The author is "
    "the token's agent. With `wait`, a slow write answers 202 with a pending_id.",
    responses={202: {"description": "Accepted; poll the add-status route with pending_id."}},
)
def retain(
    body: RetainIn, mem: Mem, acc: Annotated[Access, Depends(allowed("retain"))]
) -> JSONResponse:
    known_bank(mem, acc.who, acc.bank, create=body.create_bank)
    result = mem.retain(
        body.text,
        bank=acc.bank,
        agent=acc.agent,
        session=body.session,
        occurred_at=body.occurred_at,
        mentioned_at=body.mentioned_at,
        source_id=body.source_id,
        source_kind=body.source_kind,
        trust=body.trust,
        supersedes=body.supersedes,
        visibility=body.visibility,
        metadata=body.metadata,
        wait=body.wait,
    )
    return answer(result, 202 if result.status.value == "accepted" else 200)


@router.get(
    "/banks/{bank:mneme_id}/memories",
    summary="List memories",
    description="The newest memories of the bank that the caller may see.",
)
def list_memories(
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("list"))],
    scope: ScopeParam = "collective",
    limit: Limit = 50,
    offset: Offset = 0,
) -> JSONResponse:
    units = mem.list_memories(bank=acc.bank, limit=limit, offset=offset, **viewer(acc.who, scope))
    return answer({"bank": acc.bank, "memories": units})


@router.get(
    "/banks/{bank:mneme_id}/writes/{pending_id:mneme_id}",
    summary="Add status: where an accepted write stands",
    description="pending, processing, done (with its result) or failed.",
)
def add_status(
    pending_id: ObjectId, mem: Mem, acc: Annotated[Access, Depends(allowed("add_status"))]
) -> JSONResponse:
    status = mem.get_add_status(pending_id, bank=acc.bank, agent=viewer(acc.who)["agent"])
    source_id = status.result.source_id if status.result else None
    if source_id:
        # The write's source must be in this bank and visible to the caller.
        mem.source(source_id, bank=acc.bank, **viewer(acc.who))
    return answer(status)


@router.get(
    "/banks/{bank:mneme_id}/memories/{memory_id:mneme_id}",
    summary="Get one memory",
    description="One memory unit with its provenance (evidence source ids, knowers, "
    "supersession pointers). 404 when it is outside the caller's scope.",
)
def get_memory(
    memory_id: ObjectId,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("get"))],
    scope: ScopeParam = "collective",
) -> JSONResponse:
    return answer(mem.get(memory_id, bank=acc.bank, **viewer(acc.who, scope)))


@router.post(
    "/banks/{bank:mneme_id}/memories/{memory_id:mneme_id}/update",
    summary="Update a memory (as a supersede)",
    description="The new text supersedes the memory; the old one stays in history. A memory "
    "the charter protects is not superseded: the answer asks a person instead.",
)
def update_memory(
    memory_id: ObjectId,
    body: UpdateIn,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("update"))],
) -> JSONResponse:
    # In this bank and visible to the agent, before anything is written.
    mem.get(memory_id, bank=acc.bank, agent=acc.agent, scope="collective")
    result = mem.update(
        memory_id,
        body.text,
        agent=acc.agent,
        reason=body.reason,
        occurred_at=body.occurred_at,
        source_id=body.source_id,
    )
    return answer(result)


@router.get(
    "/banks/{bank:mneme_id}/memories/{memory_id:mneme_id}/history",
    summary="History of a memory",
    description="Every recorded change of a unit, source, claim or conflict, oldest first.",
)
def history(
    memory_id: ObjectId, mem: Mem, acc: Annotated[Access, Depends(allowed("history"))]
) -> JSONResponse:
    events = mem.history(memory_id, bank=acc.bank, agent=viewer(acc.who)["agent"])
    return answer({"id": memory_id, "events": events})


@router.get(
    "/banks/{bank:mneme_id}/memories/{memory_id:mneme_id}/graph",
    summary="Graph neighbourhood of a memory",
    description="The memories within `depth` typed edges of this one, and the edges, within "
    "the caller's scope.",
)
def graph(
    memory_id: ObjectId,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("graph"))],
    depth: Annotated[int, Query(ge=1, le=4, description="How many edges out.")] = 1,
    scope: ScopeParam = "collective",
) -> JSONResponse:
    return answer(mem.graph(memory_id, depth, bank=acc.bank, **viewer(acc.who, scope)))


@router.get(
    "/banks/{bank:mneme_id}/sources/{source_id:mneme_id}",
    summary="Get a source",
    description="The raw input a memory came from (its evidence), as it was given.",
)
def source(
    source_id: ObjectId,
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("source"))],
    scope: ScopeParam = "collective",
) -> JSONResponse:
    return answer(mem.source(source_id, bank=acc.bank, **viewer(acc.who, scope)))


def _recall_agent(who: Principal, as_agent: str | None) -> str:
    if as_agent is None or as_agent == who.agent:
        return who.agent
    if not sees_everything(who):
        raise ApiError(403, "forbidden", "an agent token recalls as its own agent only")
    return as_agent


def _recall(q: RecallIn, mem: Mem, acc: Access) -> JSONResponse:
    hits = mem.recall(
        q.query,
        bank=acc.bank,
        agent=_recall_agent(acc.who, q.as_agent),
        scope=q.scope,
        k=q.k,
        time_from=q.time_from,
        time_to=q.time_to,
        as_of=q.as_of,
        types=q.types,
        include_superseded=q.include_superseded,
        min_relevance=q.min_relevance,
        session=q.session,
    )
    return answer({"query": q.query, "hits": hits_view(hits, q.detail)})


_RECALL_DOC = (
    "Best matches first. Compact hits (the default) carry what an answer needs: id, text, "
    "relevance (the calibrated chance, 0 to 1, that the hit is an answer; min_relevance drops "
    "the hits below a bar), occurred, source_ids, and superseded_by, conflicts and flashback "
    "when set; detail=full adds per-channel ranks, the whole unit and the rest. "
    "Collective scope (the default) is the bank, less other agents' private memories; "
    "personal is what the token's agent stated. No model call but the query's embedding."
)


@router.post("/banks/{bank:mneme_id}/recall", summary="Recall", description=_RECALL_DOC)
def recall(
    body: RecallIn, mem: Mem, acc: Annotated[Access, Depends(allowed("recall"))]
) -> JSONResponse:
    return _recall(body, mem, acc)


@router.get(
    "/banks/{bank:mneme_id}/recall", summary="Recall (query parameters)", description=_RECALL_DOC
)
def recall_get(
    params: Annotated[RecallQuery, Query()],
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("recall"))],
) -> JSONResponse:
    return _recall(params, mem, acc)


def _context(q: ContextIn, mem: Mem, acc: Access) -> JSONResponse:
    return answer(
        mem.context(
            q.query,
            bank=acc.bank,
            agent=_recall_agent(acc.who, None),
            scope=q.scope,
            max_tokens=q.max_tokens,
            k=q.k,
            as_of=q.as_of,
            time_from=q.time_from,
            time_to=q.time_to,
            types=q.types,
            session=q.session,
        )
    )


_CONTEXT_DOC = (
    "A ready context block for a prompt, within max_tokens (characters / 4): one line per "
    "memory, each citing its source id in brackets, superseded and contested memories "
    "marked, newest first when the question is about the present. Returns text, tokens "
    "(used), max_tokens, order, items (memory id, source id, occurred, relevance, marks) and "
    "omitted (matches that did not fit)."
)


@router.post("/banks/{bank:mneme_id}/context", summary="Context block", description=_CONTEXT_DOC)
def context(
    body: ContextIn, mem: Mem, acc: Annotated[Access, Depends(allowed("recall"))]
) -> JSONResponse:
    return _context(body, mem, acc)


@router.get(
    "/banks/{bank:mneme_id}/context",
    summary="Context block (query parameters)",
    description=_CONTEXT_DOC,
)
def context_get(
    params: Annotated[ContextQuery, Query()],
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("recall"))],
) -> JSONResponse:
    return _context(params, mem, acc)


@router.post(
    "/banks/{bank:mneme_id}/chain",
    summary="Reasoning chain",
    description="The best match for the query and its why-edges: causes (causal), "
    "consequences (forward) or both.",
)
def chain(
    body: ChainIn, mem: Mem, acc: Annotated[Access, Depends(allowed("chain"))]
) -> JSONResponse:
    steps = mem.chain(
        body.query,
        bank=acc.bank,
        agent=acc.agent,
        scope=body.scope,
        direction=body.direction,
        depth=body.depth,
    )
    return answer({"query": body.query, "steps": steps})


@router.post(
    "/banks/{bank:mneme_id}/connect",
    summary="Connect two memories",
    description="Link two memories (ids, or queries whose best match is taken) with a typed "
    "edge such as RELATES_TO, SUPPORTS or CAUSES.",
)
def connect(
    body: ConnectIn, mem: Mem, acc: Annotated[Access, Depends(allowed("connect"))]
) -> JSONResponse:
    edge = mem.connect(
        body.a,
        body.b,
        bank=acc.bank,
        agent=acc.agent,
        type=body.type,
        weight=body.weight,
        note=body.note,
    )
    return answer(edge)


@router.get(
    "/banks/{bank:mneme_id}/concepts/{name}",
    summary="Memories about a concept",
    description="Memories that mention a named thing (an entity or one of its aliases).",
)
def concept(
    name: Annotated[str, Path(min_length=1, max_length=200, description="The concept.")],
    mem: Mem,
    acc: Annotated[Access, Depends(allowed("concept"))],
    scope: ScopeParam = "collective",
    k: Annotated[int, Query(ge=1, le=200, description="How many memories.")] = 20,
) -> JSONResponse:
    units = mem.concept(name, bank=acc.bank, agent=acc.agent, scope=scope, k=k)
    return answer({"concept": name, "memories": units})
