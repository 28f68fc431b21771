"""docs/client.md's example runs against a live server and prints what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.e2e.client.conftest import Api

import mneme.client
from mneme.client import MnemeClient

DOC = Path(__file__).resolve().parents[3] / "docs" / "client.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), flags=re.S)


def test_the_documented_example_runs_against_a_live_server(
    api: Api, live: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = _python_blocks()[0]
    monkeypatch.setenv("MNEME_URL", live)
    monkeypatch.setenv("MNEME_TOKEN", api.tokens["scout"])
    exec(compile(example, str(DOC), "exec"), {"__name__": "docs_client_example"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("retained: ok ['u_")
    assert printed[1].startswith("recalled: Staging moved to eu-west-2 on Monday. relevance ")
    assert printed[2:] == ["not found: 404 not_found", "invalid: 422 k", "whoami: team scout agent"]


def test_the_page_names_every_method_of_the_client() -> None:
    text = DOC.read_text("utf-8")
    methods = [
        name
        for name, value in vars(MnemeClient).items()
        if callable(value) and not name.startswith("_")
    ]
    assert len(methods) >= 35
    missing = [name for name in methods if f"`{name}`" not in text]
    assert missing == [], f"docs/client.md does not name: {missing}"
    assert {f"`{name}`" for name in mneme.client.__all__ if name.startswith("Api")} <= set(
        re.findall(r"`\w+`", text)
    )
