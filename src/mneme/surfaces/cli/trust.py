"""Trust from the shell: review (queue, decide), conflicts (list, resolve), reject, restore,
resolve-contradiction, rules (the charter and adopted rules), invalidate, purge."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from mneme.core.model import ReviewItem
from mneme.core.worklist import KINDS, SORTS
from mneme.surfaces.cli.state import get_state, output_options

if TYPE_CHECKING:
    from mneme.core.erasure import PurgeReport

DECISIONS = ("approve", "reject", "supersede", "restore")
RESOLUTIONS = ("supersede", "reject", "not_conflict", "scoped_exception")


@click.group()
def review() -> None:
    """The review queue: claims waiting for a person, and decisions on them."""


@review.command("queue")
@click.option("--bank", "-b", required=True, help="The bank whose queue to show.")
@click.option(
    "--status",
    default="pending_review",
    show_default=True,
    type=click.Choice(["pending_review", "approved", "rejected", "superseded"]),
    help="Which review status to list.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=50,
    show_default=True,
    help="At most this many claims.",
)
@output_options
def review_queue(bank: str, status: str, limit: int) -> None:
    """List claims by review status, newest first, each as it was said.

    Each item is the statement that first said the claim, who said it, when and in which
    source; the claim's normal form (subject, attribute, value) follows on a second line.
    """
    state = get_state()
    items = state.open_bank(bank).review.queue(bank=bank, status=status, limit=limit)
    state.emit(
        {"bank": bank, "status": status, "items": items},
        lambda: [line for item in items for line in _queue_lines(item)] or ["the queue is empty"],
    )


@review.command("worklist")
@click.option("--bank", "-b", required=True, help="The bank whose worklist to show.")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(KINDS),
    help="Only this kind (repeatable; default: every kind).",
)
@click.option("--author", help="Only what this agent said.")
@click.option("--text", help="Only what contains this text.")
@click.option(
    "--sort",
    type=click.Choice(SORTS),
    default="newest",
    show_default=True,
    help="newest first, or the most contested first.",
)
@click.option(
    "--limit", type=click.IntRange(1, 200), default=50, show_default=True, help="Page size."
)
@click.option(
    "--offset",
    type=click.IntRange(0, 1_000_000),
    default=0,
    show_default=True,
    help="Skip this many (paging).",
)
@output_options
def review_worklist(
    bank: str,
    kinds: tuple[str, ...],
    author: str | None,
    text: str | None,
    sort: str,
    limit: int,
    offset: int,
) -> None:
    """What waits for a person's decision, and nothing else: open questions, contested
    claims, rejected values said again, sweep proposals; counts per kind first."""
    state = get_state()
    work = state.open_bank(bank).review.worklist(
        bank=bank,
        kinds=kinds or None,
        author=author,
        text=text,
        sort=sort,
        limit=limit,
        offset=offset,
    )

    def lines() -> list[str]:
        counts = ", ".join(f"{k} {n}" for k, n in work.counts.items())
        out = [f"{work.total} waiting ({counts})"]
        for item in work.items:
            said = item.said
            out.append(f"{item.kind:<10} {item.id}  {said.text if said else item.question}")
            if said is not None:
                out.append(
                    f"    said by {said.author} · {', '.join(said.source_ids) or '-'} · "
                    f"happened {said.occurred_at.date() if said.occurred_at else '-'} · "
                    f"recorded {said.recorded_at.date()}"
                )
            if item.other is not None:
                out.append(f"    other side: {item.other.text} ({item.other.author})")
            out.append(f"    actions: {', '.join(item.actions)}")
        return out

    state.emit(work, lines)


def _queue_lines(item: ReviewItem) -> list[str]:
    c = item.claim
    said = [
        *([f"said by {item.author}"] if item.author else []),
        *([item.said_at.date().isoformat()] if item.said_at else []),
        *([f"source {item.source_id}"] if item.source_id else []),
    ]
    return [
        f"{c.id}  {item.text}  [{c.status.value}/{c.review_status.value}]  "
        f"evidence {c.evidence_count}" + ("  CONTESTED" if c.contradiction_refs else ""),
        "    " + " · ".join([c.text, *said]),
    ]


@review.command("decide")
@click.argument("target_id")
@click.argument("decision", type=click.Choice(DECISIONS))
@click.option("--actor", required=True, help="Who decides (recorded on the event).")
@click.option("--note", default="", help="Why (recorded on the event).")
@click.option(
    "--because",
    metavar="ID",
    help="The belief (a memory id) the decision rests on; if it changes, reconsolidation "
    "re-examines the decision.",
)
@output_options
def review_decide(
    target_id: str, decision: str, actor: str, note: str, because: str | None
) -> None:
    """Approve, reject, supersede or restore a claim or a memory.

    Exit code 3 when the target or the --because memory does not exist.
    """
    state = get_state()
    event = state.open().review.decide(target_id, decision, actor, note, because=because)
    state.emit(
        {"event": event},
        lambda: [
            f"{event.decision} {event.target_kind} {event.target_id}: "
            f"{event.prior_status}/{event.prior_review_status or '-'} -> "
            f"{event.new_status}/{event.new_review_status or '-'}  (event {event.id})"
        ],
    )


@click.group()
def conflicts() -> None:
    """Disagreements between memories, and how a person settles them."""


@conflicts.command("list")
@click.option("--bank", "-b", required=True, help="The bank to look in.")
@click.option("--all", "show_all", is_flag=True, help="Resolved ones too.")
@output_options
def conflicts_list(bank: str, show_all: bool) -> None:
    """Open conflicts of a bank (with --all, resolved ones too)."""
    state = get_state()
    mem = state.open_bank(bank)
    found = mem.conflicts.list(bank=bank, status=None if show_all else "open")
    state.emit(
        {"bank": bank, "conflicts": found},
        lambda: (
            [
                f"{c.id}  {c.kind}  {c.a_unit} vs {c.b_unit}  [{c.status}"
                + (f": {c.resolution.value}" if c.resolution else "")
                + f"]  {c.question}"
                for c in found
            ]
            or ["no conflicts"]
        ),
    )


@conflicts.command("resolve")
@click.argument("conflict_id")
@click.argument("resolution", type=click.Choice(RESOLUTIONS))
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option("--note", default="", help="Why (recorded with the decision).")
@click.option("--winner", help="The unit that holds (default: the newer one).")
@click.option("--scope-a", help="For scoped_exception: where the older memory holds.")
@click.option("--scope-b", help="For scoped_exception: where the newer memory holds.")
@output_options
def conflicts_resolve(
    conflict_id: str,
    resolution: str,
    actor: str,
    note: str,
    winner: str | None,
    scope_a: str | None,
    scope_b: str | None,
) -> None:
    """Settle a conflict: supersede, reject, not_conflict or scoped_exception."""
    state = get_state()
    done = state.open().conflicts.resolve(
        conflict_id,
        resolution,
        actor=actor,
        note=note,
        winner=winner,
        scope_a=scope_a,
        scope_b=scope_b,
    )
    state.emit(
        {"conflict": done},
        lambda: [
            f"{done.id} resolved: {resolution}" + (f", winner {done.winner}" if done.winner else "")
        ],
    )


@click.command()
@click.argument("memory_id")
@click.option("--reason", required=True, help="Why it is wrong (kept on the tombstone).")
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option(
    "--because",
    metavar="ID",
    help="The belief (a memory id) the rejection rests on; if it changes, reconsolidation "
    "re-examines the rejection.",
)
@output_options
def reject(memory_id: str, reason: str, actor: str, because: str | None) -> None:
    """Reject a memory or claim: its value is tombstoned and never comes back by itself.

    Exit code 3 when the memory or the --because memory does not exist; nothing is written.
    """
    state = get_state()
    tomb = state.open().review.reject(memory_id, reason, actor, because=because)
    state.emit({"tombstone": tomb}, lambda: [f"rejected {memory_id} (tombstone {tomb.id})"])


@click.command()
@click.argument("memory_id")
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option("--note", default="", help="Why (recorded with the decision).")
@output_options
def restore(memory_id: str, actor: str, note: str) -> None:
    """Undo the latest decision on a memory or claim (a rejection lifts its tombstone)."""
    state = get_state()
    event = state.open().review.restore(memory_id, actor, note)
    state.emit(
        {"event": event},
        lambda: [
            f"restored {memory_id}: now {event.new_status}"
            + (f"/{event.new_review_status}" if event.new_review_status else "")
        ],
    )


@click.command("resolve-contradiction")
@click.argument("from_id")
@click.argument("to_id")
@click.argument("decision", type=click.Choice(["confirm", "retract", "preference"]))
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option("--note", default="", help="Why (recorded with the decision).")
@output_options
def resolve_contradiction(from_id: str, to_id: str, decision: str, actor: str, note: str) -> None:
    """Answer a write's question: confirm the new memory, retract it, or keep both."""
    state = get_state()
    s = state.open().conflicts.resolve_contradiction(
        from_id, to_id, decision, actor=actor, note=note
    )
    state.emit(
        {"settlement": s},
        lambda: (
            [f"settled {s.conflict.id} as {decision}"]
            + (
                [f"rule proposal ({s.proposal.precedents} precedents): {s.proposal.text}"]
                if s.proposal
                else []
            )
        ),
    )


@click.command()
@click.option("--bank", "-b", help="Adopted rules of this bank only.")
@output_options
def rules(bank: str | None) -> None:
    """The charter in force and the rules adopted beside it."""
    state = get_state()
    found = state.open().admin.rules(bank=bank)

    def text() -> list[str]:
        lines = ["charter rules:", *(f"  - {r}" for r in found["charter_rules"])]
        if found["charter_error"]:
            lines.append(f"charter error (last good charter in force): {found['charter_error']}")
        for b, adopted in found["adopted"].items():
            lines += [f"adopted in {b}:", *(f"  - {r.text} ({r.id})" for r in adopted)]
        return lines

    state.emit(found, text)


@click.command("adopt-rule")
@click.option("--bank", "-b", required=True, help="The bank to look in.")
@click.option("--kind", required=True, help="Conflict kind: value, negation, numbers, ...")
@click.option("--attribute", default="", help="Claim attribute the rule is about.")
@click.option(
    "--decision",
    required=True,
    type=click.Choice(["confirm", "retract", "preference"]),
    help="How such conflicts were settled: the rule repeats it.",
)
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@output_options
def adopt_rule(bank: str, kind: str, attribute: str, decision: str, actor: str) -> None:
    """Adopt a proposed rule (it needs enough identical settlements)."""
    state = get_state()
    rule = state.open().admin.adopt_rule(
        bank=bank, kind=kind, attribute=attribute, decision=decision, actor=actor
    )
    state.emit({"rule": rule}, lambda: [f"adopted {rule.id}: {rule.text}"])


@click.command()
@click.argument("memory_id")
@click.option("--until", "valid_until", required=True, help="ISO time it stopped being true.")
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option("--reason", default="", help="Why it stopped being true.")
@output_options
def invalidate(memory_id: str, valid_until: str, actor: str, reason: str) -> None:
    """Say when a memory stopped being true (valid time; never before it began)."""
    state = get_state()
    unit = state.open().invalidate(memory_id, valid_until, actor=actor, reason=reason)
    state.emit(
        {"memory": unit},
        lambda: [
            f"{unit.id} valid until {unit.valid_until.isoformat() if unit.valid_until else '-'}"
        ],
    )


@click.command()
@click.argument("object_id", required=False)
@click.option(
    "--subject", default=None, help="Erase everything that names this person (not an id)."
)
@click.option("--alias", "aliases", multiple=True, help="Another name of the subject (repeatable).")
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@click.option(
    "--reason", required=True, help="The legal ground (the audit record keeps its digest)."
)
@click.option("--dry-run", is_flag=True, help="Show what would be erased; change nothing.")
@click.option("--yes", is_flag=True, help="Do not ask (required when stdin is not a TTY).")
@click.option("--bank", "-b", default=None, help="The bank (needed for a source id in several).")
@output_options
def purge(
    object_id: str | None,
    subject: str | None,
    aliases: tuple[str, ...],
    actor: str,
    reason: str,
    dry_run: bool,
    yes: bool,
    bank: str | None,
) -> None:
    """Erase a memory or source, or everything about a person, irreversibly (legal erasure).

    The only deletion mneme does. With OBJECT_ID, everything derived only from it goes too.
    With --subject NAME, every memory and source that names the person goes, and notes,
    questions and audit content that name them are blanked. The audit log keeps a record of
    the purge without the content.
    """
    if (object_id is None) == (subject is None):
        raise click.UsageError("name what to erase: an OBJECT_ID or --subject NAME (not both)")
    if aliases and subject is None:
        raise click.UsageError("--alias goes with --subject")
    state = get_state()
    mem = state.open()

    def run(dry: bool) -> tuple[PurgeReport, ...]:
        if subject is not None:
            return mem.admin.purge_subject(
                subject, actor=actor, reason=reason, aliases=aliases, dry_run=dry, bank=bank
            )
        return (
            mem.admin.purge(object_id or "", actor=actor, reason=reason, dry_run=dry, bank=bank),
        )

    plans = run(True)
    units = sum(len(p.units) for p in plans)
    sources = sum(len(p.sources) for p in plans)
    if dry_run:
        state.emit(
            {"dry_run": True, "plan": plans[0] if subject is None else plans},
            lambda: [_purge_line("would erase", p) for p in plans] or ["nothing names them"],
        )
        return
    if not plans:
        state.emit({"purged": []}, lambda: ["nothing names them; nothing erased"])
        return
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("purge is irreversible: pass --yes (stdin is not a terminal)")
        click.confirm(
            f"Erase {units} memories and {sources} sources for good?", abort=True, err=True
        )
    done = run(False)
    state.emit(
        {"purged": done[0] if subject is None else done},
        lambda: [
            *(_purge_line("erased", p) for p in done),
            "the audit log keeps a record without the content",
        ],
    )


def _purge_line(verb: str, plan: PurgeReport) -> str:
    blanked = plan.redacted
    extra = len(blanked.notes) + len(blanked.conflicts) + len(blanked.claim_notes)
    dropped = (
        len(blanked.tombstones) + len(blanked.proposals) + len(blanked.sweeps)
        + len(blanked.rules) + len(blanked.entities)
    )  # fmt: skip
    line = (
        f"{verb} in bank {plan.bank_id}: {', '.join(plan.units) or 'no memories'}; sources: "
        f"{', '.join(plan.sources) or 'none'}"
    )
    if extra or dropped or blanked.audit:
        line += (
            f"; {extra} notes or questions blanked, {dropped} other records dropped, "
            f"{len(blanked.audit)} audit records' content erased"
        )
    return line


@click.command()
@click.option("--belief", help="Sweep this belief now (default: every pending change).")
@click.option("--bank", "-b", help="Only pending changes of this bank.")
@output_options
def reconsolidate(belief: str | None, bank: str | None) -> None:
    """Re-examine what hangs on changed beliefs (both directions); report what moved."""
    state = get_state()
    reports = state.open().beliefs.reconsolidate(belief, bank=bank)
    state.emit(
        {"sweeps": reports},
        lambda: (
            [
                f"{r.belief_id}: examined {r.examined}, re-accepted {len(r.reaccepted)}, flagged "
                f"{len(r.flagged)}, queued {len(r.queued)}, left alone {len(r.left_alone)}"
                for r in reports
            ]
            or ["nothing pending"]
        ),
    )


@click.group()
def proposals() -> None:
    """Sweep verdicts below the confidence bar, waiting for a person."""


@proposals.command("list")
@click.option("--bank", "-b", required=True, help="The bank to look in.")
@output_options
def proposals_list(bank: str) -> None:
    """Open proposals of a bank."""
    state = get_state()
    found = state.open_bank(bank).beliefs.proposals(bank=bank)
    state.emit(
        {"proposals": found},
        lambda: (
            [f"{p.id}  {p.verdict} {p.unit_id} ({p.confidence:.2f}): {p.reason}" for p in found]
            or ["no open proposals"]
        ),
    )


@proposals.command("decide")
@click.argument("proposal_id")
@click.argument("decision", type=click.Choice(["accept", "dismiss"]))
@click.option("--actor", required=True, help="Who does it (recorded in the audit log).")
@output_options
def proposals_decide(proposal_id: str, decision: str, actor: str) -> None:
    """Accept (apply) or dismiss a proposal."""
    state = get_state()
    done = state.open().beliefs.decide(proposal_id, decision == "accept", actor=actor)
    state.emit({"proposal": done}, lambda: [f"{done.id}: {done.status}"])


COMMANDS = (
    review,
    conflicts,
    reject,
    restore,
    resolve_contradiction,
    rules,
    adopt_rule,
    invalidate,
    purge,
    reconsolidate,
    proposals,
)
