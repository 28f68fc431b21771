"""A damaged API tokens file (issue 16, Low: "a damaged tokens file discloses its path").

On a real uvicorn over loopback: whatever is wrong with the file (not JSON, not UTF-8, nested
past recursion, a field of the wrong type, a directory in its place), a request answers 503
with a message that names no file, never a 500 or a traceback; the server log names the file
for its operator, once; the CLI, on the operator's machine, names it too; and once the file is
repaired, the same token works again (nothing was lost from the store).
"""

from __future__ import annotations

import json
import logging
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from click.testing import CliRunner

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.surfaces.cli.main import cli
from mneme.surfaces.http import create_app
from mneme.surfaces.http.tokens import TokenStore

TIMEOUT = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    def __init__(self, port: int, secret: str, tokens: Path) -> None:
        self.port, self.secret, self.tokens = port, secret, tokens
        self.good = tokens.read_bytes()

    def get(self, path: str) -> httpx.Response:
        return httpx.get(
            f"http://127.0.0.1:{self.port}{path}",
            headers={"Authorization": f"Bearer {self.secret}"},
            timeout=TIMEOUT,
        )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    where = tmp_path / "secret-place"
    where.mkdir()
    mem = mneme.Memory.open(str(where / "t.db"), embedder=HashingEmbedder())
    mem.retain("Hana runs marathons in Oslo.", bank="team", agent="scout")
    tokens = TokenStore(where / "api.tokens.json")
    secret, _ = tokens.create(bank="team", agent="scout", role="agent")
    port = free_port()
    config = uvicorn.Config(create_app(mem, tokens), host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-tokens", daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        assert thread.is_alive(), "the server died while starting"
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.02)
    try:
        yield Served(port, secret, tokens.path)
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        mem.close()
        assert not thread.is_alive(), "the server did not stop"


def _replace_with_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGE: dict[str, Callable[[Path], Any]] = {
    "not-json": lambda p: p.write_text('{"tokens": [{"id": '),
    "not-utf8": lambda p: p.write_bytes(b'{"tokens": ["\xff\xfe"]}'),
    "nested-past-recursion": lambda p: p.write_text('{"tokens": ' + "[" * 100_000),
    "a-field-of-the-wrong-type": lambda p: p.write_text(
        json.dumps({"tokens": [{**json.loads(p.read_text())["tokens"][0], "digest": 7}]})
    ),
    "a-directory-in-its-place": _replace_with_directory,
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_tokens_file_answers_503_naming_no_file_and_logs_it_for_the_operator(
    served: Served, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert served.get("/v1/banks/team/memories").status_code == 200
    DAMAGE[damage](served.tokens)

    with caplog.at_level(logging.ERROR, logger="mneme.http.tokens"):
        answers = [served.get("/v1/banks/team/memories") for _ in range(3)]
    for r in answers:
        assert r.status_code == 503, r.text
        error = r.json()["error"]
        assert error["code"] == "backend_unavailable"
        assert "tokens file" in error["message"]
        for secret_part in (str(served.tokens), served.tokens.name, "secret-place", "/tmp"):
            assert secret_part not in r.text
    logged = [rec.getMessage() for rec in caplog.records if rec.name == "mneme.http.tokens"]
    assert len(logged) == 1  # once, not once a request
    assert str(served.tokens) in logged[0]

    # Repaired, the same token works again, and what the store held is all there.
    if served.tokens.is_dir():
        shutil.rmtree(served.tokens)
    served.tokens.write_bytes(served.good)
    again = served.get("/v1/banks/team/memories")
    assert again.status_code == 200, again.text
    assert [m["text"] for m in again.json()["memories"]] == ["Hana runs marathons in Oslo."]


def test_the_cli_names_the_damaged_tokens_file_for_its_operator(tmp_path: Path) -> None:
    tokens = tmp_path / "ops.tokens.json"
    tokens.write_text("{not json")
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_TOKENS": None})
    result = runner.invoke(cli, ["token", "list", "--tokens", str(tokens)], catch_exceptions=False)
    assert result.exit_code == 5
    assert result.stderr.startswith(f"error: the tokens file {tokens} is unreadable: ")
    assert "Traceback" not in result.output
