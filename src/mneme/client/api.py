"""The HTTP API as Python, written from its OpenAPI document: do not edit by hand.

Regenerate it after the API changes: ``python -m mneme.client.generate``. The drift test
(tests/e2e/client/test_client_drift.py) fails until then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict, cast

from mneme.client.wire import AsyncWire, SyncWire

#: An answer whose shape the OpenAPI document does not declare (yet): a JSON object.
JsonObject = dict[str, Any]

Scope = Literal["personal", "collective"]
Visibility = Literal["shared", "private"]
Detail = Literal["compact", "full"]
Type = Literal[
    "fact",
    "preference",
    "skill",
    "goal",
    "opinion",
    "experience",
    "achievement",
    "action",
    "belief",
    "insight",
    "rule",
]
Direction = Literal["causal", "forward", "both"]
Status = Literal["pending_review", "approved", "rejected", "superseded"]
Kind = Literal["question", "contested", "reasserted", "proposal"]
Sort = Literal["newest", "most_contested"]
Decision = Literal["approve", "reject"]
DecideDecision = Literal["approve", "reject", "supersede", "restore"]
AdoptRuleDecision = Literal["confirm", "retract", "preference"]
State = Literal["proposed", "verified", "retired"]
ListConflictsStatus = Literal["open", "resolved", "all"]
Resolution = Literal["supersede", "reject", "not_conflict", "scoped_exception"]
HeartbeatStatus = Literal["active", "idle", "busy", "departed"]
HealthStatus = Literal["ok"]
Role = Literal["agent", "reviewer", "admin"]
RulesKey = Literal[
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
RulesValue = Literal["store", "redact", "refuse", "default"]


class Health(TypedDict):
    """The server runs."""

    status: HealthStatus


class Identity(TypedDict):
    """The bank, agent and role a bearer token stands for."""

    #: The token's id (not its secret).
    token_id: str
    #: The bank, or "*" (an admin of every bank).
    bank: str
    #: The agent the token acts as.
    agent: str
    role: Role


class MnemeClient(SyncWire):
    """The synchronous client of mneme.

    ``MnemeClient(base_url, token=..., timeout=..., transport=..., http=...)``. Each method is one
    operation of the API; an error answer raises its ``mneme.client.ApiError`` (also the
    ``mneme.errors`` class of the failure: NotFound, InvalidInput, Refused...). Use it as a context
    manager, or ``close()`` it.
    """

    def list_token_bank(
        self,
        *,
        bank: str | None = None,
        scope: Scope = "collective",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """List the memories of the token's bank.

        The newest memories of a bank, as the caller may see them. The bank defaults to the token's;
        an admin token for every bank must name one.

        Args:
            bank: The bank.
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            limit: At most this many.
            offset: Skip this many (paging).

        ``GET /v1/memories``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/memories",
                query={
                    "bank": bank,
                    "scope": scope,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    def retain(
        self,
        bank: str,
        *,
        text: str,
        session: str | None = None,
        occurred_at: str | None = None,
        mentioned_at: str | None = None,
        source_id: str | None = None,
        source_kind: str | None = None,
        trust: float | None = None,
        supersedes: Sequence[str] | None = None,
        visibility: Visibility = "shared",
        metadata: Mapping[str, Any] | None = None,
        create_bank: bool = False,
        wait: float | None = None,
    ) -> JsonObject:
        """Retain: keep what happened.

        Stores the source, atomizes it into memories, links and judges them against what is known. A
        contradiction or a destructive change comes back as status=needs_clarification with
        questions; nothing known is overwritten. The author is the token's agent. With `wait`, a
        slow write answers 202 with a pending_id.

        Args:
            bank: The bank (isolation unit).
            text: What happened or was learned, as given (at most 100,000 characters).
            session: The conversation or session id.
            occurred_at: When it happened.
            mentioned_at: When it was said.
            source_id: Your own event id, kept as the evidence id (idempotent).
            source_kind: message, document, tool...
            trust: Trust in the source.
            supersedes: Source or memory ids this input corrects.
            visibility: "private": no other agent ever sees it, in any scope.
            metadata: Free JSON kept with the source (at most 20,000 characters).
            create_bank: Make the bank when it does not exist (a token for every bank; the token's
                own bank always exists). Without it an unknown bank is a 404.
            wait: Seconds to wait for the write to finish; when it takes longer the answer is
                status=accepted with a pending_id for the add-status route. Omitted: wait for it.

        ``POST /v1/banks/{bank}/memories``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/memories",
                path={
                    "bank": bank,
                },
                body={
                    "text": text,
                    "session": session,
                    "occurred_at": occurred_at,
                    "mentioned_at": mentioned_at,
                    "source_id": source_id,
                    "source_kind": source_kind,
                    "trust": trust,
                    "supersedes": supersedes,
                    "visibility": visibility,
                    "metadata": metadata,
                    "create_bank": create_bank,
                    "wait": wait,
                },
            ),
        )

    def list_memories(
        self,
        bank: str,
        *,
        scope: Scope = "collective",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """List memories.

        The newest memories of the bank that the caller may see.

        Args:
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            limit: At most this many.
            offset: Skip this many (paging).

        ``GET /v1/banks/{bank}/memories``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/memories",
                path={
                    "bank": bank,
                },
                query={
                    "scope": scope,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    def add_status(
        self,
        bank: str,
        pending_id: str,
    ) -> JsonObject:
        """Add status: where an accepted write stands.

        pending, processing, done (with its result) or failed.

        Args:
            pending_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/writes/{pending_id}``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/writes/{pending_id}",
                path={
                    "pending_id": pending_id,
                    "bank": bank,
                },
            ),
        )

    def get_memory(
        self,
        bank: str,
        memory_id: str,
        *,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Get one memory.

        One memory unit with its provenance (evidence source ids, knowers, supersession pointers).
        404 when it is outside the caller's scope.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/memories/{memory_id}``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                },
            ),
        )

    def update_memory(
        self,
        bank: str,
        memory_id: str,
        *,
        text: str,
        reason: str | None = None,
        occurred_at: str | None = None,
        source_id: str | None = None,
    ) -> JsonObject:
        """Update a memory (as a supersede).

        The new text supersedes the memory; the old one stays in history. A memory the charter
        protects is not superseded: the answer asks a person instead.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            text: What happened or was learned, as given (at most 100,000 characters).

        ``POST /v1/banks/{bank}/memories/{memory_id}/update``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/memories/{memory_id}/update",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                body={
                    "text": text,
                    "reason": reason,
                    "occurred_at": occurred_at,
                    "source_id": source_id,
                },
            ),
        )

    def history(
        self,
        bank: str,
        memory_id: str,
    ) -> JsonObject:
        """History of a memory.

        Every recorded change of a unit, source, claim or conflict, oldest first.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/memories/{memory_id}/history``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}/history",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
            ),
        )

    def graph(
        self,
        bank: str,
        memory_id: str,
        *,
        depth: int = 1,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Graph neighbourhood of a memory.

        The memories within `depth` typed edges of this one, and the edges, within the caller's
        scope.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            depth: How many edges out.
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/memories/{memory_id}/graph``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}/graph",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                query={
                    "depth": depth,
                    "scope": scope,
                },
            ),
        )

    def source(
        self,
        bank: str,
        source_id: str,
        *,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Get a source.

        The raw input a memory came from (its evidence), as it was given.

        Args:
            source_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/sources/{source_id}``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/sources/{source_id}",
                path={
                    "source_id": source_id,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                },
            ),
        )

    def recall(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        detail: Detail = "compact",
        k: int = 10,
        time_from: str | None = None,
        time_to: str | None = None,
        as_of: str | None = None,
        types: Sequence[Type] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
        session: str | None = None,
        as_agent: str | None = None,
    ) -> JsonObject:
        """Recall.

        Best matches first. Compact hits (the default) carry what an answer needs: id, text,
        relevance (the calibrated chance, 0 to 1, that the hit is an answer; min_relevance drops the
        hits below a bar), occurred, source_ids, and superseded_by, conflicts and flashback when
        set; detail=full adds per-channel ranks, the whole unit and the rest. Collective scope (the
        default) is the bank, less other agents' private memories; personal is what the token's
        agent stated. No model call but the query's embedding.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            detail: compact (default): per hit id, text, relevance, occurred, source_ids and only
                the flags that are set (superseded_by, conflicts, flashback); full: every field of
                hit and unit.
            k: How many results.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            as_of: What was believed at that time.
            include_superseded: Also superseded memories.
            min_relevance: Only hits at least this likely to be an answer (relevance, 0 to 1); fewer
                than k may come back.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.
            as_agent: Reviewers and admins only: recall as this agent (default: the token's).

        ``POST /v1/banks/{bank}/recall``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/recall",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "scope": scope,
                    "detail": detail,
                    "k": k,
                    "time_from": time_from,
                    "time_to": time_to,
                    "as_of": as_of,
                    "types": types,
                    "include_superseded": include_superseded,
                    "min_relevance": min_relevance,
                    "session": session,
                    "as_agent": as_agent,
                },
            ),
        )

    def recall_get(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        detail: Detail = "compact",
        k: int = 10,
        time_from: str | None = None,
        time_to: str | None = None,
        as_of: str | None = None,
        types: Sequence[Type] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
        session: str | None = None,
        as_agent: str | None = None,
    ) -> JsonObject:
        """Recall (query parameters).

        Best matches first. Compact hits (the default) carry what an answer needs: id, text,
        relevance (the calibrated chance, 0 to 1, that the hit is an answer; min_relevance drops the
        hits below a bar), occurred, source_ids, and superseded_by, conflicts and flashback when
        set; detail=full adds per-channel ranks, the whole unit and the rest. Collective scope (the
        default) is the bank, less other agents' private memories; personal is what the token's
        agent stated. No model call but the query's embedding.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            detail: compact (default): per hit id, text, relevance, occurred, source_ids and only
                the flags that are set (superseded_by, conflicts, flashback); full: every field of
                hit and unit.
            k: How many results.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            as_of: What was believed at that time.
            include_superseded: Also superseded memories.
            min_relevance: Only hits at least this likely to be an answer (relevance, 0 to 1); fewer
                than k may come back.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.
            as_agent: Reviewers and admins only: recall as this agent (default: the token's).

        ``GET /v1/banks/{bank}/recall``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/recall",
                path={
                    "bank": bank,
                },
                query={
                    "query": query,
                    "scope": scope,
                    "detail": detail,
                    "k": k,
                    "time_from": time_from,
                    "time_to": time_to,
                    "as_of": as_of,
                    "types": types,
                    "include_superseded": include_superseded,
                    "min_relevance": min_relevance,
                    "session": session,
                    "as_agent": as_agent,
                },
            ),
        )

    def context(
        self,
        bank: str,
        *,
        query: str,
        max_tokens: int = 800,
        scope: Scope = "collective",
        k: int = 20,
        as_of: str | None = None,
        time_from: str | None = None,
        time_to: str | None = None,
        types: Sequence[Type] | None = None,
        session: str | None = None,
    ) -> JsonObject:
        """Context block.

        A ready context block for a prompt, within max_tokens (characters / 4): one line per memory,
        each citing its source id in brackets, superseded and contested memories marked, newest
        first when the question is about the present. Returns text, tokens (used), max_tokens,
        order, items (memory id, source id, occurred, relevance, marks) and omitted (matches that
        did not fit).

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            max_tokens: The block's budget in tokens, counted as characters / 4.
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            k: How many hits to choose from.
            as_of: What was believed at that time.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.

        ``POST /v1/banks/{bank}/context``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/context",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "max_tokens": max_tokens,
                    "scope": scope,
                    "k": k,
                    "as_of": as_of,
                    "time_from": time_from,
                    "time_to": time_to,
                    "types": types,
                    "session": session,
                },
            ),
        )

    def context_get(
        self,
        bank: str,
        *,
        query: str,
        max_tokens: int = 800,
        scope: Scope = "collective",
        k: int = 20,
        as_of: str | None = None,
        time_from: str | None = None,
        time_to: str | None = None,
        types: Sequence[Type] | None = None,
        session: str | None = None,
    ) -> JsonObject:
        """Context block (query parameters).

        A ready context block for a prompt, within max_tokens (characters / 4): one line per memory,
        each citing its source id in brackets, superseded and contested memories marked, newest
        first when the question is about the present. Returns text, tokens (used), max_tokens,
        order, items (memory id, source id, occurred, relevance, marks) and omitted (matches that
        did not fit).

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            max_tokens: The block's budget in tokens, counted as characters / 4.
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            k: How many hits to choose from.
            as_of: What was believed at that time.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.

        ``GET /v1/banks/{bank}/context``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/context",
                path={
                    "bank": bank,
                },
                query={
                    "query": query,
                    "max_tokens": max_tokens,
                    "scope": scope,
                    "k": k,
                    "as_of": as_of,
                    "time_from": time_from,
                    "time_to": time_to,
                    "types": types,
                    "session": session,
                },
            ),
        )

    def chain(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        direction: Direction = "both",
        depth: int = 3,
    ) -> JsonObject:
        """Reasoning chain.

        The best match for the query and its why-edges: causes (causal), consequences (forward) or
        both.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).

        ``POST /v1/banks/{bank}/chain``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/chain",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "scope": scope,
                    "direction": direction,
                    "depth": depth,
                },
            ),
        )

    def connect(
        self,
        bank: str,
        *,
        a: str,
        b: str,
        type: str = "RELATES_TO",
        weight: float = 1.0,
        note: str = "",
    ) -> JsonObject:
        """Connect two memories.

        Link two memories (ids, or queries whose best match is taken) with a typed edge such as
        RELATES_TO, SUPPORTS or CAUSES.

        Args:
            bank: The bank (isolation unit).
            a: A natural-language query (at most 8,000 characters).
            b: A natural-language query (at most 8,000 characters).
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/connect``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/connect",
                path={
                    "bank": bank,
                },
                body={
                    "a": a,
                    "b": b,
                    "type": type,
                    "weight": weight,
                    "note": note,
                },
            ),
        )

    def concept(
        self,
        bank: str,
        name: str,
        *,
        scope: Scope = "collective",
        k: int = 20,
    ) -> JsonObject:
        """Memories about a concept.

        Memories that mention a named thing (an entity or one of its aliases).

        Args:
            name: The concept.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            k: How many memories.

        ``GET /v1/banks/{bank}/concepts/{name}``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/concepts/{name}",
                path={
                    "name": name,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                    "k": k,
                },
            ),
        )

    def queue(
        self,
        bank: str,
        *,
        status: Status = "pending_review",
        limit: int = 50,
    ) -> JsonObject:
        """The review queue.

        Claims by review status, newest first (pending_review by default). Each item is the
        statement that first said the claim, as said (`text`, `statement`, `unit_id`), its first
        evidence source (`source_id`), its author and when it was said (`said_at`), and the claim
        itself (`claim`: subject, attribute, value, both statuses, evidence).

        Args:
            bank: The bank (isolation unit).
            status: Which review status to list.
            limit: At most this many.

        ``GET /v1/banks/{bank}/review``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/review",
                path={
                    "bank": bank,
                },
                query={
                    "status": status,
                    "limit": limit,
                },
            ),
        )

    def worklist(
        self,
        bank: str,
        *,
        kind: Sequence[Kind] | None = None,
        author: str | None = None,
        text: str | None = None,
        sort: Sort = "newest",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """The review worklist.

        Only what waits for a person's decision (ADR 0048): open conflicts (`question`), pending
        claims with a live rival in their slot (`contested`), rejected values said again
        (`reasserted`) and sweep verdicts below the auto-apply bar (`proposal`); never what is
        superseded or settled. Each item is a card: `said` (the statement as said: text, author,
        source ids, occurred_at, recorded_at), `other` (the other side), `question`, and `actions`,
        the decisions that apply to its state. `counts` are per kind under the author and text
        filters; `total` the matches of the kinds asked. 404 for a bank that does not exist.

        Args:
            bank: The bank (isolation unit).
            kind: Keep these kinds (repeat the parameter); all by default.
            author: What this agent said.
            text: Said text contains this (any case).
            sort: newest or most_contested.
            limit: At most this many.
            offset: Skip this many.

        ``GET /v1/banks/{bank}/review/worklist``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/review/worklist",
                path={
                    "bank": bank,
                },
                query={
                    "kind": kind,
                    "author": author,
                    "text": text,
                    "sort": sort,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    def bulk(
        self,
        bank: str,
        *,
        ids: Sequence[str],
        decision: Decision,
        reason: str = "",
    ) -> JsonObject:
        """Approve or reject many cards.

        Each id is decided on its own (its own transaction) and answers its own result: `{id, ok,
        code, message}`; one that fails (decided meanwhile, no such action, not in this bank) leaves
        the others done. reject needs a `reason` (400, nothing decided). A sweep proposal is
        accepted (approve) or dismissed (reject).

        Args:
            bank: The bank (isolation unit).
            ids: The cards' ids (1 to 200).
            decision: approve (a proposal: accept) or reject (a proposal: dismiss).
            reason: Why: required for reject, kept with each decision.

        ``POST /v1/banks/{bank}/review/bulk``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/review/bulk",
                path={
                    "bank": bank,
                },
                body={
                    "ids": ids,
                    "decision": decision,
                    "reason": reason,
                },
            ),
        )

    def decide(
        self,
        bank: str,
        target_id: str,
        *,
        decision: DecideDecision,
        note: str = "",
        because: str | None = None,
    ) -> JsonObject:
        """Decide on a claim or memory.

        approve, reject (tombstones the value; the `note` is its required reason), supersede (by the
        live value of its slot), or restore (undoes the latest decision); `because` names the belief
        the decision rests on. 409 when the decision does not apply to its current state (supersede
        with nothing to supersede it), 400 for a rejection without a reason, 404 when `because`
        names no memory of the bank; nothing is written then.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            note: A free-text note kept with the decision (at most 4,000 characters).
            because: The belief (a memory id of this bank) the decision rests on: if it changes,
                reconsolidation re-examines the decision. Only for a memory, not a claim; 404 when
                no such memory is in the bank (nothing is written).

        ``POST /v1/banks/{bank}/review/{target_id}/decide``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/review/{target_id}/decide",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "decision": decision,
                    "note": note,
                    "because": because,
                },
            ),
        )

    def reject(
        self,
        bank: str,
        target_id: str,
        *,
        reason: str = "",
        because: str | None = None,
    ) -> JsonObject:
        """Reject a memory or claim.

        Its value is tombstoned: retained again later, it does not come back live. `because` names
        the belief the rejection rests on (the memory is then CONTESTED_BECAUSE it, and
        reconsolidation re-examines the rejection when it changes); 404 when it names no memory of
        the bank, and nothing is rejected. Answers the tombstone.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            reason: Why the value is wrong (required; kept on its tombstone).
            because: The belief (a memory id of this bank) the decision rests on: if it changes,
                reconsolidation re-examines the decision. Only for a memory, not a claim; 404 when
                no such memory is in the bank (nothing is written).

        ``POST /v1/banks/{bank}/memories/{target_id}/reject``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/memories/{target_id}/reject",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "reason": reason,
                    "because": because,
                },
            ),
        )

    def restore(
        self,
        bank: str,
        target_id: str,
        *,
        note: str = "",
    ) -> JsonObject:
        """Restore a memory or claim.

        Undo the latest decision (a rejection lifts its tombstone). 409 when there is nothing to
        restore.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/memories/{target_id}/restore``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/memories/{target_id}/restore",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "note": note,
                },
            ),
        )

    def rules(
        self,
        bank: str,
    ) -> JsonObject:
        """The memory charter and adopted rules.

        The charter in force (text and checked rules) and this bank's adopted rules.

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/rules``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/rules",
                path={
                    "bank": bank,
                },
            ),
        )

    def adopt_rule(
        self,
        bank: str,
        *,
        kind: str,
        decision: AdoptRuleDecision,
        attribute: str = "",
    ) -> JsonObject:
        """Adopt a proposed rule.

        After enough identical settlements of one kind of conflict, a person may adopt the rule they
        suggest. 409 when there are too few precedents.

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/rules``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/rules",
                path={
                    "bank": bank,
                },
                body={
                    "kind": kind,
                    "attribute": attribute,
                    "decision": decision,
                },
            ),
        )

    def reflect(
        self,
        bank: str,
        *,
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> JsonObject:
        """Reflect: consolidate the bank's evidence into observations.

        One reflect pass over the bank's live shared memories (ADR 0051): writes only the difference
        with the observations it holds (new, revised as a new version, retired) and answers the
        report: `evidence`, `created`, `revised` ([old, new] pairs), `retired`, `unchanged`,
        `skipped` ([group, why] pairs), `seconds`, `reason` (why nothing could be written) and the
        `disposition` used. A second call over unchanged evidence writes nothing. The body's
        `skepticism`, `literalism` and `max_cited` override the bank's disposition for this pass
        only (400 for a bad one). Reviewers and admins (the `reflect` operation needs the review
        capability); the caller is the actor audited.

        Args:
            bank: The bank (isolation unit).
            skepticism: The fewest evidence units an observation rests on.
            literalism: Statements verbatim (true) or compressed to their claims.
            max_cited: The most evidence units one observation cites.

        ``POST /v1/banks/{bank}/reflect``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/reflect",
                path={
                    "bank": bank,
                },
                body={
                    "skepticism": skepticism,
                    "literalism": literalism,
                    "max_cited": max_cited,
                },
            ),
        )

    def list_insights(
        self,
        bank: str,
        *,
        state: State | None = None,
        limit: int = 100,
    ) -> JsonObject:
        """The bank's insights, best first.

        `{bank, state, insights}`: insight units (network `insight`), best score first: each one's
        text names its chain of categories and its witnesses in order; `metadata.insight` holds the
        witnesses, hops, PMIs, score, state (proposed, verified, retired) and its history. Any token
        of the bank may read them.

        Args:
            bank: The bank (isolation unit).
            state: Only insights in this state.
            limit: At most this many.

        ``GET /v1/banks/{bank}/insights``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/insights",
                path={
                    "bank": bank,
                },
                query={
                    "state": state,
                    "limit": limit,
                },
            ),
        )

    def run_insights(
        self,
        bank: str,
        *,
        resume: bool = False,
    ) -> JsonObject:
        """One insight pass: categories, threads, new insights, verification.

        Tags the bank's untagged memories, finds threads, writes the new insights (at most the flood
        guard's `max_new`; above it the stage pauses for the bank until a run with `resume`) and
        verifies the ones held. Answers the pass's report (`created`, `verified`, `retired`,
        `candidates`, `held_back`, `paused`, `reason`, ...). A second call over unchanged memories
        writes nothing. Reviewers and admins; the caller is the actor audited.

        Args:
            bank: The bank (isolation unit).
            resume: Lift a pause the flood guard set on the bank, and run.

        ``POST /v1/banks/{bank}/insights/run``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/insights/run",
                path={
                    "bank": bank,
                },
                body={
                    "resume": resume,
                },
            ),
        )

    def verify_insights(
        self,
        bank: str,
        *,
        insight: str | None = None,
    ) -> JsonObject:
        """Verify the bank's insights (or one) against their witnesses now.

        Every proposed or verified insight (or only `insight`) judged against its witnesses: all
        live and still linking: verified; one rejected, superseded, archived or gone: retired with
        the reason. Answers the report (`verified`, `retired`). 404 for an insight the bank does not
        hold. Reviewers and admins.

        Args:
            bank: The bank (isolation unit).
            insight: Only this insight (its id).

        ``POST /v1/banks/{bank}/insights/verify``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/insights/verify",
                path={
                    "bank": bank,
                },
                body={
                    "insight": insight,
                },
            ),
        )

    def list_conflicts(
        self,
        bank: str,
        *,
        status: ListConflictsStatus = "open",
        limit: int = 100,
    ) -> JsonObject:
        """List conflicts.

        Disagreements between memories (open by default), each with both parties, its kind, the
        question it raises and, once settled, its resolution.

        Args:
            bank: The bank (isolation unit).
            status: open, resolved or all.
            limit: At most this many.

        ``GET /v1/banks/{bank}/conflicts``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/conflicts",
                path={
                    "bank": bank,
                },
                query={
                    "status": status,
                    "limit": limit,
                },
            ),
        )

    def resolve(
        self,
        bank: str,
        conflict_id: str,
        *,
        resolution: Resolution,
        note: str = "",
        winner: str | None = None,
        scope_a: str | None = None,
        scope_b: str | None = None,
    ) -> JsonObject:
        """Resolve a conflict.

        supersede (the winner replaces the other), reject (the other is wrong: rejected and
        tombstoned), not_conflict (both hold; the pair is never flagged again) or scoped_exception
        (both hold, each in its stated scope: give scope_a and scope_b). 409 when it is already
        resolved.

        Args:
            conflict_id: The conflict id.
            bank: The bank (isolation unit).
            resolution: supersede: the winner replaces the other; reject: the other is wrong;
                not_conflict: both hold; scoped_exception: both hold, each in its scope.
            note: A free-text note kept with the decision (at most 4,000 characters).
            winner: For supersede and reject: the memory that stands.
            scope_a: For scoped_exception.
            scope_b: For scoped_exception.

        ``POST /v1/banks/{bank}/conflicts/{conflict_id}/resolve``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/conflicts/{conflict_id}/resolve",
                path={
                    "conflict_id": conflict_id,
                    "bank": bank,
                },
                body={
                    "resolution": resolution,
                    "note": note,
                    "winner": winner,
                    "scope_a": scope_a,
                    "scope_b": scope_b,
                },
            ),
        )

    def resolve_contradiction(
        self,
        bank: str,
        *,
        from_id: str,
        to_id: str,
        decision: AdoptRuleDecision,
        note: str = "",
    ) -> JsonObject:
        """Answer a write's question (resolve_contradiction).

        A write that came back needs_clarification named the new memory (from_id) and the one it
        disputed (to_id). confirm: the new one replaces the old; retract: the new one is wrong;
        preference: both hold. Agents may answer for their own memories.

        Args:
            bank: The bank (isolation unit).
            from_id: The new memory (the one the question was about).
            to_id: The existing memory it disputed.
            decision: confirm: the new one replaces the old; retract: the new one is wrong;
                preference: both hold.
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/contradictions/resolve``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/contradictions/resolve",
                path={
                    "bank": bank,
                },
                body={
                    "from_id": from_id,
                    "to_id": to_id,
                    "decision": decision,
                    "note": note,
                },
            ),
        )

    def roster(
        self,
        bank: str,
    ) -> JsonObject:
        """The roster.

        Agents seen lately in the bank; the ones silent past the presence TTL are only counted
        (hidden_stale).

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/agents``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/agents",
                path={
                    "bank": bank,
                },
            ),
        )

    def enroll(
        self,
        bank: str,
        *,
        host: str | None = None,
    ) -> JsonObject:
        """Enroll this agent.

        Announce the token's agent to the bank's roster (its first heartbeat). 404 when the bank
        holds nothing yet.

        Args:
            bank: The bank (isolation unit).
            host: Where the agent runs (default: the server's host).

        ``POST /v1/banks/{bank}/agents/enroll``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/agents/enroll",
                path={
                    "bank": bank,
                },
                body={
                    "host": host,
                },
            ),
        )

    def heartbeat(
        self,
        bank: str,
        *,
        status: HeartbeatStatus = "active",
    ) -> JsonObject:
        """Heartbeat.

        Record that the token's agent is alive, with its status.

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/agents/heartbeat``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/agents/heartbeat",
                path={
                    "bank": bank,
                },
                body={
                    "status": status,
                },
            ),
        )

    def farewell(
        self,
        bank: str,
    ) -> JsonObject:
        """Farewell.

        The token's agent leaves the roster (its record stays: it anchors authorship).

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/agents/farewell``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks/{bank}/agents/farewell",
                path={
                    "bank": bank,
                },
            ),
        )

    def healthz(self) -> Health:
        """Liveness.

        No token needed. Answers {status: ok} while the server runs; says nothing about the store's
        content.

        ``GET /healthz``
        """
        return cast(
            Health,
            self._call(
                "GET",
                "/healthz",
            ),
        )

    def whoami(self) -> Identity:
        """Who the token is.

        The bank, agent and role the bearer token stands for.

        ``GET /v1/whoami``
        """
        return cast(
            Identity,
            self._call(
                "GET",
                "/v1/whoami",
            ),
        )

    def banks(self) -> JsonObject:
        """List banks.

        Every bank for an admin token for all banks; otherwise the token's bank, when it exists.

        ``GET /v1/banks``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks",
            ),
        )

    def create_bank(
        self,
        *,
        id: str,
        name: str | None = None,
    ) -> JsonObject:
        """Create a bank (admin).

        Makes a bank (201), or answers the existing one (200). A bank is made only this way, by
        `mneme banks create`, or by `create_bank: true` on a write: a mistyped bank elsewhere is a
        404 naming the banks the token may use. An admin token for every bank (`*`) or for that
        bank.

        Args:
            id: The bank's id.
            name: A label for people (default: the id).

        ``POST /v1/banks``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/banks",
                body={
                    "id": id,
                    "name": name,
                },
            ),
        )

    def stats(self) -> JsonObject:
        """Store statistics (admin).

        Counts of banks, sources, memories, entities, edges and embeddings by model, over the whole
        store: an admin token for every bank (`*`) only.

        ``GET /v1/stats``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/stats",
            ),
        )

    def audit_verify(
        self,
        *,
        bank: str | None = None,
    ) -> JsonObject:
        """Verify the audit hash chain (admin).

        Checks each bank's hash-chained mutation log for edits, deletions, reordering and
        truncation. ok=false names the first bad record.

        Args:
            bank: Only this bank.

        ``GET /v1/audit/verify``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/audit/verify",
                query={
                    "bank": bank,
                },
            ),
        )

    def audit_records(
        self,
        bank: str,
        *,
        limit: int = 100,
    ) -> JsonObject:
        """Recent audit records (admin).

        The newest mutation records of a bank (who, what, before, after, why), newest first.

        Args:
            bank: The bank (isolation unit).
            limit: At most this many.

        ``GET /v1/banks/{bank}/audit``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/audit",
                path={
                    "bank": bank,
                },
                query={
                    "limit": limit,
                },
            ),
        )

    def sensitive_policy(
        self,
        bank: str,
    ) -> JsonObject:
        """The bank's sensitive-data policy (admin).

        How writes to the bank treat secrets (api_key, token, private_key, password, card_number)
        and personal data (email, phone): the rules set on the bank, and the action (store, redact
        or refuse) each category and kind gets. Every finding is audited.

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/sensitive``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/banks/{bank}/sensitive",
                path={
                    "bank": bank,
                },
            ),
        )

    def set_sensitive_policy(
        self,
        bank: str,
        *,
        rules: Mapping[RulesKey, RulesValue],
        reason: str = "",
    ) -> JsonObject:
        """Set the bank's sensitive-data policy (admin).

        Lays the rules over the bank's policy (a rule set to default is dropped); audited as
        bank.configure with the token's agent as the actor. Creates the bank if it has not been
        written to yet.

        Args:
            bank: The bank (isolation unit).
            rules: Category (secret, personal) or kind -> store | redact | refuse; default drops the
                bank's rule.
            reason: Why (kept in the audit record).

        ``PUT /v1/banks/{bank}/sensitive``
        """
        return cast(
            JsonObject,
            self._call(
                "PUT",
                "/v1/banks/{bank}/sensitive",
                path={
                    "bank": bank,
                },
                body={
                    "rules": rules,
                    "reason": reason,
                },
            ),
        )

    def health(self) -> JsonObject:
        """The watchdog's report (admin).

        The background watchdog's latest pass (or a fresh check when none ran): severity (ok, warn,
        critical), each detector's verdict, the findings with their evidence and the reactions
        taken, the store's sizes, the ingest queue, the stages (a paused one says why), and the
        reactions so far by kind. An admin token for every bank.

        ``GET /v1/health``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/health",
            ),
        )

    def journal(
        self,
        *,
        limit: int = 50,
    ) -> JsonObject:
        """The watchdog's journal (admin).

        The newest reactions the watchdog journaled (heal, alert, hook, pause, resume, cleared),
        oldest first: detector, evidence, action and outcome of each.

        Args:
            limit: At most this many.

        ``GET /v1/health/journal``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/health/journal",
                query={
                    "limit": limit,
                },
            ),
        )

    def resume(
        self,
        stage: str,
    ) -> JsonObject:
        """Resume a paused stage (admin).

        Lets a background stage the watchdog paused for a flood run again (journaled with the
        token's agent). resumed=false: it was not paused.

        Args:
            stage: The stage.

        ``POST /v1/health/stages/{stage}/resume``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/health/stages/{stage}/resume",
                path={
                    "stage": stage,
                },
            ),
        )

    def get_config(self) -> JsonObject:
        """The configuration in force (admin).

        Every setting by its dotted path (secrets as ***, DSN passwords hidden) and the reloads so
        far: how many, the last one's report (applied settings, or the setting it refused), and the
        changed settings that wait for a restart. An admin token for every bank (`*`) only.

        ``GET /v1/admin/config``
        """
        return cast(
            JsonObject,
            self._call(
                "GET",
                "/v1/admin/config",
            ),
        )

    def reload_config(self) -> JsonObject:
        """Reload the configuration (admin).

        Reads the configuration layers again (defaults < file < environment) as SIGHUP does, and
        puts what changed in force without a restart: requests already running finish on the old
        clients. An invalid setting, or a client that cannot be built, changes nothing: ok is false
        and error names it. Settings that need a restart (the store, the embedder) are listed, not
        applied. An admin token for every bank only.

        ``POST /v1/admin/config/reload``
        """
        return cast(
            JsonObject,
            self._call(
                "POST",
                "/v1/admin/config/reload",
            ),
        )


class AsyncMnemeClient(AsyncWire):
    """The asynchronous client of mneme.

    ``AsyncMnemeClient(base_url, token=..., timeout=..., transport=..., http=...)``. Each method is
    one operation of the API; an error answer raises its ``mneme.client.ApiError`` (also the
    ``mneme.errors`` class of the failure: NotFound, InvalidInput, Refused...). Use it as an async
    context manager, or ``await aclose()`` it.
    """

    async def list_token_bank(
        self,
        *,
        bank: str | None = None,
        scope: Scope = "collective",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """List the memories of the token's bank.

        The newest memories of a bank, as the caller may see them. The bank defaults to the token's;
        an admin token for every bank must name one.

        Args:
            bank: The bank.
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            limit: At most this many.
            offset: Skip this many (paging).

        ``GET /v1/memories``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/memories",
                query={
                    "bank": bank,
                    "scope": scope,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    async def retain(
        self,
        bank: str,
        *,
        text: str,
        session: str | None = None,
        occurred_at: str | None = None,
        mentioned_at: str | None = None,
        source_id: str | None = None,
        source_kind: str | None = None,
        trust: float | None = None,
        supersedes: Sequence[str] | None = None,
        visibility: Visibility = "shared",
        metadata: Mapping[str, Any] | None = None,
        create_bank: bool = False,
        wait: float | None = None,
    ) -> JsonObject:
        """Retain: keep what happened.

        Stores the source, atomizes it into memories, links and judges them against what is known. A
        contradiction or a destructive change comes back as status=needs_clarification with
        questions; nothing known is overwritten. The author is the token's agent. With `wait`, a
        slow write answers 202 with a pending_id.

        Args:
            bank: The bank (isolation unit).
            text: What happened or was learned, as given (at most 100,000 characters).
            session: The conversation or session id.
            occurred_at: When it happened.
            mentioned_at: When it was said.
            source_id: Your own event id, kept as the evidence id (idempotent).
            source_kind: message, document, tool...
            trust: Trust in the source.
            supersedes: Source or memory ids this input corrects.
            visibility: "private": no other agent ever sees it, in any scope.
            metadata: Free JSON kept with the source (at most 20,000 characters).
            create_bank: Make the bank when it does not exist (a token for every bank; the token's
                own bank always exists). Without it an unknown bank is a 404.
            wait: Seconds to wait for the write to finish; when it takes longer the answer is
                status=accepted with a pending_id for the add-status route. Omitted: wait for it.

        ``POST /v1/banks/{bank}/memories``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/memories",
                path={
                    "bank": bank,
                },
                body={
                    "text": text,
                    "session": session,
                    "occurred_at": occurred_at,
                    "mentioned_at": mentioned_at,
                    "source_id": source_id,
                    "source_kind": source_kind,
                    "trust": trust,
                    "supersedes": supersedes,
                    "visibility": visibility,
                    "metadata": metadata,
                    "create_bank": create_bank,
                    "wait": wait,
                },
            ),
        )

    async def list_memories(
        self,
        bank: str,
        *,
        scope: Scope = "collective",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """List memories.

        The newest memories of the bank that the caller may see.

        Args:
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            limit: At most this many.
            offset: Skip this many (paging).

        ``GET /v1/banks/{bank}/memories``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/memories",
                path={
                    "bank": bank,
                },
                query={
                    "scope": scope,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    async def add_status(
        self,
        bank: str,
        pending_id: str,
    ) -> JsonObject:
        """Add status: where an accepted write stands.

        pending, processing, done (with its result) or failed.

        Args:
            pending_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/writes/{pending_id}``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/writes/{pending_id}",
                path={
                    "pending_id": pending_id,
                    "bank": bank,
                },
            ),
        )

    async def get_memory(
        self,
        bank: str,
        memory_id: str,
        *,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Get one memory.

        One memory unit with its provenance (evidence source ids, knowers, supersession pointers).
        404 when it is outside the caller's scope.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/memories/{memory_id}``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                },
            ),
        )

    async def update_memory(
        self,
        bank: str,
        memory_id: str,
        *,
        text: str,
        reason: str | None = None,
        occurred_at: str | None = None,
        source_id: str | None = None,
    ) -> JsonObject:
        """Update a memory (as a supersede).

        The new text supersedes the memory; the old one stays in history. A memory the charter
        protects is not superseded: the answer asks a person instead.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            text: What happened or was learned, as given (at most 100,000 characters).

        ``POST /v1/banks/{bank}/memories/{memory_id}/update``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/memories/{memory_id}/update",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                body={
                    "text": text,
                    "reason": reason,
                    "occurred_at": occurred_at,
                    "source_id": source_id,
                },
            ),
        )

    async def history(
        self,
        bank: str,
        memory_id: str,
    ) -> JsonObject:
        """History of a memory.

        Every recorded change of a unit, source, claim or conflict, oldest first.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/memories/{memory_id}/history``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}/history",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
            ),
        )

    async def graph(
        self,
        bank: str,
        memory_id: str,
        *,
        depth: int = 1,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Graph neighbourhood of a memory.

        The memories within `depth` typed edges of this one, and the edges, within the caller's
        scope.

        Args:
            memory_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            depth: How many edges out.
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/memories/{memory_id}/graph``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/memories/{memory_id}/graph",
                path={
                    "memory_id": memory_id,
                    "bank": bank,
                },
                query={
                    "depth": depth,
                    "scope": scope,
                },
            ),
        )

    async def source(
        self,
        bank: str,
        source_id: str,
        *,
        scope: Scope = "collective",
    ) -> JsonObject:
        """Get a source.

        The raw input a memory came from (its evidence), as it was given.

        Args:
            source_id: A memory (unit), source, claim or conflict id.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).

        ``GET /v1/banks/{bank}/sources/{source_id}``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/sources/{source_id}",
                path={
                    "source_id": source_id,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                },
            ),
        )

    async def recall(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        detail: Detail = "compact",
        k: int = 10,
        time_from: str | None = None,
        time_to: str | None = None,
        as_of: str | None = None,
        types: Sequence[Type] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
        session: str | None = None,
        as_agent: str | None = None,
    ) -> JsonObject:
        """Recall.

        Best matches first. Compact hits (the default) carry what an answer needs: id, text,
        relevance (the calibrated chance, 0 to 1, that the hit is an answer; min_relevance drops the
        hits below a bar), occurred, source_ids, and superseded_by, conflicts and flashback when
        set; detail=full adds per-channel ranks, the whole unit and the rest. Collective scope (the
        default) is the bank, less other agents' private memories; personal is what the token's
        agent stated. No model call but the query's embedding.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            detail: compact (default): per hit id, text, relevance, occurred, source_ids and only
                the flags that are set (superseded_by, conflicts, flashback); full: every field of
                hit and unit.
            k: How many results.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            as_of: What was believed at that time.
            include_superseded: Also superseded memories.
            min_relevance: Only hits at least this likely to be an answer (relevance, 0 to 1); fewer
                than k may come back.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.
            as_agent: Reviewers and admins only: recall as this agent (default: the token's).

        ``POST /v1/banks/{bank}/recall``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/recall",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "scope": scope,
                    "detail": detail,
                    "k": k,
                    "time_from": time_from,
                    "time_to": time_to,
                    "as_of": as_of,
                    "types": types,
                    "include_superseded": include_superseded,
                    "min_relevance": min_relevance,
                    "session": session,
                    "as_agent": as_agent,
                },
            ),
        )

    async def recall_get(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        detail: Detail = "compact",
        k: int = 10,
        time_from: str | None = None,
        time_to: str | None = None,
        as_of: str | None = None,
        types: Sequence[Type] | None = None,
        include_superseded: bool = True,
        min_relevance: float | None = None,
        session: str | None = None,
        as_agent: str | None = None,
    ) -> JsonObject:
        """Recall (query parameters).

        Best matches first. Compact hits (the default) carry what an answer needs: id, text,
        relevance (the calibrated chance, 0 to 1, that the hit is an answer; min_relevance drops the
        hits below a bar), occurred, source_ids, and superseded_by, conflicts and flashback when
        set; detail=full adds per-channel ranks, the whole unit and the rest. Collective scope (the
        default) is the bank, less other agents' private memories; personal is what the token's
        agent stated. No model call but the query's embedding.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            detail: compact (default): per hit id, text, relevance, occurred, source_ids and only
                the flags that are set (superseded_by, conflicts, flashback); full: every field of
                hit and unit.
            k: How many results.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            as_of: What was believed at that time.
            include_superseded: Also superseded memories.
            min_relevance: Only hits at least this likely to be an answer (relevance, 0 to 1); fewer
                than k may come back.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.
            as_agent: Reviewers and admins only: recall as this agent (default: the token's).

        ``GET /v1/banks/{bank}/recall``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/recall",
                path={
                    "bank": bank,
                },
                query={
                    "query": query,
                    "scope": scope,
                    "detail": detail,
                    "k": k,
                    "time_from": time_from,
                    "time_to": time_to,
                    "as_of": as_of,
                    "types": types,
                    "include_superseded": include_superseded,
                    "min_relevance": min_relevance,
                    "session": session,
                    "as_agent": as_agent,
                },
            ),
        )

    async def context(
        self,
        bank: str,
        *,
        query: str,
        max_tokens: int = 800,
        scope: Scope = "collective",
        k: int = 20,
        as_of: str | None = None,
        time_from: str | None = None,
        time_to: str | None = None,
        types: Sequence[Type] | None = None,
        session: str | None = None,
    ) -> JsonObject:
        """Context block.

        A ready context block for a prompt, within max_tokens (characters / 4): one line per memory,
        each citing its source id in brackets, superseded and contested memories marked, newest
        first when the question is about the present. Returns text, tokens (used), max_tokens,
        order, items (memory id, source id, occurred, relevance, marks) and omitted (matches that
        did not fit).

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            max_tokens: The block's budget in tokens, counted as characters / 4.
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            k: How many hits to choose from.
            as_of: What was believed at that time.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.

        ``POST /v1/banks/{bank}/context``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/context",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "max_tokens": max_tokens,
                    "scope": scope,
                    "k": k,
                    "as_of": as_of,
                    "time_from": time_from,
                    "time_to": time_to,
                    "types": types,
                    "session": session,
                },
            ),
        )

    async def context_get(
        self,
        bank: str,
        *,
        query: str,
        max_tokens: int = 800,
        scope: Scope = "collective",
        k: int = 20,
        as_of: str | None = None,
        time_from: str | None = None,
        time_to: str | None = None,
        types: Sequence[Type] | None = None,
        session: str | None = None,
    ) -> JsonObject:
        """Context block (query parameters).

        A ready context block for a prompt, within max_tokens (characters / 4): one line per memory,
        each citing its source id in brackets, superseded and contested memories marked, newest
        first when the question is about the present. Returns text, tokens (used), max_tokens,
        order, items (memory id, source id, occurred, relevance, marks) and omitted (matches that
        did not fit).

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).
            max_tokens: The block's budget in tokens, counted as characters / 4.
            scope: collective (default): the whole bank, less other agents' private memories;
                personal: what this agent stated.
            k: How many hits to choose from.
            as_of: What was believed at that time.
            time_from: Only what happened from then.
            time_to: Only what happened until then.
            session: Only the memories said in this session (the retain's session): a bank shared by
                many conversations, asked about one of them.

        ``GET /v1/banks/{bank}/context``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/context",
                path={
                    "bank": bank,
                },
                query={
                    "query": query,
                    "max_tokens": max_tokens,
                    "scope": scope,
                    "k": k,
                    "as_of": as_of,
                    "time_from": time_from,
                    "time_to": time_to,
                    "types": types,
                    "session": session,
                },
            ),
        )

    async def chain(
        self,
        bank: str,
        *,
        query: str,
        scope: Scope = "collective",
        direction: Direction = "both",
        depth: int = 3,
    ) -> JsonObject:
        """Reasoning chain.

        The best match for the query and its why-edges: causes (causal), consequences (forward) or
        both.

        Args:
            bank: The bank (isolation unit).
            query: A natural-language query (at most 8,000 characters).

        ``POST /v1/banks/{bank}/chain``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/chain",
                path={
                    "bank": bank,
                },
                body={
                    "query": query,
                    "scope": scope,
                    "direction": direction,
                    "depth": depth,
                },
            ),
        )

    async def connect(
        self,
        bank: str,
        *,
        a: str,
        b: str,
        type: str = "RELATES_TO",
        weight: float = 1.0,
        note: str = "",
    ) -> JsonObject:
        """Connect two memories.

        Link two memories (ids, or queries whose best match is taken) with a typed edge such as
        RELATES_TO, SUPPORTS or CAUSES.

        Args:
            bank: The bank (isolation unit).
            a: A natural-language query (at most 8,000 characters).
            b: A natural-language query (at most 8,000 characters).
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/connect``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/connect",
                path={
                    "bank": bank,
                },
                body={
                    "a": a,
                    "b": b,
                    "type": type,
                    "weight": weight,
                    "note": note,
                },
            ),
        )

    async def concept(
        self,
        bank: str,
        name: str,
        *,
        scope: Scope = "collective",
        k: int = 20,
    ) -> JsonObject:
        """Memories about a concept.

        Memories that mention a named thing (an entity or one of its aliases).

        Args:
            name: The concept.
            bank: The bank (isolation unit).
            scope: For agent tokens: personal (its own) or collective (the bank's shared).
            k: How many memories.

        ``GET /v1/banks/{bank}/concepts/{name}``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/concepts/{name}",
                path={
                    "name": name,
                    "bank": bank,
                },
                query={
                    "scope": scope,
                    "k": k,
                },
            ),
        )

    async def queue(
        self,
        bank: str,
        *,
        status: Status = "pending_review",
        limit: int = 50,
    ) -> JsonObject:
        """The review queue.

        Claims by review status, newest first (pending_review by default). Each item is the
        statement that first said the claim, as said (`text`, `statement`, `unit_id`), its first
        evidence source (`source_id`), its author and when it was said (`said_at`), and the claim
        itself (`claim`: subject, attribute, value, both statuses, evidence).

        Args:
            bank: The bank (isolation unit).
            status: Which review status to list.
            limit: At most this many.

        ``GET /v1/banks/{bank}/review``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/review",
                path={
                    "bank": bank,
                },
                query={
                    "status": status,
                    "limit": limit,
                },
            ),
        )

    async def worklist(
        self,
        bank: str,
        *,
        kind: Sequence[Kind] | None = None,
        author: str | None = None,
        text: str | None = None,
        sort: Sort = "newest",
        limit: int = 50,
        offset: int = 0,
    ) -> JsonObject:
        """The review worklist.

        Only what waits for a person's decision (ADR 0048): open conflicts (`question`), pending
        claims with a live rival in their slot (`contested`), rejected values said again
        (`reasserted`) and sweep verdicts below the auto-apply bar (`proposal`); never what is
        superseded or settled. Each item is a card: `said` (the statement as said: text, author,
        source ids, occurred_at, recorded_at), `other` (the other side), `question`, and `actions`,
        the decisions that apply to its state. `counts` are per kind under the author and text
        filters; `total` the matches of the kinds asked. 404 for a bank that does not exist.

        Args:
            bank: The bank (isolation unit).
            kind: Keep these kinds (repeat the parameter); all by default.
            author: What this agent said.
            text: Said text contains this (any case).
            sort: newest or most_contested.
            limit: At most this many.
            offset: Skip this many.

        ``GET /v1/banks/{bank}/review/worklist``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/review/worklist",
                path={
                    "bank": bank,
                },
                query={
                    "kind": kind,
                    "author": author,
                    "text": text,
                    "sort": sort,
                    "limit": limit,
                    "offset": offset,
                },
            ),
        )

    async def bulk(
        self,
        bank: str,
        *,
        ids: Sequence[str],
        decision: Decision,
        reason: str = "",
    ) -> JsonObject:
        """Approve or reject many cards.

        Each id is decided on its own (its own transaction) and answers its own result: `{id, ok,
        code, message}`; one that fails (decided meanwhile, no such action, not in this bank) leaves
        the others done. reject needs a `reason` (400, nothing decided). A sweep proposal is
        accepted (approve) or dismissed (reject).

        Args:
            bank: The bank (isolation unit).
            ids: The cards' ids (1 to 200).
            decision: approve (a proposal: accept) or reject (a proposal: dismiss).
            reason: Why: required for reject, kept with each decision.

        ``POST /v1/banks/{bank}/review/bulk``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/review/bulk",
                path={
                    "bank": bank,
                },
                body={
                    "ids": ids,
                    "decision": decision,
                    "reason": reason,
                },
            ),
        )

    async def decide(
        self,
        bank: str,
        target_id: str,
        *,
        decision: DecideDecision,
        note: str = "",
        because: str | None = None,
    ) -> JsonObject:
        """Decide on a claim or memory.

        approve, reject (tombstones the value; the `note` is its required reason), supersede (by the
        live value of its slot), or restore (undoes the latest decision); `because` names the belief
        the decision rests on. 409 when the decision does not apply to its current state (supersede
        with nothing to supersede it), 400 for a rejection without a reason, 404 when `because`
        names no memory of the bank; nothing is written then.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            note: A free-text note kept with the decision (at most 4,000 characters).
            because: The belief (a memory id of this bank) the decision rests on: if it changes,
                reconsolidation re-examines the decision. Only for a memory, not a claim; 404 when
                no such memory is in the bank (nothing is written).

        ``POST /v1/banks/{bank}/review/{target_id}/decide``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/review/{target_id}/decide",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "decision": decision,
                    "note": note,
                    "because": because,
                },
            ),
        )

    async def reject(
        self,
        bank: str,
        target_id: str,
        *,
        reason: str = "",
        because: str | None = None,
    ) -> JsonObject:
        """Reject a memory or claim.

        Its value is tombstoned: retained again later, it does not come back live. `because` names
        the belief the rejection rests on (the memory is then CONTESTED_BECAUSE it, and
        reconsolidation re-examines the rejection when it changes); 404 when it names no memory of
        the bank, and nothing is rejected. Answers the tombstone.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            reason: Why the value is wrong (required; kept on its tombstone).
            because: The belief (a memory id of this bank) the decision rests on: if it changes,
                reconsolidation re-examines the decision. Only for a memory, not a claim; 404 when
                no such memory is in the bank (nothing is written).

        ``POST /v1/banks/{bank}/memories/{target_id}/reject``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/memories/{target_id}/reject",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "reason": reason,
                    "because": because,
                },
            ),
        )

    async def restore(
        self,
        bank: str,
        target_id: str,
        *,
        note: str = "",
    ) -> JsonObject:
        """Restore a memory or claim.

        Undo the latest decision (a rejection lifts its tombstone). 409 when there is nothing to
        restore.

        Args:
            target_id: A claim or memory (unit) id.
            bank: The bank (isolation unit).
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/memories/{target_id}/restore``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/memories/{target_id}/restore",
                path={
                    "target_id": target_id,
                    "bank": bank,
                },
                body={
                    "note": note,
                },
            ),
        )

    async def rules(
        self,
        bank: str,
    ) -> JsonObject:
        """The memory charter and adopted rules.

        The charter in force (text and checked rules) and this bank's adopted rules.

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/rules``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/rules",
                path={
                    "bank": bank,
                },
            ),
        )

    async def adopt_rule(
        self,
        bank: str,
        *,
        kind: str,
        decision: AdoptRuleDecision,
        attribute: str = "",
    ) -> JsonObject:
        """Adopt a proposed rule.

        After enough identical settlements of one kind of conflict, a person may adopt the rule they
        suggest. 409 when there are too few precedents.

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/rules``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/rules",
                path={
                    "bank": bank,
                },
                body={
                    "kind": kind,
                    "attribute": attribute,
                    "decision": decision,
                },
            ),
        )

    async def reflect(
        self,
        bank: str,
        *,
        skepticism: int | None = None,
        literalism: bool | None = None,
        max_cited: int | None = None,
    ) -> JsonObject:
        """Reflect: consolidate the bank's evidence into observations.

        One reflect pass over the bank's live shared memories (ADR 0051): writes only the difference
        with the observations it holds (new, revised as a new version, retired) and answers the
        report: `evidence`, `created`, `revised` ([old, new] pairs), `retired`, `unchanged`,
        `skipped` ([group, why] pairs), `seconds`, `reason` (why nothing could be written) and the
        `disposition` used. A second call over unchanged evidence writes nothing. The body's
        `skepticism`, `literalism` and `max_cited` override the bank's disposition for this pass
        only (400 for a bad one). Reviewers and admins (the `reflect` operation needs the review
        capability); the caller is the actor audited.

        Args:
            bank: The bank (isolation unit).
            skepticism: The fewest evidence units an observation rests on.
            literalism: Statements verbatim (true) or compressed to their claims.
            max_cited: The most evidence units one observation cites.

        ``POST /v1/banks/{bank}/reflect``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/reflect",
                path={
                    "bank": bank,
                },
                body={
                    "skepticism": skepticism,
                    "literalism": literalism,
                    "max_cited": max_cited,
                },
            ),
        )

    async def list_insights(
        self,
        bank: str,
        *,
        state: State | None = None,
        limit: int = 100,
    ) -> JsonObject:
        """The bank's insights, best first.

        `{bank, state, insights}`: insight units (network `insight`), best score first: each one's
        text names its chain of categories and its witnesses in order; `metadata.insight` holds the
        witnesses, hops, PMIs, score, state (proposed, verified, retired) and its history. Any token
        of the bank may read them.

        Args:
            bank: The bank (isolation unit).
            state: Only insights in this state.
            limit: At most this many.

        ``GET /v1/banks/{bank}/insights``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/insights",
                path={
                    "bank": bank,
                },
                query={
                    "state": state,
                    "limit": limit,
                },
            ),
        )

    async def run_insights(
        self,
        bank: str,
        *,
        resume: bool = False,
    ) -> JsonObject:
        """One insight pass: categories, threads, new insights, verification.

        Tags the bank's untagged memories, finds threads, writes the new insights (at most the flood
        guard's `max_new`; above it the stage pauses for the bank until a run with `resume`) and
        verifies the ones held. Answers the pass's report (`created`, `verified`, `retired`,
        `candidates`, `held_back`, `paused`, `reason`, ...). A second call over unchanged memories
        writes nothing. Reviewers and admins; the caller is the actor audited.

        Args:
            bank: The bank (isolation unit).
            resume: Lift a pause the flood guard set on the bank, and run.

        ``POST /v1/banks/{bank}/insights/run``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/insights/run",
                path={
                    "bank": bank,
                },
                body={
                    "resume": resume,
                },
            ),
        )

    async def verify_insights(
        self,
        bank: str,
        *,
        insight: str | None = None,
    ) -> JsonObject:
        """Verify the bank's insights (or one) against their witnesses now.

        Every proposed or verified insight (or only `insight`) judged against its witnesses: all
        live and still linking: verified; one rejected, superseded, archived or gone: retired with
        the reason. Answers the report (`verified`, `retired`). 404 for an insight the bank does not
        hold. Reviewers and admins.

        Args:
            bank: The bank (isolation unit).
            insight: Only this insight (its id).

        ``POST /v1/banks/{bank}/insights/verify``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/insights/verify",
                path={
                    "bank": bank,
                },
                body={
                    "insight": insight,
                },
            ),
        )

    async def list_conflicts(
        self,
        bank: str,
        *,
        status: ListConflictsStatus = "open",
        limit: int = 100,
    ) -> JsonObject:
        """List conflicts.

        Disagreements between memories (open by default), each with both parties, its kind, the
        question it raises and, once settled, its resolution.

        Args:
            bank: The bank (isolation unit).
            status: open, resolved or all.
            limit: At most this many.

        ``GET /v1/banks/{bank}/conflicts``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/conflicts",
                path={
                    "bank": bank,
                },
                query={
                    "status": status,
                    "limit": limit,
                },
            ),
        )

    async def resolve(
        self,
        bank: str,
        conflict_id: str,
        *,
        resolution: Resolution,
        note: str = "",
        winner: str | None = None,
        scope_a: str | None = None,
        scope_b: str | None = None,
    ) -> JsonObject:
        """Resolve a conflict.

        supersede (the winner replaces the other), reject (the other is wrong: rejected and
        tombstoned), not_conflict (both hold; the pair is never flagged again) or scoped_exception
        (both hold, each in its stated scope: give scope_a and scope_b). 409 when it is already
        resolved.

        Args:
            conflict_id: The conflict id.
            bank: The bank (isolation unit).
            resolution: supersede: the winner replaces the other; reject: the other is wrong;
                not_conflict: both hold; scoped_exception: both hold, each in its scope.
            note: A free-text note kept with the decision (at most 4,000 characters).
            winner: For supersede and reject: the memory that stands.
            scope_a: For scoped_exception.
            scope_b: For scoped_exception.

        ``POST /v1/banks/{bank}/conflicts/{conflict_id}/resolve``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/conflicts/{conflict_id}/resolve",
                path={
                    "conflict_id": conflict_id,
                    "bank": bank,
                },
                body={
                    "resolution": resolution,
                    "note": note,
                    "winner": winner,
                    "scope_a": scope_a,
                    "scope_b": scope_b,
                },
            ),
        )

    async def resolve_contradiction(
        self,
        bank: str,
        *,
        from_id: str,
        to_id: str,
        decision: AdoptRuleDecision,
        note: str = "",
    ) -> JsonObject:
        """Answer a write's question (resolve_contradiction).

        A write that came back needs_clarification named the new memory (from_id) and the one it
        disputed (to_id). confirm: the new one replaces the old; retract: the new one is wrong;
        preference: both hold. Agents may answer for their own memories.

        Args:
            bank: The bank (isolation unit).
            from_id: The new memory (the one the question was about).
            to_id: The existing memory it disputed.
            decision: confirm: the new one replaces the old; retract: the new one is wrong;
                preference: both hold.
            note: A free-text note kept with the decision (at most 4,000 characters).

        ``POST /v1/banks/{bank}/contradictions/resolve``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/contradictions/resolve",
                path={
                    "bank": bank,
                },
                body={
                    "from_id": from_id,
                    "to_id": to_id,
                    "decision": decision,
                    "note": note,
                },
            ),
        )

    async def roster(
        self,
        bank: str,
    ) -> JsonObject:
        """The roster.

        Agents seen lately in the bank; the ones silent past the presence TTL are only counted
        (hidden_stale).

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/agents``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/agents",
                path={
                    "bank": bank,
                },
            ),
        )

    async def enroll(
        self,
        bank: str,
        *,
        host: str | None = None,
    ) -> JsonObject:
        """Enroll this agent.

        Announce the token's agent to the bank's roster (its first heartbeat). 404 when the bank
        holds nothing yet.

        Args:
            bank: The bank (isolation unit).
            host: Where the agent runs (default: the server's host).

        ``POST /v1/banks/{bank}/agents/enroll``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/agents/enroll",
                path={
                    "bank": bank,
                },
                body={
                    "host": host,
                },
            ),
        )

    async def heartbeat(
        self,
        bank: str,
        *,
        status: HeartbeatStatus = "active",
    ) -> JsonObject:
        """Heartbeat.

        Record that the token's agent is alive, with its status.

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/agents/heartbeat``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/agents/heartbeat",
                path={
                    "bank": bank,
                },
                body={
                    "status": status,
                },
            ),
        )

    async def farewell(
        self,
        bank: str,
    ) -> JsonObject:
        """Farewell.

        The token's agent leaves the roster (its record stays: it anchors authorship).

        Args:
            bank: The bank (isolation unit).

        ``POST /v1/banks/{bank}/agents/farewell``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks/{bank}/agents/farewell",
                path={
                    "bank": bank,
                },
            ),
        )

    async def healthz(self) -> Health:
        """Liveness.

        No token needed. Answers {status: ok} while the server runs; says nothing about the store's
        content.

        ``GET /healthz``
        """
        return cast(
            Health,
            await self._call(
                "GET",
                "/healthz",
            ),
        )

    async def whoami(self) -> Identity:
        """Who the token is.

        The bank, agent and role the bearer token stands for.

        ``GET /v1/whoami``
        """
        return cast(
            Identity,
            await self._call(
                "GET",
                "/v1/whoami",
            ),
        )

    async def banks(self) -> JsonObject:
        """List banks.

        Every bank for an admin token for all banks; otherwise the token's bank, when it exists.

        ``GET /v1/banks``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks",
            ),
        )

    async def create_bank(
        self,
        *,
        id: str,
        name: str | None = None,
    ) -> JsonObject:
        """Create a bank (admin).

        Makes a bank (201), or answers the existing one (200). A bank is made only this way, by
        `mneme banks create`, or by `create_bank: true` on a write: a mistyped bank elsewhere is a
        404 naming the banks the token may use. An admin token for every bank (`*`) or for that
        bank.

        Args:
            id: The bank's id.
            name: A label for people (default: the id).

        ``POST /v1/banks``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/banks",
                body={
                    "id": id,
                    "name": name,
                },
            ),
        )

    async def stats(self) -> JsonObject:
        """Store statistics (admin).

        Counts of banks, sources, memories, entities, edges and embeddings by model, over the whole
        store: an admin token for every bank (`*`) only.

        ``GET /v1/stats``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/stats",
            ),
        )

    async def audit_verify(
        self,
        *,
        bank: str | None = None,
    ) -> JsonObject:
        """Verify the audit hash chain (admin).

        Checks each bank's hash-chained mutation log for edits, deletions, reordering and
        truncation. ok=false names the first bad record.

        Args:
            bank: Only this bank.

        ``GET /v1/audit/verify``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/audit/verify",
                query={
                    "bank": bank,
                },
            ),
        )

    async def audit_records(
        self,
        bank: str,
        *,
        limit: int = 100,
    ) -> JsonObject:
        """Recent audit records (admin).

        The newest mutation records of a bank (who, what, before, after, why), newest first.

        Args:
            bank: The bank (isolation unit).
            limit: At most this many.

        ``GET /v1/banks/{bank}/audit``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/audit",
                path={
                    "bank": bank,
                },
                query={
                    "limit": limit,
                },
            ),
        )

    async def sensitive_policy(
        self,
        bank: str,
    ) -> JsonObject:
        """The bank's sensitive-data policy (admin).

        How writes to the bank treat secrets (api_key, token, private_key, password, card_number)
        and personal data (email, phone): the rules set on the bank, and the action (store, redact
        or refuse) each category and kind gets. Every finding is audited.

        Args:
            bank: The bank (isolation unit).

        ``GET /v1/banks/{bank}/sensitive``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/banks/{bank}/sensitive",
                path={
                    "bank": bank,
                },
            ),
        )

    async def set_sensitive_policy(
        self,
        bank: str,
        *,
        rules: Mapping[RulesKey, RulesValue],
        reason: str = "",
    ) -> JsonObject:
        """Set the bank's sensitive-data policy (admin).

        Lays the rules over the bank's policy (a rule set to default is dropped); audited as
        bank.configure with the token's agent as the actor. Creates the bank if it has not been
        written to yet.

        Args:
            bank: The bank (isolation unit).
            rules: Category (secret, personal) or kind -> store | redact | refuse; default drops the
                bank's rule.
            reason: Why (kept in the audit record).

        ``PUT /v1/banks/{bank}/sensitive``
        """
        return cast(
            JsonObject,
            await self._call(
                "PUT",
                "/v1/banks/{bank}/sensitive",
                path={
                    "bank": bank,
                },
                body={
                    "rules": rules,
                    "reason": reason,
                },
            ),
        )

    async def health(self) -> JsonObject:
        """The watchdog's report (admin).

        The background watchdog's latest pass (or a fresh check when none ran): severity (ok, warn,
        critical), each detector's verdict, the findings with their evidence and the reactions
        taken, the store's sizes, the ingest queue, the stages (a paused one says why), and the
        reactions so far by kind. An admin token for every bank.

        ``GET /v1/health``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/health",
            ),
        )

    async def journal(
        self,
        *,
        limit: int = 50,
    ) -> JsonObject:
        """The watchdog's journal (admin).

        The newest reactions the watchdog journaled (heal, alert, hook, pause, resume, cleared),
        oldest first: detector, evidence, action and outcome of each.

        Args:
            limit: At most this many.

        ``GET /v1/health/journal``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/health/journal",
                query={
                    "limit": limit,
                },
            ),
        )

    async def resume(
        self,
        stage: str,
    ) -> JsonObject:
        """Resume a paused stage (admin).

        Lets a background stage the watchdog paused for a flood run again (journaled with the
        token's agent). resumed=false: it was not paused.

        Args:
            stage: The stage.

        ``POST /v1/health/stages/{stage}/resume``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/health/stages/{stage}/resume",
                path={
                    "stage": stage,
                },
            ),
        )

    async def get_config(self) -> JsonObject:
        """The configuration in force (admin).

        Every setting by its dotted path (secrets as ***, DSN passwords hidden) and the reloads so
        far: how many, the last one's report (applied settings, or the setting it refused), and the
        changed settings that wait for a restart. An admin token for every bank (`*`) only.

        ``GET /v1/admin/config``
        """
        return cast(
            JsonObject,
            await self._call(
                "GET",
                "/v1/admin/config",
            ),
        )

    async def reload_config(self) -> JsonObject:
        """Reload the configuration (admin).

        Reads the configuration layers again (defaults < file < environment) as SIGHUP does, and
        puts what changed in force without a restart: requests already running finish on the old
        clients. An invalid setting, or a client that cannot be built, changes nothing: ok is false
        and error names it. Settings that need a restart (the store, the embedder) are listed, not
        applied. An admin token for every bank only.

        ``POST /v1/admin/config/reload``
        """
        return cast(
            JsonObject,
            await self._call(
                "POST",
                "/v1/admin/config/reload",
            ),
        )
