"""Setting a bank's sensitive-data policy from the CLI and the HTTP API (ADR 0034)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import mneme
from mneme.surfaces.cli.main import cli
from mneme.surfaces.http import TokenStore, create_app

AWS = "AKIAIOSFODNN7EXAMPLE"


def _cli(db: str, *args: str) -> tuple[int, str]:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    result = runner.invoke(cli, ["--db", db, "--embedder", "hashing", *args])
    return result.exit_code, result.stdout


def test_the_cli_shows_and_sets_a_bank_policy_and_a_refused_add_exits_2(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    code, out = _cli(db, "sensitive", "--bank", "team", "--json")
    assert code == 0
    assert json.loads(out)["effective"]["secret"] == "redact"
    code, out = _cli(
        db, "sensitive", "-b", "team", "--set", "secret=refuse", "--set", "phone=redact", "--json"
    )
    assert code == 0, out
    view = json.loads(out)
    assert view["rules"] == {"phone": "redact", "secret": "refuse"}
    assert view["effective"]["api_key"] == "refuse"
    code, out = _cli(db, "add", f"key {AWS}", "--bank", "team", "--agent", "a", "--json")
    assert code == 2
    error = json.loads(out)["error"]
    assert error["code"] == "invalid_input"
    assert "api_key" in error["message"]
    assert AWS not in out
    code, out = _cli(db, "sensitive", "-b", "team", "--set", "ssn=redact", "--json")
    assert code == 2
    assert "ssn" in json.loads(out)["error"]["message"]
    code, _ = _cli(db, "sensitive", "-b", "team", "--set", "secret", "--json")
    assert code == 2
    with mneme.Memory.open(db, embedder="hashing") as mem:
        (record,) = [r for r in mem.admin.audit_log("team") if r.op == "bank.configure"]
        assert record.actor == "cli"
        assert mem.admin.stats().sources == 0


@pytest.fixture
def client(mem: mneme.Memory, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    tokens = TokenStore(tmp_path / "tokens.json")
    secrets = {
        name: tokens.create(bank=bank, agent=agent, role=role)[0]
        for name, bank, agent, role in (
            ("agent", "team", "scout", "agent"),
            ("reviewer", "team", "rita", "reviewer"),
            ("team_admin", "team", "tess", "admin"),
            ("other_admin", "other", "otto", "admin"),
        )
    }
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as c:
        yield c, {k: f"Bearer {v}" for k, v in secrets.items()}


def test_a_bank_admin_sets_the_policy_over_http_and_others_may_not(
    client: tuple[TestClient, dict[str, str]], mem: mneme.Memory
) -> None:
    c, auth = client
    path = "/v1/banks/team/sensitive"
    got = c.get(path, headers={"Authorization": auth["team_admin"]})
    assert got.status_code == 200
    assert got.json()["effective"]["personal"] == "store"
    put = c.put(
        path,
        json={"rules": {"personal": "redact"}, "reason": "GDPR"},
        headers={"Authorization": auth["team_admin"]},
    )
    assert put.status_code == 200, put.text
    assert put.json()["rules"] == {"personal": "redact"}
    (record,) = [r for r in mem.admin.audit_log("team") if r.op == "bank.configure"]
    assert (record.actor, record.reason) == ("tess", "GDPR")
    for who in ("agent", "reviewer", "other_admin"):
        response = c.put(
            path, json={"rules": {"secret": "store"}}, headers={"Authorization": auth[who]}
        )
        assert response.status_code == 403, who
        assert c.get(path, headers={"Authorization": auth[who]}).status_code == 403, who
    bad = c.put(
        path, json={"rules": {"ssn": "redact"}}, headers={"Authorization": auth["team_admin"]}
    )
    assert bad.status_code == 422
    assert mem.admin.sensitive_policy("team").rules == {"personal": "redact"}


def test_a_refused_http_write_is_a_400_naming_the_kind(
    client: tuple[TestClient, dict[str, str]], mem: mneme.Memory
) -> None:
    c, auth = client
    mem.admin.set_sensitive_policy("team", {"secret": "refuse"}, actor="ops")
    response = c.post(
        "/v1/banks/team/memories",
        json={"text": f"the key is {AWS}"},
        headers={"Authorization": auth["agent"]},
    )
    assert response.status_code == 400
    assert "api_key" in response.json()["error"]["message"]
    assert AWS not in response.text
    assert mem.admin.stats().sources == 0
