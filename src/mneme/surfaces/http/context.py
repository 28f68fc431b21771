"""What every router needs from the app: the ``Memory`` it serves, and JSON answers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from mneme.memory import Memory
from mneme.serialize import to_jsonable


def get_memory(request: Request) -> Memory:
    memory: Memory = request.app.state.memory
    return memory


Mem = Annotated[Memory, Depends(get_memory)]


def answer(value: Any, status: int = 200) -> JSONResponse:
    """A JSON response for anything ``Memory`` returns (dataclasses, enums, times)."""
    return JSONResponse(to_jsonable(value), status_code=status)
