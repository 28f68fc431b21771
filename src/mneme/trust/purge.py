"""Legal erasure: which content a purge removes, and running it (ADR 0008, ADR 0036).

Two ways in: one object (a memory or a source, with what rests only on it), or one data
subject (every memory and source that names the person, and every free-text field that
survives and still names them: review notes, conflict questions, tombstones, audit content).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Protocol

from mneme import validate
from mneme.core.audit_chain import digest
from mneme.core.erasure import Names, PurgeReport, Redactions, fold, subject_names
from mneme.core.model import Network, Scope, Viewer
from mneme.errors import InvalidInput, NotFound
from mneme.store.protocol import Banks, Erasure, Memories, Portable, Transactions


class PurgeStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    memories: Memories
    erasure: Erasure
    portable: Portable


#: Units whose text restates the memories they rest on (so they go when any of those goes).
RESTATING = frozenset({Network.OBSERVATION, Network.INSIGHT})


def plan(store: PurgeStore, object_id: str, bank: str | None = None) -> PurgeReport:
    """The units and sources a purge of one object erases (in ``bank``, or wherever the id
    is when it is in one bank only). A source id names every source written under it in the
    bank: a shared one and other agents' private ones may share it (ADR 0107), and erasing
    the id erases all of them and what rests only on them."""
    validate.ident(object_id, "id")
    if bank is not None:
        bank = validate.ident(bank, "bank")
    else:
        bank = store.memories.locate(object_id)
        if bank is not None and len(store.memories.source_banks(object_id)) > 1:
            raise InvalidInput(
                f"source id {object_id!r} is used in more than one bank; name the bank"
            )
    if bank is None:
        raise NotFound(f"no memory or source {object_id!r}")
    owner = Viewer(bank, "owner", Scope.OWNER)
    unit = store.memories.get_units(owner, [object_id]).get(object_id)
    if unit is not None and unit.network in RESTATING:
        # An observation or insight restates its evidence; erasing it erases no source.
        sources, units = set(), {unit.id}
    elif unit is not None:
        sources = set(unit.evidence)  # their raw text states the same content
        units = {unit.id}
    elif store.memories.get_source(owner, object_id) is not None:
        sources, units = {object_id}, set()
    else:
        raise NotFound(
            f"{object_id!r} is not a memory or a source (claims and conflicts go "
            "with the memories they are about)"
        )
    units |= _resting_on(store, owner, sources)
    return PurgeReport(object_id, bank, tuple(sorted(units)), tuple(sorted(sources)), True)


def _resting_on(store: PurgeStore, owner: Viewer, sources: set[str]) -> set[str]:
    """The units nothing but these sources supports: they go with their sources. So does
    every observation or insight that cites any of them: its text restates what they say
    (ADR 0051, ADR 0056)."""
    return {
        u.id
        for source_id in sorted(sources)
        for u in store.memories.units_of_source(owner, source_id)
        if set(u.evidence) <= sources or u.network in RESTATING
    }


def _ground(actor: str, reason: str) -> str:
    actor = validate.ident(actor, "actor")
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a purge needs its legal ground as the reason")
    return actor


def _carry_out(
    store: PurgeStore, reports: tuple[PurgeReport, ...], *, actor: str, reason: str
) -> tuple[PurgeReport, ...]:
    """Run planned purges, every bank's in one transaction."""
    with store.transaction():
        for r in reports:
            store.erasure.purge(
                r.bank_id,
                r.units,
                r.sources,
                actor=actor,
                reason=reason,
                target=r.target,
                redact=r.redacted,
            )
    return tuple(dataclasses.replace(r, dry_run=False) for r in reports)


def purge(
    store: PurgeStore,
    object_id: str,
    *,
    actor: str,
    reason: str,
    dry_run: bool = False,
    bank: str | None = None,
) -> PurgeReport:
    actor = _ground(actor, reason)
    report = plan(store, object_id, bank)
    if dry_run:
        return report
    return _carry_out(store, (report,), actor=actor, reason=reason)[0]


# -- a data subject --------------------------------------------------------------------------


def subject_target(name: str) -> str:
    """What a subject purge's audit record names: a digest, never the name itself."""
    return "subject:" + (digest(fold(name)) or "")[:24]


def _rows(store: PurgeStore, table: str, bank: str | None) -> Iterator[dict[str, Any]]:
    for batch in store.portable.export_rows(table):
        for row in batch:
            if bank is None or row.get("bank_id") == bank:
                yield row


def _subject(store: PurgeStore, name: str, aliases: tuple[str, ...], bank: str | None) -> Names:
    """The subject's names: the given ones, and the aliases of an entity that is the subject
    (its name or an alias is one of the given names)."""
    names = subject_names([name, *aliases])
    if names is None:
        raise InvalidInput("a subject purge needs a name of at least two letters")
    given = set(names.needles)
    more: list[str] = []
    for row in _rows(store, "entities", bank):
        known = [row["name"], *(row.get("aliases") or ())]
        if any(fold(str(n)) in given for n in known):
            more.extend(str(n) for n in known)
    return subject_names([*names.names, *more]) or names


#: Rows that name the subject in a text field: (table, what they are to a purge, key, fields).
_NAMING = (
    ("units", "units", "id", ("text",)),
    ("sources", "sources", "id", ("text",)),
    ("review_events", "notes", "seq", ("note",)),
    ("conflicts", "conflicts", "id", ("question", "note")),
    ("claims", "claim_notes", "id", ("review_note",)),
    ("tombstones", "tombstones", "id", ("text", "reason")),
    ("sweep_proposals", "proposals", "id", ("reason",)),
    ("reconsolidation", "sweeps", "id", ("reason",)),
    ("adopted_rules", "rules", "id", ("text",)),
    ("audit_log", "audit", "seq", ("before", "after", "reason")),
)

Found = dict[str, dict[str, set[Any]]]  # bank -> kind -> keys


def _naming(store: PurgeStore, names: Names, bank: str | None) -> Found:
    found: Found = {}

    def put(row: dict[str, Any], kind: str, key: Any) -> None:
        found.setdefault(row["bank_id"], {}).setdefault(kind, set()).add(key)

    entities: set[tuple[str, str]] = set()
    for row in _rows(store, "entities", bank):
        if any(names.named_in(str(n)) for n in (row["name"], *(row.get("aliases") or ()))):
            entities.add((row["bank_id"], row["id"]))
            put(row, "entities", row["id"])
    for row in _rows(store, "mentions", bank):
        if (row["bank_id"], row["entity_id"]) in entities:
            put(row, "units", row["unit_id"])
    for table, kind, key, fields in _NAMING:
        for row in _rows(store, table, bank):
            if any(names.named_in(row.get(f)) for f in fields):
                put(row, kind, row[key])
    return found


def _bank_report(
    store: PurgeStore, target: str, bank: str, found: dict[str, set[Any]]
) -> PurgeReport:
    owner = Viewer(bank, "owner", Scope.OWNER)
    units = set(found.get("units", ()))
    sources = set(found.get("sources", ()))
    for unit in store.memories.get_units(owner, sorted(units)).values():
        sources.update(unit.evidence)  # their raw text states the same content
    units |= _resting_on(store, owner, sources)
    redacted = Redactions(
        **{f.name: tuple(sorted(found.get(f.name, ()))) for f in dataclasses.fields(Redactions)}
    )
    return PurgeReport(target, bank, tuple(sorted(units)), tuple(sorted(sources)), True, redacted)


def plan_subject(
    store: PurgeStore, name: str, *, aliases: tuple[str, ...] = (), bank: str | None = None
) -> tuple[PurgeReport, ...]:
    """Per bank that names the subject: the memories and sources that go, and the rows that
    survive but are rewritten or dropped because they name the subject."""
    if not isinstance(name, str) or not all(isinstance(a, str) for a in aliases):
        raise InvalidInput("the subject's name and aliases must be text")
    if bank is not None:
        bank = validate.ident(bank, "bank")
        if store.banks.get_bank(bank) is None:
            raise NotFound(f"no bank {bank!r}")
    names = _subject(store, name, tuple(aliases), bank)
    found = _naming(store, names, bank)
    target = subject_target(name)
    return tuple(_bank_report(store, target, b, found[b]) for b in sorted(found))


def purge_subject(
    store: PurgeStore,
    name: str,
    *,
    actor: str,
    reason: str,
    aliases: tuple[str, ...] = (),
    dry_run: bool = False,
    bank: str | None = None,
) -> tuple[PurgeReport, ...]:
    """Erase everything that names a data subject, in every bank (or one), atomically."""
    actor = _ground(actor, reason)
    reports = plan_subject(store, name, aliases=aliases, bank=bank)
    if dry_run:
        return reports
    return _carry_out(store, reports, actor=actor, reason=reason)
