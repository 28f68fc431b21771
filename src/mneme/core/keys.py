"""Content keys: a normalized hash that makes an exact repeat the same memory."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\s\"'`([{]+|[\s\"'`)\]}.!?;:,]+$")


@lru_cache(maxsize=32768)
def normalize_text(text: str) -> str:
    """Case-, width- and whitespace-insensitive form of a claim, trailing punctuation dropped.

    Memoized: the judge compares every new atom with the same recent neighbours."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = (
        t.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    t = _SPACE.sub(" ", t).strip()
    return _EDGE_PUNCT.sub("", t)


def content_hash(text: str) -> str:
    """SHA-256 of the raw text: the identity of an immutable source."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_key(text: str, unit_type: str) -> str:
    """Normalized hash of text and type: two units with one key are one memory."""
    payload = f"{unit_type}\x1f{normalize_text(text)}"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


@lru_cache(maxsize=32768)
def claim_key(subject: str, attribute: str, value: str) -> str:
    """Key of a subject-attribute-value claim: same key from another source is more evidence.

    Memoized, like ``slot_key``: the write path keys one atom's claim three times over."""
    payload = "\x1f".join(normalize_text(p) for p in (subject, attribute, value))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


@lru_cache(maxsize=32768)
def slot_key(subject: str, attribute: str) -> str:
    """Key of a claim's slot: same slot with another value is a conflict."""
    payload = "\x1f".join(normalize_text(p) for p in (subject, attribute))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]
