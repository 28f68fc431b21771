"""``MnemeStorage``: a CrewAI memory storage backend kept in mneme (ADR 0049;
docs/adapters/crewai.md).

CrewAI's ``Memory`` (1.x) keeps its records in a ``StorageBackend``; ``MnemeStorage(memory,
bank=..., agent=...)`` is one. The bank and the agent are fixed when it is made, and every read
and write runs as that agent in that bank; CrewAI's scope (a path such as ``/crew/research``)
is a path inside them, kept with the record. A bank or agent that is not a mneme id, a scope
that is not an absolute path (``/`` and labels, no ``.`` or ``..``, no control character) or a
record that is not plain JSON cannot be mapped: ``ScopeNotMapped`` (an ``InvalidInput``), and a
batch holding one writes nothing.

Search is mneme's recall on the query's *text*. CrewAI's backend protocol searches by the vector
its ``Memory``'s embedder made, so the storage brings that embedder: give CrewAI's ``Memory``
``embedder=storage.embedder``. Its vectors are keys that stand for their text (a digest, no
model, no network); ``search`` looks the text up and recalls with it, and mneme embeds with its
own embedder. A vector that embedder did not make is refused (``InvalidInput``). CrewAI's
``min_score`` is recall's ``min_relevance``, and the score of a result is the hit's calibrated
relevance (0 to 1).

A record is a run of sources (``mneme.adapters.sequence``): a save retains its content as the
next source of the record's run, with the whole record (id, scope, categories, metadata,
importance, times, source, private) in the source's metadata; an update supersedes the version
before. Delete and reset never delete: they append a retraction (kind ``retraction``, private)
and invalidate the memories that rested on the record alone, so those stay in mneme's history
and leave the storage's answers. A private CrewAI record is a private mneme source.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

try:
    from crewai.memory.types import MemoryRecord, ScopeInfo
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "mneme's CrewAI storage needs the 'crewai' extra, in a virtual environment of its own "
        "(ADR 0049): pip install 'mneme[crewai]'"
    ) from exc

from mneme import validate
from mneme.adapters.sequence import Run, digest, last_entries, scan
from mneme.core.model import Source
from mneme.errors import InvalidInput
from mneme.memory import Memory

#: The metadata key of the record a source holds for the storage.
RECORD = "crewai"
#: The start of every source id the storage writes.
TAG = "cr"
#: The longest scope path the storage maps.
MAX_SCOPE_CHARS = 512


class ScopeNotMapped(InvalidInput):
    """A CrewAI scope, bank, agent or record that mneme cannot keep. Nothing was written."""


class TextKeys:
    """The embedder to give CrewAI's ``Memory``: each text's vector is a key that stands for it
    (32 numbers from its SHA-256), so a search can be answered by mneme's recall on the text.

    The last ``size`` texts are remembered; CrewAI embeds a query just before it searches.
    Exact duplicates share a vector (CrewAI drops them from a batch, as it would anyway).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = validate.positive_int(size, "size", high=1_000_000)
        self._texts: OrderedDict[tuple[float, ...], str] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, input: Sequence[str]) -> list[list[float]]:
        """One vector per text, as CrewAI calls an embedding function (``input``: its name)."""
        vectors = []
        for text in input:
            vector = [b / 255 - 0.5 for b in hashlib.sha256(str(text).encode("utf-8")).digest()]
            with self._lock:
                self._texts[tuple(vector)] = str(text)
                self._texts.move_to_end(tuple(vector))
                while len(self._texts) > self.size:
                    self._texts.popitem(last=False)
            vectors.append(vector)
        return vectors

    def text(self, vector: Sequence[float]) -> str:
        """The text a vector of this embedder stands for.

        Raises:
            InvalidInput: another embedder made the vector (or it is long forgotten).
        """
        with self._lock:
            found = self._texts.get(tuple(float(x) for x in vector))
        if found is None:
            raise InvalidInput(
                "MnemeStorage searches with mneme's recall on the query's text, and this vector "
                "was not made by its embedder: build CrewAI's Memory with "
                "embedder=storage.embedder"
            )
        return found


class MnemeStorage:
    """A CrewAI ``StorageBackend`` over a ``mneme.Memory``; see the module's docstring.

    ``visibility``: ``"private"`` keeps every record from the other agents (a CrewAI record
    marked private is private whatever this says).
    """

    def __init__(
        self, memory: Memory, *, bank: str, agent: str, visibility: str = "shared"
    ) -> None:
        try:
            self.bank = validate.ident(bank, "bank")
            self.agent = validate.ident(agent, "agent")
        except InvalidInput as exc:
            raise ScopeNotMapped(f"CrewAI storage: {exc}") from exc
        self.memory = memory
        self.visibility = validate.visibility(visibility).value
        self.embedder = TextKeys()

    # -- writes -------------------------------------------------------------------------

    def save(self, records: list[MemoryRecord]) -> None:
        """Retain each record as the next version of its run. Every record is checked first:
        a batch holding one that cannot be mapped writes none of them."""
        checked = [_record(r) for r in _records_in(records)]
        for record in checked:
            self._write(record)

    def update(self, record: MemoryRecord) -> None:
        """Replace the record with the same id: a new version that supersedes the last."""
        self._write(_record(record))

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: dt.datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        """Retract the records that match every criterion given; returns how many."""
        prefix = _prefix(scope_prefix)
        if record_ids is not None:
            found = [self._current(_record_id(i)) for i in record_ids]
            candidates = [f[1] for f in found if f is not None]
        else:
            candidates = list(self._all(prefix))
        chosen = [
            r
            for r in candidates
            if _under(r.scope, prefix)
            and _matches(r, categories, metadata_filter)
            and (older_than is None or _utc(r.created_at) < _utc(older_than))
        ]
        for record in chosen:
            self._retract(record.id)
        return len(chosen)

    def reset(self, scope_prefix: str | None = None) -> None:
        """Retract every record in the scope (all of the agent's, for None or ``/``)."""
        self.delete(scope_prefix=scope_prefix)

    # -- reads --------------------------------------------------------------------------

    def search(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[MemoryRecord, float]]:
        """The records mneme recalls for the query's text, best first, with their relevance."""
        text = self.embedder.text(query_embedding)
        prefix = _prefix(scope_prefix)
        limit = validate.positive_int(limit, "limit", high=1000)
        bar = None if min_score <= 0 else validate.fraction(min(float(min_score), 1.0), "min")
        hits = self.memory.recall(
            text,
            bank=self.bank,
            agent=self.agent,
            scope="personal",
            k=min(1000, max(50, 4 * limit)),
            min_relevance=bar,
        )
        found: dict[str, tuple[MemoryRecord, float]] = {}
        for hit in hits:
            for record in self._live(hit.evidence_source_ids or hit.unit.evidence):
                if (
                    record.id not in found
                    and _under(record.scope, prefix)
                    and _matches(record, categories, metadata_filter)
                ):
                    found[record.id] = (record, hit.relevance)
            if len(found) >= limit:
                break
        return list(found.values())[:limit]

    def get_record(self, record_id: str) -> MemoryRecord | None:
        """The record's current version, or None (never saved, or deleted)."""
        found = self._current(_record_id(record_id))
        return None if found is None else found[1]

    def list_records(
        self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[MemoryRecord]:
        """The records in a scope, newest first."""
        records = sorted(
            self._all(_prefix(scope_prefix)), key=lambda r: _utc(r.created_at), reverse=True
        )
        return records[offset : offset + limit]

    def get_scope_info(self, scope: str) -> ScopeInfo:
        """How many records a scope holds, their categories, dates and child scopes."""
        prefix = _prefix(scope)
        records = list(self._all(prefix))
        created = [_utc(r.created_at) for r in records]
        return ScopeInfo(
            path=prefix or "/",
            record_count=len(records),
            categories=sorted({c for r in records for c in r.categories}),
            oldest_record=min(created, default=None),
            newest_record=max(created, default=None),
            child_scopes=_children(prefix, records),
        )

    def list_scopes(self, parent: str = "/") -> list[str]:
        """The immediate child scopes of ``parent`` that hold records."""
        prefix = _prefix(parent)
        return _children(prefix, self._all(prefix))

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        """How many records in the scope carry each category."""
        counts: dict[str, int] = {}
        for record in self._all(_prefix(scope_prefix)):
            for category in record.categories:
                counts[category] = counts.get(category, 0) + 1
        return counts

    def count(self, scope_prefix: str | None = None) -> int:
        """How many records the scope holds (with its sub-scopes)."""
        return sum(1 for _ in self._all(_prefix(scope_prefix)))

    # -- async: the synchronous core in a worker thread (STYLE.md section 1) ------------

    async def asave(self, records: list[MemoryRecord]) -> None:
        await asyncio.to_thread(self.save, records)

    async def asearch(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[MemoryRecord, float]]:
        return await asyncio.to_thread(
            self.search,
            query_embedding,
            scope_prefix,
            categories,
            metadata_filter,
            limit,
            min_score,
        )

    async def adelete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: dt.datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        return await asyncio.to_thread(
            self.delete, scope_prefix, categories, record_ids, older_than, metadata_filter
        )

    # -- the runs -------------------------------------------------------------------------

    def _run(self, record_id: str) -> Run:
        return Run(
            self.memory,
            bank=self.bank,
            agent=self.agent,
            prefix=f"{TAG}:{digest(self.agent, record_id)}",
        )

    def _current(self, record_id: str) -> tuple[Source, MemoryRecord] | None:
        run = self._run(record_id)
        n = run.length()
        src = run.read(n) if n else None
        record = _from(src) if src is not None else None
        return None if src is None or record is None else (src, record)

    def _write(self, record: dict[str, Any]) -> None:
        run = self._run(record["id"])
        found = self._current(record["id"])
        if found is not None and _from_dict(record) == found[1]:
            return  # the same record again: nothing changes
        private = bool(record["private"]) or self.visibility == "private"
        # An unchanged text merges into the memory it already made: superseding the version
        # before would mark that very memory superseded. The new version is the state anyway.
        changed = found is not None and found[0].text != record["content"]
        run.append(
            record["content"],
            {RECORD: record},
            kind="crewai_memory",
            visibility="private" if private else "shared",
            supersedes=[found[0].id] if changed and found is not None else None,
        )

    def _retract(self, record_id: str) -> None:
        found = self._current(record_id)
        if found is None:
            return
        self._run(record_id).retract(
            found[0],
            f"Deleted the CrewAI memory {record_id} in {found[1].scope}.",
            {RECORD: None},
            reason=f"CrewAI memory {record_id} deleted",
        )

    def _live(self, evidence: Iterable[str]) -> Iterator[MemoryRecord]:
        """The current, live records among a memory's evidence."""
        for src in last_entries(
            self.memory, bank=self.bank, agent=self.agent, evidence=evidence, tag=TAG
        ):
            record = _from(src)
            if record is not None:
                yield record

    def _all(self, prefix: str | None) -> Iterator[MemoryRecord]:
        """Every live record in the scope, once (a scan of the agent's memories)."""
        seen: set[str] = set()
        for unit in scan(self.memory, bank=self.bank, agent=self.agent):
            for record in self._live(unit.evidence):
                if record.id not in seen and _under(record.scope, prefix):
                    seen.add(record.id)
                    yield record


def _records_in(records: Any) -> list[MemoryRecord]:
    if not isinstance(records, list | tuple) or not all(
        isinstance(r, MemoryRecord) for r in records
    ):
        raise ScopeNotMapped("a CrewAI storage saves a list of MemoryRecord")
    return list(records)


def _record(record: Any) -> dict[str, Any]:
    """The record as plain JSON, checked: what the source's metadata keeps.

    Raises:
        ScopeNotMapped: not a MemoryRecord, an unmappable scope, or values that are not JSON.
    """
    if not isinstance(record, MemoryRecord):
        raise ScopeNotMapped(f"a CrewAI storage keeps MemoryRecord, not {type(record).__name__}")
    _record_id(record.id)
    if not record.content.strip():
        raise ScopeNotMapped(f"CrewAI memory {record.id!r} has no content for mneme to remember")
    try:
        json.dumps(record.metadata, allow_nan=False)
        validate.metadata(record.metadata)
    except (TypeError, ValueError, InvalidInput) as exc:
        raise ScopeNotMapped(f"CrewAI memory {record.id!r}: metadata must be JSON: {exc}") from exc
    plain = record.model_dump(mode="json", exclude={"embedding"})
    plain["scope"] = _path(record.scope)
    return dict(plain)


def _record_id(record_id: Any) -> str:
    if not isinstance(record_id, str) or not record_id or not record_id.isprintable():
        raise ScopeNotMapped(f"a CrewAI record id is a printable string, not {record_id!r}")
    return record_id


def _path(scope: Any) -> str:
    """A CrewAI scope as a normal absolute path (no trailing slash but the root's).

    Raises:
        ScopeNotMapped: not a string, not absolute, too long, a control character, or an
            empty, ``.`` or ``..`` label.
    """
    if (
        not isinstance(scope, str)
        or not scope.startswith("/")
        or len(scope) > MAX_SCOPE_CHARS
        or not scope.isprintable()
    ):
        raise ScopeNotMapped(
            f"CrewAI scope {scope!r} cannot be mapped: an absolute path ('/', '/crew/research') "
            f"of printable characters, at most {MAX_SCOPE_CHARS}"
        )
    labels = scope.strip("/").split("/") if scope.strip("/") else []
    if any(label in ("", ".", "..") for label in labels):
        raise ScopeNotMapped(f"CrewAI scope {scope!r} cannot be mapped: an empty, . or .. label")
    return "/" + "/".join(labels)


def _prefix(scope: Any) -> str | None:
    """A scope prefix to filter by: None for everything (None, '' or '/')."""
    if scope is None or (isinstance(scope, str) and not scope.strip("/")):
        return None
    if isinstance(scope, str) and not scope.startswith("/"):
        scope = "/" + scope  # as CrewAI's own LanceDB storage reads a relative prefix
    return _path(scope)


def _under(scope: str, prefix: str | None) -> bool:
    return prefix is None or scope == prefix or scope.startswith(prefix + "/")


def _children(prefix: str | None, records: Iterable[MemoryRecord]) -> list[str]:
    base = prefix or ""
    found = set()
    for record in records:
        if record.scope.startswith(base + "/") and record.scope != (prefix or "/"):
            found.add(base + "/" + record.scope[len(base) + 1 :].split("/", 1)[0])
    return sorted(found)


def _matches(
    record: MemoryRecord, categories: list[str] | None, metadata_filter: dict[str, Any] | None
) -> bool:
    """CrewAI's filters: any of the categories, and every metadata key equal."""
    if categories and not any(c in record.categories for c in categories):
        return False
    return not metadata_filter or all(
        record.metadata.get(k) == v for k, v in metadata_filter.items()
    )


def _from(src: Source) -> MemoryRecord | None:
    plain = src.metadata.get(RECORD)
    return _from_dict(plain) if isinstance(plain, dict) else None


def _from_dict(plain: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord.model_validate(plain)


def _utc(when: dt.datetime) -> dt.datetime:
    """CrewAI's times are naive UTC (``datetime.utcnow``); compare them as aware ones."""
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
