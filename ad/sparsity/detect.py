"""Running a function under the sparsity detector, and reading the pattern of its result.

Engine code: it looks at tags and the dependency store. ``api.py`` is the public face.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable
from typing import Any

import numpy as np

from context import overdub
from context.resolve import declare_engine_code
from context.tagging import Tagged
from context.tagging.tags import Tag

from . import deps, store
from .tracer import UNDECIDED, SparsityCtx

declare_engine_code(__file__)


def input_array(x: Any, who: str) -> np.ndarray:
    """``x`` as a fresh float array (the detector's input, which ``run`` hands to ``f``: the
    caller's array is never written), or a clear error."""
    if isinstance(x, (bool, str, bytes, dict, set)) or x is None:
        raise TypeError("%s: x must be an array of numbers (a NumPy array or a list of floats), got %s"
                        % (who, type(x).__name__))
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError("%s: x must be an array of numbers (a NumPy array or a list of floats), got %s (%s)"
                        % (who, type(x).__name__, exc)) from None
    return a


def run(f: Callable[[Any], Any], x: np.ndarray, local: bool, pairs: Any = None) -> tuple[Any, np.ndarray]:
    """``(f(x), D)``: the result's value and its dependencies (slots ``(K,) + shape``, not to be
    written into). ``x`` is the detector's own array (``input_array``): ``f`` receives it. With
    ``pairs`` (a ``second_order.Pairs``), the nonlinear interactions are collected in it."""
    ctx = SparsityCtx(local=local)
    ctx.pairs = pairs
    t = ctx._tag = Tag(ctx)
    t.used = True  # the input is an array carrying dependencies from the start: the guard must look
    store.put(x, t, deps.identity(x.shape))
    out = overdub(ctx, f, x)
    return _value_and_deps(out, t, np.shape(_plain(out)))


def _plain(out):
    if isinstance(out, Tagged):
        return out.value
    if isinstance(out, (list, tuple)):
        return np.array([_plain(o) for o in out], dtype=float)
    return out


def _value_and_deps(out, t, shape):
    if isinstance(out, (list, tuple)):
        items = [_value_and_deps(o, t, np.shape(_plain(o))) for o in out]
        value = np.array([v for v, _ in items], dtype=float)
        parts = deps.same_slots([deps.flat(np.asarray(d)) for _, d in items])
        D = np.concatenate(parts, axis=1).reshape((parts[0].shape[0] if parts else 0,) + value.shape)
        return value, D
    if isinstance(out, Tagged) and out.tag is t:
        D = out.meta
        if D is UNDECIDED:
            return out.value, deps.none(np.shape(out.value))
        return out.value, D.reshape(D.shape[:1] + np.shape(out.value))
    if type(out) is np.ndarray:
        D = store.get(out, t)
        if D is None or D is UNDECIDED:
            return out, deps.none(out.shape)
        return out, D  # (a view of the store, which nothing writes into once the run is over)
    if isinstance(out, (int, float, complex, np.number)):
        return out, deps.none(())
    raise TypeError("sparsity detection: the function returned %s; return an array, a number, or a list of numbers"
                    % type(out).__name__)
