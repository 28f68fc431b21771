"""The review page in a real browser (Debian's chromium through Python playwright).

A real uvicorn server on a free 127.0.0.1 port serves a store seeded through ``Memory``; the
test clicks decisions on the page and checks the store changed, through ``Memory``.
Screenshots go to ``test-artifacts/review-page/``.
"""

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
    mem: mneme.Memory
    reviewer: str
    admin: str
    agent: str
    conflict_id: str
    paris_claim: str


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    mem = mneme.Memory.open(str(tmp_path / "page.db"), embedder=HashingEmbedder())
    mem.retain("Alice lives in Paris.", bank="team", agent="scout")
    mem.retain("Alice lives in Berlin.", bank="team", agent="critic")
    mem.retain("Bob prefers tea over coffee.", bank="team", agent="scout")
    mem.retain("My locker code is 4711.", bank="team", agent="scout", visibility="private")
    (conflict,) = mem.conflicts.list(bank="team")
    paris = next(c for c in mem.review.queue(bank="team") if c.claim.value == "paris")
    tokens = TokenStore(tmp_path / "tokens.json")
    reviewer, _ = tokens.create(bank="team", agent="rita", role="reviewer")
    admin, _ = tokens.create(bank="*", agent="root", role="admin")
    agent, _ = tokens.create(bank="team", agent="critic", role="agent")
    try:
        with LiveServer(create_app(mem, tokens)) as server:
            yield Site(server.url, mem, reviewer, admin, agent, conflict.id, paris.id)
    finally:
        mem.close()


def test_reviewer_settles_a_conflict_as_a_scoped_exception(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/?token={site.reviewer}")
    page.locator("#tab-conflicts").click()
    card = page.locator(f'#conflict-list li.card[data-id="{site.conflict_id}"]')
    card.wait_for()
    assert "Alice lives in Paris." in card.inner_text()
    assert "Alice lives in Berlin." in card.inner_text()
    card.locator('input[value="scoped_exception"]').check()
    card.locator(".scopes").wait_for()
    card.locator('button[type="submit"]').click()  # no scopes yet: the page asks for them
    page.locator("#toast.error").wait_for()
    assert site.mem.conflicts.list(bank="team")[0].status == "open"
    card.locator(".scopes input").nth(0).fill("before 2024")
    card.locator(".scopes input").nth(1).fill("since 2024")
    shot(page, "03-conflict-scoped")
    card.locator('button[type="submit"]').click()
    page.locator(f'#conflict-list li.card[data-id="{site.conflict_id}"]').wait_for(state="detached")
    (settled,) = site.mem.conflicts.list(bank="team", status="resolved")
    assert settled.resolution is not None
    assert settled.resolution.value == "scoped_exception"
    assert (settled.scope_a, settled.scope_b) == ("before 2024", "since 2024")
    assert settled.resolved_by == "rita"


def test_memory_browser_shows_history_timeline_and_graph_picture(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/?token={site.reviewer}")
    page.locator("#tab-memories").click()
    page.locator("#q").fill("Where does Alice live?")
    page.locator('#type-boxes input[value="fact"]').check()
    page.locator("#search-form button[type=submit]").click()
    first = page.locator("#results li.result").first
    first.wait_for()
    assert "Alice" in page.locator("#results").inner_text()
    first.locator("button.result-open").click()
    page.locator("#detail .timeline li").first.wait_for()
    page.locator("#detail svg.graph g.node.center").wait_for()
    assert page.locator("#detail svg.graph g.node").count() >= 2
    assert page.locator("#detail svg.graph line.edge.contra").count() >= 1
    shot(page, "04-memory-detail")
    # Walk the graph: a neighbour node opens that memory.
    neighbour = page.locator('#detail svg.graph g.node.unit[role="button"]').first
    target = neighbour.get_attribute("data-id")
    neighbour.click()
    page.locator(f'#detail header code:text-is("{target}")').wait_for()


def test_reviewer_rejects_a_memory_from_the_browser(site: Site, page: Any) -> None:
    tea = site.mem.recall("tea", bank="team", agent="scout", scope="collective")[0].unit
    page.goto(f"{site.url}/?token={site.reviewer}")
    page.locator("#tab-memories").click()
    page.locator(f'#results li.result[data-id="{tea.id}"] button').click()
    page.locator("#unit-reason").fill("made up")
    page.locator("#detail button.danger").click()
    page.locator("#detail dd:text-is('rejected')").wait_for()
    assert site.mem.get(tea.id).status.value == "rejected"


def test_admin_sees_the_audit_log_and_a_verified_chain(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/?token={site.admin}&bank=team")
    page.locator("#tab-audit").click()
    page.locator("#audit-table tbody tr").first.wait_for()
    page.locator("#audit-verify").click()
    page.locator("#audit-verdict .ok").wait_for()
    assert "intact" in page.locator("#audit-verdict").inner_text()
    shot(page, "05-audit")


def test_agent_token_sees_no_review_tools_and_not_private_memories(site: Site, page: Any) -> None:
    page.goto(f"{site.url}/?token={site.agent}")
    page.locator("#panel-memories:not([hidden])").wait_for()
    assert page.locator("#tab-review").is_hidden()
    assert page.locator("#tab-audit").is_hidden()
    page.locator("#results li.result").first.wait_for()
    assert "locker" not in page.locator("#results").inner_text()  # scout's private memory


def test_a_bad_token_is_refused_with_a_message(site: Site, page: Any) -> None:
    page.goto(site.url)
    assert "review" in page.content().lower()
    page.locator("#token-input").fill("mn_not-a-real-token")
    page.locator("#token-form button").click()
    page.locator("#toast.error").wait_for()
    expect(page.locator("#tabs")).to_be_hidden()
