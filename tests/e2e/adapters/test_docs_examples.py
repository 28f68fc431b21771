"""Every page of docs/adapters/ holds a runnable example, and each runs as written (ADR 0049):
in a fresh directory, with no network and no LLM. The CrewAI page's runs in CrewAI's own venv
(crewai/test_docs_example.py): CrewAI does not install beside the other frameworks."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

import mneme.adapters

DOCS = Path(__file__).parents[3] / "docs" / "adapters"
PAGES = sorted(DOCS.glob("*.md"))
ADAPTERS = {"langgraph", "openai_agents", "llamaindex", "crewai"}
#: Pages whose example runs in another venv, and the test that runs it there.
ELSEWHERE = {"crewai": "tests/e2e/adapters/crewai/test_docs_example.py"}


def examples(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text("utf-8"), flags=re.DOTALL)


def run_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run each example of the page in ``tmp_path``, in order, as a script."""
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(examples(page)):
        script = tmp_path / f"example_{i}.py"
        script.write_text(code, "utf-8")
        runpy.run_path(str(script), run_name="__main__")


def test_each_adapter_has_a_page_with_an_example() -> None:
    modules = {p.stem for p in Path(mneme.adapters.__file__).parent.glob("*.py")}
    assert modules >= ADAPTERS
    assert {p.stem.replace("-", "_") for p in PAGES} == ADAPTERS
    assert all(examples(p) for p in PAGES)
    assert all((DOCS.parents[1] / test).is_file() for test in ELSEWHERE.values())


HERE = [p for p in PAGES if p.stem not in ELSEWHERE]


@pytest.mark.parametrize("page", HERE, ids=[p.stem for p in HERE])
def test_the_page_s_example_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_examples(page, tmp_path, monkeypatch)

    assert capsys.readouterr().out.strip()
