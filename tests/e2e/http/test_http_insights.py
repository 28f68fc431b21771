"""The insight routes over real loopback HTTP with the typed client: list (state, limit), run
(idempotent, reviewers and admins), verify (one or all) (issue 19 item 5, ADR 0056)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.insights.run import feed, load
from tests.e2e.live_server import LiveServer

import mneme
from mneme.client import MnemeClient
from mneme.client.api_errors import ApiError
from mneme.surfaces.http import TokenStore, create_app

CHAIN = [r for r in load() if r["fixture"] == "chain"]


@pytest.fixture
def served(tmp_path: Path, minilm: Any) -> Iterator[tuple[str, dict[str, str], mneme.Memory]]:
    mem = mneme.Memory.open(tmp_path / "insights.db", embedder=minilm)
    feed(mem, CHAIN, "team")
    tokens = TokenStore(tmp_path / "tokens.json")
    made = {
        role: tokens.create(bank="team", agent=agent, role=role)[0]
        for role, agent in (("agent", "scout"), ("reviewer", "rita"), ("admin", "tess"))
    }
    try:
        with LiveServer(create_app(mem, tokens)) as live:
            yield live.url, made, mem
    finally:
        mem.close()


def test_a_reviewer_runs_lists_and_verifies_insights_over_http(
    served: tuple[str, dict[str, str], mneme.Memory],
) -> None:
    url, tokens, mem = served
    with MnemeClient(url, token=tokens["reviewer"]) as rita:
        first = rita.run_insights("team")
        assert len(first["created"]) == 1
        assert first["paused"] is None
        again = rita.run_insights("team")
        assert again["created"] == []  # idempotent
        assert again["verified"] == first["created"]
        (insight,) = rita.list_insights("team", state="verified")["insights"]
        assert insight["id"] == first["created"][0]
        assert len(insight["metadata"]["insight"]["witnesses"]) == 5
        assert rita.list_insights("team", state="proposed")["insights"] == []
        assert rita.verify_insights("team", insight=insight["id"])["verified"] == []
        with pytest.raises(ApiError) as missing:
            rita.verify_insights("team", insight="u_nope")
        assert missing.value.status == 404
    assert mem.get(first["created"][0]).agent_id == "rita"  # the caller, audited


def test_an_agent_reads_insights_but_may_not_run_them_and_bad_input_is_refused(
    served: tuple[str, dict[str, str], mneme.Memory],
) -> None:
    url, tokens, _ = served
    with MnemeClient(url, token=tokens["agent"]) as scout:
        with pytest.raises(ApiError) as refused:
            scout.run_insights("team")
        assert refused.value.status == 403
        with pytest.raises(ApiError) as refused:
            scout.verify_insights("team")
        assert refused.value.status == 403
        assert scout.list_insights("team") == {"bank": "team", "state": None, "insights": []}
        with pytest.raises(ApiError) as bad:
            scout.list_insights("team", state="maybe")  # type: ignore[arg-type]
        assert bad.value.status == 422
        with pytest.raises(ApiError) as other:
            scout.list_insights("elsewhere")
        assert other.value.status in (403, 404)
    with MnemeClient(url, token=tokens["admin"]) as tess:
        assert len(tess.run_insights("team")["created"]) == 1
        assert len(tess.list_insights("team", limit=1)["insights"]) == 1
