"""The public entry points: ``overdub``, ``recurse``, ``canrecurse``, ``similarcontext``, ``disablehooks``."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import copy
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
from collections.abc import Callable
from typing import Any, TypeVar

from .activation import entered, run_outermost
from .base import Context
from .tracebacks import strip_engine_frames

_MISSING: Any = object()

_R = TypeVar("_R")
_C = TypeVar("_C", bound=Context)


def _check_context(ctx: object, who: str) -> None:
    if not isinstance(ctx, Context):
        raise TypeError(
            "%s: the first argument 'ctx' must be a context.Context instance, got %s; "
            "create one first, e.g. %s(Context(), f, ...)" % (who, type(ctx).__name__, who)
        )


def overdub(ctx: Context, f: Callable[..., _R], /, *args: Any, **kwargs: Any) -> _R:
    """Run ``f(*args, **kwargs)`` under the context ``ctx``.

    The call of ``f`` itself goes through ``ctx.overdub`` (so primitives apply) and fires
    no hooks; every call made inside fires ``prehook`` and ``posthook``.
    """
    _check_context(ctx, "overdub")
    if not callable(f):
        raise TypeError(
            "overdub: the second argument 'f' must be callable, got %s object %r"
            % (type(f).__name__, f)
        )
    try:
        return run_outermost(ctx, f, args, kwargs, _getframe(1))
    except BaseException as exc:
        strip_engine_frames(exc)
        raise


def recurse(ctx: Context, f: Callable[..., _R], /, *args: Any, **kwargs: Any) -> _R:
    """Run ``f``'s own code rewritten for ``ctx`` (natively, through ``fallback``, if it has none)."""
    _check_context(ctx, "recurse")
    with entered(ctx) as act:
        return act.recurse(f, args, kwargs)


def canrecurse(ctx: Context, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> bool:
    """Whether ``ctx`` would recurse into ``f`` (asks ``ctx.canrecurse``)."""
    _check_context(ctx, "canrecurse")
    return ctx.canrecurse(f, *args, **kwargs)


def similarcontext(ctx: _C, metadata: Any = _MISSING) -> _C:
    """A copy of ``ctx`` (same class, hooks setting and passes) with new ``metadata``.

    Recursing with it inside ``ctx``'s run replaces ``ctx`` for that call, nested
    under the same enclosing context.
    """
    _check_context(ctx, "similarcontext")
    new = copy.copy(ctx)
    if metadata is not _MISSING:
        new.metadata = metadata
    new._similar_to = ctx
    return new


def disablehooks(ctx: _C) -> _C:
    """A copy of ``ctx`` whose hooks never fire, at any depth; primitives still apply."""
    _check_context(ctx, "disablehooks")
    new = copy.copy(ctx)
    new._hooks_enabled = False
    new._similar_to = ctx
    return new
