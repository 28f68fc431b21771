"""The browser harness of the review page's tests: a live server and Debian's chromium.

``LiveServer`` runs uvicorn in a thread on an already bound 127.0.0.1 socket; ``browser_page``
opens a chromium page (through Python playwright, never a downloaded browser) that fails the
test on any script error; ``shot`` keeps a screenshot under ``test-artifacts/review-page/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.live_server import LiveServer

__all__ = ["ARTIFACTS", "LiveServer", "browser_page", "shot"]

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "review-page"


@contextmanager
def browser_page(*, offline: bool = False) -> Iterator[Any]:
    """A chromium page; ``offline``: every request to a host other than 127.0.0.1 fails."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) "
            "to run the review page's browser tests"
        )
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            if offline:
                # No network but the test server: a CDN would fail here, as it does offline.
                context.route(
                    "**/*",
                    lambda route: (
                        route.continue_()
                        if route.request.url.startswith("http://127.0.0.1:")
                        else route.abort()
                    ),
                )
            pg = context.new_page()
            pg.set_default_timeout(10_000)
            errors: list[str] = []
            pg.on("pageerror", lambda exc: errors.append(str(exc)))
            # Script errors fail the test; the browser's own "Failed to load resource" lines
            # for refused requests (a bad token's 401) are expected answers, not errors.
            pg.on(
                "console",
                lambda msg: (
                    errors.append(msg.text)
                    if msg.type == "error" and not msg.text.startswith("Failed to load resource")
                    else None
                ),
            )
            yield pg
            assert not errors, f"the page logged errors: {errors}"
        finally:
            browser.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
