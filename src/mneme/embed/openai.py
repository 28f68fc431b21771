"""An OpenAI-compatible ``/embeddings`` client (OpenAI, vLLM, llama.cpp, Ollama, LM Studio...)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from mneme.embed.protocol import Vectors
from mneme.errors import BackendUnavailable, InvalidInput

# 429 is a 4xx but means "later", not "never": rate limits clear on their own.
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_BACKOFF_FIRST = 0.2  # seconds; doubles per retry
_BACKOFF_MAX = 2.0
_ERROR_BODY_CHARS = 300
# The probe text used to learn the dimension when ``dim`` is asked before any embed.
_PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint, synchronous, over httpx.

    ``base_url`` includes the API prefix, e.g. ``http://127.0.0.1:8080/v1``; requests go to
    ``{base_url}/embeddings``. ``dim`` is what the model returns: given, or learned from the
    first response and fixed from then on. It is a check, not sent as the ``dimensions``
    parameter (which many servers reject). Asking for ``dim`` before it is known sends one
    probe request.

    Each request is retried up to ``max_retries`` times, with a short doubling backoff, on
    5xx, 429, timeouts and connection errors; never on other 4xx. ``timeout`` bounds each
    connect, read and write of one attempt. Vectors are re-normalized to unit length.
    The client holds a connection pool: ``close()`` it, or use it as a context manager.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 10.0,
        max_retries: int = 2,
        batch_size: int = 256,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise InvalidInput(f"base_url must start with http:// or https://, got {base_url!r}")
        if not model:
            raise InvalidInput("model must be a non-empty model name")
        if dim is not None and dim < 1:
            raise InvalidInput(f"dim must be a positive integer, got {dim}")
        if timeout <= 0:
            raise InvalidInput(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise InvalidInput(f"max_retries must be 0 or more, got {max_retries}")
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        self.model = model
        self.model_id = f"openai-compatible:{model}"
        self.url = base_url.rstrip("/") + "/embeddings"
        self.max_retries = max_retries
        self.batch_size = batch_size
        self._dim = dim
        self._dim_lock = threading.Lock()
        self._api_key = api_key or None
        headers = {"Content-Type": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout))
        # The URL as it may appear in messages: without any user:password part.
        self._shown_url = str(httpx.URL(self.url).copy_with(userinfo=b""))

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self._shown_url!r}, model={self.model!r}, dim={self._dim})"

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    @property
    def dim(self) -> int:
        """The vector dimension; learned with one probe request if not given and not yet seen."""
        if self._dim is None:
            self.embed([_PROBE_TEXT])
        assert self._dim is not None  # set by the embed above, or it raised
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        # The Embedder protocol declares ``dim`` as a plain attribute, which mypy reads as
        # settable. Setting it is allowed only to declare an unknown dim or to restate it.
        if self._dim is not None and value != self._dim:
            raise InvalidInput(f"dim is fixed at {self._dim}; cannot change it to {value}")
        if value < 1:
            raise InvalidInput(f"dim must be a positive integer, got {value}")
        self._dim = value

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts in batches of ``batch_size``: shape (len(texts), dim), unit length rows.

        Raises:
            InvalidInput: ``texts`` is a bare string, or holds a non-string or blank text.
            BackendUnavailable: the endpoint is unreachable, fails, refuses the request,
                answers something that is not an embeddings response, or changes dimension.
        """
        _check_texts(texts)
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[start : start + self.batch_size]))
            for start in range(0, len(texts), self.batch_size)
        ]
        return batches[0] if len(batches) == 1 else np.concatenate(batches)

    def _embed_batch(self, texts: list[str]) -> Vectors:
        payload = self._post({"model": self.model, "input": texts})
        vectors = self._parse(payload, len(texts))
        self._fix_dim(vectors.shape[1])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(norms > 0.0):
            raise BackendUnavailable(f"embedding endpoint {self._shown_url} returned a zero vector")
        vectors /= norms
        return vectors

    def _fix_dim(self, got: int) -> None:
        with self._dim_lock:
            if self._dim is None:
                self._dim = got
            elif got != self._dim:
                raise BackendUnavailable(
                    f"embedding endpoint {self._shown_url} returned vectors of dim {got} for "
                    f"model {self.model!r}, expected {self._dim}: the model behind it changed"
                )

    def _post(self, body: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException as exc:
                failure = f"timed out ({type(exc).__name__})"
            except httpx.TransportError as exc:
                failure = f"is unreachable ({type(exc).__name__}: {self._redact(str(exc))})"
            else:
                if response.is_success:
                    return self._json(response)
                failure = self._describe_status(response)
                if response.status_code not in _RETRY_STATUSES:
                    raise BackendUnavailable(f"embedding endpoint {self._shown_url} {failure}")
            if attempt >= self.max_retries:
                tries = attempt + 1
                raise BackendUnavailable(
                    f"embedding endpoint {self._shown_url} {failure} "
                    f"({tries} attempt{'s' if tries > 1 else ''})"
                )
            time.sleep(min(_BACKOFF_MAX, _BACKOFF_FIRST * 2**attempt))
            attempt += 1

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BackendUnavailable(
                f"embedding endpoint {self._shown_url} answered {response.status_code} "
                f"with a body that is not JSON: {exc}"
            ) from exc

    def _describe_status(self, response: httpx.Response) -> str:
        status = f"answered {response.status_code} {response.reason_phrase}".rstrip()
        if response.status_code in (401, 403):
            # Some servers echo (part of) the key they refused; say nothing from the body.
            return f"{status}: check the API key for this endpoint"
        body = self._redact(response.text.strip())[:_ERROR_BODY_CHARS]
        return f"{status}: {body}" if body else status

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def _parse(self, payload: Any, expected: int) -> Vectors:
        def bad(why: str) -> BackendUnavailable:
            return BackendUnavailable(
                f"embedding endpoint {self._shown_url} sent a malformed embeddings response: {why}"
            )

        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise bad('no "data" list')
        if len(data) != expected:
            raise bad(f"{len(data)} embeddings for {expected} inputs")
        rows: list[list[float] | None] = [None] * expected
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise bad(f"data[{position}] is not an object")
            # Servers may answer out of order; "index" says which input each vector is for.
            index = item.get("index", position)
            embedding = item.get("embedding")
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < expected:
                raise bad(f"data[{position}] has index {index!r}")
            if rows[index] is not None:
                raise bad(f"index {index} appears twice")
            if not isinstance(embedding, list) or not embedding:
                raise bad(f"data[{position}] has no embedding list")
            rows[index] = embedding
        lengths = {len(row) for row in rows if row is not None}
        if len(lengths) != 1:
            raise bad(f"embeddings of different lengths {sorted(lengths)} in one response")
        try:
            vectors = np.array(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise bad(f"non-numeric embedding values ({exc})") from exc
        if vectors.ndim != 2 or not np.all(np.isfinite(vectors)):
            raise bad("non-finite or nested embedding values")
        return vectors


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str):
        raise InvalidInput("embed() takes a sequence of texts, not a single string")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"text #{i} is {type(text).__name__}, not str")
        if not text.strip():
            raise InvalidInput(f"text #{i} is empty or blank")
