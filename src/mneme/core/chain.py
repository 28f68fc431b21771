"""The audit hash chain: each record's hash covers its content and the previous record's hash.

Editing, deleting or reordering any record breaks the chain from that point on, which
``verify_chain`` reports with the first broken sequence number.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64


def canonical(value: Any) -> str:
    """Stable JSON: sorted keys, no spaces, so one record always hashes the same."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def record_hash(prev_hash: str, fields: Mapping[str, Any]) -> str:
    return hashlib.sha256((prev_hash + canonical(fields)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainReport:
    ok: bool
    records: int
    first_bad_seq: int | None = None
    problem: str = ""


def verify_chain(rows: Iterable[tuple[int, str, str, Mapping[str, Any]]]) -> ChainReport:
    """Check (seq, prev_hash, hash, fields) rows of one chain, in sequence order."""
    expected_prev = GENESIS
    n = 0
    last_seq = 0
    for seq, prev_hash, stored_hash, fields in rows:
        n += 1
        if seq <= last_seq:
            return ChainReport(False, n, seq, f"record {seq} is out of order")
        last_seq = seq
        if prev_hash != expected_prev:
            return ChainReport(
                False,
                n,
                seq,
                f"record {seq} does not follow its predecessor "
                "(a record was deleted, inserted or reordered)",
            )
        if record_hash(prev_hash, fields) != stored_hash:
            return ChainReport(False, n, seq, f"record {seq} was edited after it was written")
        expected_prev = stored_hash
    return ChainReport(True, n)
