"""``MnemeStore``: a LangGraph ``BaseStore`` kept in mneme (ADR 0049; docs/adapters/langgraph.md).

The namespace mapping. A LangGraph namespace is a tuple of labels. ``MnemeStore(memory,
bank=..., agent=...)`` fixes the mneme scope, and the whole namespace is a path inside it;
leave ``bank`` out and the namespace's first label names the bank, leave ``agent`` out and the
next one names the agent: ``MnemeStore(mem)`` reads ``("acme", "alice", "prefs")`` as bank
``acme``, agent ``alice``, path ``("prefs",)``. A namespace too short to name them, or whose
bank or agent label is not a valid mneme id, cannot be mapped: ``NamespaceNotMapped`` (an
``InvalidInput`` and a LangGraph ``InvalidNamespaceError``), and nothing is written. Every read
and write runs as that agent in that bank; a search reads the agent's own memories (scope
``personal``).

An item is a run of sources (``mneme.adapters.sequence``): a put retains the value's text (the
fields ``index`` names, else every leaf) as the next source of the item's run, with the exact
value in the source's metadata, and supersedes the version before. ``get`` returns the last
version's value as it was put. ``delete`` never deletes: it appends a retraction (kind
``retraction``) and invalidates the memories that rested on this item alone, so they stay in
mneme's history and leave the store's answers. ``search`` with a query is ``Memory.recall``;
without one it lists the agent's memories, newest first; both keep the current version of items
under the prefix that pass the filter. TTLs are not supported (``supports_ttl`` is False).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        get_text_at_path,
    )
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "mneme's LangGraph store needs the 'langgraph' extra: pip install 'mneme[langgraph]'"
    ) from exc

from mneme import validate
from mneme.adapters.sequence import Run, digest, last_entries, scan
from mneme.core.model import Source
from mneme.errors import InvalidInput
from mneme.memory import Memory

#: The metadata key of the record a source holds for the store.
RECORD = "langgraph"


class NamespaceNotMapped(InvalidInput, InvalidNamespaceError):
    """A namespace that names no bank and agent of mneme (too short, or a label that is not
    a valid id). Nothing was written."""


class MnemeStore(BaseStore):
    """A LangGraph store over a ``mneme.Memory``; see the module's docstring for the mapping.

    ``visibility``: ``"private"`` keeps what the store writes from every other agent.
    ``fields``: the value's fields (LangGraph paths) whose text mneme remembers when a put
    names no ``index``; None takes every leaf of the value.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        bank: str | None = None,
        agent: str | None = None,
        visibility: str = "shared",
        fields: list[str] | None = None,
    ) -> None:
        self.memory = memory
        self.bank = validate.optional_ident(bank, "bank")
        self.agent = validate.optional_ident(agent, "agent")
        self.visibility = validate.visibility(visibility).value
        self.fields = list(fields) if fields is not None else None

    # -- the BaseStore contract ---------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order. Every one is checked first: a batch holding one that
        cannot be mapped (or a value that cannot be kept) runs none of them."""
        ops = list(ops)
        checked = [self._check(op) for op in ops]
        return [self._run(op, scope) for op, scope in zip(ops, checked, strict=True)]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread: mneme's core is synchronous (STYLE.md section 1)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- mapping ------------------------------------------------------------------------

    def scope(self, namespace: tuple[str, ...]) -> tuple[str, str]:
        """The (bank, agent) a namespace maps to.

        Raises:
            NamespaceNotMapped: the namespace does not name them.
        """
        if not isinstance(namespace, tuple) or not all(isinstance(x, str) for x in namespace):
            raise NamespaceNotMapped(f"a namespace is a tuple of strings, not {namespace!r}")
        labels = iter(namespace)
        bank = self.bank or self._label(labels, "bank", namespace)
        agent = self.agent or self._label(labels, "agent", namespace)
        return bank, agent

    def _label(self, labels: Iterator[str], what: str, namespace: tuple[str, ...]) -> str:
        label = next(labels, None)
        if label is None:
            raise NamespaceNotMapped(
                f"namespace {namespace!r} names no {what}: this store takes the {what} from "
                f"the namespace (or fix it: MnemeStore(mem, {what}=...))"
            )
        try:
            return validate.ident(label, what)
        except InvalidInput as exc:
            raise NamespaceNotMapped(f"namespace {namespace!r}: {exc}") from exc

    def _run_of(self, bank: str, agent: str, namespace: tuple[str, ...], key: str) -> Run:
        return Run(
            self.memory, bank=bank, agent=agent, prefix=f"lg:{digest(agent, *namespace, key)}"
        )

    def _check(self, op: Op) -> tuple[str, str] | None:
        if isinstance(op, GetOp | PutOp):
            scope = self.scope(op.namespace)
            _key(op.key)
            if isinstance(op, PutOp):
                if not op.namespace:
                    raise NamespaceNotMapped("a put needs a namespace")
                if op.ttl is not None:
                    raise InvalidInput("this store keeps no TTL: put with ttl=None")
                if op.value is not None:
                    self._text(_value(op.value), op.index)
            return scope
        if isinstance(op, SearchOp):
            return self.scope(tuple(op.namespace_prefix))
        if isinstance(op, ListNamespacesOp):
            prefix = next(
                (c.path for c in op.match_conditions or () if c.match_type == "prefix"), ()
            )
            if any(label == "*" for label in prefix[: self._named()]):
                raise NamespaceNotMapped("a listing's prefix must name the bank and agent")
            return self.scope(tuple(prefix))
        raise InvalidInput(f"not a LangGraph store operation: {type(op).__name__}")

    def _named(self) -> int:
        """How many leading labels of a namespace name the scope."""
        return (self.bank is None) + (self.agent is None)

    def _run(self, op: Op, scope: tuple[str, str] | None) -> Result:
        assert scope is not None
        bank, agent = scope
        if isinstance(op, GetOp):
            return self._get(bank, agent, op.namespace, op.key)
        if isinstance(op, PutOp):
            if op.value is None:
                self._delete(bank, agent, op.namespace, op.key)
            else:
                self._put(bank, agent, op.namespace, op.key, _value(op.value), op.index)
            return None
        if isinstance(op, SearchOp):
            return self._search(bank, agent, op)
        assert isinstance(op, ListNamespacesOp)
        return self._namespaces(bank, agent, op)

    # -- the operations -----------------------------------------------------------------

    def _current(self, run: Run) -> tuple[int, Source] | None:
        n = run.length()
        src = run.read(n) if n else None
        return None if src is None else (n, src)

    def _get(self, bank: str, agent: str, namespace: tuple[str, ...], key: str) -> Item | None:
        found = self._current(self._run_of(bank, agent, namespace, key))
        if found is None or found[1].metadata[RECORD]["value"] is None:
            return None
        return _item(found[1])

    def _put(
        self,
        bank: str,
        agent: str,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Any,
    ) -> None:
        run = self._run_of(bank, agent, namespace, key)
        found = self._current(run)
        before = found[1].metadata[RECORD] if found else None
        if before is not None and before["value"] == value:
            return  # the same value again: nothing changes
        live = before is not None and before["value"] is not None
        now = self.memory.clock()
        record = {
            "namespace": list(namespace),
            "key": key,
            "value": value,
            "created_at": before["created_at"] if live and before else now.isoformat(),
        }
        run.append(
            self._text(value, index),
            {RECORD: record},
            kind="langgraph_item",
            visibility=self.visibility,
            supersedes=[run.source_id(found[0])] if live and found else None,
        )

    def _delete(self, bank: str, agent: str, namespace: tuple[str, ...], key: str) -> None:
        run = self._run_of(bank, agent, namespace, key)
        found = self._current(run)
        if found is None or found[1].metadata[RECORD]["value"] is None:
            return
        src = found[1]
        record = {**src.metadata[RECORD], "value": None}
        where = "/".join(namespace[self._named() :]) or "the root"
        run.retract(
            src,
            f"Deleted the item {key} in {where}.",
            {RECORD: record},
            reason=f"LangGraph item {key} deleted",
        )

    def _search(self, bank: str, agent: str, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        wanted = op.offset + op.limit
        found: dict[tuple[tuple[str, ...], str], SearchItem] = {}
        pairs: list[tuple[Iterable[str], float | None]]
        if op.query is not None:
            hits = self.memory.recall(
                op.query, bank=bank, agent=agent, scope="personal", k=min(1000, max(50, 4 * wanted))
            )
            pairs = [(h.evidence_source_ids or h.unit.evidence, h.relevance) for h in hits]
        else:
            pairs = [(u.evidence, None) for u in self._units(bank, agent)]
        for evidence, score in pairs:
            for src in self._items(bank, agent, evidence):
                record = src.metadata[RECORD]
                item = _item(src, score)
                at = (item.namespace, item.key)
                if (
                    at in found
                    or item.namespace[: len(prefix)] != prefix
                    or not _matches(record["value"], op.filter)
                ):
                    continue
                found[at] = item
            if len(found) >= wanted and op.query is None:
                break
        items = list(found.values())
        if op.query is None:
            items.sort(key=lambda i: i.updated_at, reverse=True)
        return items[op.offset : wanted]

    def _namespaces(self, bank: str, agent: str, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        seen: set[tuple[str, ...]] = set()
        for unit in self._units(bank, agent):
            for src in self._items(bank, agent, unit.evidence):
                namespace = tuple(src.metadata[RECORD]["namespace"])
                if all(_namespace_matches(c, namespace) for c in op.match_conditions or ()):
                    seen.add(namespace[: op.max_depth] if op.max_depth else namespace)
        return sorted(seen)[op.offset : op.offset + op.limit]

    # -- reading items back -------------------------------------------------------------

    def _units(self, bank: str, agent: str) -> Iterator[Any]:
        return scan(self.memory, bank=bank, agent=agent)

    def _items(self, bank: str, agent: str, evidence: Iterable[str]) -> Iterator[Source]:
        """The current, live versions of items among a memory's evidence."""
        for src in last_entries(self.memory, bank=bank, agent=agent, evidence=evidence, tag="lg"):
            record = src.metadata.get(RECORD)
            if isinstance(record, dict) and record.get("value") is not None:
                yield src

    def _text(self, value: dict[str, Any], index: Any) -> str:
        """What mneme remembers of a value: the text at the fields ``index`` (or the store's
        ``fields``) names, else every leaf, one per line.

        Raises:
            InvalidInput: there is no text in it.
        """
        paths = index if isinstance(index, list) else self.fields
        if paths is None:
            parts = list(_leaves(value))
        else:
            parts = [t for p in paths for t in get_text_at_path(value, p)]
        text = "\n".join(p for p in parts if p.strip())
        if not text:
            raise InvalidInput(
                f"the value holds no text for mneme to remember (fields {paths or 'all'})"
            )
        return text


def _key(key: Any) -> str:
    if not isinstance(key, str) or not key or "\x00" in key:
        raise InvalidInput(f"a LangGraph key is a non-empty string, not {key!r}")
    return key


def _value(value: Any) -> dict[str, Any]:
    """The value as plain JSON (what comes back from ``get`` is equal to it).

    Raises:
        InvalidInput: not a mapping with string keys and JSON values.
    """
    if not isinstance(value, Mapping):
        raise InvalidInput(f"a LangGraph value is a mapping, not {type(value).__name__}")
    try:
        plain = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"a LangGraph value must be plain JSON: {exc}") from exc
    validate.metadata(plain)
    if plain != value:
        raise InvalidInput("a LangGraph value must be plain JSON (string keys, lists, no tuples)")
    return dict(plain)


def _leaves(value: Any, name: str = "") -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _leaves(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, name)
    elif value is not None:
        yield f"{name}: {value}" if name else str(value)


def _item(src: Source, score: float | None = None) -> SearchItem:
    record = src.metadata[RECORD]
    return SearchItem(
        namespace=tuple(record["namespace"]),
        key=record["key"],
        value=record["value"],
        created_at=dt.datetime.fromisoformat(record["created_at"]),
        updated_at=src.recorded_at,
        score=score,
    )


def _matches(value: Any, condition: Any) -> bool:
    """LangGraph's filter: exact values, nested mappings, and $eq $ne $gt $gte $lt $lte."""
    if not condition:
        return True
    if not isinstance(value, Mapping):
        return False
    return all(_compare(value.get(k), want) for k, want in condition.items())


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and float(a) > float(b),
    "$gte": lambda a, b: a is not None and float(a) >= float(b),
    "$lt": lambda a, b: a is not None and float(a) < float(b),
    "$lte": lambda a, b: a is not None and float(a) <= float(b),
}


def _compare(have: Any, want: Any) -> bool:
    if isinstance(want, Mapping):
        if any(str(k).startswith("$") for k in want):
            unknown = [k for k in want if k not in _OPERATORS]
            if unknown:
                raise InvalidInput(f"unsupported filter operator {unknown[0]!r}")
            return all(_OPERATORS[k](have, v) for k, v in want.items())
        return _matches(have, want)
    return bool(have == want)


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True)) if path else True
