"""The browser harness of the review page's tests: a live server and Debian's chromium.

``LiveServer`` runs uvicorn in a thread on an already bound 127.0.0.1 socket; ``browser_page``
opens a chromium page (through Python playwright, never a downloaded browser) that fails the
test on any script error; ``shot`` keeps a screenshot under ``test-artifacts/review-page/``.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "review-page"


class LiveServer:
    """uvicorn in a thread on an already bound socket (no port race), stopped on exit."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start within 15 s")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


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
