"""What a Python file imports, read with ``ast`` (nothing is imported or run).

Every ``import`` and ``from ... import`` counts wherever it sits: at the top, inside a function
(a lazy import), under ``if TYPE_CHECKING:`` (marked ``type_only``). Relative imports are
resolved against the file's own module. ``from mneme import x`` names the module ``mneme.x``
when there is one, else ``mneme`` itself: what a name refers to decides the layer it belongs to.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


@dataclass(frozen=True)
class Import:
    target: str  # the dotted name imported (a mneme module resolved as far as one exists)
    line: int
    type_only: bool  # under ``if TYPE_CHECKING:``: never runs, still a dependency


def module_of(path: Path, root: Path = SRC) -> str:
    """The dotted module name of a file under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def mneme_modules() -> dict[str, Path]:
    """Every module of the mneme package, by dotted name."""
    return {module_of(p): p for p in sorted((SRC / "mneme").rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_only_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                lines.update(n.lineno for n in ast.walk(stmt) if isinstance(n, ast.stmt))
    return lines


def _known(name: str, modules: set[str]) -> str:
    """``name`` cut back to the longest prefix that is a known module (itself if none is)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return name


def imports_of(
    source: str, module: str, modules: set[str], *, package: bool = False
) -> list[Import]:
    """The imports of ``source`` (the text of ``module``; ``package`` if it is an __init__)."""
    tree = ast.parse(source)
    type_only = _type_only_lines(tree)
    found: list[Import] = []

    def add(name: str, line: int) -> None:
        found.append(Import(_known(name, modules), line, line in type_only))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if package else module.split(".")[:-1]
                up = here[: len(here) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base, node.lineno)
    return found


def file_imports(path: Path, modules: set[str], root: Path = SRC) -> list[Import]:
    """The imports of one file under ``root``."""
    return imports_of(
        path.read_text(encoding="utf-8"),
        module_of(path, root),
        modules,
        package=path.name == "__init__.py",
    )


def mneme_targets(imports: list[Import]) -> Iterator[Import]:
    """The imports that name mneme or one of its modules."""
    return (i for i in imports if i.target == "mneme" or i.target.startswith("mneme."))


def cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of an import graph (its nodes in order, the first repeated at the end), or
    None. Depth first; each node is explored once."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph.get(node, ())):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        found = visit(node)
        if found:
            return found
    return None
