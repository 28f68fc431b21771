"""The audit hash chain: each record's hash covers its fields and the previous record's hash.

Two formats live in one chain (ADR 0035):

- format 1 (records written before schema 14): plain SHA-256 over the canonical JSON of the
  record, ``before``/``after`` replaced by their digests and ``reason`` in plain text. Anyone
  who can write the database can recompute it, so it proves nothing on its own.
- format 2: HMAC-SHA256 under an audit key kept outside the database. The chained payload
  carries a version marker (``"v":2``) and the key's id (``"k"``), so no one can pass a
  record of one format off as the other; every content field (``before``, ``after``,
  ``reason``) is chained by its digest, so a legal purge erases the text and the chain still
  verifies (ADR 0008); and ``rows`` is the digest of the state digests of the data rows the
  record's transaction wrote (``row_digest``), which ties every unit, source, claim,
  tombstone and conflict to the log.

The chain's head (``head_mac``) is keyed too: truncating the log and moving the head back
needs the key. ``verify_chain`` reports the first broken record.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64

#: The chain format of records written now; format 1 is the unkeyed legacy format.
FORMAT = 2


def canonical(value: Any) -> str:
    """Stable JSON: sorted keys, no spaces, so one record always hashes the same."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


#: Content-bearing fields of format 1: the chain covers their digests, not their text.
CONTENT_FIELDS = ("before", "after")
#: Format 2 chains the reason by its digest too, so a purge can erase it (ADR 0035).
CONTENT_FIELDS_V2 = ("before", "after", "reason")
#: The operation whose own reason (the legal ground) is kept only as its digest.
PURGE_OP = "purge"


def digest(value: str | None) -> str | None:
    return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()


class MacKey:
    """An audit key: HMAC-SHA256 with the key schedule done once (a copy per message)."""

    __slots__ = ("_base", "id")

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("an audit key has at least 16 bytes")
        self.id = key_id(secret)
        self._base = hmac.new(secret, digestmod=hashlib.sha256)

    def mac(self, message: str) -> str:
        h = self._base.copy()
        h.update(message.encode("utf-8"))
        return h.hexdigest()


def key_id(secret: bytes) -> str:
    """A public name for a key (not a digest anyone could use to guess it)."""
    return hashlib.sha256(b"mneme.audit.key-id\x00" + secret).hexdigest()[:16]


def key_check(key: MacKey) -> str:
    """What a database keeps to say it is sealed with this key."""
    return key.mac(f"mneme.audit.key-check:{key.id}")


def head_mac(key: MacKey, bank_id: str, seq: int, hash_: str, count: int) -> str:
    """The keyed seal of a chain head: ``key id:mac``."""
    body = canonical({"bank_id": bank_id, "count": count, "hash": hash_, "seq": seq, "v": FORMAT})
    return f"{key.id}:{key.mac('head' + body)}"


def head_mac_ok(
    keys: Mapping[str, MacKey], mac: str | None, head: tuple[str, int, str, int]
) -> bool:
    if not mac or ":" not in mac:
        return False
    kid = mac.split(":", 1)[0]
    key = keys.get(kid)
    return key is not None and hmac.compare_digest(head_mac(key, *head), mac)


# -- format 1 (legacy, unkeyed) -----------------------------------------------------------


def chained_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """What a format-1 hash covers: every field, content fields replaced by their digests.

    ``fields`` may carry ``<name>_sha`` digests kept beside erased content; they stand in for
    the content when it is gone.
    """
    out = {
        k: v
        for k, v in fields.items()
        if not k.endswith("_sha") and k not in ("purged_at", "v", "key_id", "rows")
    }
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
    """Format-1 ``record_hash`` of an entry whose content digests are already known.

    Kept to read and test legacy chains; nothing writes format 1 any more.
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
    payload = _json_object(_ENTRY_KEYS, values)
    return hashlib.sha256((prev_hash + payload).encode("utf-8")).hexdigest()


#: The chained fields of a format-1 entry in canonical (sorted) order.
_ENTRY_KEYS = ("actor", "after", "at", "bank_id", "before", "op", "reason", "target")


def _json_object(keys: tuple[str, ...], values: tuple[Any, ...]) -> str:
    parts = [
        f'"{key}":{"null" if value is None else _string(value)}'
        for key, value in zip(keys, values, strict=True)
    ]
    return "{" + ",".join(parts) + "}"


# -- format 2 (keyed) ----------------------------------------------------------------------

#: The chained fields of a format-2 entry in canonical (sorted) order; ``v`` is written last.
_V2_KEYS = ("actor", "after", "at", "bank_id", "before", "k", "op", "reason", "rows", "target")


def keyed_hash(
    key: MacKey,
    prev_hash: str,
    *,
    bank_id: str,
    at: str | None,
    actor: str,
    op: str,
    target: str,
    before_sha: str | None,
    after_sha: str | None,
    reason_sha: str | None,
    rows_sha: str | None,
) -> str:
    """The format-2 hash of an entry: HMAC over the previous hash and the canonical JSON of
    its chained fields (digests in place of content), written directly (this runs on every
    write). Anything but text in a field takes the general encoder."""
    values = (actor, after_sha, at, bank_id, before_sha, key.id, op, reason_sha, rows_sha, target)
    if all(v is None or type(v) is str for v in values):
        payload = _json_object(_V2_KEYS, values)[:-1] + f',"v":{FORMAT}}}'
    else:
        payload = canonical({**dict(zip(_V2_KEYS, values, strict=True)), "v": FORMAT})
    return key.mac(prev_hash + payload)


def _sha_of(fields: Mapping[str, Any], name: str) -> str | None:
    stored = fields.get(f"{name}_sha")
    if stored:
        return str(stored)
    return digest(fields.get(name))


def content_intact(fields: Mapping[str, Any]) -> bool:
    """Stored content matches the digest kept beside it; erased content only by a purge
    (and a purge record's own reason is kept only as its digest)."""
    names = CONTENT_FIELDS_V2 if fields.get("v") == FORMAT else CONTENT_FIELDS
    for name in names:
        stored = fields.get(f"{name}_sha")
        if stored and fields.get(name) is not None and digest(fields[name]) != stored:
            return False
        own_ground = name == "reason" and fields.get("op") == PURGE_OP
        if stored and fields.get(name) is None and not fields.get("purged_at") and not own_ground:
            return False
    return True


def row_digest(table: str, row: Mapping[str, Any]) -> str:
    """The digest of a data row's state: every portable column (``store.tables``), so the
    same row hashes alike on every backend and after a copy."""
    return hashlib.sha256(canonical({"row": dict(row), "table": table}).encode("utf-8")).hexdigest()


def rows_digest(table: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """The digest of the rows of one sealed id: a row's own digest, and for several rows of
    one id (two writers' sources, ADR 0107) the digest of their digests, in order."""
    if len(rows) == 1:
        return row_digest(table, rows[0])
    states = sorted(row_digest(table, r) for r in rows)
    return hashlib.sha256(canonical({"rows": states, "table": table}).encode("utf-8")).hexdigest()


def row_seals(records: Iterable[str | None]) -> dict[tuple[str, str], str | None]:
    """The newest sealed state of every row, from the ``rows`` maps of records in order:
    (table, id) -> digest, or None for a row its transaction deleted."""
    out: dict[tuple[str, str], str | None] = {}
    for rows in records:
        if not rows:
            continue
        try:
            tables = json.loads(rows)
        except ValueError:
            continue  # an edited map no longer matches its digest: the chain says so
        if not isinstance(tables, dict):
            continue
        for table, ids in tables.items():
            if isinstance(ids, dict):
                for rid, sha in ids.items():
                    out[(str(table), str(rid))] = None if sha is None else str(sha)
    return out


@dataclass(frozen=True, slots=True)
class ChainReport:
    ok: bool
    records: int
    first_bad_seq: int | None = None
    problem: str = ""
    #: What verification could only partly check, or where it is weaker (e.g. legacy records).
    notes: tuple[str, ...] = ()


def verify_chain(
    rows: Iterable[tuple[int, str, str, Mapping[str, Any]]],
    keys: Mapping[str, MacKey] | None = None,
    *,
    strict: bool = False,
) -> ChainReport:
    """Check (seq, prev_hash, hash, fields) rows of one chain, in sequence order.

    ``keys`` are the audit keys by id; a format-2 record whose key is not among them fails.
    ``strict``: the store is keyed, so no unkeyed record may follow a keyed one (a rewrite of
    the newest records without the key).
    """
    keys = keys or {}
    expected_prev = GENESIS
    n = last_seq = legacy = linked = 0
    keyed_seen = False
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
        version = fields.get("v")
        if version == FORMAT:
            keyed_seen = True
            key = keys.get(str(fields.get("key_id")))
            if key is None:
                return ChainReport(
                    False,
                    n,
                    seq,
                    f"record {seq} is sealed with audit key {fields.get('key_id')!r}, which "
                    "this store was not opened with (MNEME_AUDIT_KEY_FILE)",
                )
            ok = content_intact(fields) and hmac.compare_digest(
                keyed_hash(
                    key,
                    prev_hash,
                    bank_id=fields["bank_id"],
                    at=fields["at"],
                    actor=fields["actor"],
                    op=fields["op"],
                    target=fields["target"],
                    before_sha=_sha_of(fields, "before"),
                    after_sha=_sha_of(fields, "after"),
                    reason_sha=_sha_of(fields, "reason"),
                    rows_sha=digest(fields.get("rows")),
                ),
                str(stored_hash),
            )
        elif version is None:
            if strict and keyed_seen:
                return ChainReport(
                    False,
                    n,
                    seq,
                    f"record {seq} is in the unkeyed legacy format after keyed records "
                    "(rewritten without the audit key)",
                )
            legacy += 1
            if fields.get("reason") is None and fields.get("purged_at"):
                # A legacy record chained its reason in plain text: a purge erased it, so its
                # hash cannot be recomputed. Its link is checked (the next record and the head
                # commit to the stored hash); its other fields are not (ADR 0035).
                linked += 1
                ok = content_intact(fields)
            else:
                ok = content_intact(fields) and record_hash(prev_hash, fields) == stored_hash
        else:
            return ChainReport(False, n, seq, f"record {seq} has an unknown format {version!r}")
        if not ok:
            return ChainReport(False, n, seq, f"record {seq} was edited after it was written")
        expected_prev = stored_hash
    notes = []
    if legacy:
        notes.append(f"{legacy} records in the unkeyed legacy format (before schema 14)")
    if linked:
        notes.append(f"{linked} legacy records erased by a purge, link checked")
    return ChainReport(True, n, notes=tuple(notes))
