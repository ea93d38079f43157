"""Derivative rules for indexing and writing: ``x[key]``, ``x[key] = v``, ``np.copyto``,
``np.putmask``, ``np.place``, and ``np.add.at``/``np.subtract.at``.

Reading takes the same elements of the tangent (basic, slice, fancy and boolean keys);
reading with basic keys gives views, so a write through them reaches the tangent too.
Writes go through ``ad.engine.mutation.assign``. ``ufunc.at`` accumulates repeated
indices (finite-element assembly): ``add`` and ``subtract`` have rules, as their result
is linear; other ufuncs' ``at`` raise NoRuleError. Masks and indices are constants.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np

from context.base import Context
from context.tagging import Tagged, dispatch, native_primitive
from context.tagging.values import live, primal

from ..engine import buffers, mutation
from ..engine.forward import NoRuleError, ForwardCtx, _lists_as_arrays, frule, writes_arguments
from .linear import deflinear
from .tangents import lead, lead_axes


def _key_tuple(key):
    return key if isinstance(key, tuple) else (key,)


@frule(operator.getitem)
def _getitem(primals, tangents):
    x, key = primals
    g, dkey = tangents
    if dkey is not None:
        raise NoRuleError("an array index carries a derivative: indices must be constants (use int(i))")
    n = lead(g, x)
    t = g[lead_axes(n) + _key_tuple(key)]
    if n and (t.ndim if type(t) is np.ndarray else np.ndim(t)) == n:
        # the value read is one element, a copy; with directions first, its tangent would be a view of
        # g's memory, changed by a later write into the array (its shadow memory): copied too
        t = t.copy()
    return x[key], t


@ForwardCtx.primitive(operator.setitem)
@writes_arguments
@native_primitive
def _setitem(ctx, obj, key, value):
    if isinstance(key, Tagged):
        raise NoRuleError("an array index carries a derivative: indices must be constants (use int(i))")
    if isinstance(primal(obj), np.ndarray):
        return mutation.assign(obj, key, value)
    obj[key] = value
    return None


@ForwardCtx.primitive(np.copyto)
@writes_arguments
@native_primitive
def _copyto(ctx, dst, src, casting="same_kind", where=True):
    src = _lists_as_arrays(ctx, (src,))[0][0]  # (np.copyto(b, [x, y]): the array NumPy makes of the list)
    src = _current(src)  # (a buffer holding tangents: the values it stands for)
    if where is True:
        mutation.assign(dst, Ellipsis, src)
    else:
        # the elements kept are dst's own, with their tangents: a buffer's come from its shadow
        current = buffers.lift(dst) if type(live(dst)) is np.ndarray else dst
        mutation.assign(dst, Ellipsis, dispatch(np.where, (where, src, current)))


def _current(a):
    """``a`` with its tangent: a buffer's comes from its shadow memory."""
    return buffers.lift(a) if type(live(a)) is np.ndarray else a


def _constant(fn, what, value):
    if isinstance(value, Tagged) or (type(value) is np.ndarray and buffers.has_shadow(value)):
        raise NoRuleError("%s: the %s carries a derivative; it must be a constant" % (fn, what))


def scattered_sum(shape, dtype, indices, b):
    """A zero array of ``shape`` with ``b`` added at ``indices``, repeated indices accumulating."""
    out = np.zeros(shape, dtype)
    np.add.at(out, indices, b)
    return out


deflinear(scattered_sum, (3,))


@ForwardCtx.primitive(np.ufunc.at)
@writes_arguments
@native_primitive
def _ufunc_at(ctx, ufunc, a, indices, b=None):
    name = "np.%s.at" % getattr(ufunc, "__name__", "ufunc")
    if ufunc is not np.add and ufunc is not np.subtract:
        raise NoRuleError(
            "%s has no derivative rule (only np.add.at and np.subtract.at have one); write the "
            "accumulation with np.add.at, or loop over the indices" % name
        )
    _constant(name, "index", indices)
    if b is None:
        raise TypeError("%s() requires an operand b" % name)
    b = _current(b)  # (a buffer holding tangents: the values it stands for, every derivative's)
    pa = primal(a)
    dtype = np.result_type(pa, primal(b))
    delta = dispatch(scattered_sum, (pa.shape, dtype, indices, b))
    if ufunc is np.subtract:
        delta = dispatch(np.negative, (delta,))
    mutation.assign(a, Ellipsis, dispatch(np.add, (_current(a), delta)))


def _cycled(ctx, values, n):
    """``n`` elements of ``values`` raveled, repeated from the start as needed (NumPy's rule for
    ``putmask`` and ``place``)."""
    if type(values) in (list, tuple):  # may hold values being differentiated: the rule of np.array reads them
        values = Context.overdub(ctx, np.array, values)
    flat = dispatch(np.ravel, (values,))
    size = np.size(primal(values))
    if size == n:
        return flat
    if size == 0:
        raise ValueError("cannot write values from an empty array")
    return dispatch(np.take, (flat, np.arange(n) % size))


@ForwardCtx.primitive(np.putmask)
@native_primitive
def _putmask(ctx, a, mask, values):
    _constant("np.putmask", "mask", mask)
    pa = primal(a)
    filled = dispatch(np.reshape, (_cycled(ctx, values, pa.size), pa.shape))
    mutation.assign(a, Ellipsis, dispatch(np.where, (mask, filled, _current(a))))


@ForwardCtx.primitive(np.place)
@native_primitive
def _place(ctx, arr, mask, vals):
    _constant("np.place", "mask", mask)
    mask = np.asarray(primal(mask), dtype=bool)
    count = int(np.count_nonzero(mask))
    if count:
        mutation.assign(arr, mask, _cycled(ctx, vals, count))
