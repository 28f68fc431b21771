"""`mneme insights run|list|verify|categories`: the generative layer (ADR 0056)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from mneme.core.model import Unit
from mneme.surfaces.cli.state import get_state, output_options


def insight_meta(u: Unit) -> Mapping[str, Any]:
    meta = u.metadata.get("insight")
    return meta if isinstance(meta, Mapping) else {}


@click.group()
def insights() -> None:
    """Categories, threads and insights: hypotheses that link memories, with witnesses."""


def _summary(report: Any) -> list[str]:
    c = report.categorized
    lines = [
        f"{c.tagged} memories tagged ({len(c.minted)} categories minted, {c.aliases} aliases, "
        f"{len(c.misses)} misses at the cap; {c.vocabulary} in the vocabulary), "
        f"{report.because} BECAUSE edges proposed, {report.threads} threads, "
        f"{len(report.created)} insights created, {len(report.verified)} verified, "
        f"{len(report.retired)} retired, {report.unchanged} unchanged in {report.seconds:.2f}s"
    ]
    if c.named or c.naming_fallback:
        lines.append(
            f"LLM names: {len(c.named)} taken, {len(c.refused)} refused"
            + (f" ({c.naming_fallback})" if c.naming_fallback else "")
        )
    if report.judged or report.judge_fallback:
        lines.append(
            f"LLM causal judge: {report.judged} pairs asked"
            + (f" ({report.judge_fallback})" if report.judge_fallback else "")
        )
    if report.held_back:
        lines.append(f"flood guard: {report.held_back} more held back")
    return [*lines, *(x for x in (report.paused, report.reason) if x)]


@insights.command("run")
@click.option("--bank", "-b", required=True, help="The bank to run the pass on.")
@click.option("--agent", "-a", default="cli", show_default=True, help="Who runs it (audited).")
@click.option("--resume", is_flag=True, help="Lift a pause the flood guard set, and run.")
@output_options
def run(bank: str, agent: str, resume: bool) -> None:
    """One insight pass: tag memories, find threads, write and verify insights.

    A second run over unchanged memories writes nothing.
    """
    state = get_state()
    report = state.open().insights.run(bank, agent=agent, resume=resume)
    state.emit(report.as_dict(), lambda: _summary(report))


@insights.command("list")
@click.option("--bank", "-b", required=True, help="The bank whose insights to list.")
@click.option(
    "--state",
    "wanted",
    type=click.Choice(["proposed", "verified", "retired"]),
    help="Only insights in this state.",
)
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(1, 1000),
    default=50,
    show_default=True,
    help="The most insights listed.",
)
@output_options
def list_(bank: str, wanted: str | None, limit: int) -> None:
    """The bank's insights, best first, each with its witnesses in order."""
    state = get_state()
    found = state.open().insights.list(bank, state=wanted, limit=limit)
    rows = [
        {
            "id": u.id,
            "state": insight_meta(u).get("state"),
            "score": insight_meta(u).get("score"),
            "categories": insight_meta(u).get("categories"),
            "witnesses": insight_meta(u).get("witnesses"),
            "text": u.text,
        }
        for u in found
    ]

    def text() -> list[str]:
        if not rows:
            return ["no insights"]
        return [
            f"{r['id']}  {r['state']}  score {r['score']}\n  {r['text']}\n  witnesses: "
            + ", ".join(r["witnesses"] or ())
            for r in rows
        ]

    state.emit({"bank": bank, "insights": rows}, text)


@insights.command("verify")
@click.option("--bank", "-b", required=True, help="The bank whose insights to verify.")
@click.option("--id", "insight", help="Only this insight (default: every live one).")
@click.option("--agent", "-a", default="cli", show_default=True, help="Who runs it (audited).")
@output_options
def verify(bank: str, insight: str | None, agent: str) -> None:
    """Judge insights against their witnesses: verified, or retired with the reason."""
    state = get_state()
    report = state.open().insights.verify(bank, agent=agent, insight=insight)

    def text() -> list[str]:
        lines = [f"{len(report.verified)} verified, {len(report.retired)} retired"]
        return [*lines, *(f"retired {i}: {why}" for i, why in report.retired)]

    state.emit(report.as_dict(), text)


@insights.command("categories")
@click.option("--bank", "-b", required=True, help="The bank whose vocabulary to show.")
@output_options
def categories(bank: str) -> None:
    """The bank's category vocabulary, oldest first, with the aliases folded into each."""
    state = get_state()
    found = state.open().insights.categories(bank)
    rows = [{"id": c.id, "name": c.name, "aliases": list(c.aliases)} for c in found]

    def text() -> list[str]:
        out = []
        for r in rows:
            aliases = f" ({', '.join(r['aliases'])})" if r["aliases"] else ""
            out.append(f"{r['name']}{aliases}")
        return out or ["no categories"]

    state.emit({"bank": bank, "categories": rows}, text)


COMMANDS = [insights]
