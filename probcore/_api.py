"""The public signatures' shape: the inputs first (``x``, and ``target`` where there is one), then
``dim``, then the mapping's parameters, keyword-only. ``dim`` is positional where it always came
second (softmax, smooth_max, sparsemax, entmax15); elsewhere a second positional argument used to
be a parameter (``entmax(x, 1.3)`` is alpha), so ``dim`` is keyword-only there while such calls
keep working through :func:`old_positions`, with one ``DeprecationWarning`` per call."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def old_positions(*names: str, kept: int = 0) -> Callable[[F], F]:
    """Decorator: positional arguments after the first ``1 + kept`` (x and the ``kept`` inputs that
    stay positional) are read as the keywords ``names`` of the old signature, whose order they
    followed, with a DeprecationWarning naming the keywords to use. ``names`` lists every argument
    after x in the old order (the ``kept`` first included); the wrapper keeps it as ``old_names``."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            extra = args[1 + kept :]
            if not extra:
                return fn(*args, **kwargs)
            moved = by_keyword(fn.__name__, names[kept:], extra, kwargs)
            return fn(*args[: 1 + kept], **moved, **kwargs)

        call.old_names = names  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate


def by_keyword(
    function: str, names: tuple[str, ...], values: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """``values`` given by position, named by the old order ``names``, as keywords; warns once
    (DeprecationWarning, attributed to the caller's caller). TypeError as Python's for too many
    values or a value given twice."""
    if len(values) > len(names):
        raise TypeError(
            f"{function}() takes at most {len(names)} positional arguments after its inputs ({len(values)} given)"
        )
    moved = names[: len(values)]
    twice = [name for name in moved if name in kwargs]
    if twice:
        raise TypeError(f"{function}() got multiple values for argument {twice[0]!r}")
    warnings.warn(
        f"{function}: passing {', '.join(moved)} by position is deprecated; pass them by keyword "
        f"({', '.join(f'{name}=...' for name in moved)})",
        DeprecationWarning,
        stacklevel=3,
    )
    return dict(zip(moved, values))
