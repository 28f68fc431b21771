"""One way to turn mneme's dataclasses into JSON and back, for every surface and the buffer."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections.abc import Mapping
from typing import Any

from mneme.core.model import Decision, Question, RetainResult, RetainStatus, Verdict


def to_jsonable(value: Any) -> Any:
    """Plain JSON types: dataclasses become objects, enums their values, times ISO-8601."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for name in ("text", "id"):
            # Hit exposes text/id as properties; keep them on the wire for convenience.
            if name not in out and isinstance(getattr(type(value), name, None), property):
                out[name] = to_jsonable(getattr(value, name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return value.tolist()
    return value


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
