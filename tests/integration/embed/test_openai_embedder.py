"""OpenAIEmbedder against a real HTTP server on 127.0.0.1 that replies from a script."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from mneme.embed import OpenAIEmbedder
from mneme.errors import BackendUnavailable, InvalidInput

API_KEY = "sk-test-0123456789abcdef"


def raw_vector(text: str, dim: int) -> list[float]:
    """A deterministic, deliberately unnormalized vector for ``text``."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i % len(digest)]) - 100.0 for i in range(dim)]


def unit(vector: list[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None  # None: a correct embeddings response
    dim: int = 8
    shuffle: bool = False
    delay: float = 0.0  # seconds the server waits before answering


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeEndpoint:
    """The scripted server: pops one Reply per request; ``default`` once the script is empty."""

    base_url: str
    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    requests: list[Request] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, request: Request) -> Reply:
        with self.lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else self.default


def embeddings_body(texts: list[str], reply: Reply) -> bytes:
    data = [
        {"object": "embedding", "index": i, "embedding": raw_vector(text, reply.dim)}
        for i, text in enumerate(texts)
    ]
    if reply.shuffle:
        data = data[1::2] + data[0::2]
    body = {"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1}}
    return json.dumps(body).encode()


def make_handler(endpoint: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            request = Request(self.path, dict(self.headers.items()), body)
            reply = endpoint.next_reply(request)
            if reply.delay:
                # The only wait in these tests: it provokes the client's timeout, and the
                # fixture sets ``release`` on teardown so no handler outlives the test.
                endpoint.release.wait(reply.delay)
            payload = reply.body
            if payload is None:
                payload = embeddings_body(body["input"], reply)
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


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    host, port = server.server_address[:2]
    fake = FakeEndpoint(base_url=f"http://{host!s}:{port}/v1")
    server.RequestHandlerClass = make_handler(fake)
    # A short poll interval keeps shutdown() (which waits for one poll) from costing 0.5 s.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def make_embedder(endpoint: FakeEndpoint) -> Iterator[Callable[..., OpenAIEmbedder]]:
    made: list[OpenAIEmbedder] = []

    def make(**kwargs: Any) -> OpenAIEmbedder:
        options: dict[str, Any] = {"api_key": API_KEY, "timeout": 2.0, **kwargs}
        embedder = OpenAIEmbedder(endpoint.base_url, "test-embed", **options)
        made.append(embedder)
        return embedder

    yield make
    for embedder in made:
        embedder.close()


TEXTS = ["Alice lives in Lisbon", "Bob drinks tea", "the cat sat", "on the mat", "fifth"]


def assert_vectors_for(texts: list[str], vectors: np.ndarray, dim: int = 8) -> None:
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(texts), dim)
    expected = np.stack([unit(raw_vector(text, dim)) for text in texts])
    assert np.allclose(vectors, expected, atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_embeds_through_the_endpoint_with_model_and_bearer_key(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder()
    vectors = embedder.embed(TEXTS)
    assert_vectors_for(TEXTS, vectors)
    assert embedder.dim == 8
    assert embedder.model_id == "openai-compatible:test-embed"
    [request] = endpoint.requests
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": "test-embed", "input": TEXTS}
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"


def test_results_follow_the_index_field_not_the_response_order(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.default = Reply(shuffle=True)
    assert_vectors_for(TEXTS, make_embedder().embed(TEXTS))


def test_large_inputs_are_sent_in_batches_and_come_back_in_order(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    texts = [f"text number {i}" for i in range(7)]
    vectors = make_embedder(batch_size=3).embed(texts)
    assert_vectors_for(texts, vectors)
    assert [r.body["input"] for r in endpoint.requests] == [texts[0:3], texts[3:6], texts[6:7]]


def test_a_500_then_success_is_retried_and_succeeds(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.script = [Reply(status=500, body=b'{"error": "overloaded"}')]
    assert_vectors_for(TEXTS, make_embedder().embed(TEXTS))
    assert len(endpoint.requests) == 2


def test_a_persistent_500_is_backend_unavailable_after_bounded_retries(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.default = Reply(status=500, body=b'{"error": "boom"}')
    with pytest.raises(BackendUnavailable) as info:
        make_embedder(max_retries=2).embed(TEXTS)
    message = str(info.value)
    assert f"{endpoint.base_url}/embeddings" in message
    assert "500" in message
    assert "3 attempts" in message
    assert len(endpoint.requests) == 3


def test_a_server_slower_than_the_timeout_fails_within_a_bounded_time(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.default = Reply(delay=5.0)
    embedder = make_embedder(timeout=0.2, max_retries=1)
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match="timed out"):
        embedder.embed(TEXTS)
    # Two attempts of 0.2 s plus one 0.2 s backoff, far below the server's 5 s.
    assert time.monotonic() - started < 2.0
    assert len(endpoint.requests) == 2


def test_malformed_json_is_backend_unavailable_without_retry(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.default = Reply(body=b'{"data": [{"embedding": [0.1, ')
    with pytest.raises(BackendUnavailable, match="not JSON"):
        make_embedder().embed(TEXTS)
    assert len(endpoint.requests) == 1


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"object": "list"}', 'no "data" list'),
        (b'{"data": [{"index": 0, "embedding": [1.0, 2.0]}]}', "1 embeddings for 2 inputs"),
        (
            b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]}',
            "appears twice",
        ),
        (
            b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": ["x"]}]}',
            "non-numeric",
        ),
        (
            b'{"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]}',
            "different lengths",
        ),
    ],
)
def test_json_that_is_not_an_embeddings_response_is_backend_unavailable(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder], body: bytes, why: str
) -> None:
    endpoint.default = Reply(body=body)
    with pytest.raises(BackendUnavailable, match=why):
        make_embedder().embed(["one", "two"])


def test_a_401_is_not_retried_and_never_shows_the_key(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    # Real servers echo (part of) a refused key in the body; none of it may reach the message.
    refusal = {"error": {"message": f"Incorrect API key provided: {API_KEY}"}}
    endpoint.default = Reply(status=401, body=json.dumps(refusal).encode())
    embedder = make_embedder()
    with pytest.raises(BackendUnavailable) as info:
        embedder.embed(TEXTS)
    message = str(info.value)
    assert "401" in message
    assert "API key" in message
    assert endpoint.base_url in message
    assert API_KEY not in message
    assert API_KEY[:12] not in message
    assert API_KEY not in repr(embedder)
    assert len(endpoint.requests) == 1


def test_a_4xx_error_body_is_shown_with_the_key_redacted(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.default = Reply(status=400, body=f"unknown model; your key {API_KEY}".encode())
    with pytest.raises(BackendUnavailable) as info:
        make_embedder().embed(TEXTS)
    assert "400" in str(info.value)
    assert "unknown model" in str(info.value)
    assert API_KEY not in str(info.value)
    assert len(endpoint.requests) == 1


def test_a_change_of_dim_mid_stream_is_an_error(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    endpoint.script = [Reply(dim=8), Reply(dim=16)]
    embedder = make_embedder()
    embedder.embed(["first"])
    assert embedder.dim == 8
    with pytest.raises(BackendUnavailable, match=r"dim 16.*expected 8"):
        embedder.embed(["second"])
    assert embedder.dim == 8


def test_a_given_dim_is_checked_against_the_first_response(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    with pytest.raises(BackendUnavailable, match=r"dim 8.*expected 12"):
        make_embedder(dim=12).embed(["first"])


def test_an_empty_batch_sends_no_request_when_the_dim_is_known(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    assert make_embedder(dim=8).embed([]).shape == (0, 8)
    assert endpoint.requests == []


def test_asking_an_unknown_dim_learns_it_with_one_probe(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder()
    assert embedder.dim == 8
    assert embedder.dim == 8
    assert len(endpoint.requests) == 1


def test_bad_texts_are_invalid_input_before_any_request(
    endpoint: FakeEndpoint, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder()
    with pytest.raises(InvalidInput):
        embedder.embed("a bare string")
    with pytest.raises(InvalidInput):
        embedder.embed(["fine", "   "])
    assert endpoint.requests == []


def test_an_unreachable_endpoint_is_backend_unavailable() -> None:
    # Bind a port, then close it: nothing listens there any more.
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    host, port = server.server_address[:2]
    server.server_close()
    url = f"http://{host!s}:{port}/v1"
    with (
        OpenAIEmbedder(url, "m", api_key=API_KEY, timeout=1.0, max_retries=1) as embedder,
        pytest.raises(BackendUnavailable, match="unreachable") as info,
    ):
        embedder.embed(["x"])
    assert url in str(info.value)
    assert "2 attempts" in str(info.value)
