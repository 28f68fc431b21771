"""Scripted fake LLM servers: real HTTP servers on 127.0.0.1 that speak each provider's protocol.

Each server pops one ``Reply`` per request from its script and records every request it got,
so tests can assert both what the client did with an answer and what it sent. Builders below
make replies in the OpenAI chat-completions and Anthropic Messages shapes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI_KEY = "sk-test-openai-0123456789"
ANTHROPIC_KEY = "sk-ant-test-0123456789"
SERVED_MODEL = "served-model-v1"


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # a dict or list is sent as JSON; str and bytes as they are
    delay: float = 0.0  # seconds the server waits before answering (to provoke timeouts)


@dataclass
class Request:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]


@dataclass
class FakeServer:
    """A scripted server. ``base_url`` is ``http://127.0.0.1:<port>``, with no API prefix."""

    base_url: str
    script: list[Reply] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    default: Reply | None = None  # answered once the script is empty; None: a loud 599

    def push(self, *replies: Reply) -> None:
        with self.lock:
            self.script.extend(replies)

    def next_reply(self, request: Request) -> Reply:
        with self.lock:
            self.requests.append(request)
            if self.script:
                return self.script.pop(0)
        if self.default is not None:
            return self.default
        return Reply(599, {"error": "the test script is exhausted"})


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"__unparseable__": raw.decode(errors="replace")}
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = server.next_reply(Request(self.path, headers, body))
            if reply.delay:
                # The only wait in these tests: it provokes the client's timeout. The fixture
                # sets ``release`` on teardown so no handler outlives its test.
                server.release.wait(reply.delay)
            if isinstance(reply.body, bytes):
                payload = reply.body
            elif isinstance(reply.body, str):
                payload = reply.body.encode()
            else:
                payload = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout) before the answer came

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve() -> Iterator[FakeServer]:
    """Run one scripted server for the duration of the block."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    fake = FakeServer(base_url=f"http://{host!s}:{port}")
    httpd.RequestHandlerClass = _handler(fake)
    # A short poll interval keeps shutdown() (which waits for one poll) from costing 0.5 s.
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


# OpenAI chat completions ----------------------------------------------------------------


def openai_message(
    content: Any,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    model: str = SERVED_MODEL,
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }
    return Reply(200, body)


def openai_json(data: Any) -> Reply:
    return openai_message(json.dumps(data))


def openai_error(status: int, message: str, *, param: str | None = None) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return Reply(status, {"error": error})


# Anthropic Messages -----------------------------------------------------------------------


def anthropic_message(
    content: list[dict[str, Any]], *, stop_reason: str = "end_turn", model: str = SERVED_MODEL
) -> Reply:
    body = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
    return Reply(200, body)


def anthropic_tool(data: Any) -> Reply:
    block = {"type": "tool_use", "id": "toolu_01", "name": "reply", "input": data}
    return anthropic_message([block], stop_reason="tool_use")


def anthropic_text(text: str, *, stop_reason: str = "end_turn") -> Reply:
    return anthropic_message([{"type": "text", "text": text}], stop_reason=stop_reason)


def anthropic_error(status: int, kind: str, message: str) -> Reply:
    return Reply(status, {"type": "error", "error": {"type": kind, "message": message}})
