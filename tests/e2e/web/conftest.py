"""The ``page`` fixture of the browser tests (``browser.browser_page``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.e2e.web.browser import browser_page


@pytest.fixture
def page() -> Iterator[Any]:
    with browser_page() as pg:
        yield pg
