"""A portable archive of a whole store (``mneme export``, ``mneme import --portable``; ADR 0053).

One gzip file of JSON lines, written as three gzip members (``gzip`` reads them as one stream):

- line 1, the manifest: ``format``, ``schema``, the ``mneme`` version, ``created``, the source
  ``backend``, per table its columns, row count and the SHA-256 of its lines, the embedding
  models (model, dim, rows) and the ids of the audit keys that sealed the records;
- one line per row, ``{"t": table, "r": {column: value}}`` in the portable form of
  ``store.tables`` (times as fixed-width UTC text, vectors as lists of floats), parents first;
- the trailer: the number of row lines, the SHA-256 of all of them, and a keyed seal (HMAC
  under the store's audit signing key) over the manifest line and that digest.

The archive is written under a temporary name beside its target and renamed only once whole
and flushed, so an export that is killed leaves no file that looks complete. The audit keys
are not in the archive: they go to ``<archive>.audit-key`` beside it (0600), as a SQLite
file's key lies beside the file (ADR 0035); whoever has the archive and not the key cannot
rewrite it undetected.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mneme.core.audit_chain import MacKey
from mneme.errors import Conflict, InvalidInput, SchemaMismatch
from mneme.store.audit_key import KeyRing
from mneme.store.codec import parse_ts, ts
from mneme.store.protocol import Store
from mneme.store.tables import SPECS, Table

FORMAT = "mneme.archive/1"
#: The archive formats this build reads.
READS = frozenset({FORMAT})
KEY_SUFFIX = ".audit-key"


def key_path(archive: str | Path) -> Path:
    """Where the audit keys of an archive lie by default: beside it."""
    return Path(f"{archive}{KEY_SUFFIX}")


@dataclass(frozen=True, slots=True)
class ArchiveReport:
    path: str
    rows: dict[str, int]  # table -> rows written
    bytes: int
    models: list[dict[str, Any]]
    keys: list[str]  # ids of the audit keys (their secrets are in the key file)
    key_file: str | None

    @property
    def total(self) -> int:
        return sum(self.rows.values())


# -- rows as JSON ------------------------------------------------------------------------


def encode_row(t: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c, k in t.columns:
        v = row.get(c)
        if v is not None and k == "ts":
            v = ts(v)
        elif v is not None and k == "vector":
            v = [float(x) for x in v]
        out[c] = v
    return out


def decode_row(t: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c, k in t.columns:
        v = row.get(c)
        if v is not None and k == "ts":
            v = parse_ts(v)
        out[c] = v
    return out


def line(table: str, row: Mapping[str, Any]) -> bytes:
    return (
        json.dumps({"t": table, "r": row}, ensure_ascii=False, separators=(",", ":")) + "\n"
    ).encode("utf-8")


def seal_mac(key: MacKey, manifest_line: bytes, body_sha: str) -> str:
    return f"{key.id}:{key.mac('archive' + manifest_line.decode('utf-8') + body_sha)}"


# -- writing ------------------------------------------------------------------------------


def _temp(target: Path, what: str) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.{what}.tmp")


def _fsync_rename(tmp: Path, target: Path) -> None:
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    try:
        fd = os.open(target.parent, os.O_RDONLY)
    except OSError:  # a directory that cannot be opened: the rename still happened
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_key_file(ring: KeyRing, ids: list[str], target: Path) -> None:
    """The secrets of ``ids`` in a key file of their own (0600), written then renamed."""
    found = ring.secrets()
    tmp = _temp(target, "key")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write("# mneme audit keys of an archive: without them it cannot be imported\n")
            for kid in ids:
                fh.write(f"{found[kid].hex()}  # {kid}\n")
        _fsync_rename(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write(
    store: Store,
    path: str | Path,
    *,
    manifest: Mapping[str, Any],
    overwrite: bool = False,
    progress: Callable[[str, int], None] | None = None,
    batch: int = 1000,
) -> ArchiveReport:
    """Write every table of ``store`` to the archive ``path`` (read from one snapshot, which
    the caller holds); ``manifest`` gives the fields this layer does not know (mneme version,
    created, schema, backend).

    Raises:
        Conflict: ``path`` exists and ``overwrite`` is off.
    """
    target = Path(path)
    if target.exists() and not overwrite:
        raise Conflict(f"{target} already exists; choose another path or replace it (--force)")
    if not target.parent.is_dir():
        raise InvalidInput(f"the folder {target.parent} does not exist")
    ring = store.audit.anchors().keyring
    body, final = _temp(target, "body"), _temp(target, "archive")
    tables: dict[str, dict[str, Any]] = {}
    models: dict[tuple[str, int], int] = {}
    key_ids: list[str] = []
    everything = hashlib.sha256()
    lines = 0
    try:
        with gzip.open(body, "wb", compresslevel=6) as out:
            for t in SPECS:
                h, n = hashlib.sha256(), 0
                for rows in store.portable.export_rows(t.name, batch=batch):
                    for row in rows:
                        data = line(t.name, encode_row(t, row))
                        out.write(data)
                        h.update(data)
                        everything.update(data)
                        if t.name == "embeddings":
                            k = (str(row["model"]), int(row["dim"]))
                            models[k] = models.get(k, 0) + 1
                        elif t.name == "audit_keys":
                            key_ids.append(str(row["key_id"]))
                    n += len(rows)
                    lines += len(rows)
                    if progress is not None:
                        progress(t.name, n)
                tables[t.name] = {"columns": [list(c) for c in t.columns], "rows": n}
                tables[t.name]["sha256"] = h.hexdigest()
        head = {
            **manifest,
            "format": FORMAT,
            "tables": tables,
            "models": [{"model": m, "dim": d, "rows": n} for (m, d), n in sorted(models.items())],
            "keys": key_ids,
        }
        head_line = (json.dumps(head, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        body_sha = everything.hexdigest()
        trailer: dict[str, Any] = {"end": True, "lines": lines, "sha256": body_sha, "mac": None}
        if ring is not None:
            trailer["mac"] = seal_mac(ring.signing, head_line, body_sha)
        with open(final, "wb") as out_raw:
            with gzip.GzipFile(fileobj=out_raw, mode="wb", mtime=0) as g:
                g.write(head_line)
            with open(body, "rb") as src:
                shutil.copyfileobj(src, out_raw, 1 << 20)
            with gzip.GzipFile(fileobj=out_raw, mode="wb", mtime=0) as g:
                g.write((json.dumps(trailer, separators=(",", ":")) + "\n").encode())
        key_file = None
        if ring is not None:
            missing = [k for k in key_ids if k not in ring.keys]
            if missing:
                raise InvalidInput(
                    f"the store's audit records are sealed with key(s) {', '.join(missing)} "
                    "that its key file does not hold: the archive could not be verified anywhere"
                )
            # The keys that sealed the records, and the one that seals the archive.
            ids = list(dict.fromkeys([*key_ids, ring.signing.id]))
            key_file = key_path(target)
            write_key_file(ring, ids, key_file)
        _fsync_rename(final, target)
    finally:
        body.unlink(missing_ok=True)
        final.unlink(missing_ok=True)
    return ArchiveReport(
        str(target),
        {name: int(v["rows"]) for name, v in tables.items()},
        target.stat().st_size,
        head["models"],
        key_ids,
        None if key_file is None else str(key_file),
    )


# -- reading ------------------------------------------------------------------------------


@dataclass
class Scan:
    """What one read of an archive found: per table, the row count and digest."""

    rows: dict[str, int] = field(default_factory=dict)
    digests: dict[str, Any] = field(default_factory=dict)


class Reader:
    """An archive opened for reading; every problem is an ``InvalidInput`` naming the file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise InvalidInput(f"{self.path} is not a file")
        self.manifest, self.manifest_line = self._manifest()

    def bad(self, what: str) -> InvalidInput:
        return InvalidInput(
            f"{self.path} is not a whole mneme archive: {what}; nothing was imported"
        )

    def _open(self) -> gzip.GzipFile:
        return gzip.open(self.path, "rb")

    def _manifest(self) -> tuple[dict[str, Any], bytes]:
        try:
            with self._open() as fh:
                first = fh.readline(1 << 24)
        except (OSError, EOFError) as exc:
            raise self.bad(f"it cannot be read as gzip ({exc})") from None
        try:
            head = json.loads(first)
        except ValueError:
            head = None
        if not isinstance(head, dict) or "format" not in head:
            raise self.bad("its first line is not an archive manifest")
        if head["format"] not in READS:
            raise SchemaMismatch(
                f"{self.path} is a {head['format']!r} archive; this build of mneme reads "
                f"{', '.join(sorted(READS))}: upgrade mneme to import it"
            )
        return head, first

    def check_schema(self, schema: int) -> None:
        """Refuse an archive this build cannot read into a store at ``schema``."""
        theirs = int(self.manifest.get("schema", 0))
        if theirs > schema:
            raise SchemaMismatch(
                f"{self.path} was written at schema {theirs} (mneme "
                f"{self.manifest.get('mneme', '?')}); this store and build are at schema "
                f"{schema}: upgrade mneme to import it; nothing was imported"
            )
        tables = self.manifest.get("tables", {})
        for t in SPECS:
            cols = tables.get(t.name, {}).get("columns")
            if cols is not None and [tuple(c) for c in cols] != list(t.columns):
                raise SchemaMismatch(
                    f"{self.path}: table {t.name} has other columns than schema {schema} "
                    "has; nothing was imported"
                )
        unknown = sorted(set(tables) - {t.name for t in SPECS})
        if unknown:
            raise SchemaMismatch(f"{self.path} holds tables this build does not know: {unknown}")

    def rows(self) -> Iterator[tuple[Table, dict[str, Any], bytes]]:
        """Every row (table, decoded row, its line), checking the digests and the trailer
        as it goes: a problem raises after the rows before it were yielded."""
        tables = self.manifest.get("tables", {})
        by_name = {t.name: t for t in SPECS}
        everything = hashlib.sha256()
        per: dict[str, Any] = {name: hashlib.sha256() for name in tables}
        counts = dict.fromkeys(tables, 0)
        n = 0
        trailer: dict[str, Any] | None = None
        try:
            with self._open() as fh:
                fh.readline(1 << 24)
                for raw in fh:
                    if trailer is not None:
                        raise self.bad("there are lines after its trailer")
                    try:
                        obj = json.loads(raw)
                    except ValueError:
                        raise self.bad(f"line {n + 2} is not JSON") from None
                    if isinstance(obj, dict) and obj.get("end") is True:
                        trailer = obj
                        continue
                    if not isinstance(obj, dict) or obj.get("t") not in per:
                        raise self.bad(f"line {n + 2} is not a row of a known table")
                    name = obj["t"]
                    n += 1
                    everything.update(raw)
                    per[name].update(raw)
                    counts[name] += 1
                    yield by_name[name], obj["r"], raw
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise self.bad(f"it ends early or is damaged ({exc})") from None
        if trailer is None:
            raise self.bad("its trailer is missing (it was cut short)")
        for name, meta in tables.items():
            if counts[name] != int(meta.get("rows", -1)):
                raise self.bad(
                    f"table {name} has {counts[name]} rows, its manifest says {meta.get('rows')}"
                )
            if per[name].hexdigest() != meta.get("sha256"):
                raise self.bad(f"the rows of table {name} were changed (digest mismatch)")
        if n != trailer.get("lines") or everything.hexdigest() != trailer.get("sha256"):
            raise self.bad("its rows do not match its trailer")
        self.trailer = trailer

    def check_seal(self, ring: KeyRing | None) -> str | None:
        """Check the trailer's keyed seal (after ``rows`` was read whole); the problem or None."""
        mac = self.trailer.get("mac")
        if mac is None:
            return None if not self.manifest.get("keys") else "its keyed seal is missing"
        if ring is None:
            return "no audit key to check its keyed seal with (give the archive's key file)"
        key = ring.keys.get(str(mac).split(":", 1)[0])
        if key is None:
            return "it is sealed with an audit key the key file does not hold"
        if seal_mac(key, self.manifest_line, str(self.trailer.get("sha256"))) != mac:
            return "its keyed seal does not match (the archive was changed after export)"
        return None
