"""What a running Memory takes of a new configuration, and what needs a restart (ADR 0057).

``Memory.reconfigure(config)`` (and ``Memory.reload()``, which reads the layers again) compares
the new configuration with the one in force. A setting in ``LIVE`` is applied: Memory builds
new clients for it (the LLM chain, the retain pipeline, the recall knobs) and swaps them in one
assignment, so a request already running finishes on the objects it started with. Any other
setting that changed (the store, the embedder, the audit key, a surface's option read once at
start) is reported as needing a restart and keeps its value in force: never silently ignored,
never half applied. A new field of ``Config`` needs a restart until Memory is taught to
rebuild what depends on it.

The status (the last reload, its error, how many were applied) is what ``mneme config apply``,
``GET /v1/admin/config`` and the server's log report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import json
import re
import threading
from pathlib import Path
from typing import Any

from mneme.config import LEAVES, SECTIONS, Config
from mneme.config_types import describe, flatten

#: Top-level fields (a section as a whole) a running Memory applies without a restart.
LIVE = frozenset(
    {
        "recall",
        "llm",
        "max_text_chars",
        "max_atoms",
        "analysis_ahead",
        "create_banks",
        "sensitive",
        "phone_region",
        "reconsolidate_every",
        "reconsolidation_bar",
        "reconsolidation_batch",
        "reflect_every",
        "reflect_banks_per_pass",
        "insights_every",
        "reflect_llm",
        "reflect_llm_max_calls",
        "insights_llm",
        "watch_every",
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class ReloadReport:
    """One reload: what was applied, what waits for a restart, or why nothing changed."""

    ok: bool
    #: Settings (dotted paths) now in force.
    applied: tuple[str, ...] = ()
    #: Settings that changed but keep their old value until the process restarts.
    needs_restart: tuple[str, ...] = ()
    #: Why nothing changed (an invalid setting, a client that could not be built).
    error: str | None = None
    #: Reloads asked so far in this process, this one included.
    generation: int = 0
    at: str = ""


def changed(old: Config, new: Config) -> list[str]:
    """The dotted paths whose value differs."""
    before, after = flatten(old), flatten(new)
    return [path for path, value in after.items() if before.get(path) != value]


def split(old: Config, new: Config) -> tuple[Config, tuple[str, ...], tuple[str, ...]]:
    """The configuration to put in force (``new`` for live settings, ``old`` for the rest),
    the live settings that changed, and those that need a restart."""
    paths = changed(old, new)
    live = tuple(p for p in paths if p.split(".", 1)[0] in LIVE)
    held = tuple(p for p in paths if p.split(".", 1)[0] not in LIVE)
    effective = dataclasses.replace(old, **{name: getattr(new, name) for name in LIVE})
    return effective, live, held


class Status:
    """The reloads of one Memory: a counter and the last report, read by any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.generation = 0
        self.last: ReloadReport | None = None
        #: Settings that changed in a reload and still wait for a restart.
        self.pending: tuple[str, ...] = ()

    def record(
        self,
        *,
        error: str | None = None,
        applied: tuple[str, ...] = (),
        needs_restart: tuple[str, ...] | None = None,
    ) -> ReloadReport:
        with self._lock:
            self.generation += 1
            if needs_restart is not None:
                self.pending = needs_restart
            report = ReloadReport(
                ok=error is None,
                applied=applied,
                needs_restart=self.pending,
                error=error,
                generation=self.generation,
                at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            )
            self.last = report
            return report

    def as_dict(self) -> dict[str, Any]:
        with self._lock:  # one reload's counter, report and pending settings, never mixed
            last, generation, pending = self.last, self.generation, self.pending
        return {
            "generation": generation,
            "needs_restart": list(pending),
            "last": dataclasses.asdict(last) if last is not None else None,
        }


# -- the reference of every setting (docs/configuration.md) ------------------------------

_FIELD = re.compile(r"^\s{4}(\w+): ")
BEGIN, END = "<!-- settings:begin -->", "<!-- settings:end -->"


def _field_docs(cls: type) -> dict[str, str]:
    """Each field's comment in the source of ``cls``: the ``#:`` lines above it and a
    trailing ``# ...``. The reference is written from the dataclass, so a new field is in it."""
    docs: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(cls).splitlines():
        text = line.strip()
        if text.startswith("#:"):
            pending.append(text[2:].strip())
            continue
        match = _FIELD.match(line)
        if match:
            trailing = line.split("  # ", 1)[1].strip() if "  # " in line else ""
            docs[match[1]] = " ".join([*pending, trailing]).strip()
        pending = []
    return docs


def _default(f: dataclasses.Field[Any]) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return ""
    if value is None:
        return "unset"
    return f"`{json.dumps(value) if isinstance(value, str | bool) else value!s}`"


def reference() -> str:
    """The settings table of docs/configuration.md: every field of ``Config`` and its
    sections, its type, default, environment variable, and whether a reload applies it."""
    docs = {"": _field_docs(Config), **{p: _field_docs(c) for p, c in SECTIONS.items()}}
    rows = [
        "| setting | takes | default | environment | on reload | what it is |",
        "|---|---|---|---|---|---|",
    ]
    for leaf in LEAVES.values():
        section, _, name = leaf.path.rpartition(".")
        reload = "applied" if leaf.path.split(".", 1)[0] in LIVE else "needs a restart"
        about = docs.get(section, {}).get(name, "").replace("|", "\\|")
        rows.append(
            f"| `{leaf.path}` | {describe(leaf.type)} | {_default(leaf.field)} | "
            f"`{leaf.env}` | {reload} | {about} |"
        )
    return "\n".join(rows) + "\n"


def write_reference(path: Path) -> bool:
    """Put ``reference()`` between the markers of ``path``; whether the file changed."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{reference()}{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    print(f"{'wrote' if write_reference(target) else 'unchanged'} {target}")
