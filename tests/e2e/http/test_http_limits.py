"""Limits before work, on a real uvicorn over loopback: an unknown caller and an oversized body are
refused from the headers, before the body is read or held."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.http import create_app
from mneme.surfaces.http.tokens import TokenStore

TIMEOUT = 20
Served = tuple[int, str, mneme.Memory]
CAP = 64 * 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    mem = mneme.Memory.open(str(tmp_path / "l.db"), embedder=HashingEmbedder())
    tokens = TokenStore(tmp_path / "tokens.json")
    secret, _ = tokens.create(bank="team", agent="scout", role="agent")
    port = free_port()
    config = uvicorn.Config(
        create_app(mem, tokens, max_body_bytes=CAP), host="127.0.0.1", port=port, log_level="error"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-limits", daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        assert thread.is_alive(), "the server died while starting"
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.02)
    try:
        yield port, secret, mem
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        mem.close()
        assert not thread.is_alive(), "the server did not stop"


def exchange(port: int, head: str, body: bytes = b"") -> tuple[int, dict[str, Any], float]:
    """Send a request head (and perhaps a little of its body), read the answer; its status, its
    JSON and how long it took."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(head.encode("latin-1") + b"\r\n" + body)
        data = b""
        while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + _length(data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    elapsed = time.monotonic() - t0
    status = int(data.split(b" ", 2)[1])
    payload = data.split(b"\r\n\r\n", 1)[1]
    return status, json.loads(payload) if payload else {}, elapsed


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def post_head(port: int, path: str, length: int | None, token: str | None) -> str:
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    lines.append(
        f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    )
    return "\r\n".join(lines) + "\r\n"


def test_no_token_is_refused_before_a_300_mb_body_is_sent(served: Served) -> None:
    port, _, _ = served
    head = post_head(port, "/v1/banks/team/memories", 300 * 1024 * 1024, None)
    status, body, elapsed = exchange(port, head, b'{"text": "')
    assert status == 401
    assert body["error"]["code"] == "unauthorized"
    assert elapsed < 5  # answered from the headers: nothing waited for 300 MB


def test_a_declared_body_over_the_cap_is_413_at_once_and_nothing_is_written(
    served: Served,
) -> None:
    port, secret, mem = served
    head = post_head(port, "/v1/banks/team/memories", CAP + 1, secret)
    status, body, elapsed = exchange(port, head, b'{"text": "')
    assert status == 413
    assert body["error"]["code"] == "payload_too_large"
    assert f"{CAP:,} bytes" in body["error"]["message"]
    assert elapsed < 5
    assert mem.list_memories(bank="team") == []


def test_a_chunked_body_over_the_cap_is_413_and_one_under_it_is_served(served: Served) -> None:
    port, secret, mem = served
    big = json.dumps({"text": "x" * (CAP + 10)}).encode()
    chunks = b"".join(
        f"{len(big[i : i + 8192]):x}\r\n".encode() + big[i : i + 8192] + b"\r\n"
        for i in range(0, len(big), 8192)
    )
    status, body, _ = exchange(
        port, post_head(port, "/v1/banks/team/memories", None, secret), chunks + b"0\r\n\r\n"
    )
    assert status == 413
    assert body["error"]["code"] == "payload_too_large"
    small = json.dumps({"text": "Dana owns a red bike."}).encode()
    chunked = f"{len(small):x}\r\n".encode() + small + b"\r\n0\r\n\r\n"
    status, body, _ = exchange(
        port, post_head(port, "/v1/banks/team/memories", None, secret), chunked
    )
    assert status == 200, body
    assert [u.text for u in mem.list_memories(bank="team")] == ["Dana owns a red bike."]


def test_the_open_routes_stay_open(served: Served) -> None:
    port, _, _ = served
    head = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    status, body, _ = exchange(port, head)
    assert status == 200
    assert body == {"status": "ok"}
