"""The review page shows observations (ADR 0051) in a real browser: a memory's detail lists
the observations that cite it, and an observation's detail lists its evidence."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.e2e.web.browser import LiveServer, shot

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.http import TokenStore, create_app

pytestmark = pytest.mark.slow


@dataclass
class Site:
    url: str
    reviewer: str
    hiking: str
    evidence: list[str]
    about: str


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    mem = mneme.Memory.open(str(tmp_path / "page.db"), embedder=HashingEmbedder())
    ids = [
        mem.retain(text, bank="team", agent="scout", source_id=f"s-{i}").memory_ids[0]
        for i, text in enumerate(
            ("Oliver likes hiking.", "Oliver likes painting.", "Oliver lives in Lisbon.")
        )
    ]
    report = mem.reflect("team", agent="rita")
    about = next(
        uid
        for uid in report.created
        if mem.get(uid).metadata["observation"]["key"] == "entity:oliver"
    )
    tokens = TokenStore(tmp_path / "tokens.json")
    reviewer, _ = tokens.create(bank="team", agent="rita", role="reviewer")
    try:
        with LiveServer(create_app(mem, tokens)) as server:
            yield Site(server.url, reviewer, ids[0], ids, about)
    finally:
        mem.close()


def test_a_memory_shows_the_observations_citing_it_and_an_observation_its_evidence(
    site: Site, page: Any
) -> None:
    page.goto(f"{site.url}/?token={site.reviewer}")
    page.locator("#tab-memories").click()
    page.locator(f'#results li.result[data-id="{site.hiking}"] button').click()
    cited = page.locator("#detail section.observations li.observation")
    cited.first.wait_for()
    assert cited.count() == 2  # about Oliver, and the topic "Oliver: likes"
    about = page.locator(f'#detail li.observation[data-id="{site.about}"]')
    expect(about).to_contain_text("About Oliver")
    expect(about.locator(".badge")).to_have_text("active")
    shot(page, "20-memory-cited-by-observations")
    about.locator("button").click()
    page.locator(f'#detail header code:text-is("{site.about}")').wait_for()
    record = page.locator("#detail section.observation-evidence")
    record.wait_for()
    assert "3 evidence" in record.inner_text()
    assert "null" not in page.locator("#detail").inner_text()  # nothing left unrendered
    rests_on = record.locator("button.link")
    assert [rests_on.nth(i).inner_text() for i in range(rests_on.count())] == site.evidence
    shot(page, "21-observation-evidence")
    rests_on.nth(1).click()  # an evidence unit opens that memory
    page.locator(f'#detail header code:text-is("{site.evidence[1]}")').wait_for()
