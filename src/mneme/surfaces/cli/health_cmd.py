"""``mneme health`` (one watchdog report, exit code by severity) and ``mneme watch`` (the
watchdog's loop with its reactions, bounded by ``--max-passes``), ADR 0054."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import Any

import click

from mneme.surfaces.cli import output
from mneme.surfaces.cli.state import get_state, output_options

#: The exit code of each severity: the convention of Nagios-style checks, which monitoring
#: systems read as is (a usage error still exits 2, as for every command).
SEVERITY_CODES = {"ok": 0, "warn": 1, "critical": 2}

_EPILOG = "\b\nExit codes:\n  0  ok\n  1  warn (something needs a look)\n  2  critical"


def _mib(n: int | None) -> str:
    return "-" if n is None else f"{n / (1024 * 1024):.1f} MiB"


def report_lines(report: Mapping[str, Any]) -> list[str]:
    """The human form of a watchdog report."""
    store = report["store"]
    lines = [
        f"health: {report['severity'].upper()}  ({report['backend']})",
        f"  database {_mib(store['db_bytes'])}   WAL {_mib(store['wal_bytes'])}   "
        f"disk free {_mib(store['disk_free_bytes'])}   "
        f"memory {_mib(report['process']['rss_bytes'])}",
        f"  ingest queue: {store['queue_pending']} pending, {store['processing']} processing",
    ]
    for name, stage in report["stages"].items():
        state = f"paused ({stage['paused']})" if stage["paused"] else "running"
        lines.append(f"  stage {name}: {state}, {stage['runs']} passes")
    lines.append(
        "  checks: " + "  ".join(f"{name} {verdict}" for name, verdict in report["checks"].items())
    )
    for f in report["findings"]:
        lines.append(f"  [{f['severity']}] {f['detector']}: {f['summary']}")
        reaction = f.get("reaction") or {}
        heal = reaction.get("heal")
        if heal:
            lines.append(f"      {heal['action']}: {heal['outcome']}")
        if "alert" in reaction:
            lines.append(f"      alert: {'retained' if reaction['alert']['ok'] else 'failed'}")
        if "hook" in reaction:
            hook = reaction["hook"]
            lines.append(f"      hook: {'ran' if hook['ok'] else hook.get('error', 'failed')}")
    return lines


@click.command(epilog=_EPILOG)
@output_options
def health() -> int:
    """Check the store once and print one report (no repair): integrity, database and WAL
    size, vector index consistency, the ingest queue, stuck items, stage floods, disk free and
    process memory. Exits 0 ok, 1 warn, 2 critical. Thresholds: the watch_* configuration."""
    state = get_state()
    report = state.open().admin.check()
    state.emit(report, lambda: report_lines(report))
    return SEVERITY_CODES[report["severity"]]


@click.command(epilog=_EPILOG)
@click.option(
    "--interval",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds between passes.",
)
@click.option(
    "--max-passes",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Stop after N passes (default: run until interrupted).",
)
@output_options
def watch(interval: float, max_passes: int | None) -> int:
    """Run the watchdog: each pass checks the store and reacts (checkpoint the WAL, rebuild a
    stale index, requeue a stuck item, pause a flooding stage; else an ops-alert memory in the
    system bank and the operator's hook, once per condition), journaling every reaction.
    One report per pass (a JSON document each with --json); exits with the last pass's
    severity code."""
    state = get_state()
    memory = state.open()
    stop = threading.Event()
    code, passes = 0, 0
    while True:
        report = memory.admin.watch()
        passes += 1
        code = SEVERITY_CODES[report["severity"]]
        state.emit(report, functools.partial(report_lines, report))
        if max_passes is not None and passes >= max_passes:
            return code
        try:
            stop.wait(interval)
        except KeyboardInterrupt:
            output.note("watch: interrupted")
            return code


COMMANDS = (health, watch)
