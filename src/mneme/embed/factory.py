"""Build an embedder from a short spec string, as written in config or on the command line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mneme.embed.hashing import HashingEmbedder
from mneme.embed.minilm import MiniLMEmbedder
from mneme.embed.openai import OpenAIEmbedder
from mneme.embed.protocol import Embedder
from mneme.errors import InvalidInput

DEFAULT_SPEC = "minilm"

_VALID_FORMS = (
    '"minilm" (the default: packaged all-MiniLM-L6-v2, offline), '
    '"hashing" or "hashing:<dim>" (unit tests only), '
    '"openai:<model>@<base_url>" (e.g. "openai:text-embedding-3-small@http://127.0.0.1:8080/v1")'
)
_HASHING = re.compile(r"hashing(?::(?P<dim>\d+))?")
# The model name ends at the first "@" that starts a URL, so names like "org/model:tag" work.
_OPENAI = re.compile(r"openai:(?P<model>[^@\s]+(?:@[^@\s]+)*?)@(?P<url>https?://\S+)")


def build_embedder(
    spec: str = DEFAULT_SPEC,
    *,
    api_key: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Embedder:
    """Build the embedder ``spec`` names; ``api_key`` is used by "openai:" specs only.

    ``options``: the default embedder's settings from the configuration (``Config``'s
    ``cache_dir``, ``embed_precision``, ``query_backend``, ``batch_backend``); missing ones
    take their defaults. The caller reads keys and settings from the configuration or a
    secret store; this function never reads the environment.

    Raises:
        InvalidInput: the spec is not one of the valid forms.
    """
    text = spec.strip()
    if text == "minilm":
        given = options or {}
        return MiniLMEmbedder(
            cache_dir=given.get("cache_dir"),
            precision=given.get("embed_precision"),
            query_backend=given.get("query_backend"),
            batch_backend=given.get("batch_backend"),
        )
    if match := _HASHING.fullmatch(text):
        dim = match["dim"]
        return HashingEmbedder(int(dim)) if dim is not None else HashingEmbedder()
    if match := _OPENAI.fullmatch(text):
        return OpenAIEmbedder(match["url"], match["model"], api_key=api_key)
    raise InvalidInput(f"unknown embedder spec {spec!r}; valid forms: {_VALID_FORMS}")
