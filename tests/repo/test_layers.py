"""The layers of src/mneme hold on every import (DESIGN.md, "A layout that shows the
architecture"; issue 17 item 4).

From the top, each module of mneme sits in one layer (``LAYERS``, by its first package name):

- **client**: ``mneme.client``, the typed client of the HTTP API (ADR 0050). It runs in
  another process than the server, so it sits above everything and reaches nothing of it.
- **surfaces**: ``mneme.surfaces`` (cli, http, mcp, web, and the authority they share), and
  ``mneme.adapters`` (the framework adapters of ADR 0049: LangGraph, OpenAI Agents, LlamaIndex),
  which call Memory as the surfaces do and which nothing of mneme imports.
- **memory**: ``mneme`` (the public API in ``__init__``), ``mneme.memory``, the one
  service object, with its namespaces (``mneme.namespaces``) and the names it keeps one
  release after they moved (``mneme.deprecation``; ADR 0043).
- **services**: ``write``, ``read``, ``trust``, ``background``, ``think`` and ``presence``
  (the swarm roster: heartbeats kept in a store). What Memory composes.
- **models**: ``store``, ``embed``, ``llm``: storage and the model clients, each behind its
  protocol. They sit below the services, which are typed on them, and above core.
- **base**: ``config``, ``errors``, ``ids``, ``validate``, ``serialize``, ``data``: what every
  layer above core shares (typed configuration, the errors callers catch, id minting, argument
  checks, the JSON shape of core values, packaged data). Not core: ids read the clock and
  config reads the environment.
- **core**: ``mneme.core``, the pure domain.

The rules:

1. No module imports from a layer above its own.
2. core imports nothing of mneme but core (not even ``mneme.errors``: it raises the built-in
   errors), nothing outside the standard library, and none of the standard modules that do
   I/O, read the clock or the environment, or draw randomness (``BANNED_IN_CORE``); nor does
   it call ``now()``, ``today()`` or ``utcnow()`` (the clock is injected).
3. Surfaces call Memory, nothing else: besides memory, they import only core (the values
   Memory returns) and base. Never a service, a store, an embedder or an LLM client.
4. The models do not import each other: a store knows no embedder and no LLM.
5. The client imports only base (``mneme.errors``: its errors are the ones ``Memory`` raises),
   never the server it talks to; its generator alone (``CLIENT_GENERATOR``) reads the app,
   for the OpenAPI document it writes the client from.
6. The packages of mneme import each other without a cycle (and core's modules one another:
   test_core_imports.py).

Every import counts: at the top, inside a function, and under ``if TYPE_CHECKING:``. A
type-only import never runs, but the code is written against the layer it names just the
same; where a lower layer must call an upper one, it declares the protocol it needs (as
``mneme.think.host`` does for Memory). ``from mneme import x`` is the module ``mneme.x`` when
there is one, else the public API (the memory layer).

An import the rules forbid but that stays for a reason goes in ``EXCEPTIONS`` with that
reason; a listed exception that no longer occurs fails, so the list only shrinks.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

import pytest
from tests.repo.imports import (
    SRC,
    Import,
    cycle,
    file_imports,
    imports_of,
    mneme_modules,
    mneme_targets,
)

ORDER = ("core", "base", "models", "services", "memory", "surfaces", "client")
LAYERS = {
    "client": "client",
    "surfaces": "surfaces",
    "adapters": "surfaces",
    "": "memory",  # mneme/__init__.py, the public API
    "memory": "memory",
    "namespaces": "memory",
    "deprecation": "memory",
    "observe": "memory",
    "reconfigure": "memory",
    "write": "services",
    "read": "services",
    "trust": "services",
    "background": "services",
    "think": "services",
    "presence": "services",
    "store": "models",
    "embed": "models",
    "llm": "models",
    "config": "base",
    "config_types": "base",
    "config_file": "base",
    "errors": "base",
    "ids": "base",
    "lifecycle": "base",
    "validate": "base",
    "serialize": "base",
    "data": "base",
    "core": "core",
}
SURFACES_MAY_IMPORT = {"surfaces", "memory", "core", "base"}
CLIENT_MAY_IMPORT = {"client", "base"}
#: Builds the app (on a throwaway store) to read its OpenAPI document; never imported by the
#: client itself.
CLIENT_GENERATOR = "mneme.client.generate"

#: Standard modules core may not import: files, processes, network and drivers (I/O), the
#: clock, the environment, randomness, and logging (core returns what happened; callers log).
BANNED_IN_CORE = {
    "os", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "fileinput", "mmap",
    "subprocess", "multiprocessing", "threading", "concurrent", "asyncio", "signal",
    "socket", "ssl", "select", "selectors", "http", "urllib", "ftplib", "smtplib", "email",
    "sqlite3", "dbm", "shelve", "pickle", "psycopg", "psycopg_pool", "httpx",
    "time", "random", "secrets", "uuid", "logging", "importlib", "platform", "getpass",
}  # fmt: skip
CLOCK_READS = {"now", "today", "utcnow"}

#: (importing module, imported module) -> why the rules allow it. None today.
EXCEPTIONS: dict[tuple[str, str], str] = {}

MODULES = mneme_modules()
NAMES = set(MODULES)


def package(module: str) -> str:
    """The first package name under mneme ("" for the public API itself)."""
    return module.split(".")[1] if "." in module else ""


def layer(module: str) -> str:
    return LAYERS[package(module)]


def _mneme_imports() -> Iterator[tuple[str, Import]]:
    """Each (module, import of mneme) once, less the listed exceptions."""
    for module, path in MODULES.items():
        for imp in dict.fromkeys(mneme_targets(file_imports(path, NAMES))):
            if (module, imp.target) not in EXCEPTIONS:
                yield module, imp


def _where(module: str, imp: Import) -> str:
    kind = " (type only)" if imp.type_only else ""
    return f"{MODULES[module].relative_to(SRC)}:{imp.line} imports {imp.target}{kind}"


def test_every_module_of_mneme_sits_in_a_layer() -> None:
    unplaced = sorted({package(m) for m in MODULES if package(m) not in LAYERS})
    assert unplaced == [], f"add these packages of mneme to LAYERS (and to DESIGN.md): {unplaced}"


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [
        _where(module, imp)
        for module, imp in _mneme_imports()
        if ORDER.index(layer(imp.target)) > ORDER.index(layer(module))
    ]
    assert not upward, "\n".join(upward)


def test_core_imports_only_core_and_the_standard_library_without_io_clock_or_environment() -> None:
    wrong = []
    for module, path in MODULES.items():
        if layer(module) != "core":
            continue
        for imp in file_imports(path, NAMES):
            top = imp.target.split(".")[0]
            if top == "mneme":
                ok = imp.target.startswith("mneme.core")
            else:
                ok = top in sys.stdlib_module_names and top not in BANNED_IN_CORE
            if not ok:
                wrong.append(_where(module, imp))
    assert not wrong, "\n".join(wrong)


def test_core_reads_no_clock() -> None:
    reads = [
        f"{module}:{node.lineno} calls .{node.func.attr}()"
        for module, path in MODULES.items()
        if layer(module) == "core"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCK_READS
    ]
    assert not reads, "\n".join(reads)


def test_surfaces_reach_only_memory_core_and_base() -> None:
    reached = [
        _where(module, imp)
        for module, imp in _mneme_imports()
        if layer(module) == "surfaces" and layer(imp.target) not in SURFACES_MAY_IMPORT
    ]
    assert not reached, "\n".join(reached)


def test_nothing_of_mneme_imports_the_adapters() -> None:
    """An adapter imports its framework (an extra): mneme itself never needs one."""
    importers = [
        _where(module, imp)
        for module, imp in _mneme_imports()
        if package(imp.target) == "adapters" and package(module) != "adapters"
    ]
    assert not importers, "\n".join(importers)


def test_the_client_reaches_only_base_and_its_generator_is_never_imported() -> None:
    reached = [
        _where(module, imp)
        for module, imp in _mneme_imports()
        if layer(module) == "client"
        and module != CLIENT_GENERATOR
        and (layer(imp.target) not in CLIENT_MAY_IMPORT or imp.target == CLIENT_GENERATOR)
    ]
    assert not reached, "\n".join(reached)


def test_the_models_do_not_import_each_other() -> None:
    crossed = [
        _where(module, imp)
        for module, imp in _mneme_imports()
        if layer(module) == layer(imp.target) == "models" and package(module) != package(imp.target)
    ]
    assert not crossed, "\n".join(crossed)


def test_the_packages_of_mneme_import_each_other_without_a_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for module, imp in _mneme_imports():
        if package(module) != package(imp.target):
            graph.setdefault(package(module), set()).add(package(imp.target))

    found = cycle(graph)
    assert found is None, "import cycle between packages: " + " -> ".join(found or [])


def test_every_listed_exception_still_occurs() -> None:
    occurring = {
        (module, imp.target)
        for module, path in MODULES.items()
        for imp in mneme_targets(file_imports(path, NAMES))
    }
    stale = sorted(set(EXCEPTIONS) - occurring)
    assert stale == [], "these imports are gone: take them off EXCEPTIONS"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from mneme.memory import Memory", [("mneme.memory", False)]),
        ("def f():\n    from ..memory import Memory", [("mneme.memory", False)]),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mneme import memory",
            [("typing", False), ("mneme.memory", True)],
        ),
        ("from mneme import Memory", [("mneme", False)]),
        ("import mneme.store.sqlite.lexical", [("mneme.store.sqlite.lexical", False)]),
    ],
)
def test_the_reader_sees_lazy_relative_and_type_only_imports(
    source: str, expected: list[tuple[str, bool]]
) -> None:
    found = imports_of(source, "mneme.think.thinker", NAMES)
    assert [(i.target, i.type_only) for i in found] == expected
