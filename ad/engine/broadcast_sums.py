"""Summing a cotangent back over broadcast axes: ``unbroadcast`` (used by every reverse-mode rule).

Engine code: it runs natively even under an enclosing derivative (a Hessian forward over
reverse), where its cotangents are values being differentiated: it is called once per
argument of every operation on the way back, and most calls only compare shapes. The sums
it makes are calls of the running context (``STATE.call_ex``), as rewritten code's would
be, so that the enclosing derivative sees them (a cotangent may be a plain buffer whose
derivative the context keeps beside it); with no context running they are plain calls.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.state import STATE
from context.tagging.values import primal

declare_engine_code(__file__)


def unbroadcast(u: Any, x: Any) -> Any:
    """Cotangent ``u`` of a broadcast result, summed to the shape of argument ``x``."""
    if type(u) is type(x) and (type(x) is float or (type(x) is np.ndarray and u.shape == x.shape)):
        return u  # the common cases first: Python numbers, or plain arrays of one shape (nothing to sum)
    shape = shape_of(x)
    u_shape = shape_of(u)
    if u_shape == shape:
        return u
    call = STATE.call_ex
    if not shape:
        total = call(np.sum, (u,), _NO_KWARGS)
        return total if isinstance(primal(x), np.ndarray) else number(total)
    extra = len(u_shape) - len(shape)
    if extra:
        u = call(np.sum, (u,), {"axis": tuple(range(extra))})
        u_shape = shape_of(u)
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and u_shape[i] != 1)
    if axes:
        u = call(np.sum, (u,), {"axis": axes, "keepdims": True})
    return u


_NO_KWARGS: dict = {}
_NUMBERS = (float, int, complex)


def shape_of(v: Any) -> tuple:
    """``np.shape(primal(v))``, without NumPy's dispatch for arrays and plain numbers."""
    kind = type(v)
    if kind is np.ndarray or kind is np.float64:
        return v.shape
    if kind in _NUMBERS:
        return ()
    p = primal(v)  # (a tagged value: the same look at its primal)
    kind = type(p)
    if kind is np.ndarray or kind is np.float64:
        return p.shape
    return () if kind in _NUMBERS else np.shape(p)


def number(v: Any) -> Any:
    """A 0-d result as a Python float, or complex for a complex one (a plain number's cotangent);
    tagged ones are left as they are."""
    p = primal(v)
    if p is not v:
        return v
    return complex(v) if np.iscomplexobj(v) else float(v)
