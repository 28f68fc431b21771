"""Erasure of a data subject: which free text names them (ADR 0036).

A purge by subject erases every memory and source that names the person, and blanks every
free-text field that survives it (review notes, conflict questions, audit reasons) and still
names them. "Names" is a whole-word, case-, width- and accent-insensitive match of the name
or one of its aliases: "Nadia" is named in "NADIA's passport" and "nadia," but not in
"Nadiana". A name of fewer than two letters names nobody (it would match everywhere).
What a purge erases, and blanks beyond that, is reported in the values below.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Shortest name a subject purge accepts: one letter would match half the store.
MIN_NAME_LETTERS = 2


def fold(text: str) -> str:
    """Case-, width- and accent-insensitive form, one space between words."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.replace("\u2019", "'").split())


@dataclass(frozen=True, slots=True)
class Names:
    """The names of one data subject, ready to test text against."""

    names: tuple[str, ...]
    pattern: re.Pattern[str]

    def named_in(self, text: str | None) -> bool:
        return bool(text) and self.pattern.search(fold(text or "")) is not None

    @property
    def needles(self) -> tuple[str, ...]:
        """Folded names: a store narrows its scan with them before ``named_in`` decides."""
        return tuple(fold(n) for n in self.names)


def subject_names(names: Iterable[str]) -> Names | None:
    """The subject's names (duplicates and too-short names dropped), or None when none is left."""
    kept: dict[str, str] = {}
    for name in names:
        folded = fold(name)
        if sum(c.isalnum() for c in folded) >= MIN_NAME_LETTERS:
            kept.setdefault(folded, name.strip())
    if not kept:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(kept, key=len, reverse=True))
    # Word edges by hand: ``\b`` fails next to a name that begins or ends in punctuation.
    pattern = re.compile(rf"(?<![^\W_])(?:{alternatives})(?![^\W_])")
    return Names(tuple(kept.values()), pattern)


@dataclass(frozen=True, slots=True)
class Redactions:
    """Rows a purge rewrites or drops beyond the erased memories and sources: what still
    names the erased data subject (ADR 0036). Ids are the rows' own keys in the purged bank."""

    notes: tuple[int, ...] = ()  # review event seqs whose note is blanked
    conflicts: tuple[str, ...] = ()  # conflicts whose question and note are blanked
    claim_notes: tuple[str, ...] = ()  # claims whose review note is blanked
    tombstones: tuple[str, ...] = ()  # tombstones dropped (their text names the subject)
    proposals: tuple[str, ...] = ()  # sweep proposals dropped
    sweeps: tuple[str, ...] = ()  # reconsolidation records dropped
    rules: tuple[str, ...] = ()  # adopted rules dropped
    entities: tuple[str, ...] = ()  # entities (names) dropped with their mentions
    audit: tuple[int, ...] = ()  # audit records whose content is erased (digests kept)

    @property
    def empty(self) -> bool:
        return not any(
            (self.notes, self.conflicts, self.claim_notes, self.tombstones, self.proposals,
             self.sweeps, self.rules, self.entities, self.audit)
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class PurgeReport:
    """What a purge of one object or one subject erases in one bank (or would: ``dry_run``);
    what ``Memory.purge`` and ``Memory.purge_subject`` return."""

    target: str
    bank_id: str
    units: tuple[str, ...]
    sources: tuple[str, ...]
    dry_run: bool
    redacted: Redactions = field(default_factory=Redactions)
