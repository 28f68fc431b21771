"""Every page of docs/adapters/ holds a runnable example, and each runs as written (ADR 0049):
in a fresh directory, with no network and no LLM."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

import mneme.adapters

DOCS = Path(__file__).parents[3] / "docs" / "adapters"
PAGES = sorted(DOCS.glob("*.md"))
ADAPTERS = {"langgraph", "openai_agents", "llamaindex"}


def _examples(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text("utf-8"), flags=re.DOTALL)


def test_each_adapter_has_a_page_with_an_example() -> None:
    modules = {p.stem for p in Path(mneme.adapters.__file__).parent.glob("*.py")}
    assert modules >= ADAPTERS
    assert {p.stem.replace("-", "_") for p in PAGES} == ADAPTERS
    assert all(_examples(p) for p in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_the_page_s_example_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(_examples(page)):
        script = tmp_path / f"example_{i}.py"
        script.write_text(code, "utf-8")
        runpy.run_path(str(script), run_name="__main__")

    assert capsys.readouterr().out.strip()
