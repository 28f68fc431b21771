"""Looking after a store: banks, agents, reembed, reflect, db migrate/version, audit verify,
stats, and a bank's sensitive-data policy."""

from __future__ import annotations

import json
from typing import Any

import click

from mneme.memory import copy_between
from mneme.surfaces.cli import output
from mneme.surfaces.cli.state import get_state, output_options, progress


@click.group(invoke_without_command=True)
@output_options
@click.pass_context
def banks(ctx: click.Context) -> None:
    """List the banks of the store (`mneme banks`), or make one (`mneme banks create`)."""
    if ctx.invoked_subcommand is None:
        _list_banks()


@banks.command("create")
@click.argument("bank")
@click.option("--name", help="A label for people (default: the id).")
@output_options
def create_bank(bank: str, name: str | None) -> None:
    """Make BANK now (nothing changes when it exists). The surfaces make banks only this way
    or on a write that asks for it, so a mistyped bank is an error, never a new bank."""
    state = get_state()
    mem = state.open()
    existed = mem.admin.bank(bank) is not None
    made = mem.admin.create_bank(bank, name=name)
    state.emit(made, lambda: [f"{'exists' if existed else 'created'}  {made.id}"])


@banks.command("list")
@output_options
def list_banks() -> None:
    """List the banks of the store."""
    _list_banks()


def _list_banks() -> None:
    state = get_state()
    found = state.open().admin.banks()
    state.emit(
        {"banks": found},
        lambda: (
            [
                f"{b.id}  created {b.created_at.isoformat(timespec='seconds')}"
                + (f"  ({b.name})" if b.name != b.id else "")
                for b in found
            ]
            or ["no banks yet"]
        ),
    )


@click.command()
@click.option("--bank", "-b", required=True, help="The bank whose agents to list.")
@output_options
def agents(bank: str) -> None:
    """The roster of a bank: agents seen lately, and how many went quiet."""
    state = get_state()
    roster = state.open().swarm.roster(bank)

    def text() -> list[str]:
        lines = [
            f"{a.id}  last seen {a.last_seen.isoformat(timespec='seconds')}  {a.status}"
            + (f"  on {a.host}" if a.host else "")
            for a in roster.live
        ]
        return [*(lines or ["no live agents"]), f"{roster.hidden_stale} quiet (hidden_stale)"]

    state.emit({"bank": bank, "live": roster.live, "hidden_stale": roster.hidden_stale}, text)


@click.command()
@click.option("--bank", "-b", help="Only this bank (default: every bank).")
@click.option(
    "--batch",
    "batch_size",
    type=click.IntRange(1, 10_000),
    default=64,
    show_default=True,
    help="Memories embedded at a time.",
)
@output_options
def reembed(bank: str | None, batch_size: int) -> None:
    """Embed every memory that has no vector from the configured embedder."""
    state = get_state()
    mem = state.open()
    # What is left bounds the work: units less those with a vector from this model, so a
    # run that resumes after an interruption starts its bar where the last one stopped
    # (the bar may end early for one bank).
    stats = mem.admin.stats()
    left = max(stats.units - stats.embeddings_by_model.get(mem.embedder.model_id, 0), 0)
    with progress(state, left, "re-embedding") as bar:
        done = mem.admin.reembed(bank=bank, batch=batch_size, progress=bar.update)
    model = mem.embedder.model_id
    state.emit(
        {"reembedded": done, "model": model, "bank": bank},
        lambda: [f"re-embedded {done} memories with {model}"],
    )


@click.command()
@click.option("--bank", "-b", required=True, help="The bank to reflect on.")
@click.option("--agent", "-a", default="cli", show_default=True, help="Who runs it (audited).")
@click.option(
    "--skepticism",
    type=click.IntRange(1, 64),
    help="Fewest memories an observation rests on (default: the bank's, else 2).",
)
@click.option(
    "--literal/--compress",
    "literalism",
    default=None,
    help="Keep statements verbatim, or compress each to its claim (default: the bank's).",
)
@click.option(
    "--max-cited",
    type=click.IntRange(1, 64),
    help="Most memories one observation cites (default: the bank's, else 8).",
)
@output_options
def reflect(
    bank: str,
    agent: str,
    skepticism: int | None,
    literalism: bool | None,
    max_cited: int | None,
) -> None:
    """Consolidate a bank's shared memories into observations (per entity and topic).

    A second run over unchanged memories writes nothing; changed evidence revises an
    observation (the old version superseded), evidence gone retires it.
    """
    state = get_state()
    report = state.open().reflect(
        bank, agent=agent, skepticism=skepticism, literalism=literalism, max_cited=max_cited
    )

    def text() -> list[str]:
        lines = [
            f"{len(report.created)} created, {len(report.revised)} revised, "
            f"{len(report.retired)} retired, {report.unchanged} unchanged "
            f"from {report.evidence} memories in {report.seconds:.2f}s"
        ]
        if report.llm or report.fallbacks or report.deferred:
            lines.append(
                f"LLM: {len(report.llm)} composed, {len(report.dropped)} claims dropped, "
                f"{len(report.fallbacks)} composed offline"
                + (f" ({report.fallbacks[0][1]})" if report.fallbacks else "")
                + (f", {len(report.deferred)} deferred by the cap" if report.deferred else "")
            )
        return [*lines, *([report.reason] if report.reason else [])]

    state.emit(report, text)


# -- db -----------------------------------------------------------------------------------


@click.group()
def db() -> None:
    """The store's schema."""


@db.command()
@output_options
def migrate() -> None:
    """Bring the store's schema up to date (opening a store does this too)."""
    state = get_state()
    mem = state.open()
    applied = mem.admin.migrate()
    version = mem.admin.schema_version()
    state.emit(
        {"applied": applied, "version": version},
        lambda: [
            f"applied {', '.join(map(str, applied))}; now at version {version}"
            if applied
            else f"up to date (schema version {version})"
        ],
    )


@db.command()
@output_options
def version() -> None:
    """Print the store's schema version."""
    state = get_state()
    v = state.open().admin.schema_version()
    state.emit({"version": v}, lambda: [f"schema version {v}"])


@db.command()
@click.argument("src")
@click.argument("dst")
@output_options
def copy(src: str, dst: str) -> None:
    """Copy the whole store at SRC into the new, empty store at DST (a path or a DSN).

    Every row of every table moves, losslessly, audit log included (audit verify passes on
    the copy); e.g. from the default SQLite file to a team's PostgreSQL. DST must be empty.
    """
    state = get_state()
    report = copy_between(src, dst, progress=lambda table, n: output.note(f"{table}: {n}"))
    state.emit(
        {"copied": report.rows, "total": report.total},
        lambda: [f"copied {report.total} rows ({len(report.rows)} tables) into {dst}"],
    )


@db.command()
@output_options
def compact() -> None:
    """Rewrite the store's files so that purged rows leave no bytes behind.

    SQLite: fold the WAL into the file and VACUUM. PostgreSQL: VACUUM FULL, end the WAL
    segment and checkpoint (a step the role may not take is reported, not failed). Run it after
    a purge that must be proved on disk; it holds the write lock while it runs.
    """
    state = get_state()
    report = state.open().admin.compact()
    state.emit(
        {"compacted": report},
        lambda: [
            f"compacted: {', '.join(report.done) or 'nothing'}",
            *(f"skipped {s}" for s in report.skipped),
        ],
    )


# -- audit --------------------------------------------------------------------------------


@click.group()
def audit() -> None:
    """The hash-chained audit log."""


@audit.command()
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False),
    help="Append the anchor to this file (JSON lines) instead of printing it.",
)
@output_options
def anchor(out: str | None) -> None:
    """Export the heads of every bank's audit chain, to keep outside the store.

    Kept elsewhere (another machine, write-once storage), an anchor lets `audit verify
    --anchor FILE` catch what the audit key cannot: the whole database rolled back to an
    older copy, or a chain rewritten by someone who holds the key (ADR 0035).
    """
    state = get_state()
    value = state.open().admin.audit_anchor()
    if out is not None:
        try:
            with open(out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(value, sort_keys=True) + "\n")
        except OSError as exc:
            raise click.UsageError(f"cannot write the anchor to {out}: {exc}") from exc
        state.emit(
            {"anchored": len(value["heads"]), "file": out},
            lambda: [f"anchored {len(value['heads'])} banks in {out}"],
        )
        return
    state.emit(value, lambda: [json.dumps(value, sort_keys=True)])


def _read_anchors(paths: tuple[str, ...]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                lines = [line for line in fh if line.strip()]
        except OSError as exc:
            raise click.UsageError(f"cannot read the anchor file {path}: {exc}") from exc
        for n, line in enumerate(lines, 1):
            try:
                value = json.loads(line)
            except ValueError:
                raise click.UsageError(f"{path} line {n} is not an audit anchor") from None
            kind = str(value.get("format")) if isinstance(value, dict) else ""
            if not kind.startswith("mneme.audit-anchor/"):
                raise click.UsageError(f"{path} line {n} is not an audit anchor")
            found.append(value)
    return found


@audit.command()
@click.option("--bank", "-b", help="Only this bank (default: every bank).")
@click.option(
    "--anchor",
    "anchors",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="An anchor file (`audit anchor --out`): every head in it must still be on its chain.",
)
@output_options
def verify(bank: str | None, anchors: tuple[str, ...]) -> None:
    """Check the keyed audit chain and the data it seals; exit 1 naming the first problem.

    Edited, deleted, inserted or reordered records, a truncated log, a chain recomputed
    without the audit key (MNEME_AUDIT_KEY_FILE, default <db>.audit-key), content erased
    outside a purge, and memories, sources, claims, tombstones or conflicts changed in the
    database beside mneme are all reported (ADR 0035).
    """
    state = get_state()
    reports = state.open().admin.audit_verify(bank, anchors=_read_anchors(anchors))
    broken = {b: r for b, r in reports.items() if not r.ok}
    payload: dict[str, Any] = {"ok": not broken, "banks": reports}
    message = ""
    if broken:
        b, r = next(iter(broken.items()))
        message = (
            f"the audit chain of bank {b!r} is broken at record {r.first_bad_seq}: {r.problem}"
            if r.first_bad_seq is not None
            else f"the audit of bank {b!r} is broken: {r.problem}"
        )
        payload["error"] = {"code": "audit_broken", "message": message}

    def text() -> list[str]:
        return [
            f"{b}: {'ok' if r.ok else 'BROKEN'}  {r.records} records"
            + ("" if r.ok or r.first_bad_seq is None else f"  first bad record {r.first_bad_seq}")
            + ("" if r.ok else f": {r.problem}")
            + "".join(f"\n  note: {n}" for n in r.notes)
            for b, r in reports.items()
        ] or ["no audit records"]

    state.emit(payload, text)
    if broken:
        if not state.json:
            output.note(f"error: {message}")
        click.get_current_context().exit(1)


@click.command()
@output_options
def stats() -> None:
    """Counts of banks, sources, memories, entities, edges and embeddings."""
    state = get_state()
    s = state.open().admin.stats()
    state.emit(
        s,
        lambda: [
            f"banks {s.banks}   sources {s.sources}   memories {s.units}   entities {s.entities}"
            f"   edges {s.edges}",
            *(f"embeddings {model}: {n}" for model, n in sorted(s.embeddings_by_model.items())),
        ],
    )


def _rule(value: str) -> tuple[str, str]:
    key, sep, action = value.partition("=")
    if not sep or not key.strip() or not action.strip():
        raise click.BadParameter(f"{value!r} is not KEY=ACTION (e.g. secret=refuse)")
    return key.strip(), action.strip()


@click.command()
@click.option("--bank", "-b", required=True, help="The bank whose policy to show or set.")
@click.option(
    "--set",
    "rules",
    multiple=True,
    metavar="KEY=ACTION",
    help="Set a rule: KEY is a category (secret, personal) or a kind (api_key, token, "
    "private_key, password, card_number, email, phone); ACTION is store, redact, refuse, or "
    "default (drop the rule). Repeatable.",
)
@click.option("--actor", default="cli", show_default=True, help="Who sets it (audited).")
@click.option("--reason", default="", help="Why (kept in the audit record).")
@output_options
def sensitive(bank: str, rules: tuple[str, ...], actor: str, reason: str) -> None:
    """Show or set how a bank's writes treat secrets and personal data.

    Every write is screened before it is stored: per category or kind, what is found is
    stored (and audited), redacted to [redacted:<kind>], or the write is refused. Default:
    secrets redacted, personal data stored.
    """
    state = get_state()
    mem = state.open()
    if rules:
        pairs = [_rule(r) for r in rules]
        view = mem.admin.set_sensitive_policy(bank, dict(pairs), actor=actor, reason=reason)
    else:
        view = mem.admin.sensitive_policy(bank)
    state.emit(
        view,
        lambda: [
            f"bank {view.bank}" + (f"  (set: {view.rules})" if view.rules else "  (defaults)"),
            *(f"  {key:<12} {action}" for key, action in view.effective.items()),
        ],
    )


COMMANDS = [banks, agents, reembed, reflect, db, audit, stats, sensitive]
