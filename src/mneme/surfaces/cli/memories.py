"""Commands on memories: add, search, context, show, history, graph, list."""

from __future__ import annotations

import time

import click

from mneme import validate
from mneme.core.context_block import MAX_TOKENS, MIN_TOKENS
from mneme.core.model import Scope, UnitType
from mneme.errors import NotFound
from mneme.serialize import DETAILS
from mneme.surfaces.cli import output
from mneme.surfaces.cli.state import get_state, output_options, read_text_arg

_bank = click.option("--bank", "-b", required=True, help="The bank (isolation unit) to use.")
_agent = click.option("--agent", "-a", required=True, help="The agent speaking or asking.")
_session = click.option(
    "--session", metavar="ID", help="Only the memories said in this session (conversation)."
)
_scope = click.option(
    "--scope",
    type=click.Choice([Scope.PERSONAL.value, Scope.COLLECTIVE.value]),
    default=Scope.COLLECTIVE.value,
    show_default=True,
    help="collective: the whole bank, less other agents' private memories; personal: what "
    "this agent stated.",
)


@click.command()
@click.argument("text")
@_bank
@_agent
@click.option("--session", help="Session id the input belongs to.")
@click.option("--occurred-at", metavar="ISO", help="When it happened (ISO 8601).")
@click.option("--source-id", metavar="ID", help="Your own id for this input, kept as evidence id.")
@click.option("--kind", metavar="K", help="Kind of source (message, document, tool_result...).")
@click.option("--trust", type=float, metavar="X", help="Trust in the source, 0 to 1.")
@click.option("--private", is_flag=True, help="Only this agent ever sees the memories.")
@click.option(
    "--supersedes",
    metavar="ID",
    multiple=True,
    help="A source or memory id this input corrects (repeatable).",
)
@click.option("--create-bank", is_flag=True, help="Make the bank if it does not exist yet.")
@output_options
def add(
    text: str,
    bank: str,
    agent: str,
    session: str | None,
    occurred_at: str | None,
    source_id: str | None,
    kind: str | None,
    trust: float | None,
    private: bool,
    supersedes: tuple[str, ...],
    create_bank: bool,
) -> None:
    """Remember TEXT (`-` reads it from stdin): store it, split it into memories, link them.

    Prints the source id, each new memory id and the decision taken for it. The bank must
    exist (`mneme banks create`), or --create-bank makes it: a typo never makes a bank.
    """
    state = get_state()
    body = read_text_arg(text)
    # A bad text is told as such before whether the bank exists.
    validate.text(body, max_chars=state.open().config.max_text_chars)
    result = state.open_bank(bank, create=create_bank).retain(
        body,
        bank=bank,
        agent=agent,
        session=session,
        occurred_at=occurred_at,
        source_id=source_id,
        source_kind=kind,
        trust=trust,
        supersedes=supersedes or None,
        visibility="private" if private else "shared",
    )
    state.emit(result, lambda: output.retain_text(result))


@click.command()
@click.argument("query")
@_bank
@_agent
@_scope
@click.option(
    "-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="How many hits."
)
@click.option(
    "--detail",
    type=click.Choice(DETAILS),
    default="compact",
    show_default=True,
    help="JSON hits: compact (id, text, relevance, occurred, source ids, flags that are set) "
    "or full (every field of the hit and its unit).",
)
@click.option("--from", "time_from", metavar="ISO", help="Only what happened from this time.")
@click.option("--to", "time_to", metavar="ISO", help="Only what happened until this time.")
@click.option("--as-of", metavar="ISO", help="What was believed true at this time.")
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice([t.value for t in UnitType]),
    help="Only memories of this type (repeatable).",
)
@click.option("--no-superseded", is_flag=True, help="Leave out memories that were superseded.")
@click.option(
    "--min-relevance",
    type=click.FloatRange(0, 1),
    metavar="X",
    help="Only hits at least this likely to be an answer (relevance, 0 to 1).",
)
@_session
@output_options
def search(
    query: str,
    bank: str,
    agent: str,
    scope: str,
    k: int,
    detail: str,
    time_from: str | None,
    time_to: str | None,
    as_of: str | None,
    types: tuple[str, ...],
    no_superseded: bool,
    min_relevance: float | None,
    session: str | None,
) -> None:
    """Recall what is known about QUERY, best first, with evidence and the channels that
    found each hit, and each hit's relevance: how likely it is an answer, 0 to 1.
    """
    state = get_state()
    mem = state.open_bank(bank)
    started = time.perf_counter()
    hits = mem.recall(
        query,
        bank=bank,
        agent=agent,
        scope=scope,
        k=k,
        time_from=time_from,
        time_to=time_to,
        as_of=as_of,
        types=types or None,
        include_superseded=not no_superseded,
        min_relevance=min_relevance,
        session=session,
    )
    latency_ms = (time.perf_counter() - started) * 1000
    state.emit(
        {
            "query": query,
            "bank": bank,
            "agent": agent,
            "latency_ms": round(latency_ms, 2),
            "hits": [output.hit_json(i, h, detail) for i, h in enumerate(hits, 1)],
        },
        lambda: (
            [*output.hits_text(hits), f"{len(hits)} hits in {latency_ms:.1f} ms"]
            if hits
            else [f"nothing found ({latency_ms:.1f} ms)"]
        ),
    )


@click.command()
@click.argument("query")
@_bank
@_agent
@click.option(
    "--max-tokens",
    type=click.IntRange(MIN_TOKENS, MAX_TOKENS),
    default=800,
    show_default=True,
    help="The block's budget in tokens (characters / 4).",
)
@_scope
@click.option("--as-of", metavar="ISO", help="What was believed true at this time.")
@_session
@output_options
def context(
    query: str,
    bank: str,
    agent: str,
    max_tokens: int,
    scope: str,
    as_of: str | None,
    session: str | None,
) -> None:
    """A ready context block for QUERY: one line per memory citing its source id, within
    --max-tokens; superseded and contested memories marked, newest first when the question
    is about the present. The text goes to stdout; the tokens used to stderr.
    """
    state = get_state()
    block = state.open_bank(bank).context(
        query,
        bank=bank,
        agent=agent,
        scope=scope,
        max_tokens=max_tokens,
        as_of=as_of,
        session=session,
    )
    state.emit(block, lambda: [block.text] if block.text else [])
    if not state.json:
        output.note(
            f"{block.tokens}/{block.max_tokens} tokens, {len(block.items)} memories"
            + (f", {block.omitted} did not fit" if block.omitted else "")
        )


@click.command()
@click.argument("object_id", metavar="ID")
@click.option("--bank", "-b", help="Only look in this bank.")
@click.option("--agent", "-a", help="See it as this agent would (default: the store's owner).")
@output_options
def show(object_id: str, bank: str | None, agent: str | None) -> None:
    """Show one memory, or one source if ID is a source id."""
    state = get_state()
    mem = state.open()
    try:
        unit = mem.get(object_id, bank=bank, agent=agent)
    except NotFound:
        try:
            src = mem.source(object_id, bank=bank, agent=agent)
        except NotFound:
            raise NotFound(
                f"no memory or source {object_id!r}" + (f" in bank {bank!r}" if bank else "")
            ) from None
        state.emit({"kind": "source", "source": src}, lambda: output.source_text(src))
        return
    state.emit({"kind": "memory", "memory": unit}, lambda: output.unit_text(unit))


@click.command()
@click.argument("object_id", metavar="ID")
@click.option("--bank", "-b", help="Only look in this bank.")
@click.option("--agent", "-a", help="See it as this agent would (default: the store's owner).")
@output_options
def history(object_id: str, bank: str | None, agent: str | None) -> None:
    """Every recorded change of a memory or source, oldest first (from the audit log)."""
    state = get_state()
    events = state.open().history(object_id, bank=bank, agent=agent)

    def text() -> list[str]:
        lines = []
        for e in events:
            reason = e.detail.get("reason") or ""
            lines.append(
                f"{e.at.isoformat(timespec='seconds')}  {e.kind:<14} {e.actor:<12} {reason}"
            )
        return lines or ["no recorded changes"]

    state.emit({"id": object_id, "events": events}, text)


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option(
    "--depth",
    type=click.IntRange(1, 4),
    default=1,
    show_default=True,
    help="How many edges away to go.",
)
@click.option("--bank", "-b", help="Only look in this bank.")
@click.option("--agent", "-a", help="See it as this agent would (default: the store's owner).")
@output_options
def graph(memory_id: str, depth: int, bank: str | None, agent: str | None) -> None:
    """The neighbourhood of a memory over typed edges."""
    state = get_state()
    view = state.open().graph(memory_id, depth, bank=bank, agent=agent)

    def text() -> list[str]:
        center = view.units.get(view.center)
        lines = [f"{view.center}  {center.text if center else ''}"]
        for e in view.edges:
            lines.append(f"  {e.src} -{e.type}-> {e.dst}   (by {e.made_by}, weight {e.weight:g})")
            for end in (e.src, e.dst):
                unit = view.units.get(end)
                if unit is not None and end != view.center:
                    lines.append(f"      {end}: {unit.text}")
        return lines

    state.emit({"center": view.center, "units": view.units, "edges": view.edges}, text)


@click.command(name="list")
@_bank
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=50,
    show_default=True,
    help="How many memories.",
)
@click.option("--offset", type=click.IntRange(0), default=0, help="Skip this many first.")
@output_options
def list_(bank: str, limit: int, offset: int) -> None:
    """The memories of a bank, newest first."""
    state = get_state()
    units = state.open_bank(bank).list_memories(bank=bank, limit=limit, offset=offset)

    def text() -> list[str]:
        return [f"{u.id}  {u.type.value:<11} {u.status.value:<10} {u.text}" for u in units] or [
            f"bank {bank!r} holds no memories"
        ]

    state.emit({"bank": bank, "memories": units}, text)


COMMANDS = [add, search, context, show, history, graph, list_]
