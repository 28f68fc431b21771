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


#: Content-bearing fields: the chain covers their digests, not their text, so a legal purge can
#: erase the text and keep the digest, and the chain still verifies (ADR 0008).
CONTENT_FIELDS = ("before", "after")


def digest(value: str | None) -> str | None:
    return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()


def chained_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """What the hash covers: every field, with content fields replaced by their digests.

    ``fields`` may carry ``<name>_sha`` digests kept beside erased content; they stand in for
    the content when it is gone.
    """
    out = {k: v for k, v in fields.items() if not k.endswith("_sha") and k != "purged_at"}
    for name in CONTENT_FIELDS:
        if name in out:
            stored = fields.get(f"{name}_sha")
            out[name] = stored if out[name] is None and stored else digest(out[name])
    return out


def record_hash(prev_hash: str, fields: Mapping[str, Any]) -> str:
    payload = canonical(chained_fields(fields))
    return hashlib.sha256((prev_hash + payload).encode("utf-8")).hexdigest()


_string = json.encoder.encode_basestring  # what ``canonical`` writes for a str


def entry_hash(
    prev_hash: str,
    *,
    bank_id: str,
    at: str | None,
    actor: str,
    op: str,
    target: str,
    before_sha: str | None,
    after_sha: str | None,
    reason: str,
) -> str:
    """``record_hash`` of a new entry whose content digests are already known.

    The same bytes as ``record_hash(prev_hash, fields)``: the canonical JSON of the chained
    fields (sorted keys, no spaces), written directly. A store appends an entry for every
    mutation, and the general encoder and a second digest of each content field were most of
    that entry's cost. Anything but text in a field falls back to ``record_hash``.
    """
    values = (actor, after_sha, at, bank_id, before_sha, op, reason, target)
    if not all(v is None or type(v) is str for v in values):
        fields = {
            "bank_id": bank_id,
            "at": at,
            "actor": actor,
            "op": op,
            "target": target,
            "before": None,
            "after": None,
            "reason": reason,
            "before_sha": before_sha,
            "after_sha": after_sha,
        }
        return record_hash(prev_hash, fields)
    parts = [
        f'"{key}":{"null" if value is None else _string(value)}'
        for key, value in zip(_ENTRY_KEYS, values, strict=True)
    ]
    payload = "{" + ",".join(parts) + "}"
    return hashlib.sha256((prev_hash + payload).encode("utf-8")).hexdigest()


#: The chained fields of an entry in canonical (sorted) order.
_ENTRY_KEYS = ("actor", "after", "at", "bank_id", "before", "op", "reason", "target")


def content_intact(fields: Mapping[str, Any]) -> bool:
    """Stored content matches the digest kept beside it; erased content only by a purge."""
    for name in CONTENT_FIELDS:
        stored = fields.get(f"{name}_sha")
        if stored and fields.get(name) is not None and digest(fields[name]) != stored:
            return False
        if stored and fields.get(name) is None and not fields.get("purged_at"):
            return False
    return True


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
        if not content_intact(fields) or record_hash(prev_hash, fields) != stored_hash:
            return ChainReport(False, n, seq, f"record {seq} was edited after it was written")
        expected_prev = stored_hash
    return ChainReport(True, n)
