"""Derivative rules for NumPy's array layout and building functions: ``broadcast_arrays``,
``rollaxis``, ``flipud``, ``fliplr``, ``rot90``, ``hsplit``/``vsplit``/``dsplit``, ``tril``/``triu``,
``diag``/``diagflat``, ``pad``, ``append``, ``block``, ``select`` and ``piecewise``. (``np.r_`` and
``np.c_`` need no rule: their ``__getitem__`` is Python code, run under the derivative, which
reaches the rules of ``np.array`` and ``np.concatenate``.)

All but ``piecewise`` and ``pad``'s order-statistic modes are linear in their arrays: the
tangent is the same operation on the tangent (axes shifted past a chunk axis). Memory
follows the primal as in ``shapes``: where NumPy gives a view of the input (``flipud``,
``fliplr``, ``rot90``, ``rollaxis``, the splits, ``broadcast_arrays``, ``diag`` of a matrix),
the tangent is the same view of the input's tangent (read-only where ``broadcast_arrays``
repeats elements); elsewhere it is a new array.

* Constants among several arrays (``append``, ``block``, ``select``'s choices and default,
  ``broadcast_arrays``) have tangent zero; lists holding values being differentiated are
  made arrays first (``np.array``'s rule). ``select``'s conditions, split points, ``k``,
  axes and ``pad_width`` are constants (NoRuleError otherwise).
* ``pad``: differentiable in the array only; ``constant_values``, ``end_values`` and
  ``stat_length`` must be constants (NoRuleError otherwise), so the padding of
  ``'constant'`` and ``'linear_ramp'`` has the tangent those modes give 0. ``'edge'``,
  ``'wrap'``, ``'reflect'``, ``'symmetric'`` (either ``reflect_type``) and ``'mean'`` are
  linear maps of the array; ``'empty'`` gives the padding (undefined values) tangent 0.
  ``'maximum'``, ``'minimum'``, ``'median'`` and a function as mode are differentiated through
  NumPy's own code: the padding takes the tangent of the elements the statistic picks (ties
  as ``np.max``/``np.min``/``np.median`` break them).
* ``piecewise`` is differentiated through NumPy's code: each piece takes its function's
  derivative; the conditions are constants (at a boundary, the piece the condition picks).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.base import Context
from context.tagging import Tagged, enclosing_call, native_primitive
from context.tagging.values import primal

from ..engine import buffers
from ..engine.forward import ForwardCtx, NoRuleError, frule, wrap
from .arrays import _split_nested
from .linear import deflinear
from .shapes import bind
from .tangents import chunk_shape, lead, lead_axes, per_direction, shape_of, shift_axis


# ------------------------------------------------------------------ helpers


def _holds_tagged(v, depth=8):
    """Whether ``v`` is, or (lists, tuples) holds, a value being differentiated (any run)."""
    if isinstance(v, Tagged) or (type(v) is np.ndarray and buffers.has_shadow(v)):
        return True
    if depth and type(v) in (list, tuple):
        return any(_holds_tagged(e, depth - 1) for e in v)
    return False


def _arrayed(ctx, a):
    """``a``, made an array by ``np.array``'s rule if it is a list or tuple holding values being differentiated."""
    if type(a) in (list, tuple) and _holds_tagged(a):
        return Context.overdub(ctx, np.array, a)
    return a


def _tangent_dtype(gs):
    return np.result_type(*[primal(g) for g in gs if g is not None])


def _zero(x, chunk, dtype):
    return np.zeros(tuple(chunk) + tuple(shape_of(x)), dtype=dtype)


def _first_chunk(primals, tangents):
    for x, g in zip(primals, tangents):
        if g is not None:
            return chunk_shape(g, x)
    return ()


# ------------------------------------------------------------------ flips, rotations, axes


@frule(np.flipud)
def _flipud(primals, tangents, **kwargs):
    x, g, opts = bind(np.flipud, ("m",), primals, tangents, kwargs)
    return np.flipud(x), np.flip(g, axis=lead(g, x))


@frule(np.fliplr)
def _fliplr(primals, tangents, **kwargs):
    x, g, opts = bind(np.fliplr, ("m",), primals, tangents, kwargs)
    return np.fliplr(x), np.flip(g, axis=lead(g, x) + 1)


@frule(np.rot90)
def _rot90(primals, tangents, **kwargs):
    x, g, opts = bind(np.rot90, ("m", "k", "axes"), primals, tangents, kwargs)
    out = np.rot90(x, **opts)
    nd, n = len(shape_of(x)), lead(g, x)
    axes = tuple(shift_axis(a, nd, n) for a in opts.get("axes", (0, 1)))
    return out, np.rot90(g, opts.get("k", 1), axes=axes)


@frule(np.rollaxis)
def _rollaxis(primals, tangents, **kwargs):
    x, g, opts = bind(np.rollaxis, ("a", "axis", "start"), primals, tangents, kwargs)
    out = np.rollaxis(x, **opts)
    nd, n = len(shape_of(x)), lead(g, x)
    axis = normalize_axis_index(int(opts["axis"]), nd)
    start = int(opts.get("start", 0))
    start = start + nd if start < 0 else start
    return out, np.rollaxis(g, axis + n, start + n)


# ------------------------------------------------------------------ splitting


def _splitting(fn, axis_of):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = bind(fn, ("ary", "indices_or_sections"), primals, tangents, kwargs)
        out = fn(x, **opts)
        nd = len(shape_of(x))
        return out, np.split(g, opts["indices_or_sections"], axis=axis_of(nd) + lead(g, x))

    return rule


_splitting(np.hsplit, lambda nd: 1 if nd > 1 else 0)
_splitting(np.vsplit, lambda nd: 0)
_splitting(np.dsplit, lambda nd: 2)


# ------------------------------------------------------------------ triangles and diagonals


def _triangle(fn):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = bind(fn, ("m", "k"), primals, tangents, kwargs)
        out = fn(x, **opts)
        n = lead(g, x)
        if n and len(shape_of(x)) < 2:  # a vector's rows are copies of it: the chunk axis must stay first
            g = np.broadcast_to(g[lead_axes(n) + (None,)], chunk_shape(g, x) + shape_of(out))
        return out, fn(g, opts.get("k", 0))

    return rule


_triangle(np.tril)
_triangle(np.triu)


@frule(np.diag)
def _diag(primals, tangents, **kwargs):
    """A vector's diagonal matrix (new memory), or a matrix's diagonal (a read-only view, as NumPy's)."""
    x, g, opts = bind(np.diag, ("v", "k"), primals, tangents, kwargs)
    out = np.diag(x, **opts)
    k = opts.get("k", 0)
    n = lead(g, x)
    if len(shape_of(x)) == 1:
        return out, per_direction(np.diag, g, n, k)
    return out, np.diagonal(g, k, n, n + 1)


deflinear(np.diagflat)


# ------------------------------------------------------------------ broadcasting


def _broadcast(*args, subok=False):
    """``np.broadcast_arrays``, with lists holding values being differentiated already arrays."""
    return np.broadcast_arrays(*args, subok=subok)


@frule(_broadcast)
def _broadcast_rule(primals, tangents, **kwargs):
    """Each tangent broadcast as its value: a view of it (read-only where it repeats elements:
    NumPy's results only warn on such writes, deprecated), the input's tangent itself where
    NumPy returns the input itself."""
    outs = np.broadcast_arrays(*primals, **kwargs)
    ts = []
    for o, x, g in zip(outs, primals, tangents):
        if g is None or o is x:
            ts.append(g)
            continue
        chunk, xshape, shape = chunk_shape(g, x), tuple(shape_of(x)), tuple(shape_of(o))
        g = np.reshape(g, chunk + (1,) * (len(shape) - len(xshape)) + xshape)  # a view
        ts.append(g if xshape == shape else np.broadcast_to(g, chunk + shape))
    return outs, tuple(ts)


@ForwardCtx.primitive(np.broadcast_arrays)
@native_primitive
def _broadcast_arrays(ctx, *args, **kwargs):
    return Context.overdub(ctx, _broadcast, *[_arrayed(ctx, a) for a in args], **kwargs)


# ------------------------------------------------------------------ append


def _appended(arr, values, axis=None):
    """``np.append``, with lists holding values being differentiated already arrays."""
    return np.append(arr, values, axis)


@frule(_appended)
def _appended_rule(primals, tangents, **kwargs):
    if len(primals) > 3:
        raise TypeError("numpy.append takes at most 3 positional arguments")
    if len(tangents) > 2 and tangents[2] is not None:
        raise NoRuleError("numpy.append: axis must be a constant")
    arr, values = primals[:2]
    axis = primals[2] if len(primals) > 2 else kwargs.get("axis")
    out = np.append(arr, values, axis)
    chunk = _first_chunk(primals[:2], tangents[:2])
    n = len(chunk)
    dtype = _tangent_dtype(tangents[:2])
    ga, gv = (_zero(x, chunk, dtype) if g is None else g for x, g in zip((arr, values), tangents[:2]))
    if axis is None:
        ga, gv = (np.reshape(g, chunk + (-1,)) for g in (ga, gv))
        return out, np.concatenate((ga, gv), axis=n)
    return out, np.concatenate((ga, gv), axis=shift_axis(axis, len(shape_of(arr)), n))


@ForwardCtx.primitive(np.append)
@native_primitive
def _append(ctx, arr, values, axis=None):
    return Context.overdub(ctx, _appended, _arrayed(ctx, arr), _arrayed(ctx, values), axis)


# ------------------------------------------------------------------ select


def _selected(condlist, choicelist, default=0):
    """``np.select``, with lists holding values being differentiated already arrays."""
    return np.select(condlist, choicelist, default)


@frule(_selected, sequences=(0, 1))
def _selected_rule(primals, tangents, **kwargs):
    condlist, choicelist = primals[:2]
    default = primals[2] if len(primals) > 2 else kwargs.get("default", 0)
    if any(t is not None for t in tangents[0]):
        raise NoRuleError("numpy.select: the conditions must be constants")
    out = np.select(condlist, choicelist, default)
    xs = list(choicelist) + [default]
    gs = list(tangents[1]) + [tangents[2] if len(tangents) > 2 else None]
    chunk = _first_chunk(xs, gs)
    dtype = _tangent_dtype(gs)
    nd = len(shape_of(out))
    lined = [
        np.zeros((), dtype=dtype) if g is None
        else np.reshape(g, chunk + (1,) * (nd - len(shape_of(x))) + tuple(shape_of(x)))
        for x, g in zip(xs, gs)
    ]
    return out, np.select(condlist, lined[:-1], lined[-1])


@ForwardCtx.primitive(np.select)
@native_primitive
def _select(ctx, condlist, choicelist, default=0):
    choices = [_arrayed(ctx, c) for c in choicelist]
    return Context.overdub(ctx, _selected, list(condlist), choices, _arrayed(ctx, default))


# ------------------------------------------------------------------ block


def _block_leaves(primals, tangents, pick):
    if isinstance(tangents, list):
        return [_block_leaves(p, d, pick) for p, d in zip(primals, tangents)]
    return pick(primals, tangents)


def _block_tangent(primals, tangents, chunk, dtype):
    def direction(i):
        def pick(p, d):
            if d is None:
                return np.zeros(shape_of(p), dtype=dtype)
            return d if i is None else d[i]

        return np.block(_block_leaves(primals, tangents, pick))

    if not chunk:
        return direction(None)
    return np.stack([direction(i) for i in range(chunk[0])])


@ForwardCtx.primitive(np.block)
@native_primitive
def _block(ctx, arrays):
    """The blocks' tangents (zero for constants) joined as the blocks, one chunk direction at a time."""
    t = ctx._tag
    found = []
    primals, tangents = _split_nested(arrays, t, found)
    if not found:
        return enclosing_call(t, np.block, (arrays,))
    out = enclosing_call(t, np.block, (primals,))
    first = found[0]
    chunk = chunk_shape(first.meta, first.value)
    dtype = np.result_type(*[primal(f.meta) for f in found])
    return wrap(t, out, enclosing_call(t, _block_tangent, (primals, tangents, chunk, dtype)))


# ------------------------------------------------------------------ pad


_LINEAR_PADS = ("constant", "edge", "wrap", "reflect", "symmetric", "mean", "linear_ramp", "empty")


def _padded(array, pad_width, mode="constant", **kwargs):
    """``np.pad`` in a mode linear in the array, with constant options."""
    return np.pad(array, pad_width, mode, **kwargs)


def _pairs(width, nd):
    """``pad_width`` (valid: NumPy took it) as one ``(before, after)`` pair per axis."""
    if isinstance(width, dict):
        pairs = [(0, 0)] * nd
        for axis, w in width.items():
            pairs[axis] = (w, w) if isinstance(w, int) else tuple(w)
        return pairs
    return [tuple(int(v) for v in row) for row in np.broadcast_to(np.asarray(width), (nd, 2))]


@frule(_padded)
def _padded_rule(primals, tangents, **kwargs):
    """The tangent padded in the same mode, with the constants of ``constant``/``linear_ramp`` 0."""
    x, g, opts = bind(np.pad, ("array", "pad_width", "mode"), primals, tangents, kwargs)
    out = np.pad(x, **opts)
    mode = opts.get("mode", "constant")
    tmode = "constant" if mode == "empty" else mode
    extra = {k: opts[k] for k in ("reflect_type", "stat_length") if k in opts}
    n = lead(g, x)
    if n and extra.get("stat_length") is not None:
        return out, per_direction(np.pad, g, n, opts["pad_width"], tmode, **extra)
    width = [(0, 0)] * n + _pairs(opts["pad_width"], len(shape_of(x)))
    return out, np.pad(g, width, tmode, **extra)


@ForwardCtx.primitive(np.pad)
@native_primitive
def _pad(ctx, array, pad_width, mode="constant", **kwargs):
    if _holds_tagged(pad_width) or _holds_tagged(mode):
        raise NoRuleError("numpy.pad: pad_width and mode must be constants")
    for key, value in kwargs.items():
        if _holds_tagged(value):
            raise NoRuleError(
                "numpy.pad is differentiable in the array only, and %s= carries a derivative: make it a "
                "constant, or build a border that depends on the values with np.concatenate or np.block" % key
            )
    if isinstance(mode, str) and mode in _LINEAR_PADS:
        return Context.overdub(ctx, _padded, _arrayed(ctx, array), pad_width, mode, **kwargs)
    # order statistics (maximum, minimum, median) and functions: NumPy's own code, differentiated
    return Context.overdub(ctx, np.pad._implementation, array, pad_width, mode, **kwargs)


# ------------------------------------------------------------------ piecewise


@ForwardCtx.primitive(np.piecewise)
@native_primitive
def _piecewise(ctx, x, condlist, funclist, *args, **kw):
    """NumPy's own code, differentiated: each piece is its function's value on the selected elements."""
    if _holds_tagged(condlist):
        raise NoRuleError("numpy.piecewise: the conditions must be constants (booleans)")
    return Context.overdub(ctx, np.piecewise._implementation, x, condlist, funclist, *args, **kw)
