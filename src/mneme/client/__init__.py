"""A typed Python client for mneme's HTTP API, sync and async, on httpx.

    from mneme.client import MnemeClient

    with MnemeClient("http://127.0.0.1:8765", token="mn_...") as client:
        client.retain("team", text="Staging moved to eu-west-2.")
        hits = client.recall("team", query="where is staging?")["hits"]

``MnemeClient`` and ``AsyncMnemeClient`` are written from the API's OpenAPI document
(``mneme.client.api``, by ``python -m mneme.client.generate``); an error answer raises an
``ApiError`` that is also the ``mneme.errors`` class of the failure (ADR 0050).
"""

from mneme.client.api import AsyncMnemeClient, JsonObject, MnemeClient
from mneme.client.api_errors import (
    ApiConflict,
    ApiError,
    ApiInvalidInput,
    ApiNotFound,
    ApiRefused,
    ApiSchemaMismatch,
    ApiUnauthorized,
    ApiUnavailable,
)

__all__ = [
    "ApiConflict",
    "ApiError",
    "ApiInvalidInput",
    "ApiNotFound",
    "ApiRefused",
    "ApiSchemaMismatch",
    "ApiUnauthorized",
    "ApiUnavailable",
    "AsyncMnemeClient",
    "JsonObject",
    "MnemeClient",
]
