"""Legal erasure: which content a purge removes, and running it (ADR 0008)."""

from __future__ import annotations

from dataclasses import dataclass

from mneme import validate
from mneme.core.model import Scope, Viewer
from mneme.errors import InvalidInput, NotFound
from mneme.store.protocol import Store


@dataclass(frozen=True, slots=True)
class PurgeReport:
    target: str
    bank_id: str
    units: tuple[str, ...]
    sources: tuple[str, ...]
    dry_run: bool


def plan(store: Store, object_id: str, bank: str | None = None) -> PurgeReport:
    """The units and sources a purge of one object erases (in ``bank``, or wherever the id
    is when it is in one bank only: source ids are unique per bank)."""
    validate.ident(object_id, "id")
    if bank is not None:
        bank = validate.ident(bank, "bank")
    else:
        bank = store.locate(object_id)
        if bank is not None and len(store.source_banks(object_id)) > 1:
            raise InvalidInput(
                f"source id {object_id!r} is used in more than one bank; name the bank"
            )
    if bank is None:
        raise NotFound(f"no memory or source {object_id!r}")
    owner = Viewer(bank, "owner", Scope.OWNER)
    unit = store.get_units(owner, [object_id]).get(object_id)
    if unit is not None:
        sources = set(unit.evidence)  # their raw text states the same content
        units = {unit.id}
    elif store.get_source(owner, object_id) is not None:
        sources, units = {object_id}, set()
    else:
        raise NotFound(
            f"{object_id!r} is not a memory or a source (claims and conflicts go "
            "with the memories they are about)"
        )
    for source_id in sorted(sources):
        for u in store.units_of_source(owner, source_id):
            if set(u.evidence) <= sources:
                units.add(u.id)  # nothing else supports it: it goes with its sources
    return PurgeReport(object_id, bank, tuple(sorted(units)), tuple(sorted(sources)), True)


def purge(
    store: Store,
    object_id: str,
    *,
    actor: str,
    reason: str,
    dry_run: bool = False,
    bank: str | None = None,
) -> PurgeReport:
    actor = validate.ident(actor, "actor")
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a purge needs its legal ground as the reason")
    report = plan(store, object_id, bank)
    if dry_run:
        return report
    with store.transaction():
        store.purge(
            report.bank_id,
            report.units,
            report.sources,
            actor=actor,
            reason=reason,
            target=object_id,
        )
    return PurgeReport(report.target, report.bank_id, report.units, report.sources, False)
