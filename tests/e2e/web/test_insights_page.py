"""The review page shows insights (ADR 0056) in a real browser: a witness's detail lists the
insight it supports, and the insight's detail lists its witnesses in the thread's order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bench.insights.run import feed, load
from playwright.sync_api import expect
from tests.e2e.web.browser import LiveServer, shot

import mneme
from mneme.surfaces.http import TokenStore, create_app

pytestmark = pytest.mark.slow


@dataclass
class Site:
    url: str
    reviewer: str
    insight: str
    witnesses: list[str]


@pytest.fixture
def site(tmp_path: Path, minilm: Any) -> Iterator[Site]:
    mem = mneme.Memory.open(str(tmp_path / "page.db"), embedder=minilm)
    feed(mem, [r for r in load() if r["fixture"] == "chain"], "team")
    mem.insights.run("team", agent="rita")
    (insight,) = mem.insights.list("team")
    tokens = TokenStore(tmp_path / "tokens.json")
    reviewer, _ = tokens.create(bank="team", agent="rita", role="reviewer")
    try:
        with LiveServer(create_app(mem, tokens)) as server:
            yield Site(server.url, reviewer, insight.id, insight.metadata["insight"]["witnesses"])
    finally:
        mem.close()


def test_a_witness_shows_its_insight_and_the_insight_its_witnesses_in_order(
    site: Site, page: Any
) -> None:
    page.goto(f"{site.url}/?token={site.reviewer}")
    page.locator("#tab-memories").click()
    first = site.witnesses[0]
    page.locator(f'#results li.result[data-id="{first}"] button').click()
    listed = page.locator(f'#detail section.insights li.insight[data-id="{site.insight}"]')
    listed.wait_for()
    expect(listed.locator(".badge")).to_have_text("proposed")
    shot(page, "22-memory-witnesses-an-insight")
    listed.locator("button").click()
    page.locator(f'#detail header code:text-is("{site.insight}")').wait_for()
    record = page.locator("#detail section.insight-witnesses")
    record.wait_for()
    assert "hypothesis" in record.inner_text()
    assert "null" not in page.locator("#detail").inner_text()  # nothing left unrendered
    witnesses = record.locator("button.link")
    assert [witnesses.nth(i).inner_text() for i in range(witnesses.count())] == site.witnesses
    shot(page, "23-insight-witnesses")
    witnesses.nth(2).click()  # a witness opens that memory
    page.locator(f'#detail header code:text-is("{site.witnesses[2]}")').wait_for()
