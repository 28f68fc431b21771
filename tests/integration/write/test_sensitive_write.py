"""The write-time defence through ``Memory`` on real SQLite files (ADR 0034): refuse stores
nothing, redact leaves no raw secret in any byte of the database, store keeps it and audits."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.embed.protocol import Vectors
from mneme.errors import InvalidInput

# Values from the detector libraries' own fixtures (tests/fixtures/sensitive_positives.json).
GITHUB = "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"
AWS = "AKIAIOSFODNN7EXAMPLE"
STRIPE = "sk_live_ReTllpYQYfIZu2Jnf2lAPFjD"
CARD = "4242 4242 4242 4242"
EMAIL = "Abc.123@test-example.com"
PHONE = "510-748-8230"
SECRETS = (GITHUB, AWS, STRIPE, CARD, "4242424242424242")
#: A fake OpenAI project key: 74 characters each side of the marker OpenAI's keys carry.
PROJECT_KEY = (
    "sk-proj-TdDdXUi2NRmtmJSatlhVGhXvNLWOBA5wqY2EFoj4J1oKzwZR5l817UiCriokste6tHgLHtA7oA"
    "T3BlbkFJ82tWI65UWw9VN03DeeUdR0Pwx1R9UJaHhuIpHk6sGt7xVWso7PwqI57c07-YvsjYZNv67B0N4I"
)


class RecordingEmbedder(HashingEmbedder):
    """The hashing embedder, keeping every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.seen.extend(texts)
        return super().embed(texts)


@pytest.fixture
def embedder() -> RecordingEmbedder:
    return RecordingEmbedder()


@pytest.fixture
def memory(db_path: str, clock: Any, embedder: RecordingEmbedder) -> Iterator[mneme.Memory]:
    m = mneme.Memory.open(db_path, embedder=embedder, clock=clock)
    yield m
    m.close()


def _audit(mem: mneme.Memory, bank: str, op: str) -> list[Any]:
    return [r for r in mem.admin.audit_log(bank) if r.op == op]


def _untagged(text: str) -> str:
    """Stored text with the keyed tags of its redactions taken out ("#3fa9")."""
    return re.sub(r"(\[redacted:\w+)#[0-9a-f]{4}\]", r"\1]", text)


def _source(mem: mneme.Memory, result: mneme.RetainResult) -> mneme.Source:
    assert result.source_id is not None
    return mem.source(result.source_id)


def _file_bytes(db_path: str) -> bytes:
    """Every byte SQLite keeps for the store, after a checkpoint (the file, WAL and all)."""
    con = sqlite3.connect(db_path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    return b"".join(p.read_bytes() for p in Path(db_path).parent.glob(Path(db_path).name + "*"))


def test_by_default_secrets_are_redacted_everywhere_and_personal_data_is_kept(
    memory: mneme.Memory, db_path: str, embedder: RecordingEmbedder
) -> None:
    text = f"Deploy with token {GITHUB} and key {AWS}. Ask Dana at {EMAIL} or {PHONE}."
    result = memory.retain(text, bank="team", agent="scout")
    source = _source(memory, result)
    assert _untagged(source.text) == (
        "Deploy with token [redacted:token] and key [redacted:api_key]. "
        f"Ask Dana at {EMAIL} or {PHONE}."
    )
    units = [memory.get(i) for i in result.memory_ids]
    assert units
    assert all(GITHUB not in u.text and AWS not in u.text for u in units)
    assert any("[redacted:token#" in u.text for u in units)
    assert embedder.seen
    assert all(GITHUB not in t and AWS not in t for t in embedder.seen)
    # The lexical index finds the placeholder, never the secret.
    assert memory.recall("redacted token", bank="team", agent="scout")
    assert not [
        h for h in memory.recall(GITHUB, bank="team", agent="scout") if GITHUB in h.unit.text
    ]
    (record,) = _audit(memory, "team", "source.screen")
    assert record.target == result.source_id
    assert record.after == {
        "found": {"api_key": 1, "email": 1, "phone": 1, "token": 1},
        "actions": {"api_key": "redact", "email": "store", "phone": "store", "token": "redact"},
    }
    assert GITHUB not in json.dumps([record.before, record.after, record.reason])
    memory.close()
    raw = _file_bytes(db_path)
    assert GITHUB.encode() not in raw
    assert AWS.encode() not in raw
    assert EMAIL.encode() in raw  # personal data is stored by default, as the policy says


def test_no_raw_secret_reaches_the_database_through_any_write_path(
    memory: mneme.Memory, db_path: str, embedder: RecordingEmbedder
) -> None:
    memory.retain(f"my stripe key is {STRIPE}", bank="team", agent="scout")
    memory.retain_many(
        [
            {"text": f"card on file: {CARD}", "bank": "team", "agent": "scout"},
            {"text": f"the bot uses {GITHUB}", "bank": "team", "agent": "critic"},
        ]
    )
    for batch in memory.retain_batches(
        [[{"text": f"backup card 4242424242424242, key {AWS}", "bank": "team", "agent": "x"}]]
    ):
        assert len(batch) == 1
    # The ingest buffer: the queue payload is written before the work is done.
    accepted = memory.retain(f"later: {GITHUB} again", bank="team", agent="scout", wait=30)
    assert accepted.status.value == "ok"
    held = memory.update(accepted.memory_ids[0], f"now it is {STRIPE}", agent="scout")
    assert held.memory_ids
    assert len(_audit(memory, "team", "source.screen")) == 6
    assert all(s not in t for s in SECRETS for t in embedder.seen)
    memory.close()
    raw = _file_bytes(db_path)
    for secret in SECRETS:
        assert secret.encode() not in raw, secret


def test_a_password_after_is_colon_and_a_whole_project_key_never_reach_the_database(
    memory: mneme.Memory, db_path: str
) -> None:
    # A new user's probe: the password was stored whole, and the key's redaction stopped 20
    # characters after its marker and stored the 54 that follow.
    password = "Zq8!mW3#pL9x"
    said = memory.retain(
        f"The admin password for the router is: {password}", bank="team", agent="a1"
    )
    keyed = memory.retain(f"My OpenAI key is {PROJECT_KEY} for the demo.", bank="team", agent="a1")
    assert _untagged(_source(memory, said).text) == (
        "The admin password for the router is: [redacted:password]"
    )
    assert _untagged(_source(memory, keyed).text) == (
        "My OpenAI key is [redacted:api_key] for the demo."
    )
    memory.close()
    raw = _file_bytes(db_path)
    assert password.encode() not in raw
    pieces = {PROJECT_KEY[i : i + 8] for i in range(len(PROJECT_KEY) - 7)}
    assert not [p for p in pieces if p.encode() in raw]


def test_a_refused_write_stores_nothing_and_the_refusal_is_audited(
    memory: mneme.Memory, db_path: str
) -> None:
    memory.admin.set_sensitive_policy("team", {"secret": "refuse"}, actor="ops")
    before = memory.admin.stats()
    with pytest.raises(InvalidInput) as info:
        memory.retain(f"use {AWS} for the bucket", bank="team", agent="scout", source_id="s-1")
    message = str(info.value)
    assert "1 api_key" in message
    assert AWS not in message
    with pytest.raises(InvalidInput):
        memory.retain(f"use {AWS} later", bank="team", agent="scout", wait=5)
    after = memory.admin.stats()
    assert (after.sources, after.units) == (before.sources, before.units)
    assert memory._store.queue.get_queued("anything") is None
    refusals = _audit(memory, "team", "write.refuse")
    assert len(refusals) == 2
    assert refusals[0].target == "s-1"
    assert refusals[0].actor == "scout"
    assert refusals[0].after == {"found": {"api_key": 1}, "actions": {"api_key": "refuse"}}
    assert memory.admin.audit_verify("team")["team"].ok
    memory.close()
    assert AWS.encode() not in _file_bytes(db_path)


def test_one_refused_item_rejects_the_whole_batch(memory: mneme.Memory) -> None:
    memory.admin.set_sensitive_policy("team", {"card_number": "refuse"}, actor="ops")
    with pytest.raises(InvalidInput) as info:
        memory.retain_many(
            [
                {"text": "The standup is at nine.", "bank": "team", "agent": "scout"},
                {"text": f"pay with {CARD}", "bank": "team", "agent": "scout"},
            ]
        )
    assert info.value.index == 1
    assert "card_number" in str(info.value)
    assert memory.list_memories(bank="team") == []


def test_store_keeps_the_value_and_audits_the_finding(memory: mneme.Memory, db_path: str) -> None:
    memory.admin.set_sensitive_policy("vault", {"secret": "store"}, actor="ops")
    result = memory.retain(f"the bot token is {GITHUB}", bank="vault", agent="scout")
    assert GITHUB in _source(memory, result).text
    (record,) = _audit(memory, "vault", "source.screen")
    assert record.after == {"found": {"token": 1}, "actions": {"token": "store"}}
    assert GITHUB not in json.dumps([record.after, record.reason])
    # Another bank keeps its own (default) policy.
    other = memory.retain(f"the bot token is {GITHUB}", bank="team", agent="scout")
    assert GITHUB not in _source(memory, other).text


def test_personal_data_can_be_redacted_by_kind_and_a_rule_dropped(memory: mneme.Memory) -> None:
    view = memory.admin.set_sensitive_policy(
        "team", {"personal": "redact", "email": "store"}, actor="o"
    )
    assert view.rules == {"email": "store", "personal": "redact"}
    assert (view.effective["phone"], view.effective["email"]) == ("redact", "store")
    result = memory.retain(f"Dana: {EMAIL}, {PHONE}", bank="team", agent="scout")
    assert _untagged(_source(memory, result).text) == f"Dana: {EMAIL}, [redacted:phone]"
    view = memory.admin.set_sensitive_policy("team", {"email": "default"}, actor="o")
    assert view.rules == {"personal": "redact"}
    assert view.effective["email"] == "redact"
    configured = _audit(memory, "team", "bank.configure")
    assert [r.actor for r in configured] == ["o", "o"]
    assert configured[-1].before == {
        "config": {"sensitive": {"email": "store", "personal": "redact"}}
    }
    assert memory.admin.audit_verify("team")["team"].ok


def test_the_same_source_id_with_the_same_secret_is_a_replay(memory: mneme.Memory) -> None:
    first = memory.retain(f"token {GITHUB}", bank="team", agent="scout", source_id="s-9")
    again = memory.retain(f"token {GITHUB}", bank="team", agent="scout", source_id="s-9")
    assert again.metadata.get("replayed") is True
    assert again.memory_ids == first.memory_ids
    assert len(_audit(memory, "team", "source.screen")) == 1


@pytest.mark.parametrize(
    "policy", [{"ssn": "redact"}, {"secret": "hide"}, {"email": 3}, "refuse"], ids=str
)
def test_a_bad_policy_is_invalid_input_and_changes_nothing(
    memory: mneme.Memory, policy: Any
) -> None:
    memory.admin.set_sensitive_policy("team", {"secret": "refuse"}, actor="ops")
    with pytest.raises(InvalidInput):
        memory.admin.set_sensitive_policy("team", policy, actor="ops")
    assert memory.admin.sensitive_policy("team").rules == {"secret": "refuse"}


def test_the_process_default_policy_comes_from_configuration(db_path: str, clock: Any) -> None:
    with mneme.Memory.open(
        db_path, embedder=HashingEmbedder(), clock=clock, sensitive={"personal": "redact"}
    ) as m:
        assert m.admin.sensitive_policy("new").effective["email"] == "redact"
        result = m.retain(f"write to {EMAIL}", bank="new", agent="a")
        assert _untagged(_source(m, result).text) == "write to [redacted:email]"
    with pytest.raises(InvalidInput, match="sensitive"):
        mneme.Memory.open(db_path, embedder=HashingEmbedder(), sensitive={"pii": "redact"})


def test_a_bank_policy_that_cannot_be_read_refuses_every_finding(memory: mneme.Memory) -> None:
    memory.retain("The standup is at nine.", bank="team", agent="scout")
    with memory._store.transaction():  # as a hand edit of the row would leave it
        memory._store.banks.set_bank_config(
            "team", {"sensitive": {"secret": "hide"}}, actor="dba", reason="hand edit"
        )
    with pytest.raises(InvalidInput, match="email"):
        memory.retain(f"mail {EMAIL}", bank="team", agent="scout")
    assert memory.retain("Lunch is at noon.", bank="team", agent="scout").memory_ids


def test_two_redacted_passwords_stay_two_values_and_one_repeated_stays_one(
    memory: mneme.Memory,
) -> None:
    """The tag is keyed with the audit key (outside the database): a changed password is a new
    value, a repeated one the same memory, and the tag is not the password's digest."""
    first = memory.retain("The guest wifi password is 'Tulip-4471'.", bank="team", agent="a")
    again = memory.retain("The guest wifi password is 'Tulip-4471'.", bank="team", agent="a")
    other = memory.retain("The guest wifi password is 'Orchid-9902'.", bank="team", agent="a")
    texts = [_source(memory, r).text for r in (first, again, other)]
    tags = [re.findall(r"\[redacted:password#([0-9a-f]{4})\]", t) for t in texts]
    assert all(len(t) == 1 for t in tags), texts
    assert tags[0] == tags[1] != tags[2]
    assert set(again.memory_ids) <= set(first.memory_ids)  # the same memory
    assert not set(other.memory_ids) & set(first.memory_ids)
    assert "Tulip" not in repr(texts)
    assert "Orchid" not in repr(texts)
