"""Derivative rules for building and selecting arrays: ``np.array``, ``ndarray.astype``, ``where``,
``clip``, ``sort``, ``full``/``full_like``, and the functions whose results carry no tangent.

Conventions:

* ``np.array`` takes nested lists and tuples of scalars and arrays being differentiated
  and constants; the result's tangent holds each element's tangent (zero for constants)
  and always has memory of its own (``copy=False`` returning the argument itself keeps
  its tangent). Integer and boolean results carry no tangent, as ``astype`` to such a
  dtype (the derivative of rounding is zero almost everywhere, as for ``int(x)``).
* ``clip(a, lo, hi)`` is ``minimum(maximum(a, lo), hi)`` with the ufunc rules' tie
  convention: an element exactly at a bound takes ``a``'s derivative; a bound's
  derivative reaches only the elements strictly beyond it (with ``lo > hi``, ``hi``'s).
* ``sort``: tied elements take their tangents in their original order (a stable sort,
  whatever ``kind`` says), so equal values never swap tangents between runs.
* ``where(c, x, y)``: the condition is a constant; one-argument ``where`` gives indices.
* ``zeros_like``, ``ones_like`` and ``empty_like`` do not depend on the values; index,
  count, shape and comparison results (``argmax``, ``nonzero``, ``isclose``, ...) and
  rounding (``round``) have zero derivative: their results carry no tangent.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import Tagged, dispatch, enclosing_call, native_primitive
from context.tagging.values import live, primal

from ..engine import buffers
from ..engine.forward import ZERO, ForwardCtx, NoRuleError, defjvp, defzero, frule, wrap
from .tangents import chunk_shape, lead, lead_axes, zeros_for

defzero(
    np.argmax, np.argmin, np.argsort, np.searchsorted, np.nonzero, np.flatnonzero, np.argwhere,
    np.count_nonzero, np.isclose, np.allclose, np.array_equal, np.array_equiv,
    np.any, np.all, np.round, np.around, np.zeros_like, np.ones_like, np.empty_like,
)
if hasattr(np, "fix"):  # deprecated in NumPy 2.5
    defzero(np.fix)

defjvp(
    np.where,
    ZERO,
    lambda g, ans, c, x, y: np.where(c, g, 0),
    lambda g, ans, c, x, y: np.where(c, 0, g),
)


# ---- clip --------------------------------------------------------------------------------------

def _clipped(a, lo, hi, **kwargs):
    """``np.clip`` with its bounds as positional arguments (None: no bound), the form the rule differentiates."""
    return np.clip(a, lo, hi, **kwargs)


def _raised(a, lo):
    return a if lo is None else np.maximum(a, lo)


def _d_a(g, ans, a, lo, hi, **kwargs):
    keep = True if lo is None else a >= lo
    if hi is not None:
        keep = keep & (_raised(a, lo) <= hi)
    return g * keep


def _d_lo(g, ans, a, lo, hi, **kwargs):
    take = a < lo
    if hi is not None:
        take = take & (_raised(a, lo) <= hi)
    return g * take


def _d_hi(g, ans, a, lo, hi, **kwargs):
    return g * (_raised(a, lo) > hi)


defjvp(_clipped, _d_a, _d_lo, _d_hi)
_NO = np._NoValue


@ForwardCtx.primitive(np.clip)
@native_primitive
def _clip(ctx, a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    # the argument checks of np.clip, then the positional form
    if a_min is _NO and a_max is _NO:
        a_min = None if min is _NO else min
        a_max = None if max is _NO else max
    elif a_min is _NO:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NO:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NO or max is not _NO:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided is forbidden.")
    if out is not None:
        kwargs["out"] = out
    return dispatch(_clipped, tuple(_lifted(x) for x in (a, a_min, a_max)), kwargs)


def _lifted(x):
    return buffers.lift(x) if type(x) is np.ndarray and buffers.has_shadow(x) else x


# ---- sort --------------------------------------------------------------------------------------

@frule(np.sort)
def _sort(primals, tangents, **kwargs):
    a = primals[0]
    g = tangents[0]
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError("numpy.sort: only the array may carry a derivative; make the other arguments constants")
    out = np.sort(*primals, **kwargs)
    axis = primals[1] if len(primals) > 1 else kwargs.get("axis", -1)
    # stable in both directions; NumPy 2.5's descending order takes keywords, not kind=
    order = {"stable": True, "descending": True} if kwargs.get("descending") else {"kind": "stable"}
    shape = np.shape(a)
    if axis is None:
        key = np.unravel_index(np.argsort(a, axis=None, **order), shape)
    else:
        key = list(np.indices(shape, sparse=True))
        key[axis] = np.argsort(a, axis=axis, **order)
    return out, g[lead_axes(lead(g, a)) + tuple(key)]


# ---- astype, full, full_like -------------------------------------------------------------------

def _carries_tangent(out):
    return out.dtype.kind in "fc"


@frule(np.ndarray.astype)
def _astype(primals, tangents, **kwargs):
    x = primals[0]
    g = tangents[0]
    out = x.astype(*primals[1:], **kwargs)
    if out is x:  # copy=False and nothing to convert: the same array
        return out, g
    if not _carries_tangent(out):
        return out, None
    return out, g.astype(out.dtype)


def _filled(out, g, fill):
    """The tangent of ``out``, filled with ``fill`` whose tangent is ``g``: ``g`` broadcast, in new memory."""
    if not _carries_tangent(out):
        return None
    n = lead(g, fill)
    chunk = np.shape(g)[:n]
    widened = g[lead_axes(n) + (None,) * (np.ndim(out) - np.ndim(fill))] if n else g
    return zeros_for(out, chunk, dtype=out.dtype) + widened


@frule(np.full_like)
def _full_like(primals, tangents, **kwargs):
    if any(t is not None for t in tangents[2:]):
        raise NoRuleError("numpy.full_like: only the fill value may carry a derivative")
    out = np.full_like(*primals, **kwargs)
    g = tangents[1] if len(tangents) > 1 else None
    return out, (None if g is None else _filled(out, g, primals[1]))


@frule(np.full)
def _full(primals, tangents, **kwargs):
    if tangents[0] is not None or any(t is not None for t in tangents[2:]):
        raise NoRuleError("numpy.full: only the fill value may carry a derivative")
    out = np.full(*primals, **kwargs)
    return out, _filled(out, tangents[1], primals[1])


# ---- np.array ----------------------------------------------------------------------------------

def _split_nested(obj, t, found):
    """``(primals, tangents)`` of nested lists/tuples ``obj``: the same nesting, with the values tagged
    by ``t`` replaced by their primal (and by their tangent, or None for constants)."""
    if type(obj) is np.ndarray and buffers.has_shadow(obj):
        obj = buffers.lift(obj)
    if isinstance(obj, Tagged):
        if obj.tag is t:
            found.append(obj)
            return obj.value, obj.meta
        return live(obj), None
    if isinstance(obj, (list, tuple)):
        pairs = [_split_nested(item, t, found) for item in obj]
        primals = [p for p, _ in pairs]
        return (tuple(primals) if isinstance(obj, tuple) else primals), [d for _, d in pairs]
    return obj, None


def _stacked(primals, tangents, chunk):
    """One tangent array (chunk axes first) for nested ``primals`` with tangents ``tangents``."""
    if isinstance(tangents, list):
        n = len(chunk)
        return np.stack([_stacked(p, d, chunk) for p, d in zip(primals, tangents)], axis=n)
    if tangents is None:
        return zeros_for(primals, chunk)
    return tangents


def _array_tangent(primals, tangents, chunk, out):
    tangent = np.array(_stacked(primals, tangents, chunk), dtype=out.dtype)  # a copy: memory of its own
    want = tuple(chunk) + np.shape(out)
    return tangent if np.shape(tangent) == want else tangent.reshape(want)


@ForwardCtx.primitive(np.array)
@native_primitive
def _array(ctx, *args, **kwargs):
    t = ctx._tag
    if not args and "object" in kwargs:
        args = (kwargs.pop("object"),)
    obj, args = args[0], args[1:]
    if type(obj) is np.ndarray and not buffers.has_shadow(obj):
        return enclosing_call(t, np.array, (obj,) + args, kwargs)
    found = []
    primals, tangents = _split_nested(obj, t, found)
    if not found:
        return enclosing_call(t, np.array, (obj,) + args, kwargs)
    out = enclosing_call(t, np.array, (primals,) + args, kwargs)
    if out is primals:  # copy=False/None and obj was an array being differentiated: obj itself
        return obj
    plain = primal(out)
    if plain.dtype.kind not in "fciub":
        raise NoRuleError(
            "numpy.array made an array of dtype %s from values being differentiated; only numbers can "
            "carry derivatives (give dtype=float)" % plain.dtype
        )
    if plain.dtype.kind not in "fc":
        return out
    first = found[0]
    chunk = chunk_shape(first.meta, first.value)
    return wrap(t, out, enclosing_call(t, _array_tangent, (primals, tangents, chunk, out)))
