"""The claim layer on the write path: each atom's subject-attribute-value joins a claim.

The same claim key from another source appends evidence and bumps the count; the same slot
with another value is recorded in both claims' contradiction refs (the conflict itself is
opened by the write path's judgement, which knows the units involved).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from mneme.core.claims import Claim, is_single_valued
from mneme.core.keys import claim_key, slot_key
from mneme.core.model import ClaimRecord, ClaimStatus, ReviewStatus
from mneme.ids import new_id
from mneme.store.protocol import ClaimChanges, Trust


class ClaimsStore(Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    trust: Trust


def keys_of(claim: Claim) -> tuple[str, str]:
    """(claim_key, slot_key): a negated claim is another value of the same slot."""
    value = ("not " if claim.negated else "") + claim.value
    return claim_key(claim.subject, claim.attribute, value), slot_key(
        claim.subject, claim.attribute
    )


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    claim: ClaimRecord
    created: bool
    rivals: tuple[ClaimRecord, ...]  # live claims with another value in the same slot


def record(
    store: ClaimsStore,
    bank_id: str,
    unit_id: str,
    source_id: str,
    claim: Claim,
    now: dt.datetime,
    owner: str = "",
) -> ClaimOutcome:
    """Join a unit's claim: new evidence for a known claim, or a new pending claim.

    ``owner`` (a private unit's author) keeps the claim apart from everyone else's: a private
    unit never adds evidence to, or a rival value against, a claim others can see.
    """
    ckey, skey = keys_of(claim)
    if owner:
        ckey, skey = f"{ckey}|private:{owner}", f"{skey}|private:{owner}"
    found = store.trust.find_claims(bank_id, claim_key=ckey)
    if found:
        current = store.trust.update_claim(
            bank_id,
            found[0].id,
            ClaimChanges(add_evidence_refs=(source_id, unit_id), last_evidence_at=now),
            actor="system",
            reason="the same claim from another source",
            now=now,
        )
        store.trust.link_claim_unit(bank_id, current.id, unit_id)
        rivals = _rivals(store, bank_id, current) if is_single_valued(claim) else ()
        return ClaimOutcome(current, False, rivals)
    record_ = ClaimRecord(
        id=new_id("clm_"),
        bank_id=bank_id,
        claim_key=ckey,
        slot_key=skey,
        subject=claim.subject,
        attribute=claim.attribute,
        value=claim.value,
        negated=claim.negated,
        status=ClaimStatus.ACTIVE,
        review_status=ReviewStatus.PENDING_REVIEW,
        evidence_count=1,
        evidence_refs=(source_id, unit_id),
        contradiction_refs=(),
        first_evidence_at=now,
        last_evidence_at=now,
        created_at=now,
        updated_at=now,
    )
    store.trust.put_claim(record_)
    store.trust.link_claim_unit(bank_id, record_.id, unit_id)
    rivals = _rivals(store, bank_id, record_) if is_single_valued(claim) else ()
    if rivals:
        record_ = store.trust.update_claim(
            bank_id,
            record_.id,
            ClaimChanges(add_contradiction_refs=tuple(r.id for r in rivals)),
            actor="system",
            reason="another value in the same slot",
            now=now,
        )
        for rival in rivals:
            store.trust.update_claim(
                bank_id,
                rival.id,
                ClaimChanges(add_contradiction_refs=(record_.id,)),
                actor="system",
                reason="another value in the same slot",
                now=now,
            )
    return ClaimOutcome(record_, True, rivals)


def _rivals(store: ClaimsStore, bank_id: str, claim: ClaimRecord) -> tuple[ClaimRecord, ...]:
    return tuple(
        c
        for c in store.trust.find_claims(bank_id, slot_key=claim.slot_key)
        if c.id != claim.id and c.status == ClaimStatus.ACTIVE
    )
