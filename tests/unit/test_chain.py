"""The audit chain's entry hash: the fast path hashes the same bytes as ``record_hash``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.core.chain import GENESIS, digest, entry_hash, record_hash

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
