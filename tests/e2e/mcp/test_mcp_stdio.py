"""`mneme mcp` as a real process: an MCP client session over its stdin/stdout.

The process boundary is the thing under test: the installed script starts, speaks MCP on
stdout and nothing else (logs and model loading stay on stderr), and exits when the client
hangs up.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from pydantic import AnyUrl

MNEME = str(Path(sys.executable).with_name("mneme"))
TIMEOUT = 60


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
    out.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return out


def argv(db: Path, embedder: str | None, *who: str) -> list[str]:
    return ["--db", str(db), *(["--embedder", embedder] if embedder else []), "mcp", *who]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_client_session_over_stdio_lists_adds_searches_and_refuses_a_wrong_type(
    tmp_path: Path, anyio_backend: str
) -> None:
    who = ("--bank", "*", "--agent", "agent-1", "--role", "admin")
    params = StdioServerParameters(
        command=MNEME, args=argv(tmp_path / "s.db", "hashing", *who), env=env()
    )
    with (tmp_path / "stderr.log").open("w") as errlog, anyio.fail_after(TIMEOUT):
        async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            ab = {"bank": "team"}
            typo = await s.call_tool("add_memory", {"text": "Quentin keeps a badge.", **ab})
            added = await s.call_tool(
                "add_memory",
                {
                    "text": "Quentin keeps the spare badge in drawer D-41.",
                    **ab,
                    "create_bank": True,
                },
            )
            found = await s.call_tool("search_memory", {"query": "Where is the spare badge?", **ab})
            bad = await s.call_tool("search_memory", {"query": 12345, **ab})
            status = await s.read_resource(AnyUrl("memory://status"))
        full = StdioServerParameters(
            command=MNEME,
            args=[*argv(tmp_path / "s.db", "hashing", *who), "--tools", "full"],
            env=env(),
        )
        async with stdio_client(full, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            every = {t.name for t in (await s.list_tools()).tools}
    # The default profile is the core set; --tools full lists every tool.
    assert {"add_memory", "search_memory", "get_context", "get_source", "list_banks"} <= tools
    assert len(tools) <= 12 < 30 <= len(every)
    assert "think_commit" in every - tools
    assert json.loads(typo.content[0].text)["error"]["code"] == "not_found"  # type: ignore[union-attr]
    assert not added.isError
    assert not found.isError
    assert "D-41" in found.content[0].text  # type: ignore[union-attr]
    assert bad.isError
    error = json.loads(bad.content[0].text)["error"]  # type: ignore[union-attr]
    assert error["code"] == "invalid_input"
    assert "query" in error["message"]
    assert json.loads(status.contents[0].text)["stats"]["units"] == 1  # type: ignore[union-attr]
    assert "Traceback" not in (tmp_path / "stderr.log").read_text()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_stdio_runs_as_its_configured_agent_and_role_and_refuses_any_other(
    tmp_path: Path, anyio_backend: str
) -> None:
    db = tmp_path / "who.db"
    mcp_env = {
        **env(),
        "MNEME_MCP_BANK": "home",
        "MNEME_MCP_AGENT": "claude",
        "MNEME_MCP_TOOLS": "full",
    }
    params = StdioServerParameters(command=MNEME, args=argv(db, "hashing"), env=mcp_env)
    with (tmp_path / "stderr.log").open("w") as errlog, anyio.fail_after(TIMEOUT):
        async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            added = await s.call_tool("add_memory", {"text": "Ada likes chess on Sundays."})
            other_bank = await s.call_tool("list_memories", {"bank": "work"})
            posing = await s.call_tool("add_memory", {"text": "x y.", "agent": "someone-else"})
            queue = await s.call_tool("review_queue", {})
        reviewer = StdioServerParameters(
            command=MNEME, args=argv(db, "hashing", "--role", "reviewer"), env=mcp_env
        )
        async with stdio_client(reviewer, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            items = await s.call_tool("review_queue", {})
            claim = json.loads(items.content[0].text)[0]["id"]  # type: ignore[union-attr]
            decided = await s.call_tool(
                "review_decide", {"target_id": claim, "decision": "approve", "actor": "the-ceo"}
            )
    assert not added.isError
    unit = json.loads(added.content[0].text)  # type: ignore[union-attr]
    for refused in (other_bank, posing, queue, decided):
        assert refused.isError
        assert json.loads(refused.content[0].text)["error"]["code"] == "forbidden"  # type: ignore[union-attr]
    import mneme
    from mneme.embed.hashing import HashingEmbedder

    with mneme.Memory.open(str(db), embedder=HashingEmbedder()) as mem:
        assert mem.get(unit["memory_ids"][0], bank="home").agent_id == "claude"
        assert mem._store.trust.review_events("home", claim) == []


def test_stdio_refuses_a_principal_no_token_could_stand_for(tmp_path: Path) -> None:
    done = subprocess.run(
        [MNEME, *argv(tmp_path / "x.db", "hashing", "--bank", "*", "--role", "agent")],
        capture_output=True,
        text=True,
        env=env(),
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert "only an admin" in done.stderr


class RawServer:
    """The server process driven line by line, to see every byte it puts on stdout."""

    def __init__(self, db: Path, embedder: str | None, command: list[str] | None = None) -> None:
        self.proc = subprocess.Popen(
            command or [MNEME, *argv(db, embedder, "--bank", "team", "--agent", "agent-1")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env(),
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self._next = 0

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(self.proc.stderr)

    def send(self, method: str, params: dict[str, Any], *, notify: bool = False) -> Any:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self._next += 1
            msg["id"] = self._next
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        if notify:
            return None
        while True:
            line = self.lines.get(timeout=TIMEOUT)  # bounded: a hung server fails the test
            self.stdout.append(line)
            reply = json.loads(line)  # anything but JSON-RPC on stdout fails here
            if reply.get("id") == self._next:
                return reply

    def close(self) -> str:
        """Hang up (close stdin) and wait for the process to exit; its stderr."""
        assert self.proc.stdin
        assert self.proc.stdout
        assert self.proc.stderr
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=TIMEOUT)
            for reader in self._readers:
                reader.join(TIMEOUT)
            self.proc.stdout.close()
            self.proc.stderr.close()
        while not self.lines.empty():
            self.stdout.append(self.lines.get())
        return "".join(self.stderr)


def converse(server: RawServer) -> list[Any]:
    init = server.send(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"},
        },
    )
    server.send("notifications/initialized", {}, notify=True)
    ab = {"bank": "team"}
    add = server.send(
        "tools/call",
        {"name": "add_memory", "arguments": {"text": "Rosa keeps the van keys in box 9.", **ab}},
    )
    search = server.send(
        "tools/call",
        {"name": "search_memory", "arguments": {"query": "Where are the van keys?", **ab}},
    )
    return [init, add, search]


def check_conversation(server: RawServer, replies: list[Any]) -> None:
    err = server.close()
    init, add, search = replies
    assert init["result"]["serverInfo"]["name"] == "mneme"
    assert add["result"]["isError"] is False
    assert "box 9" in search["result"]["content"][0]["text"]
    for line in server.stdout:  # every line on stdout is a JSON-RPC message
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert server.proc.returncode == 0, err
    assert "Traceback" not in err


def test_stdout_carries_only_the_protocol_and_the_server_exits_when_stdin_closes(
    tmp_path: Path,
) -> None:
    server = RawServer(tmp_path / "raw.db", "hashing")
    replies = converse(server)
    check_conversation(server, replies)


@pytest.mark.slow
def test_the_default_embedder_loads_inside_a_session_without_touching_stdout(
    tmp_path: Path,
) -> None:
    db = tmp_path / "minilm.db"
    who = ("--bank", "team", "--agent", "agent-1", "--log-level", "info")
    server = RawServer(db, None, [MNEME, *argv(db, None, *who)])
    replies = converse(server)
    check_conversation(server, replies)
    # Loaded in the background from the start, not on the first call; said on stderr.
    assert "embedder ready (" in "".join(server.stderr)


#: A server whose embedder writes to stdout as a careless library would: with ``print`` and
#: straight to file descriptor 1, on every call and from a thread of its own while it "loads".
NOISY_SERVER = """
import os, sys, threading
from mneme import Memory
from mneme.embed import HashingEmbedder
from mneme.surfaces.authority import Principal
from mneme.surfaces.mcp.server import run_stdio

class Noisy(HashingEmbedder):
    def embed(self, texts):
        print("noise from print")
        os.write(1, b"noise from fd 1\\n")
        return super().embed(texts)

    def warm(self):
        os.write(1, b"noise while loading\\n")

memory = Memory.open(sys.argv[1], embedder=Noisy())
run_stdio(memory, Principal("stdio", "team", "agent-1", "agent", "test"))
memory.close()
"""


def test_nothing_but_the_protocol_reaches_stdout_even_written_to_its_file_descriptor(
    tmp_path: Path,
) -> None:
    command = [sys.executable, "-c", NOISY_SERVER, str(tmp_path / "noisy.db")]
    server = RawServer(tmp_path / "noisy.db", None, command)
    replies = converse(server)
    check_conversation(server, replies)
    err = "".join(server.stderr)
    assert "noise from print" in err  # what was written lands in the log, not nowhere
    assert "noise from fd 1" in err
    assert "noise while loading" in err


def hang_up_after(db: Path, name: str, arguments: dict[str, Any]) -> tuple[Any, int, str]:
    """initialize, one ``tools/call``, and stdin closed the moment its reply is read: the
    reply, the exit code and the stderr of the default-embedder server."""
    who = ("--bank", "team", "--agent", "agent-1", "--log-level", "info")
    server = RawServer(db, None, [MNEME, *argv(db, None, *who)])
    server.send(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hang-up-test", "version": "0"},
        },
    )
    server.send("notifications/initialized", {}, notify=True)
    reply = server.send("tools/call", {"name": name, "arguments": arguments})
    err = server.close()
    return reply, server.proc.returncode, err


@pytest.mark.slow
def test_the_server_exits_cleanly_when_the_client_hangs_up_right_after_a_recall(
    tmp_path: Path, minilm: Any
) -> None:
    # The recall embeds its query while the background warm-up still compiles the embedder's
    # OpenVINO graphs, and the client is gone at once: the interpreter used to end under the
    # warm-up's native call ("terminate called without an active exception", SIGABRT, -6).
    import mneme

    db = tmp_path / "hangup.db"
    with mneme.Memory.open(str(db), embedder=minilm) as mem:
        mem.retain("Rosa keeps the van keys in box 9.", bank="team", agent="agent-1")
    found, code, err = hang_up_after(db, "search_memory", {"query": "Where are the van keys?"})
    assert "box 9" in found["result"]["content"][0]["text"]
    assert "terminate called" not in err
    assert code == 0, err
    assert "Traceback" not in err
