"""Recall settings given on a benchmark's command line: ``--recall KEY=VALUE``."""

from __future__ import annotations

import argparse
import dataclasses
import typing
from collections.abc import Sequence

from mneme.config import RecallConfig


def shown(value: float | int | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value:g}"


def recall_overrides(items: Sequence[str]) -> dict[str, float | int | bool]:
    """``["focus_weight=0", "present_untyped=false"]`` -> ``{"focus_weight": 0.0,
    "present_untyped": False}``: each value read as its ``RecallConfig`` field's type (a
    number or a truth value); a bad item raises ValueError."""
    types = typing.get_type_hints(RecallConfig)
    known = {f.name: types[f.name] for f in dataclasses.fields(RecallConfig)}
    out: dict[str, float | int | bool] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        kind = known.get(key)
        if not sep or kind not in (bool, int, float):
            settable = ", ".join(sorted(k for k, t in known.items() if t in (bool, int, float)))
            raise ValueError(f"--recall {item!r}: expected KEY=VALUE with KEY one of {settable}")
        if kind is bool:
            truth = {"true": True, "1": True, "on": True, "false": False, "0": False, "off": False}
            if value.casefold() not in truth:
                raise ValueError(f"--recall {item!r}: {value!r} is not true or false")
            out[key] = truth[value.casefold()]
            continue
        try:
            out[key] = int(value) if kind is int else float(value)
        except ValueError:
            raise ValueError(f"--recall {item!r}: {value!r} is not a number") from None
    return out


def add_recall_option(ap: argparse.ArgumentParser, what: str) -> None:
    """The ``--recall KEY=VALUE`` option (repeatable); ``what`` says what a run with one is."""
    ap.add_argument(
        "--recall",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a recall setting for mneme, e.g. focus_weight=0 (repeatable; {what})",
    )


def recall_from(ap: argparse.ArgumentParser, items: Sequence[str]) -> dict[str, float | int | bool]:
    """``recall_overrides``; a bad item ends the command with argparse's usage error (2)."""
    try:
        return recall_overrides(items)
    except ValueError as exc:
        ap.error(str(exc))
