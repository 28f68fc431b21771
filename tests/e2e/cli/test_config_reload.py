"""A running ``mneme serve`` reloads its configuration on SIGHUP and ``mneme config apply``.

Real processes on purpose: the signal, the server file and the swap under load are the
process boundary (ADR 0057). The server reads its config file from ``MNEME_CONFIG``.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow

MNEME = str(Path(sys.executable).parent / "mneme")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Served:
    """``mneme serve`` on a fresh store, with its config file at ``MNEME_CONFIG``."""

    def __init__(self, tmp: Path, config_text: str) -> None:
        self.config = tmp / "mneme.toml"
        self.config.write_text(config_text)
        self.db = tmp / "served.db"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # Only the file's layer: a MNEME_ variable of this process (the PostgreSQL contract
        # fixture sets MNEME_PG_VECTOR_INDEX for its session) would outrank the file.
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
        self.env = {
            **inherited,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "MNEME_CONFIG": str(self.config),
            "XDG_CONFIG_HOME": str(tmp / "xdg"),
        }
        self.proc = subprocess.Popen(
            [
                *(MNEME, "--embedder", "hashing", "--db", str(self.db), "serve"),
                *("--port", str(self.port), "--log-level", "warning", "--no-mcp"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.wait_for("  reload  ")
        secrets = [w for w in self.text.split() if w.startswith("mn_")]
        assert secrets, self.text
        self.headers = {"Authorization": f"Bearer {secrets[0]}"}
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.base + "/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, self.text
                assert self.proc.poll() is None, self.text
                time.sleep(0.1)

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)

    @property
    def text(self) -> str:
        return "".join(self.seen)

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if text in line:
                    return line
            left = deadline - time.monotonic()
            if left <= 0 or (self.proc.poll() is not None and self.lines.empty()):
                raise AssertionError(f"{text!r} never came on stderr: {self.text}")
            try:
                self.seen.append(self.lines.get(timeout=min(left, 1)))
            except queue.Empty:
                pass

    def settings(self) -> dict[str, Any]:
        got = httpx.get(self.base + "/v1/admin/config", headers=self.headers, timeout=10)
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        return body

    def hup(self) -> None:
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    srv = Served(tmp_path, "# tuned by hand\n[recall]\nrrf_k = 20\n")
    try:
        yield srv
    finally:
        srv.stop()


def wait_generation(srv: Served, generation: int) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        reload: dict[str, Any] = srv.settings()["reload"]
        if reload["generation"] >= generation:
            return reload
        assert time.monotonic() < deadline, reload
        time.sleep(0.05)


def test_sighup_puts_a_changed_recall_knob_in_force(served: Served) -> None:
    assert served.settings()["settings"]["recall.rrf_k"] == 20.0
    served.config.write_text("# tuned by hand\n[recall]\nrrf_k = 45\n")
    served.hup()
    reload = wait_generation(served, 1)
    assert reload["last"]["ok"] is True
    assert reload["last"]["applied"] == ["recall.rrf_k"]
    assert served.settings()["settings"]["recall.rrf_k"] == 45.0
    assert "config reloaded (#1): recall.rrf_k" in served.wait_for("config reloaded")


def test_sighup_with_a_wrong_type_keeps_the_config_in_force_and_names_the_field(
    served: Served,
) -> None:
    served.config.write_text('[recall]\nrrf_k = "abc"\n')
    served.hup()
    reload = wait_generation(served, 1)
    error = reload["last"]["error"]
    assert reload["last"]["ok"] is False
    assert "recall.rrf_k must be a number, got 'abc'" in error
    assert str(served.config) in error
    assert served.settings()["settings"]["recall.rrf_k"] == 20.0
    line = served.wait_for("config not reloaded")
    assert "the last good one stays" in line
    assert "recall.rrf_k" in line
    # the store still answers and writes
    wrote = httpx.post(
        served.base + "/v1/banks/default/memories",
        json={"text": "Alice moved to Lisbon.", "create_bank": True},
        headers=served.headers,
        timeout=30,
    )
    assert wrote.status_code == 200, wrote.text


def test_a_setting_read_at_start_needs_a_restart_and_is_not_applied(served: Served) -> None:
    served.config.write_text('pg_vector_index = "exact"\n[recall]\nrrf_k = 30\n')
    served.hup()
    reload = wait_generation(served, 1)
    assert reload["last"]["applied"] == ["recall.rrf_k"]
    assert reload["needs_restart"] == ["pg_vector_index"]
    assert served.settings()["settings"]["pg_vector_index"] == "hnsw"
    assert "needs a restart: pg_vector_index" in served.wait_for("config reloaded")


def test_sighup_during_a_stream_of_writes_loses_none(served: Served) -> None:
    n, errors, done = 60, [], threading.Event()

    def write() -> None:
        with httpx.Client(base_url=served.base, headers=served.headers, timeout=60) as client:
            for i in range(n):
                got = client.post(
                    "/v1/banks/default/memories",
                    json={"text": f"Note {i}: the parcel {i} left depot {i}.", "create_bank": True},
                )
                if got.status_code != 200:
                    errors.append(got.text)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    signals = 0
    while not done.is_set():
        served.config.write_text(f"[recall]\nrrf_k = {21 + signals}\nmax_atoms = {100 + signals}\n")
        served.hup()
        signals += 1
        done.wait(0.05)
    writer.join(timeout=120)
    assert not errors, errors[:3]
    assert signals >= 3
    stats = httpx.get(served.base + "/v1/stats", headers=served.headers, timeout=30).json()
    assert stats["sources"] == n, stats
    assert served.proc.poll() is None


def test_config_apply_signals_the_server_and_prints_its_answer(served: Served) -> None:
    def apply() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [MNEME, "--db", str(served.db), "config", "apply", "--json", "--wait", "30"],
            capture_output=True,
            text=True,
            timeout=60,
            env=served.env,
            check=False,
        )

    served.config.write_text("# tuned by hand\n[recall]\nrrf_k = 12\n")
    done = apply()
    assert done.returncode == 0, done.stderr
    assert '"applied": [\n' in done.stdout or '"applied": ["recall.rrf_k"]' in done.stdout
    assert served.settings()["settings"]["recall.rrf_k"] == 12.0
    # an invalid file is refused before any signal: the server's count does not move
    served.config.write_text("[recall]\nrrf_k = [1]\n")
    refused = apply()
    assert refused.returncode == 2, refused.stdout
    assert "recall.rrf_k must be a number, got [1]" in refused.stdout
    assert served.settings()["reload"]["generation"] == 1
