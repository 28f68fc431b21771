"""``mneme serve`` as a real process, and the ``token`` and ``setup`` commands.

The serve tests cross the process boundary on purpose (a free 127.0.0.1 port, the first-run
token, MCP over streamable HTTP with a real client session); token and setup run in process.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from mneme.surfaces.cli.main import cli

pytestmark = pytest.mark.slow

MNEME = str(Path(sys.executable).parent / "mneme")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MNEME, *args], capture_output=True, text=True, timeout=timeout, env=ENV, check=False
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``mneme serve`` in a subprocess; its stderr lines are collected as they come."""

    def __init__(self, db: Path, *extra: str, embedder: str = "hashing") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                MNEME,
                "--embedder",
                embedder,
                "--db",
                str(db),
                "serve",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.seen):
            left = deadline - time.monotonic()
            if left <= 0 or (self.proc.poll() is not None and self.lines.empty()):
                raise AssertionError(f"{text!r} never came on stderr: {''.join(self.seen)}")
            try:
                self.seen.append(self.lines.get(timeout=min(left, 1)))
            except queue.Empty:
                pass

    def ready(self, timeout: float = 60) -> None:
        """Wait until the port answers."""
        self.wait_for("  tokens  ", timeout)  # the last line of the URL block
        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(self.base + "/healthz", timeout=2)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.pump.join(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    @property
    def stderr(self) -> str:
        return "".join(self.seen)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "served.db")
    try:
        srv.ready()
        yield srv
    finally:
        srv.stop()


def first_run_token(stderr: str) -> str:
    secrets = [w for w in stderr.split() if w.startswith("mn_")]
    assert secrets, stderr
    return secrets[0]


def test_serve_first_run_prints_the_urls_and_one_admin_token(
    server: Server, tmp_path: Path
) -> None:
    out = server.stderr
    assert f"{server.base}/" in out
    assert f"{server.base}/docs" in out
    assert f"{server.base}/mcp" in out
    secret = first_run_token(out)
    tokens_file = tmp_path / "served.tokens.json"
    assert secret not in tokens_file.read_text()
    me = httpx.get(f"{server.base}/v1/whoami", headers={"Authorization": f"Bearer {secret}"})
    assert me.json()["role"] == "admin"
    assert me.json()["bank"] == "*"


def test_serve_loads_the_default_embedder_while_it_starts_answering(tmp_path: Path) -> None:
    srv = Server(tmp_path / "warm.db", embedder="minilm")
    try:
        srv.ready()  # the port answers before the model is loaded
        srv.wait_for("  embedder     ready (", timeout=120)
        assert "not loaded ahead" not in srv.stderr
    finally:
        srv.stop()


def test_served_api_page_and_guard(server: Server) -> None:
    doc = httpx.get(f"{server.base}/openapi.json").json()
    assert "/v1/banks/{bank}/memories" in doc["paths"]
    assert httpx.get(f"{server.base}/v1/memories").status_code == 401
    page = httpx.get(f"{server.base}/")
    assert page.status_code == 200
    assert "review" in page.text.lower()


def test_a_second_start_keeps_the_tokens_and_prints_no_new_secret(tmp_path: Path) -> None:
    first = Server(tmp_path / "again.db")
    try:
        first.ready()
        secret = first_run_token(first.stderr)
    finally:
        first.stop()
    second = Server(tmp_path / "again.db")
    try:
        second.ready()
        assert "mn_" not in second.stderr
        me = httpx.get(f"{second.base}/v1/whoami", headers={"Authorization": f"Bearer {secret}"})
        assert me.status_code == 200
    finally:
        second.stop()


def _mcp_session(url: str, token: str | None, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """One MCP session over streamable HTTP: the tool names and each call's result."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def session() -> tuple[set[str], list[Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            return tools, [await s.call_tool(name, args) for name, args in calls]

    return asyncio.run(asyncio.wait_for(session(), 60))


def test_mcp_over_streamable_http_at_slash_mcp_acts_as_the_token(
    server: Server, tmp_path: Path
) -> None:
    assert "/mcp  (bearer token required)" in server.stderr
    assert httpx.post(f"{server.base}/mcp", json={}).status_code == 401
    made = run(
        "--db", str(tmp_path / "served.db"), "token", "create", "--bank", "hq", "--agent", "desk"
    )
    desk = made.stdout.strip()
    tools, (added, elsewhere, block) = _mcp_session(
        f"{server.base}/mcp",
        desk,
        [
            ("add_memory", {"text": "Quentin keeps the spare badge in drawer D-41."}),
            ("search_memory", {"query": "badge", "bank": "other"}),
            ("get_context", {"query": "Where is the spare badge?"}),
        ],
    )
    assert {"add_memory", "search_memory", "get_context"} <= tools
    assert "review_queue" not in tools  # the default profile is core (--mcp-tools full)
    assert not added.isError, added
    assert elsewhere.isError
    assert '"forbidden"' in elsewhere.content[0].text  # another bank than the token's
    assert "D-41" in block.content[0].text  # a context block over streamable HTTP
    # The same store answers over the HTTP API, with the token's agent as the author.
    secret = first_run_token(server.stderr)
    hits = httpx.post(
        f"{server.base}/v1/banks/hq/recall",
        json={"query": "spare badge", "scope": "collective", "detail": "full"},
        headers={"Authorization": f"Bearer {secret}"},
    ).json()["hits"]
    assert "D-41" in hits[0]["text"]
    assert hits[0]["unit"]["agent_id"] == "desk"


def test_serve_no_auth_warns_and_serves_mcp_without_a_token(tmp_path: Path) -> None:
    srv = Server(tmp_path / "open.db", "--no-auth")
    try:
        srv.ready()
        _, (added,) = _mcp_session(
            f"{srv.base}/mcp",
            None,
            [("add_memory", {"text": "Ada likes chess.", "bank": "lab", "create_bank": True})],
        )
        api = httpx.get(f"{srv.base}/v1/memories?bank=lab")
    finally:
        srv.stop()
    assert "warning: --no-auth" in srv.stderr
    assert "(NO TOKEN: --no-auth)" in srv.stderr
    assert not added.isError, added
    assert api.status_code == 401  # the API itself still needs a token


def test_serve_reflects_in_the_background_at_the_interval_given(tmp_path: Path) -> None:
    srv = Server(tmp_path / "reflected.db", "--reflect-every", "0.2")
    try:
        srv.ready()
        srv.wait_for("reflect      every 0.2 s")
        auth = {"Authorization": f"Bearer {first_run_token(srv.stderr)}"}
        assert httpx.post(f"{srv.base}/v1/banks", json={"id": "people"}, headers=auth).is_success
        for what in ("hiking", "painting", "chess"):
            said = httpx.post(
                f"{srv.base}/v1/banks/people/memories",
                json={"text": f"Oliver likes {what}."},
                headers=auth,
            )
            assert said.is_success, said.text

        def observed() -> list[dict[str, Any]]:
            listed = httpx.get(
                f"{srv.base}/v1/banks/people/memories", params={"limit": 100}, headers=auth
            )
            return [u for u in listed.json()["memories"] if u["network"] == "observation"]

        deadline = time.monotonic() + 30
        while not observed() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert observed(), srv.stderr
    finally:
        srv.stop()
    off = run("--embedder", "hashing", "--db", str(tmp_path / "x.db"), "serve",
              "--reflect-every", "-1", "--get", "/healthz")  # fmt: skip
    assert off.returncode == 2
    assert "--reflect-every" in off.stderr


def test_serve_reconsolidates_in_the_background_unless_told_not_to(tmp_path: Path) -> None:
    srv = Server(tmp_path / "swept.db", "--reconsolidate-every", "0.5")
    try:
        srv.ready()
        srv.wait_for("reconsolidate every 0.5 s")
    finally:
        srv.stop()
    off = Server(tmp_path / "still.db", "--reconsolidate-every", "0")
    try:
        off.ready()
        off.wait_for("reconsolidate off")
    finally:
        off.stop()
    bad = run("--embedder", "hashing", "--db", str(tmp_path / "x.db"), "serve",
              "--reconsolidate-every", "-1", "--get", "/healthz")  # fmt: skip
    assert bad.returncode == 2
    assert "--reconsolidate-every" in bad.stderr


def test_serve_get_answers_one_request_without_a_port(tmp_path: Path) -> None:
    db = str(tmp_path / "once.db")
    ok = run("--embedder", "hashing", "--db", db, "serve", "--get", "/healthz")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"status": "ok"}
    refused = run("--embedder", "hashing", "--db", db, "serve", "--get", "/v1/memories")
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["code"] == "unauthorized"
    assert not (tmp_path / "once.tokens.json").exists()  # --get writes no tokens file
    made = run("--db", db, "token", "create", "--bank", "b", "--agent", "a", "--role", "agent")
    secret = made.stdout.strip()
    me = run("--embedder", "hashing", "--db", db, "serve", "--get", "/v1/whoami", "--token", secret)
    assert me.returncode == 0, me.stdout
    assert json.loads(me.stdout)["agent"] == "a"


# -- token ----------------------------------------------------------------------------------


def test_token_create_list_revoke(tmp_path: Path) -> None:
    runner = CliRunner()
    file = str(tmp_path / "t.json")
    made = runner.invoke(
        cli,
        [
            "token",
            "create",
            "--bank",
            "b",
            "--agent",
            "a",
            "--role",
            "reviewer",
            "--tokens",
            file,
            "--json",
        ],
    )
    assert made.exit_code == 0, made.output
    body = json.loads(made.stdout)
    assert body["token"].startswith("mn_")
    assert body["token"] not in Path(file).read_text()
    listed = runner.invoke(cli, ["token", "list", "--tokens", file, "--json"])
    (row,) = json.loads(listed.stdout)["tokens"]
    assert (row["bank"], row["agent"], row["role"]) == ("b", "a", "reviewer")
    assert "digest" not in row
    gone = runner.invoke(cli, ["token", "revoke", row["id"], "--tokens", file])
    assert gone.exit_code == 0
    assert (
        json.loads(runner.invoke(cli, ["token", "list", "--tokens", file, "--json"]).stdout)[
            "tokens"
        ]
        == []
    )
    assert runner.invoke(cli, ["token", "revoke", row["id"], "--tokens", file]).exit_code == 3


@pytest.mark.parametrize(
    "args",
    [
        ["--bank", "*", "--agent", "a", "--role", "agent"],
        ["--bank", "bad bank", "--agent", "a"],
        ["--bank", "b", "--agent", "a", "--role", "owner"],
    ],
)
def test_token_create_refuses_bad_arguments(tmp_path: Path, args: list[str]) -> None:
    file = tmp_path / "t.json"
    result = CliRunner().invoke(cli, ["token", "create", *args, "--tokens", str(file)])
    assert result.exit_code == 2
    assert not file.exists()


# -- setup ----------------------------------------------------------------------------------


def test_setup_prints_the_config_for_every_client(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    result = CliRunner(env={"HOME": str(tmp_path)}).invoke(cli, ["--db", db, "setup", "--json"])
    assert result.exit_code == 0, result.output
    clients = json.loads(result.stdout)["clients"]
    assert set(clients) == {"claude-desktop", "claude-code", "cursor"}
    entry = clients["cursor"]["config"]["mcpServers"]["mneme"]
    assert entry["args"] == ["--db", db, "mcp"]
    assert Path(entry["command"]).name == "mneme"
    assert clients["cursor"]["path"] == str(tmp_path / ".cursor" / "mcp.json")
    assert not (tmp_path / ".cursor").exists()  # printing writes nothing


def test_setup_starts_mcp_as_the_given_bank_agent_and_role(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    runner = CliRunner(env={"HOME": str(tmp_path)})
    who = ["--bank", "team", "--agent", "claude", "--role", "reviewer"]
    result = runner.invoke(cli, ["--db", db, "setup", "--client", "cursor", *who, "--json"])
    assert result.exit_code == 0, result.output
    entry = json.loads(result.stdout)["clients"]["cursor"]["config"]["mcpServers"]["mneme"]
    assert entry["args"] == ["--db", db, "mcp", *who]
    refused = runner.invoke(cli, ["--db", db, "setup", "--bank", "*", "--agent", "x"])
    assert refused.exit_code == 2
    assert "only an admin" in refused.output


def test_setup_write_merges_into_the_clients_config(tmp_path: Path) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "keep": 1}))
    runner = CliRunner(env={"HOME": str(tmp_path)})
    db = str(tmp_path / "m.db")
    result = runner.invoke(cli, ["--db", db, "setup", "--client", "cursor", "--write"])
    assert result.exit_code == 0, result.output
    data = json.loads(config.read_text())
    assert data["keep"] == 1
    assert data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["mneme"]["args"] == ["--db", db, "mcp"]
    code = runner.invoke(cli, ["--db", db, "setup", "--client", "claude-code", "--write"])
    assert code.exit_code == 0
    assert json.loads((tmp_path / ".claude.json").read_text())["mcpServers"]["mneme"]["type"] == (
        "stdio"
    )


def test_setup_write_never_clobbers_a_broken_config(tmp_path: Path) -> None:
    config = tmp_path / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text("{not json")
    runner = CliRunner(env={"HOME": str(tmp_path)})
    result = runner.invoke(cli, ["setup", "--client", "cursor", "--write"])
    assert result.exit_code == 2
    assert config.read_text() == "{not json"
    assert runner.invoke(cli, ["setup", "--write"]).exit_code == 2
