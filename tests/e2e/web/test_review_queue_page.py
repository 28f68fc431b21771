"""The review queue a person works through (ADR 0048), in Debian's chromium.

A store seeded through ``Memory`` holds every kind of card (two open questions, two rejected
values said again, a sweep proposal) beside what needs no decision (a plain claim); the tests
drive the page (counts, filters, order, cards, buttons, the reject confirmation, bulk
approve, keys) and check the store through ``Memory``. ``/docs`` renders with no network.
Screenshots go to ``test-artifacts/review-page/``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.e2e.web.browser import LiveServer, browser_page, shot

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.http import TokenStore, create_app

pytestmark = pytest.mark.slow


@dataclass
class Queue:
    url: str
    mem: mneme.Memory
    reviewer: str
    paris: str  # the Paris/Berlin conflict
    dan: str  # a rejected value said again (claim id)
    erin: str  # another
    tea: str  # a plain pending claim: nothing to decide


def _claim(mem: mneme.Memory, value: str) -> str:
    return next(i.id for i in mem.review.queue(bank="team") if value in i.claim.value)


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    mem = mneme.Memory.open(str(tmp_path / "queue.db"), embedder=HashingEmbedder())
    mem.retain("Alice lives in Paris.", bank="team", agent="scout", source_id="ev-paris",
               occurred_at="2024-05-01")  # fmt: skip
    mem.retain("Alice lives in Berlin.", bank="team", agent="critic", source_id="ev-berlin",
               occurred_at="2025-02-03")  # fmt: skip
    mem.retain("Carol works at Initech.", bank="team", agent="scout")
    mem.retain("Carol works at Globex.", bank="team", agent="critic")
    mem.retain("Bob prefers tea over coffee.", bank="team", agent="scout")
    for who in ("Dan", "Erin"):
        mem.retain(f"{who}'s birthday is 3 March.", bank="team", agent="scout")
    dan, erin, tea = _claim(mem, "3 march"), None, _claim(mem, "tea")
    claims = [i for i in mem.review.queue(bank="team") if "3 march" in i.claim.value]
    dan, erin = (next(i.id for i in claims if i.claim.subject.lower().startswith(w))
                 for w in ("dan", "erin"))  # fmt: skip
    for claim in (dan, erin):
        mem.review.reject(claim, "wrong date", "rev0")
    for who in ("Dan", "Erin"):
        mem.retain(f"{who}'s birthday is 3 March.", bank="team", agent="critic")
    belief = mem.retain(
        "I believe Kestrel Payments is unreliable.", bank="team", agent="a1"
    ).memory_ids[0]
    plan = mem.retain("Use Kestrel Payments for billing.", bank="team", agent="a1").memory_ids[0]
    support = mem.retain("Kestrel Payments missed two settlement windows in May.", bank="team",
                         agent="a1").memory_ids[0]  # fmt: skip
    mem.beliefs.support(support, belief=belief, actor="a1")
    mem.review.decide(plan, "reject", "rev0", "not while unreliable", because=belief)
    mem.review.reject(belief, "they fixed it", "rev0")
    mem.beliefs.reconsolidate(bank="team")
    paris = next(c.id for c in mem.conflicts.list(bank="team") if "Paris" in c.question)
    tokens = TokenStore(tmp_path / "tokens.json")
    reviewer, _ = tokens.create(bank="team", agent="rita", role="reviewer")
    try:
        with LiveServer(create_app(mem, tokens)) as server:
            yield Queue(server.url, mem, reviewer, paris, dan, erin, tea)
    finally:
        mem.close()


def _open(page: Any, q: Queue) -> None:
    page.goto(f"{q.url}/?token={q.reviewer}")
    page.locator("#review-list li.card").first.wait_for()


def _card(page: Any, item_id: str) -> Any:
    return page.locator(f'#review-list li.card[data-id="{item_id}"]')


def _kinds(page: Any) -> list[str]:
    return list(
        page.locator("#review-list li.card").evaluate_all("els => els.map(e => e.dataset.kind)")
    )


def _count(page: Any, kind: str) -> str:
    return str(page.locator(f'#review-counts button[data-kind="{kind}"] .n').inner_text())


def test_the_queue_counts_filters_and_orders_only_what_needs_a_decision(q_page: Any) -> None:
    page, q = q_page
    _open(page, q)
    assert sorted(_kinds(page)) == sorted(
        ["question", "question", "reasserted", "reasserted", "proposal"]
    )
    assert [_count(page, k) for k in ("question", "contested", "reasserted", "proposal")] == [
        "2", "0", "2", "1"
    ]  # fmt: skip
    assert page.locator("#review-total").inner_text() == "5 waiting"
    assert _card(page, q.tea).count() == 0  # a plain claim waits for nothing
    assert _kinds(page)[0] == "proposal"  # newest first: the sweep ran last
    shot(page, "10-queue-newest")
    page.locator("#review-sort").select_option("most_contested")
    expect(page.locator("#review-list li.card").first).to_have_attribute("data-kind", "reasserted")
    # A rejected value said twice is more contested than a conflict between two memories.
    assert _kinds(page)[:2] == ["reasserted", "reasserted"]
    page.locator('#review-counts button[data-kind="question"]').click()
    expect(page.locator("#review-list li.card")).to_have_count(2)
    assert set(_kinds(page)) == {"question"}
    page.locator("#review-text").fill("carol")
    page.locator("#review-filters button[type=submit]").click()
    expect(page.locator("#review-list li.card")).to_have_count(1)
    assert page.locator("#review-list h3").inner_text() == "Carol works at Globex."
    expect(page.locator('#review-counts button[data-kind="question"] .n')).to_have_text("1")
    page.locator("#review-text").fill("")
    page.locator("#review-kind").select_option("")
    page.locator("#review-author").fill("critic")
    page.locator("#review-filters button[type=submit]").click()
    expect(page.locator("#review-total")).to_have_text("4 waiting")
    assert "proposal" not in _kinds(page)  # a1's sweep proposal is not what critic said
    shot(page, "11-queue-filtered")


def test_an_answer_to_filters_since_changed_is_not_drawn(q_page: Any) -> None:
    # Choosing a kind reloads the queue at once; when that answer arrives after the one for
    # the filters submitted next, the older one must not draw over it (CI saw the 5-card
    # answer for "any kind" replace the 4-card answer for author "critic").
    page, q = q_page
    _open(page, q)

    def slow_unfiltered(route: Any) -> None:
        if "author=" not in route.request.url:
            page.wait_for_timeout(800)
        route.continue_()

    page.route("**/review/worklist*", slow_unfiltered)
    page.locator("#review-author").fill("critic")
    page.locator("#review-kind").select_option("question")  # a fast answer (author set)
    page.locator("#review-author").fill("")
    page.locator("#review-kind").select_option("")  # sent now, answered late
    page.locator("#review-author").fill("critic")
    page.locator("#review-filters button[type=submit]").click()  # sent last, answered first
    expect(page.locator("#review-total")).to_have_text("4 waiting")
    page.wait_for_timeout(1500)  # the late answer has arrived by now
    expect(page.locator("#review-total")).to_have_text("4 waiting")
    assert "proposal" not in _kinds(page)


def test_a_conflict_card_shows_both_statements_as_said_with_authors_sources_and_dates(
    q_page: Any,
) -> None:
    page, q = q_page
    _open(page, q)
    card = _card(page, q.paris)
    said, other = card.locator(".side").nth(0), card.locator(".side").nth(1)
    assert card.locator("h3").inner_text() == "Alice lives in Berlin."
    assert said.locator("blockquote").inner_text() == "Alice lives in Berlin."
    assert other.locator("blockquote").inner_text() == "Alice lives in Paris."
    assert said.locator(".author").inner_text() == "critic"
    assert other.locator(".author").inner_text() == "scout"
    assert said.locator(".sources").inner_text() == "ev-berlin"
    assert other.locator(".sources").inner_text() == "ev-paris"
    assert said.locator(".occurred").inner_text() == "2025-02-03"
    assert other.locator(".occurred").inner_text() == "2024-05-01"
    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert said.locator(".recorded").inner_text() == today  # recorded now, not when it happened
    shot(page, "12-conflict-card")


def test_each_card_offers_only_the_decisions_that_apply_to_it(q_page: Any) -> None:
    page, q = q_page
    _open(page, q)

    def buttons(item_id: str) -> list[str]:
        return list(
            _card(page, item_id)
            .locator(".actions button")
            .evaluate_all("els => els.map(e => e.dataset.action)")
        )

    assert buttons(q.paris) == ["supersede", "reject", "not_conflict", "scoped_exception"]
    assert buttons(q.dan) == ["approve", "reject"]  # already rejected: nothing to supersede
    proposal = page.locator('#review-list li.card[data-kind="proposal"]')
    assert proposal.locator(".actions button").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    ) == ["accept", "dismiss"]
    assert page.locator('#review-list button[data-action="restore"]').count() == 0


def test_reject_asks_for_a_confirmation_and_a_reason_before_anything_is_written(
    q_page: Any,
) -> None:
    page, q = q_page
    _open(page, q)
    before = q.mem.history(q.dan, bank="team")
    _card(page, q.dan).locator('button[data-action="reject"]').click()
    dialog = page.locator("dialog#confirm[open]")
    dialog.wait_for()
    page.locator("#confirm-ok").click()  # no reason yet
    assert page.locator("#confirm-error").inner_text() == "A reason is required."
    assert dialog.is_visible()
    shot(page, "13-reject-needs-a-reason")
    page.locator("#confirm-cancel").click()
    dialog.wait_for(state="detached")
    assert q.mem.history(q.dan, bank="team") == before  # cancelled: nothing written
    _card(page, q.dan).locator('button[data-action="reject"]').click()
    page.locator("#confirm-reason").fill("still the wrong date")
    page.locator("#confirm-ok").click()
    _card(page, q.dan).wait_for(state="detached")
    claim = q.mem._store.trust.get_claim("team", q.dan)
    assert (claim.status.value, claim.review_status.value) == ("rejected", "rejected")
    assert claim.review_note == "still the wrong date"
    assert claim.reviewed_by == "rita"


def test_bulk_approve_decides_every_selected_card(q_page: Any) -> None:
    page, q = q_page
    _open(page, q)
    for item in (q.dan, q.erin):
        _card(page, item).locator("input.pick").check()
    assert page.locator("#review-selected").inner_text() == "2 selected"
    assert _card(page, q.paris).locator("input.pick").is_disabled()  # no approve on a question
    shot(page, "14-bulk-selected")
    page.locator("#review-bulk-approve").click()
    _card(page, q.dan).wait_for(state="detached")
    _card(page, q.erin).wait_for(state="detached")
    for item in (q.dan, q.erin):
        claim = q.mem._store.trust.get_claim("team", item)
        assert (claim.status.value, claim.review_status.value) == ("active", "approved")
    expect(page.locator('#review-counts button[data-kind="reasserted"] .n')).to_have_text("0")


def test_keyboard_moves_selects_decides_and_shows_its_help(q_page: Any) -> None:
    page, q = q_page
    _open(page, q)
    page.locator("#review-kind").select_option("reasserted")
    expect(page.locator("#review-list li.card")).to_have_count(2)
    first, second = page.locator("#review-list li.card").evaluate_all(
        "els => els.map(e => e.dataset.id)"
    )
    page.locator("body").press("?")
    help_ = page.locator("dialog#review-help[open]")
    help_.wait_for()
    assert "approve" in help_.inner_text()
    shot(page, "15-keyboard-help")
    page.keyboard.press("Escape")
    help_.wait_for(state="detached")
    page.keyboard.press("j")
    assert page.locator("#review-list li.card.current").get_attribute("data-id") == second
    page.keyboard.press("x")
    assert _card(page, second).locator("input.pick").is_checked()
    page.keyboard.press("k")
    assert page.locator("#review-list li.card.current").get_attribute("data-id") == first
    page.keyboard.press("r")
    page.locator("dialog#confirm[open]").wait_for()
    page.keyboard.press("Escape")
    page.locator("dialog#confirm[open]").wait_for(state="detached")
    page.keyboard.press("a")
    _card(page, first).wait_for(state="detached")
    claim = q.mem._store.trust.get_claim("team", first)
    assert claim.review_status.value == "approved"


def test_docs_render_swagger_ui_with_no_network(tmp_path: Path) -> None:
    mem = mneme.Memory.open(str(tmp_path / "docs.db"), embedder=HashingEmbedder())
    try:
        app = create_app(mem, TokenStore(tmp_path / "t.json"))
        with LiveServer(app) as server, browser_page(offline=True) as page:
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            page.goto(f"{server.url}/docs")
            page.locator(".swagger-ui .info .title").wait_for()
            assert "mneme" in page.locator(".swagger-ui .info .title").inner_text()
            page.locator(".opblock-summary-path", has_text="/review/worklist").first.wait_for()
            shot(page, "16-docs-offline")
            assert asked
            assert all(u.startswith(server.url) for u in asked), asked
    finally:
        mem.close()


@pytest.fixture
def q_page(queue: Queue, page: Any) -> tuple[Any, Queue]:
    return page, queue
