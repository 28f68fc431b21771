"""Every test sits where tests/README.md says, checked from the files (read with ``ast``; no
test is imported or run here).

- ``unit/`` tests core alone: its files import nothing of mneme but ``mneme.core``, nothing
  outside the standard library but pytest and hypothesis, and ask for no store or model.
- ``contract/`` tests the stores. A file at its root runs on both backends (it asks for a
  fixture contract/conftest.py parametrizes over both, or parametrizes over both itself) or
  tests what both share (it imports neither backend's package). A file in ``contract/sqlite/``
  or ``contract/postgres/`` reaches that backend (imports its package, or asks for its fixtures).
- ``integration/`` tests the services and the models: each sub-folder is named after a service
  or model package of src/mneme (store aside: that is ``contract/``); its root holds what
  crosses them (Memory, config, ids). A file there that needs nothing but core belongs in unit/.
- ``e2e/`` tests the surfaces: each sub-folder is named after a package of src/mneme/surfaces
  (or a package at the surfaces' layer beside it: ``adapters``; or is ``client/``, the
  HTTP API's typed client: ``E2E_CLIENTS``), and each of its files drives that surface
  (``SURFACE_DRIVERS``); a file at its root drives at least one surface (it is about what
  holds on all of them).
- ``bench/`` tests the benchmark harness (it imports ``bench``); ``repo/`` reads the
  repository's own files and imports nothing of mneme.
- Outside ``e2e/``, no file drives a surface, except those in ``SURFACE_CHECKS``, each with
  the reason its tests end at a surface.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tests.repo.imports import ROOT, SRC, file_imports, mneme_modules, mneme_targets
from tests.repo.test_layers import LAYERS

TESTS = ROOT / "tests"
FOLDERS = {"unit", "contract", "integration", "e2e", "bench", "repo", "fixtures"}
TOP_FILES = {"README.md", "conftest.py", "workloads.py"}
#: What unit tests may import besides the standard library and mneme.core.
UNIT_LIBRARIES = {"pytest", "hypothesis"}
#: tests/conftest.py fixtures that open a store or load a model: not for unit tests.
STORE_OR_MODEL_FIXTURES = {"mem", "db_path", "minilm"}
#: contract/conftest.py fixtures parametrized over both backends.
BOTH_BACKENDS = {"store", "target", "make", "world"}
BACKENDS = ("sqlite", "postgres")
#: What driving each surface looks like: an import (prefix) or ``MNEME_SCRIPT``, the
#: installed ``mneme`` command run as a process.
MNEME_SCRIPT = "the mneme script"
SURFACE_DRIVERS = {
    "cli": ("mneme.surfaces.cli", MNEME_SCRIPT),
    "http": ("mneme.surfaces.http",),
    "mcp": ("mneme.surfaces.mcp", "mcp.client", "mcp.shared.memory"),
    "web": ("playwright",),
    "adapters": ("mneme.adapters",),
}
#: Packages of mneme outside surfaces/ whose tests drive a surface from the other side: the
#: typed HTTP client (ADR 0050). Each gets its e2e/ folder, driven through its own import.
E2E_CLIENTS = {"client": ("mneme.client",)}
ANY_SURFACE = (
    "mneme.surfaces",
    "mneme.adapters",
    "mneme.client",
    MNEME_SCRIPT,
    "mcp.client",
    "mcp.shared.memory",
    "playwright",
)

#: Files outside e2e/ whose tests end at a surface, and why they stay with their subject.
SURFACE_CHECKS = {
    "contract/test_copy.py": "a copy into a store that is not empty is refused through the "
    "API and by `mneme db copy` (exit code 4) in one test",
    "integration/trust/test_audit_tamper.py": "each tamper must fail `mneme audit verify` "
    "(exit code 1, what a scheduled check reads) as well as the API, in the same test",
    "integration/trust/test_erasure.py": "the CLI's purge runs on this file's store of a data "
    "subject and ends with its raw-byte check",
    "integration/think/test_think.py": "a timed-out session is found with the MCP tool "
    "search_incomplete_thoughts, on this file's facts fixture",
}

NAMES = set(mneme_modules())


def _files(folder: str) -> list[Path]:
    return sorted(p for p in (TESTS / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _tests(folder: str) -> list[Path]:
    return [p for p in _files(folder) if p.name.startswith("test_")]


def _rel(path: Path) -> str:
    return path.relative_to(TESTS).as_posix()


def _imports(path: Path) -> list[str]:
    return [i.target for i in file_imports(path, NAMES, ROOT)]


def _next_to_python(node: ast.AST) -> bool:
    """Whether ``node`` is built from ``sys.executable`` (the venv's bin directory)."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == "executable"
        and isinstance(n.value, ast.Name)
        and n.value.id == "sys"
        for n in ast.walk(node)
    )


def _runs_mneme_script(tree: ast.AST) -> bool:
    """``Path(sys.executable).with_name("mneme")`` or ``...parent / "mneme"``: the command."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "with_name"
            and _next_to_python(node.func.value)
            and any(isinstance(a, ast.Constant) and a.value == "mneme" for a in node.args)
        ) or (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and _next_to_python(node.left)
            and isinstance(node.right, ast.Constant)
            and node.right.value == "mneme"
        ):
            return True
    return False


def _drives(path: Path, drivers: tuple[str, ...]) -> bool:
    imports = _imports(path)
    if MNEME_SCRIPT in drivers and _runs_mneme_script(ast.parse(path.read_text("utf-8"))):
        return True
    return any(i == d or i.startswith(f"{d}.") for i in imports for d in drivers)


def _fixtures_asked(path: Path) -> set[str]:
    """The arguments of every test and fixture, and every name given to ``getfixturevalue``
    or first to ``parametrize`` (an indirect parametrization names a fixture there)."""
    asked: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
            node.name.startswith("test_")
            or any("fixture" in ast.unparse(d) for d in node.decorator_list)
        ):
            asked.update(a.arg for a in [*node.args.args, *node.args.kwonlyargs])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else ""
            if name in ("getfixturevalue", "parametrize") and isinstance(node.args[0].value, str):
                asked.add(node.args[0].value)
    return asked


def _parametrizes_both_backends(path: Path) -> bool:
    """A list of values holding both backend names (``params=["sqlite", "postgres"]``)."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.List | ast.Tuple):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if set(BACKENDS) <= values:
                return True
    return False


def _mneme(path: Path) -> list[str]:
    return [i.target for i in mneme_targets(file_imports(path, NAMES, ROOT))]


def test_the_top_of_tests_holds_the_folders_and_the_shared_fixtures_only() -> None:
    stray = sorted(
        p.name
        for p in TESTS.iterdir()
        if p.name != "__pycache__"
        and not (p.is_dir() and p.name in FOLDERS)
        and not (p.is_file() and p.name in TOP_FILES)
    )
    assert stray == [], "put these in a folder of tests/ (tests/README.md)"


def test_unit_tests_import_core_and_test_libraries_only_and_ask_for_no_store() -> None:
    wrong = [
        f"{_rel(path)} imports {name}"
        for path in _files("unit")
        for name in _imports(path)
        if not (
            name.startswith("mneme.core")
            or name.split(".")[0] in sys.stdlib_module_names
            or name.split(".")[0] in UNIT_LIBRARIES
        )
    ]
    wrong += [
        f"{_rel(path)} asks for {sorted(asked)}"
        for path in _files("unit")
        if (asked := _fixtures_asked(path) & STORE_OR_MODEL_FIXTURES)
    ]
    assert not wrong, "a test of more than core goes to integration/, contract/ or e2e/:\n" + (
        "\n".join(wrong)
    )


def _contract_misplaced(path: Path) -> str | None:
    folder = path.relative_to(TESTS / "contract").parts[:-1]
    reached = {b for b in BACKENDS if any(m.startswith(f"mneme.store.{b}") for m in _mneme(path))}
    if not folder:
        both = bool(_fixtures_asked(path) & BOTH_BACKENDS) or _parametrizes_both_backends(path)
        shared = not reached and any(m.startswith("mneme.store") for m in _mneme(path))
        return None if both or shared else "runs on one backend: move it to its backend's folder"
    if folder[0] not in BACKENDS or len(folder) > 1:
        return f"contract/ has a folder per backend only ({', '.join(BACKENDS)})"
    pg_fixtures = any(name.startswith("pg_") for name in _fixtures_asked(path))
    if folder[0] in reached or (folder[0] == "postgres" and pg_fixtures):
        return None
    return f"does not reach {folder[0]}"


def test_contract_tests_run_on_both_backends_or_sit_in_their_backends_folder() -> None:
    wrong = [f"{_rel(p)}: {why}" for p in _tests("contract") if (why := _contract_misplaced(p))]
    assert not wrong, "\n".join(wrong)


def test_the_folders_of_integration_are_service_or_model_packages() -> None:
    packages = {
        name
        for name, layer in LAYERS.items()
        if layer in ("services", "models") and (SRC / "mneme" / name).is_dir()
    } - {"store"}
    folders = {p.name for p in (TESTS / "integration").iterdir() if p.is_dir()} - {"__pycache__"}
    assert folders <= packages, "integration/ mirrors the services and models (store: contract/)"


def test_integration_tests_need_more_than_core() -> None:
    core_only = [
        _rel(path)
        for path in _tests("integration")
        if all(m.startswith("mneme.core") for m in _mneme(path))
        and not _fixtures_asked(path) & STORE_OR_MODEL_FIXTURES
    ]
    assert not core_only, "a test of core alone goes to unit/:\n" + "\n".join(core_only)


def test_the_folders_of_e2e_are_the_surfaces() -> None:
    surfaces = {p.name for p in (SRC / "mneme" / "surfaces").iterdir() if p.is_dir()}
    surfaces.discard("__pycache__")
    # Packages beside mneme.surfaces at its layer (the framework adapters) are surfaces too.
    surfaces |= {n for n, layer in LAYERS.items() if layer == "surfaces" and n != "surfaces"}
    folders = {p.name for p in (TESTS / "e2e").iterdir() if p.is_dir()} - {"__pycache__"}
    assert folders <= surfaces | set(E2E_CLIENTS)
    assert set(SURFACE_DRIVERS) == surfaces


def test_each_e2e_test_drives_its_surface() -> None:
    idle = []
    for path in _tests("e2e"):
        folder = path.relative_to(TESTS / "e2e").parts[:-1]
        drivers = {**SURFACE_DRIVERS, **E2E_CLIENTS}[folder[0]] if folder else ANY_SURFACE
        if not _drives(path, drivers):
            idle.append(f"{_rel(path)}: drive it with one of {drivers}")
    assert not idle, "\n".join(idle)


def test_outside_e2e_no_test_drives_a_surface_unless_listed() -> None:
    outside = [p for folder in sorted(FOLDERS - {"e2e", "fixtures"}) for p in _tests(folder)]
    driving = {_rel(p) for p in outside if _drives(p, ANY_SURFACE)}
    assert sorted(driving - set(SURFACE_CHECKS)) == [], "a test of a surface goes to e2e/"
    assert sorted(set(SURFACE_CHECKS) - driving) == [], "no longer at a surface: unlist it"


def test_bench_tests_test_the_benchmark_harness() -> None:
    wrong = [
        _rel(p)
        for p in _tests("bench")
        if not any(i == "bench" or i.startswith("bench.") for i in _imports(p))
    ]
    assert wrong == []


def test_repo_tests_read_files_and_import_nothing_of_mneme() -> None:
    assert [_rel(p) for p in _files("repo") if _mneme(p)] == []


def test_every_test_file_the_docs_cite_exists_or_is_mapped_in_the_readme() -> None:
    """Accepted ADRs are never rewritten: a test they cite that has moved is in the table
    of tests/README.md."""
    readme = (TESTS / "README.md").read_text("utf-8")
    docs = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "bench").rglob("*.md"), ROOT / "README.md"]
    cited = {m for doc in docs for m in re.findall(r"tests/[\w/]+\.py", doc.read_text("utf-8"))}
    lost = sorted(c for c in cited if not (ROOT / c).is_file() and f"| `{c}` |" not in readme)
    assert lost == []
