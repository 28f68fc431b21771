"""An audit entry sealed for the chain, the same way on every backend: its content as stored
JSON, the digests of its content, and the keyed hash that links it to the previous entry.

Also what both backends share about sealing data rows (ADR 0035): which tables are sealed,
and the ``rows`` map a transaction's last record carries (table -> id -> state digest, or
null for a row the transaction deleted).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mneme.core.audit_chain import PURGE_OP, MacKey, canonical, digest, keyed_hash
from mneme.errors import BackendUnavailable
from mneme.store.codec import dumps

#: Data tables whose every row is tied to the log by the digest of its state: a change to
#: any of them outside mneme is found by ``audit verify``. Rows written by any statement on
#: the store's writing connection are caught (triggers), so no write path can forget them.
SEALED_TABLES = ("sources", "units", "claims", "tombstones", "conflicts")

#: The schema version that keyed the chain: a store is sealed as found only by the open that
#: migrates it there.
KEYED_SCHEMA = 14


class AuditKeyMissing(BackendUnavailable):
    """The store's audit key is not available, so nothing can be written to its chain."""


@dataclass(frozen=True, slots=True)
class Sealed:
    before: str | None
    after: str | None
    reason: str | None  # None: the reason is kept only as its digest (a purge's legal ground)
    before_sha: str | None
    after_sha: str | None
    reason_sha: str | None
    hash: str


def seal(
    key: MacKey,
    prev: str,
    *,
    bank_id: str,
    at: str | None,
    actor: str,
    op: str,
    target: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    reason: str,
) -> Sealed:
    before_s = None if before is None else dumps(dict(before))
    after_s = None if after is None else dumps(dict(after))
    before_sha, after_sha, reason_sha = digest(before_s), digest(after_s), digest(reason)
    return Sealed(
        before_s,
        after_s,
        # A purge's reason names the legal ground and often the data subject: only its digest
        # is kept, which still proves which ground was given (ADR 0035).
        None if op == PURGE_OP else reason,
        before_sha,
        after_sha,
        reason_sha,
        keyed_hash(
            key,
            prev,
            bank_id=bank_id,
            at=at,
            actor=actor,
            op=op,
            target=target,
            before_sha=before_sha,
            after_sha=after_sha,
            reason_sha=reason_sha,
            rows_sha=None,
        ),
    )


def rows_map(states: Mapping[str, Mapping[str, str | None]]) -> str:
    """The stored ``rows`` of a record: canonical JSON, so its digest is stable."""
    return canonical({t: dict(ids) for t, ids in sorted(states.items()) if ids})


_EMPTY_SHA = digest("")


def stored_reason(reason: str | None, reason_sha: str | None) -> str | None:
    """The reason as the chain sees it: None when only its digest is kept (erased by a purge,
    or a purge's own legal ground). An erased reason is stored as '' (the column is NOT NULL)."""
    if not reason and reason_sha and reason_sha != _EMPTY_SHA:
        return None
    return reason
