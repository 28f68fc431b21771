"""An audit entry sealed for the chain, the same way on every backend: its before and after
content as stored JSON, their digests, and the hash that links it to the previous entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mneme.core.chain import digest, entry_hash
from mneme.store.codec import dumps


@dataclass(frozen=True, slots=True)
class Sealed:
    before: str | None
    after: str | None
    before_sha: str | None
    after_sha: str | None
    hash: str


def seal(
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
    before_sha, after_sha = digest(before_s), digest(after_s)
    return Sealed(
        before_s,
        after_s,
        before_sha,
        after_sha,
        entry_hash(
            prev,
            bank_id=bank_id,
            at=at,
            actor=actor,
            op=op,
            target=target,
            before_sha=before_sha,
            after_sha=after_sha,
            reason=reason,
        ),
    )
