"""The audit chain's entry hash: the fast path hashes the same bytes as ``record_hash``."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.audit_chain import (
    FORMAT,
    GENESIS,
    MacKey,
    canonical,
    digest,
    entry_hash,
    head_mac,
    head_mac_ok,
    keyed_hash,
    record_hash,
    verify_chain,
)

_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
_CONTENT = st.none() | _TEXT


@settings(max_examples=300, deadline=None)
@given(
    prev=st.sampled_from([GENESIS, "ab" * 32]),
    bank=_TEXT,
    at=_TEXT,
    actor=_TEXT,
    op=_TEXT,
    target=_TEXT,
    before=_CONTENT,
    after=_CONTENT,
    reason=_TEXT,
)
def test_entry_hash_equals_the_record_hash_of_the_same_entry(
    prev: str,
    bank: str,
    at: str,
    actor: str,
    op: str,
    target: str,
    before: str | None,
    after: str | None,
    reason: str,
) -> None:
    fields = {
        "bank_id": bank,
        "at": at,
        "actor": actor,
        "op": op,
        "target": target,
        "before": before,
        "after": after,
        "reason": reason,
    }
    assert entry_hash(
        prev,
        bank_id=bank,
        at=at,
        actor=actor,
        op=op,
        target=target,
        before_sha=digest(before),
        after_sha=digest(after),
        reason=reason,
    ) == record_hash(prev, fields)


def test_entry_hash_of_a_field_that_is_not_text_falls_back_to_the_general_encoder() -> None:
    fields = {
        "bank_id": "b",
        "at": "2024-01-01T00:00:00.000000Z",
        "actor": "a",
        "op": "x",
        "target": 7,
        "before": None,
        "after": '{"k":"v"}',
        "reason": "r",
    }
    assert entry_hash(
        GENESIS,
        bank_id="b",
        at="2024-01-01T00:00:00.000000Z",
        actor="a",
        op="x",
        target=7,  # type: ignore[arg-type]  # a caller passing something else still chains
        before_sha=None,
        after_sha=digest('{"k":"v"}'),
        reason="r",
    ) == record_hash(GENESIS, fields)


_SHA = st.none() | st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@settings(max_examples=200, deadline=None)
@given(
    prev=st.sampled_from([GENESIS, "ab" * 32]),
    bank=_TEXT,
    at=_TEXT,
    actor=_TEXT,
    op=_TEXT,
    target=_TEXT,
    shas=st.tuples(_SHA, _SHA, _SHA, _SHA),
)
def test_the_keyed_hash_is_the_hmac_of_the_canonical_payload_with_its_version_marker(
    prev: str,
    bank: str,
    at: str,
    actor: str,
    op: str,
    target: str,
    shas: tuple[str | None, str | None, str | None, str | None],
) -> None:
    key = MacKey(b"k" * 32)
    before, after, reason, rows = shas
    payload = canonical(
        {
            "actor": actor,
            "after": after,
            "at": at,
            "bank_id": bank,
            "before": before,
            "k": key.id,
            "op": op,
            "reason": reason,
            "rows": rows,
            "target": target,
            "v": FORMAT,
        }
    )
    expected = hmac.new(b"k" * 32, (prev + payload).encode("utf-8"), hashlib.sha256).hexdigest()
    assert (
        keyed_hash(
            key,
            prev,
            bank_id=bank,
            at=at,
            actor=actor,
            op=op,
            target=target,
            before_sha=before,
            after_sha=after,
            reason_sha=reason,
            rows_sha=rows,
        )
        == expected
    )


def test_a_record_verifies_only_under_its_own_key_and_format() -> None:
    key, other = MacKey(b"a" * 32), MacKey(b"b" * 32)
    at, after_sha, reason_sha = (
        "2026-12-01T00:00:00.000000Z",
        digest('{"text":"x"}'),
        digest("retain"),
    )
    fields: dict[str, object] = {
        "bank_id": "b",
        "at": at,
        "actor": "a",
        "op": "unit.put",
        "target": "u1",
        "before": None,
        "after": '{"text":"x"}',
        "reason": "retain",
        "before_sha": None,
        "after_sha": after_sha,
        "reason_sha": reason_sha,
        "v": FORMAT,
        "key_id": key.id,
        "rows": None,
    }
    h = keyed_hash(
        key,
        GENESIS,
        bank_id="b",
        at=at,
        actor="a",
        op="unit.put",
        target="u1",
        before_sha=None,
        after_sha=after_sha,
        reason_sha=reason_sha,
        rows_sha=None,
    )
    assert verify_chain([(1, GENESIS, h, fields)], {key.id: key}).ok
    assert not verify_chain([(1, GENESIS, h, fields)], {other.id: other}).ok
    assert not verify_chain([(1, GENESIS, h, {**fields, "v": None})], {key.id: key}).ok
    assert not verify_chain([(1, GENESIS, h, {**fields, "reason": "forged"})], {key.id: key}).ok
    erased = {**fields, "reason": None, "after": None, "purged_at": "2026-12-02T00:00:00Z"}
    assert verify_chain([(1, GENESIS, h, erased)], {key.id: key}).ok  # digests kept


def test_a_head_seal_names_its_key_and_covers_every_field() -> None:
    key = MacKey(b"a" * 32)
    mac = head_mac(key, "b", 3, "ab" * 32, 3)
    assert mac.startswith(f"{key.id}:")
    assert head_mac_ok({key.id: key}, mac, ("b", 3, "ab" * 32, 3))
    assert not head_mac_ok({key.id: key}, mac, ("b", 2, "ab" * 32, 2))
    assert not head_mac_ok({}, mac, ("b", 3, "ab" * 32, 3))
    assert not head_mac_ok({key.id: key}, None, ("b", 3, "ab" * 32, 3))
