"""``/metrics`` and ``/v1/health`` on a real server over loopback (uvicorn, the HTTP app with
MCP at /mcp as ``mneme serve`` builds it): writes and recalls through HTTP and through an MCP
session move the counters of their own surface, Prometheus' own parser reads the page, and
the store-wide numbers need an admin token for every bank (ADR 0054, ADR 0055)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families
from tests.e2e.live_server import LiveServer

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.http import TokenStore, create_app
from mneme.surfaces.mcp import streamable_http_app

TIMEOUT = 30


class Served:
    def __init__(self, url: str, mem: mneme.Memory, secrets: dict[str, str]) -> None:
        self.url = url
        self.mem = mem
        self.secrets = secrets

    def get(self, who: str | None, path: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.secrets[who]}"} if who else {}
        return httpx.get(f"{self.url}{path}", headers=headers, timeout=TIMEOUT)

    def post(self, who: str, path: str, body: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.secrets[who]}"}
        return httpx.post(f"{self.url}{path}", json=body, headers=headers, timeout=TIMEOUT)

    def samples(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        page = self.get("root", "/metrics")
        assert page.status_code == 200, page.text
        assert page.headers["content-type"].startswith("text/plain")
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(page.text)
            for s in family.samples
        }

    def mcp(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        async def go() -> list[Any]:
            headers = {"Authorization": f"Bearer {self.secrets['scout']}"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
                streamable_http_client(f"{self.url}/mcp", http_client=http) as (r, w, _),
                ClientSession(r, w) as session,
            ):
                await session.initialize()
                return [await session.call_tool(name, args) for name, args in calls]

        return anyio.run(go)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    mem = mneme.Memory.open(str(tmp_path / "m.db"), embedder=HashingEmbedder())
    mem.admin.create_bank("team")
    tokens = TokenStore(tmp_path / "tokens.json")
    secrets = {
        name: tokens.create(bank=bank, agent=agent, role=role)[0]
        for name, bank, agent, role in (
            ("scout", "team", "scout", "agent"),
            ("boss", "team", "boss", "admin"),
            ("root", "*", "root", "admin"),
        )
    }
    app = create_app(mem, tokens, mcp_app=streamable_http_app(mem))
    try:
        with LiveServer(app) as server:
            yield Served(server.url, mem, secrets)
    finally:
        mem.close()


def count(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_writes_and_recalls_count_by_surface_over_http_and_mcp(served: Served) -> None:
    before = served.samples()
    wrote = served.post(
        "scout", "/v1/banks/team/memories", {"text": "The Kepler bid is due Friday."}
    )
    assert wrote.status_code in (200, 201), wrote.text
    for _ in range(2):
        found = served.post("scout", "/v1/banks/team/recall", {"query": "Kepler bid"})
        assert found.status_code == 200, found.text
    results = served.mcp(
        [
            ("add_memory", {"text": "Mia runs the Oslo office."}),
            ("search_memory", {"query": "Oslo office"}),
        ]
    )
    assert not any(r.isError for r in results), results
    served.mem.recall("Oslo", bank="team", agent="scout")  # a Python caller, in process
    after = served.samples()

    def moved(name: str, **labels: str) -> float:
        return count(after, name, **labels) - count(before, name, **labels)

    assert moved("mneme_writes_total", surface="http", outcome="ok") == 1
    assert moved("mneme_recalls_total", surface="http", outcome="ok") == 2
    assert moved("mneme_writes_total", surface="mcp", outcome="ok") == 1
    assert moved("mneme_recalls_total", surface="mcp", outcome="ok") == 1
    assert moved("mneme_recalls_total", surface="python", outcome="ok") == 1
    assert moved("mneme_recall_seconds_count", surface="http") == 2
    assert count(after, "mneme_recall_seconds_sum", surface="http") > 0
    assert count(after, "mneme_store_up") == 1
    assert count(after, "mneme_store_rows", table="units") >= 2
    assert count(after, "mneme_embeddings", model=served.mem.embedder.model_id) >= 2
    assert (
        count(after, "mneme_vector_index_rows", bank="team", model=served.mem.embedder.model_id)
        >= 2
    )
    assert count(after, "mneme_ingest_queue", state="pending") == 0
    assert ("mneme_open_conflicts", (("bank", "team"),)) in after
    assert count(after, "mneme_stage_paused", stage="reconsolidate") == 0


def test_a_recall_that_fails_counts_as_an_error(served: Served) -> None:
    bad = served.post("scout", "/v1/banks/team/recall", {"query": "x", "time_from": "not a time"})
    assert bad.status_code in (400, 422)
    samples = served.samples()
    # Refused by the schema (422) before Memory is called, or by Memory (400): never an ok.
    assert count(samples, "mneme_recalls_total", surface="http", outcome="ok") == 0


def test_watchdog_reactions_show_in_metrics_and_health(served: Served) -> None:
    served.mem.admin.watch()
    health = served.get("root", "/v1/health")
    assert health.status_code == 200
    report = health.json()
    assert report["severity"] in ("ok", "warn", "critical")
    assert report["checks"]["store"] == "ok"
    assert report["passes"] == 1
    journal = served.get("root", "/v1/health/journal")
    assert journal.status_code == 200
    assert journal.json() == {"entries": []}  # a quiet store: nothing was done


@pytest.mark.parametrize(
    ("who", "status"), [(None, 401), ("scout", 403), ("boss", 403), ("root", 200)]
)
def test_metrics_and_health_need_an_admin_of_every_bank(
    served: Served, who: str | None, status: int
) -> None:
    assert served.get(who, "/metrics").status_code == status
    assert served.get(who, "/v1/health").status_code == status


def test_a_paused_stage_is_resumed_over_http(served: Served) -> None:
    headers = {"Authorization": f"Bearer {served.secrets['root']}"}
    path = "/v1/health/stages/reconsolidate/resume"
    answer = httpx.post(f"{served.url}{path}", headers=headers, timeout=TIMEOUT)
    assert answer.json() == {"stage": "reconsolidate", "resumed": False}
    missing = httpx.post(f"{served.url}/v1/health/stages/nope/resume", headers=headers)
    assert missing.status_code == 404
    assert "reconsolidate" in missing.json()["error"]["message"]
