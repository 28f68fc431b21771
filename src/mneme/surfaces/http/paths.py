"""Ids in URL paths: an id may hold "/" (``source_id="docs/setup.md"``), written ``%2F``.

An ASGI server decodes the path before routing, so ``/v1/banks/eu%2Fteam/recall`` reached
the router as ``/v1/banks/eu/team/recall`` and matched nothing: a bank or source whose id the
API accepts could never be read through it. :class:`EncodedSlashes` keeps an encoded slash
apart while the path is decoded (as ``SLASH``, a character no id may hold), and the
``mneme_id`` path convertor that every id parameter uses turns it back into "/".
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from starlette.convertors import Convertor, register_url_convertor
from starlette.types import ASGIApp, Receive, Scope, Send

#: Stands for an encoded "/" in a decoded path; ids are ASCII, so none holds it.
SLASH = "\u2215"
_ENCODED_SLASH = re.compile(r"%2f", re.IGNORECASE)
#: The convertor's name in route paths: ``/v1/banks/{bank:mneme_id}/recall``.
ID = "mneme_id"


class IdConvertor(Convertor[str]):
    regex = "[^/]+"

    def convert(self, value: str) -> str:
        return value.replace(SLASH, "/")

    def to_string(self, value: str) -> str:
        return value.replace("/", "%2F")


register_url_convertor(ID, IdConvertor())


class EncodedSlashes:
    """Decode the request path with each ``%2F`` kept as ``SLASH``; any other path is
    left as the server decoded it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw: Any = scope.get("raw_path") if scope["type"] in ("http", "websocket") else None
        if raw and b"%2f" in raw.lower():
            text = raw.decode("latin-1")
            scope = {**scope, "path": unquote(_ENCODED_SLASH.sub(SLASH, text))}
        await self.app(scope, receive, send)
