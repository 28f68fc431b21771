"""A file of named numpy arrays under a stamp: how an in-memory index persists beside the
database (ADR 0052).

Layout: ``MAGIC``, the header's length (8 bytes, little-endian), the header (JSON: format,
kind, the caller's stamp, each array's name, dtype, shape and offset, the payload's size and
CRC-32), the header's own CRC-32 (4 bytes), then the arrays, each at a 64-byte boundary.

A file is written whole to a temporary name, flushed to disk and renamed over the old one, so a
reader sees the old file or the new one, never half of one. ``read`` trusts nothing it has not
checked: the magic, the header's CRC, the format and kind, the size (a truncated file), and the
payload's CRC (a flipped byte anywhere). The arrays come back as copy-on-write maps of the file:
pages are read when touched, and writing to them never writes the file.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import uuid
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"MNEMEIDX"
FORMAT = 1
ALIGN = 64
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")
#: Headers longer than this are not headers (a foreign or damaged file).
MAX_HEADER = 1 << 24


class IndexFileInvalid(Exception):
    """The file is not a valid index file of the kind asked for (the message says why)."""


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def strings(values: list[str]) -> np.ndarray:
    """Strings as a fixed-width UTF-8 byte array (numpy cannot map Python objects)."""
    encoded = [v.encode("utf-8") for v in values]
    width = max((len(b) for b in encoded), default=1) or 1
    return np.array(encoded, dtype=f"S{width}")


def unstrings(arr: np.ndarray) -> list[str]:
    return [b.decode("utf-8") for b in arr.tolist()]


def _bytes(arr: np.ndarray) -> memoryview:
    """The array's bytes, in place (no copy of a contiguous array)."""
    return np.ascontiguousarray(arr).reshape(-1).view(np.uint8).data


def write(path: Path, kind: str, stamp: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> int:
    """Write the arrays under ``stamp`` to ``path`` atomically; the bytes written."""
    table: list[dict[str, Any]] = []
    offsets: list[int] = []
    offset = 0
    for name, arr in arrays.items():
        table.append({"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape)})
        table[-1]["offset"] = offset
        offsets.append(offset)
        offset = _aligned(offset + arr.nbytes)
    meta = {"format": FORMAT, "kind": kind, "stamp": dict(stamp), "arrays": table}
    meta.update(size=offset, crc=_NO_CRC)  # the CRC's digits are filled in once known
    header = json.dumps(meta, sort_keys=True).encode("utf-8")
    start = _aligned(len(MAGIC) + _LEN.size + len(header) + _CRC.size)
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.seek(start)  # the header goes last, once the payload's CRC is known
            crc = at = 0
            for at_offset, arr in zip(offsets, arrays.values(), strict=True):
                crc = _pad(f, at_offset - at, crc)
                data = _bytes(arr)
                f.write(data)
                crc = zlib.crc32(data, crc)
                at = at_offset + len(data)
            crc = _pad(f, offset - at, crc)
            header = header.replace(_NO_CRC.encode(), f"{crc:010d}".encode(), 1)
            head = MAGIC + _LEN.pack(len(header)) + header
            f.seek(0)
            f.write(head + _CRC.pack(zlib.crc32(head)))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_dir(path.parent)
    return start + offset


#: Ten characters, as many as the CRC's decimal digits, so the header keeps its length.
_NO_CRC = "crc-unset-"


def _pad(f: Any, n: int, crc: int) -> int:
    if n <= 0:
        return crc
    zeros = b"\0" * n
    f.write(zeros)
    return zlib.crc32(zeros, crc)


def _sweep(path: Path) -> None:
    """Remove the temporary files a process that died while writing ``path`` left behind."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            pid = int(tmp.name[len(path.name) + 2 :].split(".")[0])
            os.kill(pid, 0)  # still running: its write may finish
        except ProcessLookupError:
            tmp.unlink(missing_ok=True)
        except (ValueError, OSError):
            continue


def _sync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read(path: Path, kind: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The stamp and arrays of a valid file of ``kind``.

    Raises:
        FileNotFoundError: no file.
        IndexFileInvalid: anything else wrong with it (the message says what).
    """
    size = path.stat().st_size
    with open(path, "rb") as f:
        prefix = f.read(len(MAGIC) + _LEN.size)
        if len(prefix) < len(MAGIC) + _LEN.size or prefix[: len(MAGIC)] != MAGIC:
            raise IndexFileInvalid("not a mneme index file (bad magic)")
        (n,) = _LEN.unpack(prefix[len(MAGIC) :])
        if n > MAX_HEADER or len(prefix) + n + _CRC.size > size:
            raise IndexFileInvalid("truncated or damaged header")
        header = f.read(n)
        (crc,) = _CRC.unpack(f.read(_CRC.size))
    if zlib.crc32(prefix + header) != crc:
        raise IndexFileInvalid("header checksum mismatch")
    try:
        meta = json.loads(header)
    except ValueError as exc:
        raise IndexFileInvalid(f"unreadable header: {exc}") from exc
    if meta.get("format") != FORMAT:
        raise IndexFileInvalid(f"format {meta.get('format')!r}, this mneme reads {FORMAT}")
    if meta.get("kind") != kind:
        raise IndexFileInvalid(f"a {meta.get('kind')!r} file, not {kind!r}")
    start = _aligned(len(prefix) + n + _CRC.size)
    if size != start + int(meta["size"]):
        raise IndexFileInvalid(f"{size} bytes, the header says {start + int(meta['size'])}")
    with open(path, "rb") as f:
        # Copy-on-write: writes to the arrays stay in this process. A plain ndarray over the
        # map (np.memmap's slicing costs microseconds a call, and searches slice often).
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    payload = np.frombuffer(mapped, dtype=np.uint8)[start:]
    if f"{zlib.crc32(_bytes(payload)):010d}" != meta.get("crc"):
        raise IndexFileInvalid("payload checksum mismatch")
    arrays: dict[str, np.ndarray] = {}
    for entry in meta["arrays"]:
        dtype = np.dtype(entry["dtype"])
        shape = tuple(int(s) for s in entry["shape"])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        at = int(entry["offset"])
        raw = payload[at : at + count * dtype.itemsize]
        if len(raw) != count * dtype.itemsize:
            raise IndexFileInvalid(f"array {entry['name']!r} runs past the end")
        arrays[str(entry["name"])] = raw.view(dtype).reshape(shape)
    return dict(meta["stamp"]), arrays
