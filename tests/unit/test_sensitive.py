"""The write-time policy and redaction rules (ADR 0034), pure: what each kind of finding gets,
and what a screened text becomes. The detector that finds them is tested in
tests/integration/write/test_detector.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mneme.core.sensitive import Finding, Kind, Policy, parse_policy, refusal, screen


def test_the_default_policy_redacts_secrets_and_stores_personal_data() -> None:
    policy = Policy({})
    assert policy.action(Kind.API_KEY).value == "redact"
    assert policy.action(Kind.CARD_NUMBER).value == "redact"
    assert policy.action(Kind.EMAIL).value == "store"
    assert policy.action(Kind.PHONE).value == "store"


def test_a_kind_rule_overrides_its_category_and_default_drops_a_rule() -> None:
    policy = parse_policy({"personal": "redact", "phone": "store"})
    assert policy.action(Kind.EMAIL).value == "redact"
    assert policy.action(Kind.PHONE).value == "store"
    assert parse_policy({"phone": "default"}, policy).action(Kind.PHONE).value == "redact"


@pytest.mark.parametrize(
    "bad", [{"ssn": "redact"}, {"secret": "hide"}, ["secret", "refuse"], {"email": None}]
)
def test_a_bad_policy_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="policy"):
        parse_policy(bad)


def test_overlapping_findings_are_redacted_once_with_the_strictest_action() -> None:
    text = "key: sk_live_abc and more"
    findings = [Finding(Kind.EMAIL, 5, 12, "email"), Finding(Kind.API_KEY, 5, 16, "Stripe key")]
    out = screen(text, findings, Policy({}))
    assert out.text == "key: [redacted:api_key] and more"
    assert out.counts == {"api_key": 1, "email": 1}
    assert out.summary() == {
        "found": {"api_key": 1, "email": 1},
        "actions": {"api_key": "redact", "email": "store"},
    }


def test_a_refusal_names_kinds_and_counts_and_never_the_value() -> None:
    text = "my token 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"
    out = screen(
        text,
        [Finding(Kind.TOKEN, 9, len(text), "GitHub token")],
        parse_policy({"secret": "refuse"}),
    )
    assert out.refused == ("token",)
    message = refusal(out, "team")
    assert "1 token" in message
    assert "ghp_" not in message
    assert "ghp_" not in json.dumps(out.summary())
