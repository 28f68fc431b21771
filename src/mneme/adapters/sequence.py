"""A numbered run of sources: how an adapter keeps a framework's mutable records (a LangGraph
item, an OpenAI Agents conversation) in a store whose sources never change (ADR 0049).

Entry ``n`` of a run is the source ``{prefix}:{n}``, numbered from 1 with no gap. A change is a
new entry, never an edit: the run is the record's history, and its last entry is its state.
The adapter's own data rides in the source's metadata under the adapter's name; the text is
what mneme remembers of it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from mneme.core.model import RetainResult, Source, Unit
from mneme.errors import Conflict, InvalidInput, NotFound
from mneme.memory import Memory

#: Tries to append when another writer takes the same number first.
_APPEND_TRIES = 8
#: How many memories a scan of an agent's records reads at most.
SCAN_LIMIT = 10_000
_PAGE = 200


def digest(*parts: Any) -> str:
    """A short stable name for a tuple of strings (a namespace and key, a session id), fit for
    a source id whatever characters the parts hold."""
    encoded = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:32]


class Run:
    """The entries under one prefix, read and written as ``agent`` in ``bank``."""

    def __init__(self, memory: Memory, *, bank: str, agent: str, prefix: str) -> None:
        self.memory = memory
        self.bank = bank
        self.agent = agent
        self.prefix = prefix

    def source_id(self, n: int) -> str:
        return f"{self.prefix}:{n}"

    def read(self, n: int) -> Source | None:
        """Entry ``n``, or None when there is none (or the agent may not see it)."""
        try:
            return self.memory.source(
                self.source_id(n), bank=self.bank, agent=self.agent, scope="collective"
            )
        except NotFound:
            return None

    def length(self) -> int:
        """How many entries the run holds: doubling, then bisecting (entries have no gap)."""
        high = 1
        while self.read(high) is not None:
            high *= 2
        low = high // 2  # entry ``low`` exists (or low is 0); entry ``high`` does not
        while high - low > 1:
            mid = (low + high) // 2
            if self.read(mid) is not None:
                low = mid
            else:
                high = mid
        return low

    def entries(self) -> list[Source]:
        """Every entry, oldest first."""
        found = []
        n = 1
        while (src := self.read(n)) is not None:
            found.append(src)
            n += 1
        return found

    def append(
        self,
        text: str,
        metadata: Mapping[str, Any],
        *,
        kind: str,
        session: str | None = None,
        visibility: str = "shared",
        supersedes: list[str] | None = None,
        occurred_at: dt.datetime | None = None,
    ) -> tuple[int, RetainResult]:
        """Retain ``text`` as the next entry; returns its number and the result.

        A text the bank's policy redacts is refused (see below). Two writers may take the
        same number: the second gets a Conflict (other text) or a
        replay (the same text), and tries the next number unless the replayed entry is its
        own (same metadata: the write was already done).

        Raises:
            InvalidInput: what ``Memory.retain`` refuses (nothing is written).
        """
        n = self.length()
        for _ in range(_APPEND_TRIES):
            n += 1
            try:
                result = self.memory.retain(
                    text,
                    bank=self.bank,
                    agent=self.agent,
                    session=session,
                    source_id=self.source_id(n),
                    source_kind=kind,
                    visibility=visibility,
                    supersedes=supersedes,
                    occurred_at=occurred_at,
                    metadata=metadata,
                )
            except Conflict:
                continue
            done = self.read(n)
            if result.metadata.get("replayed") and (done is None or not _same(done, metadata)):
                continue
            if done is not None and done.text != text:
                # The bank's sensitive-data policy redacted the text (ADR 0034), but the
                # framework's exact record in the metadata still holds what it redacted: erase
                # the entry (it is the last; the run keeps no gap) rather than keep it there.
                self.memory.admin.purge(
                    done.id, actor=self.agent, reason="redacted text with an exact record"
                )
                raise InvalidInput(
                    "the bank's sensitive-data policy redacts this text, and the framework's "
                    "record must be kept exact: nothing is kept (store it without the secret, "
                    "or set the policy to refuse or store)"
                )
            return n, result
        raise Conflict(f"{_APPEND_TRIES} writers raced for the next entry of {self.prefix}")

    def retract(self, last: Source, text: str, metadata: Mapping[str, Any], *, reason: str) -> None:
        """Remove the record whose last entry is ``last``: append ``text`` as a private
        ``retraction`` entry, and invalidate the memories that rested on this run alone (they
        stay in mneme's history and leave its answers). Those resting on another source too
        stay valid: another record, or input from elsewhere, still states them.
        """
        self.append(text, metadata, kind="retraction", visibility="private")
        # The memories the last entry stated, as a replay of it returns them (the same source
        # id and text: idempotent, nothing is written).
        stated = self.memory.retain(
            last.text,
            bank=self.bank,
            agent=self.agent,
            source_id=last.id,
            visibility=last.visibility.value,
        ).memory_ids
        now = self.memory.clock()
        for memory_id in stated:
            unit = self.memory.get(memory_id, bank=self.bank, agent=self.agent)
            if unit.valid_until is None and all(
                e.startswith(f"{self.prefix}:") for e in unit.evidence
            ):
                self.memory.invalidate(memory_id, now, actor=self.agent, reason=reason)


def scan(memory: Memory, *, bank: str, agent: str) -> Iterator[Unit]:
    """The agent's own memories, newest first, a page at a time, up to ``SCAN_LIMIT``."""
    for offset in range(0, SCAN_LIMIT, _PAGE):
        page = memory.list_memories(
            bank=bank, agent=agent, scope="personal", limit=_PAGE, offset=offset
        )
        yield from page
        if len(page) < _PAGE:
            return


def last_entries(
    memory: Memory, *, bank: str, agent: str, evidence: Iterable[str], tag: str
) -> Iterator[Source]:
    """The sources among a memory's evidence that are the last entry of a run whose prefix
    starts with ``tag:`` (an adapter's records, at their current version)."""
    for source_id in evidence:
        if not source_id.startswith(f"{tag}:"):
            continue
        prefix, _, n = source_id.rpartition(":")
        run = Run(memory, bank=bank, agent=agent, prefix=prefix)
        if not n.isdigit() or run.length() != int(n):
            continue  # an older version
        src = run.read(int(n))
        if src is not None:
            yield src


def _same(src: Source, metadata: Mapping[str, Any]) -> bool:
    """Whether a source holds this metadata (as JSON: a tuple put is a list read back)."""
    return json.dumps(src.metadata, sort_keys=True) == json.dumps(metadata, sort_keys=True)
