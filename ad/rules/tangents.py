"""Tangent shapes: plain tangents, chunks of tangents, and how rules line them up.

A tangent has the primal's shape, or a leading *chunk* axis of ``k`` directions before it
(``(k,) + shape``: ``k`` derivatives in one pass, as ForwardDiff's chunks). A rule finds
the number of leading axes with ``lead(g, x)``. A value built by a rule is a ``Dual``
(scalars) or a ``DualArray`` (arrays): ``dual(value, tag, tangent)`` picks the class.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import dispatch
from context.tagging.values import primal

from ..engine.dual_array import is_array

_NUMBERS = (float, int, complex)
ndarray = np.ndarray  # not engine code: rule bodies call these helpers under an enclosing AD context


def shape_of(v):
    """The shape of ``v``, tagged (by an enclosing derivative) or not."""
    v = primal(v)
    if type(v) in _NUMBERS:
        return ()
    shape = getattr(v, "shape", None)
    return np.shape(v) if shape is None else shape


def lead(g, x):
    """How many chunk axes tangent ``g`` of primal ``x`` has (0 or 1), through any tag layers."""
    return len(shape_of(g)) - len(shape_of(x))


def chunk_shape(g, x):
    """The chunk shape of tangent ``g`` of primal ``x``: ``()`` or ``(k,)``."""
    sg = shape_of(g)
    return sg[: len(sg) - len(shape_of(x))]


def lead_axes(n):
    """An index prefix that keeps ``n`` leading chunk axes: ``(slice(None),) * n``."""
    return (slice(None),) * n


def shift_axis(axis, ndim, n):
    """``axis`` (an int, a tuple or None, possibly negative) of an ``ndim``-dimensional primal,
    as axes of its tangent with ``n`` leading chunk axes (None means every primal axis)."""
    if axis is None:
        return tuple(range(n, n + ndim))
    if isinstance(axis, tuple):
        return tuple(_norm(a, ndim) + n for a in axis)
    return _norm(axis, ndim) + n


def _norm(a, ndim):
    a = int(a)
    if not -ndim <= a < max(ndim, 1):
        raise np.exceptions.AxisError(a, ndim)
    return a % ndim if ndim else 0


def align(g, x, ans):
    """Tangent ``g`` of ``x`` shaped to broadcast against ``ans`` in an elementwise rule.

    With a chunk axis, ``x`` of lower rank than ``ans`` gets unit axes after the chunk
    axis (broadcasting aligns trailing axes; the chunk axis must stay first).
    """
    pg = primal(g)
    if not is_array(pg):
        return g
    nx = np.ndim(primal(x))
    n = lead(pg, x)
    extra = np.ndim(primal(ans)) - nx
    if n and extra > 0:
        return g.reshape(pg.shape[:n] + (1,) * extra + pg.shape[n:])
    return g


def full(out, ans, n, fresh_from=()):
    """The tangent ``out`` of ``ans`` with its full shape (chunk axes first) and memory of its own.

    A tangent broadcast from a lower-rank one gets expanded; one that is an input's tangent
    (``fresh_from``) or read-only is copied, so writing into ``ans`` later writes into its
    tangent without touching another value's.
    """
    if not n and type(out) is ndarray and type(ans) is ndarray:  # the common case, checked first
        if out.shape == ans.shape and out.flags.writeable:
            for f in fresh_from:  # (a loop: a generator's frame costs more than the check)
                if out is f:
                    break
            else:
                return out
    pans = primal(ans)
    if not is_array(pans):
        return out
    pout = primal(out)
    shape = np.shape(pout)
    want = shape[:n] + pans.shape
    if shape != want:
        return dispatch(np.copy, (dispatch(np.broadcast_to, (out, want)),))
    if not is_array(pout) or not getattr(pout.flags, "writeable", True) or any(out is f for f in fresh_from):
        return dispatch(np.copy, (out,))
    return out


def zeros_for(x, n_shape, dtype=None):
    """A zero tangent for constant ``x`` (its derivative is exactly zero) with chunk shape ``n_shape``."""
    return np.zeros_like(x, shape=tuple(n_shape) + np.shape(x), dtype=dtype or np.result_type(x, float))


def per_direction(fn, g, n, *args, **kwargs):
    """``fn(g, *args, **kwargs)`` for a linear ``fn``, applied to each of the ``n`` chunk directions of ``g``."""
    if not n:
        return fn(g, *args, **kwargs)
    return np.stack([fn(gi, *args, **kwargs) for gi in g])
