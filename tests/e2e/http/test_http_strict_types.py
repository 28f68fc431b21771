"""HTTP request bodies are strictly typed (issue 16, Low: the API coerced ``"k": "5"`` and
``true`` into numbers).

A JSON body says what it means: a string or a boolean where a number belongs, a number where a
flag or a text belongs, is a 422 naming the field, and nothing is written. A JSON integer is
still a number where a fraction is asked for. Query parameters are strings on the wire and are
read as their declared types, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.surfaces.http import create_app
from mneme.surfaces.http.tokens import TokenStore

Client = tuple[TestClient, dict[str, str]]


@pytest.fixture
def client(mem: mneme.Memory, tmp_path: Path) -> Iterator[Client]:
    mem.retain("Hana runs marathons in Oslo.", bank="team", agent="scout")
    tokens = TokenStore(tmp_path / "tokens.json")
    secret, _ = tokens.create(bank="team", agent="scout", role="agent")
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as c:
        yield c, {"Authorization": f"Bearer {secret}"}


def refused(response: Any, field: str, kind: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"] == f"body.{field}: Input should be a valid {kind}"
    assert [f["loc"] for f in error["fields"]] == [["body", field]]


@pytest.mark.parametrize(
    ("extra", "field", "kind"),
    [
        ({"k": "5"}, "k", "integer"),
        ({"k": True}, "k", "integer"),
        ({"k": 5.0}, "k", "integer"),
        ({"include_superseded": 1}, "include_superseded", "boolean"),
        ({"include_superseded": "false"}, "include_superseded", "boolean"),
        ({"min_relevance": "0.5"}, "min_relevance", "number"),
        ({"min_relevance": False}, "min_relevance", "number"),
    ],
)
def test_a_recall_body_with_a_value_of_the_wrong_json_type_is_422(
    client: Client, extra: dict[str, Any], field: str, kind: str
) -> None:
    c, auth = client
    refused(
        c.post("/v1/banks/team/recall", json={"query": "marathons", **extra}, headers=auth),
        field,
        kind,
    )


@pytest.mark.parametrize(
    ("extra", "field", "kind"),
    [
        ({"trust": "0.5"}, "trust", "number"),
        ({"trust": True}, "trust", "number"),
        ({"wait": "1"}, "wait", "number"),
        ({"source_id": 42}, "source_id", "string"),
    ],
)
def test_a_write_with_a_value_of_the_wrong_json_type_is_422_and_writes_nothing(
    client: Client, mem: mneme.Memory, extra: dict[str, Any], field: str, kind: str
) -> None:
    c, auth = client
    before = mem.admin.stats()
    body = {"text": "Hana swims in the fjord.", **extra}
    refused(c.post("/v1/banks/team/memories", json=body, headers=auth), field, kind)
    assert mem.admin.stats() == before
    text = c.post("/v1/banks/team/memories", json={"text": 7}, headers=auth)
    refused(text, "text", "string")


def test_values_of_the_right_json_type_still_pass_and_an_integer_is_a_number(
    client: Client,
) -> None:
    c, auth = client
    hits = c.post(
        "/v1/banks/team/recall",
        json={"query": "marathons", "k": 3, "include_superseded": False, "min_relevance": 0},
        headers=auth,
    )
    assert hits.status_code == 200, hits.text
    wrote = c.post(
        "/v1/banks/team/memories",
        json={"text": "Hana swims in the fjord.", "trust": 1, "wait": 5},
        headers=auth,
    )
    assert wrote.status_code == 200, wrote.text


def test_query_parameters_are_still_read_from_their_strings(client: Client) -> None:
    c, auth = client
    listed = c.get("/v1/banks/team/memories", params={"limit": "1"}, headers=auth)
    assert listed.status_code == 200, listed.text
    assert len(listed.json()["memories"]) == 1
    bad = c.get("/v1/banks/team/memories", params={"limit": "one"}, headers=auth)
    assert bad.status_code == 422
    recalled = c.get(
        "/v1/banks/team/recall",
        params={"query": "marathons", "k": "2", "include_superseded": "false"},
        headers=auth,
    )
    assert recalled.status_code == 200, recalled.text
    assert recalled.json()["hits"][0]["text"] == "Hana runs marathons in Oslo."
