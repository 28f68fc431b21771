"""One way to turn mneme's dataclasses into JSON and back, for every surface and the buffer."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mneme.core.context_block import conflict_ids, occurred
from mneme.core.model import Decision, Hit, Question, RetainResult, RetainStatus, Verdict

#: How much of a hit a surface returns: ``compact`` (the default) is what an agent needs to
#: answer and cite; ``full`` is every field of the hit and its unit.
DETAILS = ("compact", "full")


def to_jsonable(value: Any) -> Any:
    """Plain JSON types for any value ``Memory`` returns, for every surface and the buffer.

    Dataclasses become objects field by field (slotted frozen classes work; ``Hit`` keeps its
    ``text`` and ``id`` properties), datetimes ISO 8601 strings, enums their value, tuples and
    sets lists (sets sorted), mapping keys strings, numpy values plain numbers.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, Path):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for name in ("text", "id"):
            if name not in out and isinstance(getattr(type(value), name, None), property):
                out[name] = to_jsonable(getattr(value, name))
        return out
    if isinstance(value, Mapping):
        return {_key(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [to_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return value.tolist()
    return str(value)


def compact_hit(hit: Hit) -> dict[str, Any]:
    """A hit as an agent needs it to answer and cite: id, text, relevance, the date it
    happened, its source ids, and only the flags that are set (``superseded_by``, open
    ``conflicts``, ``flashback``)."""
    out: dict[str, Any] = {"id": hit.unit.id, "text": hit.unit.text}
    out["relevance"] = round(hit.relevance, 3)
    when = occurred(hit)
    if when is not None:
        out["occurred"] = when.isoformat()
    out["source_ids"] = list(hit.evidence_source_ids)
    if hit.superseded:
        out["superseded_by"] = hit.successor
    contested = conflict_ids(hit)
    if contested:
        out["conflicts"] = list(contested)
    if hit.flashback:
        out["flashback"] = True
    return out


def hits_view(hits: list[Hit], detail: str) -> list[Any]:
    """Hits in the shape ``detail`` asks for (``DETAILS``)."""
    if detail == "full":
        return list(to_jsonable(hits))
    return [compact_hit(h) for h in hits]


def _key(key: Any) -> str:
    if isinstance(key, enum.Enum):
        return str(key.value)
    return str(key)


def retain_result_from_json(data: Mapping[str, Any]) -> RetainResult:
    return RetainResult(
        status=RetainStatus(data["status"]),
        source_id=data.get("source_id"),
        memory_ids=tuple(data.get("memory_ids", ())),
        decisions=tuple(
            Decision(
                verdict=Verdict(d["verdict"]),
                text=d["text"],
                unit_id=d.get("unit_id"),
                target_id=d.get("target_id"),
                reason=d.get("reason", ""),
            )
            for d in data.get("decisions", ())
        ),
        deduped=tuple(data.get("deduped", ())),
        questions=tuple(Question(**q) for q in data.get("questions", ())),
        pending_id=data.get("pending_id"),
        metadata=dict(data.get("metadata", {})),
    )
