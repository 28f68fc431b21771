"""docs/adapters/crewai.md's example runs as written, in CrewAI's venv (the other pages' run in
the main one: ../test_docs_examples.py): in a fresh directory, no network, no LLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.e2e.adapters.test_docs_examples import DOCS, run_examples

import mneme.adapters.crewai


def test_the_crewai_page_s_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mneme.adapters.crewai.RECORD == "crewai"  # the module imports in this venv

    run_examples(DOCS / "crewai.md", tmp_path, monkeypatch)

    assert "Ana's sister lives in Porto." in capsys.readouterr().out
