"""A running Memory takes a new configuration (ADR 0057): live settings swap at once, a
request already running finishes on what it started with, and a reload that cannot be
applied changes nothing."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mneme
from mneme import config
from mneme.config import RecallConfig
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import InvalidInput
from mneme.memory import open_store

FACTS = [
    "Alice moved to Lisbon in March.",
    "Bob adopted a grey cat named Pixel.",
    "Alice works as a nurse at the city hospital.",
]


class GatedEmbedder(HashingEmbedder):
    """The hashing embedder, with a gate a test closes to hold a query mid-recall."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.held = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        if self.hold.is_set():
            self.held.set()
            assert self.release.wait(30)
        vector: np.ndarray = self.embed([text])[0]
        return vector


def _open(tmp_path: Path, text: str, embedder: HashingEmbedder | None = None) -> mneme.Memory:
    file = tmp_path / "mneme.toml"
    file.write_text(text)
    return mneme.Memory.open(
        str(tmp_path / "m.db"),
        embedder=embedder or HashingEmbedder(),
        env={},
        config_file=str(file),
    )


def test_reload_puts_a_new_write_limit_in_force(tmp_path: Path) -> None:
    with _open(tmp_path, "max_text_chars = 1000\n") as mem:
        mem.retain("x" * 500 + " Alice lives in Lisbon.", bank="b", agent="a")
        (tmp_path / "mneme.toml").write_text("max_text_chars = 100\n")
        report = mem.reload()
        assert report.ok
        assert report.applied == ("max_text_chars",)
        with pytest.raises(InvalidInput, match="100"):
            mem.retain("x" * 500 + " Bob lives in Porto.", bank="b", agent="a")
        assert mem.admin.stats().sources == 1


def test_a_recall_in_flight_finishes_on_the_knobs_it_started_with(tmp_path: Path) -> None:
    gated = GatedEmbedder()
    with _open(tmp_path, "[recall]\nrrf_k = 20\n", gated) as mem:
        for fact in FACTS:
            mem.retain(fact, bank="b", agent="a")
        before = [
            (h.unit.id, h.score) for h in mem.recall("Where does Alice live?", bank="b", agent="a")
        ]
        got: list[list[tuple[str, float]]] = []
        gated.hold.set()
        worker = threading.Thread(
            target=lambda: got.append(
                [
                    (h.unit.id, h.score)
                    for h in mem.recall("Where does Alice live?", bank="b", agent="a")
                ]
            )
        )
        worker.start()
        assert gated.held.wait(30)
        report = mem.reconfigure(mem.config.replace(recall=RecallConfig(rrf_k=500.0)))
        assert report.applied == ("recall.rrf_k",)
        gated.hold.clear()
        gated.release.set()
        worker.join(30)
        after = [
            (h.unit.id, h.score) for h in mem.recall("Where does Alice live?", bank="b", agent="a")
        ]
    assert got == [before]
    assert after != before  # the new knob shows in the scores of the next request
    assert mem.config.recall.rrf_k == 500.0


def test_an_llm_tier_that_cannot_be_built_changes_nothing(tmp_path: Path) -> None:
    with _open(tmp_path, "[recall]\nrrf_k = 20\n") as mem:
        tier = {"provider": "openai", "model": "m", "api_key_env": "MNEME_TEST_NO_SUCH_KEY"}
        report = mem.reconfigure(mem.config.replace(llm=(tier,), recall=RecallConfig(rrf_k=99.0)))
        assert not report.ok
        assert "MNEME_TEST_NO_SUCH_KEY" in (report.error or "")
        assert mem.config.recall.rrf_k == 20.0
        assert mem.config.llm == ()
        assert mem.llm is None
        assert mem.reload_status()["last"]["ok"] is False


def test_an_invalid_file_keeps_the_config_in_force_and_names_the_setting(tmp_path: Path) -> None:
    with _open(tmp_path, "[recall]\nrrf_k = 20\n") as mem:
        (tmp_path / "mneme.toml").write_text('[recall]\nrrf_k = "abc"\n')
        report = mem.reload()
        assert not report.ok
        assert "recall.rrf_k must be a number, got 'abc'" in (report.error or "")
        assert mem.config.recall.rrf_k == 20.0
        mem.retain("Alice moved to Lisbon.", bank="b", agent="a")  # still writes
        assert mem.recall("Lisbon", bank="b", agent="a")


def test_settings_read_at_start_are_reported_as_needing_a_restart(tmp_path: Path) -> None:
    with _open(tmp_path, "") as mem:
        report = mem.reconfigure(mem.config.replace(pg_vector_index="exact", max_atoms=3))
        assert report.applied == ("max_atoms",)
        assert report.needs_restart == ("pg_vector_index",)
        assert mem.config.pg_vector_index == "hnsw"
        assert mem.config.max_atoms == 3
        assert mem.reload_status()["needs_restart"] == ["pg_vector_index"]


def test_a_background_cadence_starts_and_stops_on_reload(tmp_path: Path) -> None:
    with _open(tmp_path, "") as mem:
        assert mem.admin.health()["workers"]["reconsolidate"]["runs"] == 0  # off: never ran
        assert mem.reconfigure(mem.config.replace(reconsolidate_every=0.01)).ok
        deadline = time.monotonic() + 30
        while mem.admin.health()["workers"]["reconsolidate"]["runs"] < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert mem.reconfigure(mem.config.replace(reconsolidate_every=0.0)).ok
        stopped = mem.admin.health()["workers"]["reconsolidate"]["runs"]
        time.sleep(0.2)
        assert mem.admin.health()["workers"]["reconsolidate"]["runs"] == stopped


def test_a_memory_built_from_a_config_object_has_no_layers_to_reload(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "m.db"))
    with mneme.Memory(store, HashingEmbedder(), config.load(env={})) as direct:
        with pytest.raises(InvalidInput, match="reconfigure"):
            direct.reload()
        assert direct.reconfigure(direct.config.replace(max_atoms=5)).ok
