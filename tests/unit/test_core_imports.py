"""The pure core's modules import one another without a cycle, imports inside functions included.

A cycle that a function-level import hides still ties two modules together: language.py once
reached into atomize.py (which builds on language.py) that way, so neither could be read or
changed alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
CORE = SRC / "mneme" / "core"


def _name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(CORE.rglob("*.py"))}


def _package(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def _imports(module: str, source: str | None = None) -> set[str]:
    """The core modules ``module`` imports, wherever in the file the import statement sits."""
    if source is None:
        source = MODULES[module].read_text(encoding="utf-8")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = _package(module).split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m in MODULES and m != module}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules in order, the first repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph[module]):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module)
        if found:
            return found
    return None


def test_the_core_modules_import_one_another_without_a_cycle() -> None:
    graph = {module: _imports(module) for module in MODULES}
    assert "mneme.core.model" in graph["mneme.core.language"]  # the graph is read
    cycle = _cycle(graph)
    assert cycle is None, "import cycle in mneme.core: " + " -> ".join(cycle or [])


def test_an_import_inside_a_function_counts() -> None:
    source = "def split(text):\n    from mneme.core.atomize import split_atoms\n"
    assert _imports("mneme.core.language", source) == {"mneme.core.atomize"}
    relative = "from . import model\nfrom .speakers import speaker_of\n"
    assert _imports("mneme.core.language", relative) == {"mneme.core.model", "mneme.core.speakers"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
