"""Bulk import: JSONL (one input per line) and LoCoMo-style conversation JSON.

Inputs are retained in batches through ``Memory.retain_many``, which writes a batch in one
transaction or not at all. When an input is bad, everything before it is kept, nothing from it
on is written, and the error names its line (or turn) and how many inputs were imported.

Lines are read as bytes, at most ``--max-line-bytes`` of each (an endless line is refused at the
cap, never read whole), and decoded one at a time, so bytes that are not UTF-8 name their line.
A JSONL line without a source id gets one derived from its content (ADR 0033): running the same
import again, after a crash or on a file that grew, adds nothing it already added.
"""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import json
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import click

from mneme.core.model import RetainResult
from mneme.errors import InvalidInput, MnemeError, NotFound
from mneme.memory import Memory
from mneme.surfaces.cli import backups, output
from mneme.surfaces.cli.state import State, get_state, output_options, progress

JSONL_KEYS = frozenset(
    {"text", "occurred_at", "source_id", "session", "speaker", "agent", "metadata"}
)
#: LoCoMo session times look like "1:56 pm on 8 May, 2023".
LOCOMO_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
_SESSION_KEY = re.compile(r"session_(\d+)")
_ITEM_INDEX = re.compile(r"^item (\d+): ")
#: The longest JSONL line read by default (bytes, newline excluded): far above any real input,
#: and a line with no newline in hundreds of MB stops there instead of filling memory.
MAX_LINE_BYTES = 1 << 20
#: Where a line's derived source id starts (ADR 0033); a caller's own ids rarely look like it.
DERIVED_ID_PREFIX = "line:"


class ImportFailed(InvalidInput):
    """A bad input stopped the import; ``details`` says where and how much came before it."""

    def __init__(self, message: str, *, where: str, imported: int) -> None:
        super().__init__(message)
        self.details = {"at": where, "imported": imported}


@dataclass(frozen=True, slots=True)
class Record:
    where: str  # "line 7" or "turn conv-26:D3:4", for error messages
    item: Mapping[str, Any]  # retain()'s arguments by name


@dataclass
class Tally:
    inputs: int = 0
    memories: int = 0
    deduped: int = 0
    needs_clarification: int = 0
    already_imported: int = 0  # replays of a source id the store already held
    banks: set[str] = field(default_factory=set)


class _BadRecord(Exception):
    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


# -- JSONL --------------------------------------------------------------------------------


def _jsonl_item(obj: Any, lineno: int, bank: str | None, agent: str | None) -> Record:
    where = f"line {lineno}"
    if not isinstance(obj, dict):
        raise _BadRecord(where, f"expected a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - JSONL_KEYS
    if unknown:
        raise _BadRecord(where, f"unknown keys {sorted(unknown)}; allowed: {sorted(JSONL_KEYS)}")
    if "text" not in obj:
        raise _BadRecord(where, "no 'text'")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _BadRecord(where, "'metadata' must be a JSON object")
    text = obj["text"]
    speaker = obj.get("speaker")
    if speaker is not None:
        if not isinstance(speaker, str) or not speaker.strip():
            raise _BadRecord(where, "'speaker' must be a non-empty string")
        if isinstance(text, str):
            text = f"{speaker}: {text}"
        metadata = {**metadata, "speaker": speaker}
    who = obj.get("agent") or agent
    if who is None:
        raise _BadRecord(where, "no agent: give --agent or an 'agent' key")
    if bank is None:
        raise _BadRecord(where, "no bank: give --bank")
    item: dict[str, Any] = {
        "text": text,
        "bank": bank,
        "agent": who,
        "session": obj.get("session"),
        "occurred_at": obj.get("occurred_at"),
        "source_id": obj.get("source_id"),
        "metadata": metadata or None,
    }
    return Record(where, item)


def read_lines(fh: BinaryIO, max_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes without the newline) of every line; None for a line longer than
    ``max_bytes``, whose rest is skipped in bounded reads, never held whole."""
    lineno = 0
    while line := fh.readline(max_bytes + 1):
        lineno += 1
        if line.endswith(b"\n"):
            yield lineno, line.rstrip(b"\r\n")
        elif len(line) <= max_bytes:
            yield lineno, line  # the last line, without a newline
        else:
            yield lineno, None
            # Only a caller that reads on (a count) pays for skipping the rest of it.
            while (rest := fh.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass


def _decode(raw: bytes | None, lineno: int, max_bytes: int) -> Any:
    """One JSONL line as a JSON value, or _BadRecord saying what is wrong with it."""
    where = f"line {lineno}"
    if raw is None:
        raise _BadRecord(
            where, f"longer than {max_bytes} bytes (--max-line-bytes allows a longer one)"
        )
    if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # a byte-order mark some editors write
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadRecord(where, f"not valid UTF-8 (byte {exc.start + 1} of the line)") from None
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise _BadRecord(where, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _BadRecord(where, "JSON nested too deeply") from None


def derived_source_id(item: Mapping[str, Any], seen: collections.Counter[bytes]) -> str:
    """A source id from what a line says (ADR 0033): the same line in a re-run gets the same id,
    so the store recognises it; the n-th repeat of one line in a file gets its own."""
    said = {k: v for k, v in item.items() if k != "bank"}
    digest = hashlib.sha256(
        json.dumps(said, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    ).digest()[:16]
    n = seen[digest]
    seen[digest] += 1
    return DERIVED_ID_PREFIX + digest.hex() + (f".{n}" if n else "")


def jsonl_records(
    path: Path, bank: str | None, agent: str | None, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record]:
    seen: collections.Counter[bytes] = collections.Counter()
    with path.open("rb") as fh:
        for lineno, raw in read_lines(fh, max_line_bytes):
            if raw is not None and not raw.strip():
                continue
            record = _jsonl_item(_decode(raw, lineno, max_line_bytes), lineno, bank, agent)
            if record.item["source_id"] is None:
                item = dict(record.item)
                item["source_id"] = derived_source_id(item, seen)
                record = Record(record.where, item)
            yield record


def _count_lines(path: Path, max_line_bytes: int) -> int:
    with path.open("rb") as fh:
        return sum(1 for _, raw in read_lines(fh, max_line_bytes) if raw is None or raw.strip())


# -- LoCoMo -------------------------------------------------------------------------------


def _session_time(conv: Mapping[str, Any], n: int, sample_id: str) -> dt.datetime | None:
    raw = conv.get(f"session_{n}_date_time")
    if raw is None:
        return None
    try:
        # The dataset gives no time zone; the times are read as UTC.
        return dt.datetime.strptime(str(raw).strip(), LOCOMO_TIME_FORMAT).replace(tzinfo=dt.UTC)
    except ValueError:
        raise _BadRecord(
            f"sample {sample_id}",
            f"session_{n}_date_time {raw!r} is not like '1:56 pm on 8 May, 2023'",
        ) from None


def locomo_samples(data: Any, sample: str | None) -> list[Mapping[str, Any]]:
    samples = data if isinstance(data, list) else [data]
    for i, s in enumerate(samples):
        if (
            not isinstance(s, dict)
            or "sample_id" not in s
            or not isinstance(s.get("conversation"), dict)
        ):
            raise _BadRecord(
                f"sample {i}", "not a LoCoMo sample (needs 'sample_id' and a 'conversation' object)"
            )
    if sample is None:
        return samples
    chosen = [s for s in samples if s["sample_id"] == sample]
    if not chosen:
        known = ", ".join(str(s["sample_id"]) for s in samples)
        raise NotFound(f"no sample {sample!r} in the file (it holds: {known})")
    return chosen


def locomo_records(
    samples: list[Mapping[str, Any]], bank: str | None, agent: str
) -> Iterator[Record]:
    for s in samples:
        sid = str(s["sample_id"])
        conv = s["conversation"]
        sessions = sorted(
            int(m[1])
            for k, v in conv.items()
            if (m := _SESSION_KEY.fullmatch(k)) and isinstance(v, list)
        )
        for n in sessions:
            when = _session_time(conv, n, sid)
            for turn in conv[f"session_{n}"]:
                where = f"turn {sid}:{turn.get('dia_id', '?') if isinstance(turn, dict) else '?'}"
                if not isinstance(turn, dict) or not {"speaker", "dia_id", "text"} <= set(turn):
                    raise _BadRecord(where, "a turn needs 'speaker', 'dia_id' and 'text'")
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                yield Record(
                    where,
                    {
                        "text": text,
                        "bank": bank or sid,
                        "agent": agent,
                        "session": f"{sid}:session_{n}",
                        "occurred_at": when,
                        "source_id": f"{sid}:{turn['dia_id']}",
                        "metadata": {
                            "speaker": turn["speaker"],
                            "dia_id": turn["dia_id"],
                            "sample_id": sid,
                        },
                    },
                )


def detect_format(path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> str:
    """ "jsonl" or "locomo", from the extension, else from the first JSON value in the file."""
    if path.suffix == ".jsonl":
        return "jsonl"
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()
        fh.seek(0)
        first = next(read_lines(fh, max_line_bytes), (1, None))[1]
    if head.startswith(b"["):
        return "locomo"
    if head.startswith(b"{"):
        if first is None:  # one endless line: a minified sample, or a bad JSONL line
            return "locomo" if b'"conversation"' in head else "jsonl"
        try:
            value = json.loads(first.decode("utf-8", errors="replace"))
        except (json.JSONDecodeError, RecursionError):
            return "locomo"  # the first object spans lines: one pretty-printed sample
        return "locomo" if isinstance(value, dict) and "conversation" in value else "jsonl"
    raise InvalidInput(f"cannot tell the format of {path}; give --format jsonl or locomo")


def read_document(path: Path) -> Any:
    """A whole LoCoMo file as JSON; a bad byte or nesting too deep is an InvalidInput."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportFailed(
            f"line {line}: not valid UTF-8; nothing was imported", where=f"line {line}", imported=0
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidInput(f"{path}: JSON nested too deeply; nothing was imported") from None


# -- the import loop ----------------------------------------------------------------------


def _count(batch: list[Record], results: list[RetainResult], tally: Tally) -> None:
    for record, result in zip(batch, results, strict=True):
        tally.inputs += 1
        tally.memories += len(result.memory_ids)
        tally.deduped += len(result.deduped)
        tally.needs_clarification += result.status.value == "needs_clarification"
        tally.already_imported += bool(result.metadata.get("replayed"))
        tally.banks.add(str(record.item["bank"]))


def _failed(mem: Memory, batch: list[Record], exc: MnemeError, tally: Tally) -> MnemeError:
    """The error to report for the batch that failed; on a bad item, the items before it in
    that batch are retained first (the batches before it already were)."""
    if isinstance(exc, InvalidInput):
        match = _ITEM_INDEX.match(str(exc))
        if match is None:
            return ImportFailed(
                f"{batch[0].where} and after: {exc}; {tally.inputs} inputs were imported before it",
                where=batch[0].where,
                imported=tally.inputs,
            )
        bad = int(match[1])
        if bad:
            _count(batch[:bad], mem.retain_many([r.item for r in batch[:bad]]), tally)
        return ImportFailed(
            f"{batch[bad].where}: {str(exc)[match.end() :]}; {tally.inputs} "
            "inputs before it were imported, nothing from it on",
            where=batch[bad].where,
            imported=tally.inputs,
        )
    # A conflict (a reused source id) or a backend failure: the batch was rolled back.
    err = type(exc)(
        f"{batch[0].where} (a batch of {len(batch)}): {exc}; "
        f"{tally.inputs} inputs were imported before that batch"
    )
    err.details = {"at": batch[0].where, "imported": tally.inputs}  # type: ignore[attr-defined]
    return err


def run_import(state: State, records: Iterator[Record], total: int, batch_size: int) -> Tally:
    """Retain the records in batches through ``Memory.retain_batches`` (the next batch embeds
    while the current one is written). A record that cannot be read stops the import after
    the records before it are retained; so does a bad item or a failed batch, after the
    batches before it."""
    mem = state.open()
    tally = Tally()
    # The batches the stream has taken and not yet answered for, oldest first: when it
    # raises, the first of them is the batch that failed.
    taken: list[list[Record]] = []
    unreadable: list[_BadRecord] = []

    def batches() -> Iterator[list[Mapping[str, Any]]]:
        batch: list[Record] = []
        try:
            for record in records:
                batch.append(record)
                if len(batch) >= batch_size:
                    taken.append(batch)
                    yield [r.item for r in batch]
                    batch = []
        except _BadRecord as bad:
            unreadable.append(bad)
        if batch:
            taken.append(batch)
            yield [r.item for r in batch]

    with progress(state, total, "importing") as bar:
        try:
            for results in mem.retain_batches(batches()):
                done = taken.pop(0)
                _count(done, results, tally)
                bar.update(len(done))
        except MnemeError as exc:
            raise _failed(mem, taken[0], exc, tally) from None
    if unreadable:
        bad = unreadable[0]
        raise ImportFailed(
            f"{bad.where}: {bad}; {tally.inputs} inputs before it were "
            "imported, nothing from it on",
            where=bad.where,
            imported=tally.inputs,
        ) from None
    return tally


@click.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--bank", "-b", help="Bank to import into (LoCoMo: default the sample_id).")
@click.option("--agent", "-a", help="Agent recorded as the author (required but with --portable).")
@click.option(
    "--portable",
    is_flag=True,
    help="PATH is a portable archive of `mneme export`: merge it into the store by id.",
)
@click.option(
    "--audit-key",
    metavar="FILE",
    help="--portable: the archive's audit keys (default: PATH.audit-key).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "jsonl", "locomo"]),
    default="auto",
    show_default=True,
    help="Input format.",
)
@click.option("--sample", metavar="ID", help="LoCoMo: import only this conversation.")
@click.option(
    "--max-line-bytes",
    type=click.IntRange(1, 1 << 30),
    default=MAX_LINE_BYTES,
    show_default=True,
    help="JSONL: refuse a line longer than this many bytes.",
)
@click.option(
    "--batch",
    "batch_size",
    type=click.IntRange(1, 10_000),
    default=64,
    show_default=True,
    help="Inputs per transaction.",
)
@output_options
def import_(
    path: Path,
    bank: str | None,
    agent: str | None,
    portable: bool,
    audit_key: str | None,
    fmt: str,
    sample: str | None,
    max_line_bytes: int,
    batch_size: int,
) -> None:
    """Import a JSONL file or a LoCoMo-style conversation file.

    \b
    JSONL: one object a line with "text" and optional "occurred_at", "source_id",
    "session", "speaker" (kept as "Speaker: text"), "agent" and "metadata".
    LoCoMo: every turn becomes "Speaker: text" with source id <sample_id>:<dia_id>,
    dated by its session's date_time.

    A bad line (not JSON, not UTF-8, nested too deeply, longer than --max-line-bytes)
    stops the import: the lines before it are kept, nothing from it on is written, and
    the error names the line (exit 2). A line without "source_id" gets one derived from
    its content, so running the same import again adds nothing twice.

    \b
    --portable: PATH is an archive of `mneme export`. It is checked whole first (digests,
    trailer, keyed seal, schema: an archive of a newer schema is refused, exit 4), then
    merged by id in one transaction: rows already there are skipped, a row whose id is
    taken by another state refuses the whole import (exit 4, naming the ids), and the
    audit of every bank it fills must verify on the copy before it commits.
    """
    if portable:
        backups.import_portable(path, audit_key)
        return
    if agent is None:
        raise click.UsageError("--agent is required (but with --portable)")
    state = get_state()
    started = time.perf_counter()
    if fmt == "auto":
        fmt = detect_format(path, max_line_bytes)
    if fmt == "jsonl":
        if bank is None:
            raise click.UsageError("--bank is required for JSONL input")
        # Counted only for a progress bar: off a terminal the file is read once.
        total = _count_lines(path, max_line_bytes) if state.interactive else 0
        records = jsonl_records(path, bank, agent, max_line_bytes)
    else:
        data = read_document(path)
        try:
            # Read every turn first: a malformed one stops the import before anything is written.
            turns = list(locomo_records(locomo_samples(data, sample), bank, agent))
        except _BadRecord as bad:
            raise ImportFailed(
                f"{bad.where}: {bad}; nothing was imported", where=bad.where, imported=0
            ) from None
        records, total = iter(turns), len(turns)
    tally = run_import(state, records, total, batch_size)
    elapsed = time.perf_counter() - started
    summary = {
        "path": str(path),
        "format": fmt,
        "imported": tally.inputs,
        "memories": tally.memories,
        "deduped": tally.deduped,
        "needs_clarification": tally.needs_clarification,
        "already_imported": tally.already_imported,
        "banks": sorted(tally.banks),
        "elapsed_s": round(elapsed, 3),
    }

    def text() -> list[str]:
        banks = ", ".join(sorted(tally.banks)) or "-"
        lines = [
            f"imported {tally.inputs} inputs ({tally.memories} memories, "
            f"{tally.deduped} repeats) into {banks} in {elapsed:.1f} s"
        ]
        if tally.already_imported:
            lines.append(f"{tally.already_imported} of them were already imported")
        if tally.needs_clarification:
            lines.append(f"{tally.needs_clarification} need a person's review")
        return lines

    state.emit(summary, text)
    if not state.json and tally.inputs == 0:
        output.note("note: the file held no inputs")


COMMANDS = [import_]
