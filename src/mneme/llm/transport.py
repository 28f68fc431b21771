"""One JSON POST with bounded retries, shared by the provider clients.

Retries only what clears on its own: timeouts, connection errors, 429 and the provider's
"try later" statuses (5xx; Anthropic's 529 overloaded). Never another 4xx: a bad key or a
bad request fails the same way every time. Messages never carry the API key: it is
redacted from every echoed body and from the URL's user:password part.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, Self

import httpx

from mneme.errors import InvalidInput
from mneme.llm.protocol import LLMUnavailable

#: 429 is a 4xx but means "later", not "never": rate limits clear on their own.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_BACKOFF_MAX = 2.0
_ERROR_BODY_CHARS = 300


class JSONTransport:
    """POST a JSON body to one URL, retrying up to ``max_retries`` times with doubling backoff.

    ``timeout`` bounds each connect, read and write of one attempt. ``backoff`` is the first
    wait between attempts in seconds (doubling, at most 2 s). ``provider`` names the client in
    error messages. Holds a connection pool: ``close()`` it.
    """

    def __init__(
        self,
        url: str,
        *,
        provider: str,
        headers: Mapping[str, str],
        secret: str | None,
        timeout: float,
        max_retries: int,
        backoff: float,
        retry_statuses: Collection[int] = RETRY_STATUSES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise InvalidInput(f"base_url must start with http:// or https://, got {url!r}")
        if timeout <= 0:
            raise InvalidInput(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise InvalidInput(f"max_retries must be 0 or more, got {max_retries}")
        if backoff < 0:
            raise InvalidInput(f"backoff must be 0 or more, got {backoff}")
        self.url = url
        self.provider = provider
        self.max_retries = max_retries
        self.backoff = backoff
        self.retry_statuses = frozenset(retry_statuses)
        self._secret = secret or None
        self._sleep = sleep
        self._client = httpx.Client(
            headers={"Content-Type": "application/json", **headers},
            timeout=httpx.Timeout(timeout),
        )
        # The URL as it may appear in messages: without any user:password part.
        self.shown_url = str(httpx.URL(url).copy_with(userinfo=b""))

    def close(self) -> None:
        self._client.close()

    def post(self, body: Mapping[str, Any]) -> Any:
        """POST ``body`` and return the decoded JSON of a 2xx answer.

        Raises:
            LLMUnavailable: unreachable, timed out, or a non-2xx answer (after the retries
                for the retryable ones); ``status`` is set when there was an answer.
        """
        attempt = 0
        while True:
            status: int | None = None
            try:
                response = self._client.post(self.url, json=body)
            except httpx.TimeoutException as exc:
                failure = f"timed out ({type(exc).__name__})"
            except httpx.TransportError as exc:
                failure = f"is unreachable ({type(exc).__name__}: {self.redact(str(exc))})"
            else:
                if response.is_success:
                    return self._json(response)
                status = response.status_code
                failure = self._describe_status(response)
                if status not in self.retry_statuses:
                    raise LLMUnavailable(
                        f"{self.shown_url} {failure}", provider=self.provider, status=status
                    )
            if attempt >= self.max_retries:
                tries = attempt + 1
                raise LLMUnavailable(
                    f"{self.shown_url} {failure} ({tries} attempt{'s' if tries > 1 else ''})",
                    provider=self.provider,
                    status=status,
                )
            self._sleep(min(_BACKOFF_MAX, self.backoff * 2**attempt))
            attempt += 1

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LLMUnavailable(
                f"{self.shown_url} answered {response.status_code} with a body that is not "
                f"JSON: {exc}",
                provider=self.provider,
                status=response.status_code,
            ) from exc

    def _describe_status(self, response: httpx.Response) -> str:
        status = f"answered {response.status_code} {response.reason_phrase}".rstrip()
        if response.status_code in (401, 403):
            # Some servers echo (part of) the key they refused; say nothing from the body.
            return f"{status}: check the API key for this endpoint"
        body = self.redact(response.text.strip())[:_ERROR_BODY_CHARS]
        return f"{status}: {body}" if body else status

    def redact(self, text: str) -> str:
        """``text`` with the API key replaced by ``***``."""
        return text.replace(self._secret, "***") if self._secret else text


def check_common(model: str, repair_attempts: int) -> None:
    """Validate the constructor arguments every provider client shares."""
    if not model:
        raise InvalidInput("model must be a non-empty model name")
    if repair_attempts < 0:
        raise InvalidInput(f"repair_attempts must be 0 or more, got {repair_attempts}")


def check_max_tokens(max_tokens: int) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInput(f"max_tokens must be a positive integer, got {max_tokens!r}")


class HTTPClient:
    """What every provider client shares: its transport, a readable repr, closing the pool."""

    _http: JSONTransport
    model: str

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self._http.shown_url!r}, model={self.model!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()
