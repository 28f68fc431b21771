"""Fixtures of the background passes' LLM tests (reflect, the insight pass): a real local
OpenAI-compatible server with scripted replies, the tier that points at it, and an opener of
the test's SQLite file that closes every Memory it opened."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.integration.llm.llm_servers import OPENAI_KEY, SERVED_MODEL, FakeServer, serve

import mneme
from mneme.embed.hashing import HashingEmbedder

Opener = Callable[..., mneme.Memory]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serve() as s:
        yield s


def tier(base_url: str) -> dict[str, Any]:
    """One OpenAI-compatible tier at the local server: no retries, no repairs, a short timeout."""
    return {
        "provider": "openai",
        "model": SERVED_MODEL,
        "base_url": base_url + "/v1",
        "api_key_env": "MNEME_TEST_KEY",
        "timeout": 2.0,
        "max_retries": 0,
        "repair_attempts": 0,
    }


@pytest.fixture
def opener(db_path: str, clock: Any) -> Iterator[Opener]:
    """Opens the test's store with the given settings; every Memory opened is closed after."""
    opened: list[mneme.Memory] = []

    def open_(**settings: Any) -> mneme.Memory:
        mem = mneme.Memory.open(
            db_path, embedder=HashingEmbedder(), clock=clock, env={"MNEME_TEST_KEY": OPENAI_KEY},
            **settings,
        )  # fmt: skip
        opened.append(mem)
        return mem

    yield open_
    for mem in opened:
        mem.close()
