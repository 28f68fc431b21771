"""Every MNEME_ variable goes through the configuration (ADR 0057), and it cannot regress.

Read from the files with ``ast`` (nothing of mneme is imported):

1. No module of ``src/mneme`` but ``config.py`` reads the process environment (``os.environ``,
   ``os.getenv``, ``os.environb``), except the few listed in ``ALLOWED`` with the reason.
2. No module passes a ``MNEME_`` name to click's ``envvar=``: click would read it behind the
   configuration's back (its type check, its layer order, ``mneme config get --explain``).
3. ``config.py`` itself reads no ``MNEME_`` name by a literal but the config file's
   (``MNEME_CONFIG``): every other variable is derived from a field of ``Config``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.repo.imports import SRC

CONFIG = SRC / "mneme" / "config.py"

#: file (relative to src/mneme) -> (how many reads, why they stay outside the configuration).
ALLOWED = {
    "embed/minilm.py": (
        1,
        "OMP_NUM_THREADS / MKL_NUM_THREADS: the thread libraries' own variables, honoured as "
        "they are (torch reads them itself); mneme only checks whether one is set before "
        "capping its threads to the CPUs it may use",
    ),
    "background/hook.py": (
        1,
        "the operator's hook inherits the server's environment (PATH, HOME, its own "
        "variables), plus the finding's MNEME_WATCH_* values: passed on, not read",
    ),
    "store/postgres/dump.py": (
        1,
        "pg_dump inherits the environment (PATH, PGSSLMODE and the other libpq variables), "
        "plus PGPASSWORD from the DSN: passed on, not read",
    ),
}


READS = ("environ", "environb", "getenv")


def _env_reads(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr in READS)
        or (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in READS for a in node.names)
        )
    ]


def _files() -> list[Path]:
    return sorted((SRC / "mneme").rglob("*.py"))


def test_only_config_reads_the_environment() -> None:
    found: dict[str, list[int]] = {}
    for path in _files():
        if path == CONFIG:
            continue
        lines = _env_reads(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[str(path.relative_to(SRC / "mneme"))] = lines
    unexpected = {
        f: lines for f, lines in found.items() if f not in ALLOWED or len(lines) != ALLOWED[f][0]
    }
    assert not unexpected, (
        f"environment reads outside mneme/config.py: {unexpected}; read a setting from Config "
        "(a field gets its MNEME_ variable for free), or list the file in ALLOWED with why"
    )
    stale = set(ALLOWED) - set(found)
    assert not stale, f"listed in ALLOWED but reading no environment any more: {stale}"


def test_no_click_option_reads_a_mneme_variable() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path in _files()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "envvar"
        and any(
            isinstance(c, ast.Constant) and str(c.value).startswith("MNEME_")
            for c in ast.walk(kw.value)
        )
    ]
    assert not offenders, f"click envvar= bypasses the configuration: {offenders}"


def test_config_names_no_mneme_variable_but_the_files() -> None:
    literals = {
        node.value
        for node in ast.walk(ast.parse(CONFIG.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("MNEME_")
    }
    assert literals == {"MNEME_", "MNEME_CONFIG"} or literals == {"MNEME_CONFIG"}, literals
