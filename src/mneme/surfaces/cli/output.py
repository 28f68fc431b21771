"""Rendering for the CLI: one JSON encoder for every value, and short text layouts.

JSON goes to stdout only; everything meant for a person but not for a pipe (progress, notes,
errors in text mode) goes to stderr.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from typing import Any

import click

from mneme.core.model import Hit, RetainResult, Source, Unit
from mneme.serialize import compact_hit, to_jsonable


def emit_json(value: Any) -> None:
    """Write one JSON document to stdout."""
    click.echo(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2))


def note(message: str) -> None:
    """A line for the person at the terminal (stderr), never part of the output proper."""
    click.echo(message, err=True)


def error_payload(code: str, message: str, details: Mapping[str, Any] | None = None) -> Any:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body.update(to_jsonable(details))
    return {"error": body}


# -- text layouts -------------------------------------------------------------------------


def _ts(value: dt.datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else "-"


def hit_json(rank: int, hit: Hit, detail: str = "full") -> dict[str, Any]:
    """A hit as JSON, ranked: compact (``serialize.compact_hit``), or the flat answer fields
    first and then the whole hit and unit (full)."""
    if detail == "compact":
        return {"rank": rank, **compact_hit(hit)}
    data: dict[str, Any] = {"rank": rank, "id": hit.id, "text": hit.text}
    data.update(to_jsonable(hit))
    return data


def channels_text(channels: Mapping[Any, int]) -> str:
    ordered = sorted(channels.items(), key=lambda x: x[1])
    return ", ".join(f"{getattr(c, 'value', c)} #{r}" for c, r in ordered)


def hits_text(hits: Iterable[Hit]) -> list[str]:
    lines: list[str] = []
    for rank, hit in enumerate(hits, 1):
        lines.append(f"{rank:>2}. {hit.score:.3f}  {hit.text}")
        lines.append(
            f"      id {hit.id}   relevance {hit.relevance:.2f}   "
            f"channels: {channels_text(hit.channels) or '-'}"
        )
        lines.append(f"      evidence: {', '.join(hit.evidence_source_ids) or '-'}")
        flags: list[str] = []
        if hit.origin != "seed":
            flags.append(f"via {hit.via_edge or hit.origin} from {hit.parent or '?'}")
        if hit.superseded:
            flags.append(f"superseded -> {hit.successor or '?'}")
        if hit.flashback:
            flags.append("flashback")
        for conflict in hit.conflicts:
            srcs = ", ".join(conflict.source_ids)
            flags.append(f"conflicts with {conflict.unit_id}" + (f" ({srcs})" if srcs else ""))
        if flags:
            lines.append(f"      flags: {'; '.join(flags)}")
    return lines


def retain_text(result: RetainResult) -> list[str]:
    lines = [f"{result.status.value}  source {result.source_id or '-'}"]
    for d in result.decisions:
        target = f" (vs {d.target_id})" if d.target_id else ""
        reason = f"  [{d.reason}]" if d.reason else ""
        lines.append(f"  {d.verdict.value:<13} {d.unit_id or '-'}  {d.text}{target}{reason}")
    if result.deduped:
        lines.append(f"  repeated existing: {', '.join(result.deduped)}")
    lines.extend(f"  question ({q.conflict_type}): {q.question}" for q in result.questions)
    if result.pending_id:
        lines.append(f"  pending: {result.pending_id}")
    return lines


def unit_text(unit: Unit) -> list[str]:
    lines = [
        f"memory   {unit.id}  (bank {unit.bank_id})",
        f"text     {unit.text}",
        f"type     {unit.type.value} / {unit.network.value}   status {unit.status.value}   "
        f"confidence {unit.confidence:.2f}   {unit.visibility.value}",
        f"author   {unit.agent_id}   knowers: {', '.join(unit.knowers) or '-'}",
        f"occurred {_ts(unit.occurred_start)} .. {_ts(unit.occurred_end)}",
        f"valid    {_ts(unit.valid_from)} .. {_ts(unit.valid_until)}",
        f"recorded {_ts(unit.recorded_at)}   retired {_ts(unit.retired_at)}",
        f"evidence {', '.join(unit.evidence) or '-'}",
    ]
    if unit.entities:
        lines.append(f"entities {', '.join(unit.entities)}")
    if unit.supersedes:
        lines.append(f"supersedes {', '.join(unit.supersedes)}")
    if unit.superseded_by:
        lines.append(f"superseded by {unit.superseded_by}")
    if unit.contradictions:
        lines.append(f"contradicted by {', '.join(unit.contradictions)}")
    if unit.embedding_model:
        lines.append(f"embedding {unit.embedding_model} ({unit.embedding_dim} dims)")
    return lines


def source_text(src: Source) -> list[str]:
    return [
        f"source   {src.id}  (bank {src.bank_id}, {src.kind})",
        f"text     {src.text}",
        f"agent    {src.agent_id}   session {src.session_id or '-'}   "
        f"trust {src.trust if src.trust is not None else '-'}   {src.visibility.value}",
        f"occurred {_ts(src.occurred_at)}   mentioned {_ts(src.mentioned_at)}   "
        f"recorded {_ts(src.recorded_at)}",
    ]
