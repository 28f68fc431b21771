"""The pure core's modules import one another without a cycle, imports inside functions included.

A cycle that a function-level import hides still ties two modules together: language.py once
reached into atomize.py (which builds on language.py) that way, so neither could be read or
changed alone.
"""

from __future__ import annotations

from tests.repo.imports import cycle, imports_of, mneme_modules

ALL = mneme_modules()
MODULES = {name: path for name, path in ALL.items() if name.startswith("mneme.core")}


def _imports(module: str, source: str | None = None) -> set[str]:
    """The core modules ``module`` imports, wherever in the file the import statement sits."""
    path = MODULES[module]
    if source is None:
        source = path.read_text(encoding="utf-8")
    found = imports_of(source, module, set(ALL), package=path.name == "__init__.py")
    return {i.target for i in found if i.target in MODULES and i.target != module}


def test_the_core_modules_import_one_another_without_a_cycle() -> None:
    graph = {module: _imports(module) for module in MODULES}
    assert "mneme.core.model" in graph["mneme.core.language"]  # the graph is read
    found = cycle(graph)
    assert found is None, "import cycle in mneme.core: " + " -> ".join(found or [])


def test_an_import_inside_a_function_counts() -> None:
    source = "def split(text):\n    from mneme.core.atomize import split_atoms\n"
    assert _imports("mneme.core.language", source) == {"mneme.core.atomize"}
    relative = "from . import model\nfrom .speakers import speaker_of\n"
    assert _imports("mneme.core.language", relative) == {"mneme.core.model", "mneme.core.speakers"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None
