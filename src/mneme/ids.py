"""Time-sortable identifiers (ULID: 48-bit milliseconds + 80 random bits, Crockford base32)."""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last = [0, 0]  # last millisecond, last random part: monotonic within one millisecond


def new_id(prefix: str = "") -> str:
    """A new ULID, optionally prefixed ("src_", "u_"...), sortable by creation time."""
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last[0]:
            ms = _last[0]
            rnd = (_last[1] + 1) & ((1 << 80) - 1)
        else:
            rnd = int.from_bytes(os.urandom(10), "big")
        _last[0], _last[1] = ms, rnd
    return prefix + _encode((ms << 80) | rnd)


#: Every pair of base32 digits: 10 bits at a time, 13 steps for the 130 bits of an id.
_PAIRS = tuple(a + b for a in _ALPHABET for b in _ALPHABET)


def _encode(value: int) -> str:
    """26 Crockford base32 digits of a 128-bit value, most significant first."""
    pairs = _PAIRS
    return "".join([pairs[(value >> shift) & 1023] for shift in range(120, -1, -10)])
