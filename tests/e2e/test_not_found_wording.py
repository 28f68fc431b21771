"""One answer for "absent" and "invisible" (issue 16, Low: "different 404 messages for
invisible and absent ids").

An id that exists but that the caller may not see (another agent's private memory and its
source, a memory of another bank) gets the very words an id that exists nowhere gets, through
the Python API without a bank (where the bank is looked up) and with one, and in HTTP 404
bodies: nothing but the id differs, so the message tells no one that the id is there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import mneme
from mneme.errors import NotFound
from mneme.surfaces.http import create_app
from mneme.surfaces.http.tokens import TokenStore

ABSENT_UNIT = "u_01HZZZZZZZZZZZZZZZZZZZZZZZ"
ABSENT_SOURCE = "src_01HZZZZZZZZZZZZZZZZZZZZZZZ"


@pytest.fixture
def hidden(mem: mneme.Memory) -> dict[str, str]:
    """scout's private note (unit and source) and a memory of another bank."""
    note = mem.retain("My locker code is 4711.", bank="team", agent="scout", visibility="private")
    other = mem.retain("Carol works at the harbour.", bank="other", agent="critic")
    mem.retain("Bob prefers tea over coffee.", bank="team", agent="critic")
    return {
        "unit": note.memory_ids[0],
        "source": note.source_id or "",
        "other_bank_unit": other.memory_ids[0],
    }


def message(call: Callable[[], Any]) -> str:
    with pytest.raises(NotFound) as caught:
        call()
    return str(caught.value)


def same_but_the_id(a: str, a_id: str, b: str, b_id: str) -> None:
    assert a_id in a
    assert b_id in b
    assert a.replace(a_id, "<id>") == b.replace(b_id, "<id>")


@pytest.mark.parametrize("bank", [None, "team"])
def test_an_invisible_id_and_an_absent_one_get_the_same_words_from_the_api(
    mem: mneme.Memory, hidden: dict[str, str], bank: str | None
) -> None:
    unit, source = hidden["unit"], hidden["source"]
    as_critic: dict[str, Any] = {"bank": bank, "agent": "critic"}
    for op in (mem.get, mem.graph):
        invisible = message(functools.partial(op, unit, **as_critic))
        absent = message(functools.partial(op, ABSENT_UNIT, **as_critic))
        same_but_the_id(invisible, unit, absent, ABSENT_UNIT)
    same_but_the_id(
        message(lambda: mem.history(unit, **as_critic)),
        unit,
        message(lambda: mem.history(ABSENT_UNIT, **as_critic)),
        ABSENT_UNIT,
    )
    same_but_the_id(
        message(lambda: mem.source(source, **as_critic)),
        source,
        message(lambda: mem.source(ABSENT_SOURCE, **as_critic)),
        ABSENT_SOURCE,
    )
    if bank == "team":  # another bank's memory, looked for in this one
        other = hidden["other_bank_unit"]
        same_but_the_id(
            message(lambda: mem.get(other, **as_critic)),
            other,
            message(lambda: mem.get(ABSENT_UNIT, **as_critic)),
            ABSENT_UNIT,
        )
    # The one who may see it still does.
    assert mem.get(unit, bank=bank, agent="scout").text == "My locker code is 4711."


@pytest.fixture
def client(mem: mneme.Memory, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    tokens = TokenStore(tmp_path / "tokens.json")
    secret, _ = tokens.create(bank="team", agent="critic", role="agent")
    with TestClient(create_app(mem, tokens), raise_server_exceptions=False) as c:
        yield c, {"Authorization": f"Bearer {secret}"}


@pytest.mark.parametrize(
    ("route", "kind"),
    [
        ("/v1/banks/team/memories/{id}", "unit"),
        ("/v1/banks/team/memories/{id}/history", "unit"),
        ("/v1/banks/team/memories/{id}/graph", "unit"),
        ("/v1/banks/team/sources/{id}", "source"),
    ],
)
def test_an_invisible_id_and_an_absent_one_get_the_same_404_body(
    client: tuple[TestClient, dict[str, str]], hidden: dict[str, str], route: str, kind: str
) -> None:
    c, auth = client
    seen = hidden[kind]
    absent = ABSENT_UNIT if kind == "unit" else ABSENT_SOURCE
    invisible = c.get(route.format(id=seen), headers=auth)
    missing = c.get(route.format(id=absent), headers=auth)
    assert invisible.status_code == missing.status_code == 404
    same_but_the_id(invisible.text, seen, missing.text, absent)
    if kind == "unit":
        elsewhere = c.get(route.format(id=hidden["other_bank_unit"]), headers=auth)
        assert elsewhere.status_code == 404
        same_but_the_id(elsewhere.text, hidden["other_bank_unit"], missing.text, absent)
