"""Names kept one release after they moved (ADR 0043).

A method of ``Memory`` that moved into a namespace (``mem.reject`` -> ``mem.review.reject``)
stays under its old name for one release as a ``Moved`` descriptor: it warns with a
``DeprecationWarning`` naming the new spelling, then calls the new one, so old code keeps
working and says what to change. The next release deletes the descriptor.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


def warn_moved(old: str, new: str) -> None:
    """Warn, at the caller's line, that ``Memory.<old>`` is now ``Memory.<new>``."""
    warnings.warn(
        f"Memory.{old} is deprecated and goes in the next release; use Memory.{new}",
        DeprecationWarning,
        stacklevel=3,
    )


class Moved(Generic[P, R]):
    """``Memory.<old>`` kept as an alias of ``Memory.<path>`` (a dotted path from the
    Memory, such as ``"review.reject"``) for one release.

    ``method`` is the function the path reaches (``Review.reject``): it gives the alias the
    new name's signature for type checkers, so a call that no longer fits fails there too.
    """

    def __init__(self, path: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self.path = path
        self.old = method.__name__
        self.__doc__ = f"Deprecated: use ``Memory.{path}``."

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Moved[P, R]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        target: Any = obj
        for part in self.path.split("."):
            target = getattr(target, part)
        old, new = self.old, self.path

        def alias(*args: P.args, **kwargs: P.kwargs) -> R:
            warn_moved(old, new)
            result: R = target(*args, **kwargs)
            return result

        alias.__name__ = alias.__qualname__ = old
        alias.__doc__ = self.__doc__
        return alias
