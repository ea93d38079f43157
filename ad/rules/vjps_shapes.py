"""Reverse-mode rules for NumPy's shape, indexing, joining and building functions.

Each cotangent is the transpose of the forward rule's linear map, written with NumPy calls
that have forward rules (so that forward over reverse differentiates them): a permutation of
axes is undone (``moveaxis``, ``rollaxis``, ``flip``, ``rot90``, ``roll``), repeated elements sum
their cotangents (``tile``, ``repeat``, ``broadcast_to``, ``take``, ``take_along_axis``, ``pad``'s
``edge``/``wrap``/``reflect``/``symmetric``), the parts of a whole take their slice of it
(``hstack``/``vstack``/``dstack``/``column_stack``, ``append``) and the pieces of a split are
padded back with zeros, as are a matrix's diagonal (``diag``) and ``pad``'s input. Functions returning
lists (``split``, ``array_split``, ``hsplit``/``vsplit``/``dsplit``, ``broadcast_arrays``,
``atleast_1d``/``2d``/``3d`` of several arrays) are primitives giving each piece its own node.

Indices, axes, counts, shapes and ``pad_width`` are constants (NoRuleError otherwise), and so
are ``pad``'s ``constant_values``/``end_values``. Raise NoRuleError: ``pad`` in the modes
``mean``, ``linear_ramp``, ``maximum``, ``minimum``, ``median``, a function, or
``reflect_type='odd'`` (use ``ad.ForwardMode()``); nested lists of parts in the stacking
functions. Real values only, as reverse mode: ``real`` passes the cotangent on, ``imag`` has
derivative zero; ``full``/``full_like`` send the cotangent to the fill value.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.base import Context
from context.tagging import Tagged, enclosing_call, native_primitive
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import Node, ReverseCtx, defvjp, make_traced
from ..engine.reverse import split as traced_args
from .layout import _appended, _arrayed, _padded, _pairs
from .pullbacks import _number, unbroadcast
from .shapes import _at_least, _column
from .vjps import _parts, zeros_for

ND = NOT_DIFFERENTIABLE


def _shape(x):
    return np.shape(primal(x))


def as_arg(g, x):
    """Cotangent ``g`` in the shape of argument ``x`` (a number for a number)."""
    g = np.reshape(g, _shape(x))
    return g if isinstance(primal(x), np.ndarray) else _number(g)


def _axis_key(ax, key):
    return (slice(None),) * ax + (key,)


def _scattered(u, shape, ax, idx):
    """Zeros of ``shape`` with ``u`` added at index array ``idx`` along axis ``ax`` (repeats accumulate)."""
    z = zeros_for(shape, u)
    np.add.at(z, _axis_key(ax, idx), u)
    return z


def _flat_or(x, axis):
    """``(shape, axis)`` the function works on: the raveled array for ``axis=None``."""
    shape = _shape(x)
    if axis is None:
        return (int(np.prod(shape)),), 0
    return shape, normalize_axis_index(int(axis), len(shape))


# ------------------------------------------------------------------ axes, flips, rolls


def _rollaxis_vjp(u, ans, a, axis, start=0):
    nd = len(_shape(a))
    axis = normalize_axis_index(int(axis), nd)
    start = int(start) + nd if start < 0 else int(start)
    if axis < start:
        start -= 1
    return np.moveaxis(u, start, axis)


def _negated(shift):
    return tuple(-int(s) for s in shift) if np.iterable(shift) else -shift


defvjp(np.moveaxis, lambda u, ans, a, source, destination: np.moveaxis(u, destination, source), ND)
defvjp(np.rollaxis, _rollaxis_vjp, ND)
defvjp(np.flip, lambda u, ans, m, axis=None: np.flip(u, axis), ND)
defvjp(np.flipud, lambda u, ans, m: np.flipud(u))
defvjp(np.fliplr, lambda u, ans, m: np.fliplr(u))
defvjp(np.rot90, lambda u, ans, m, k=1, axes=(0, 1): np.rot90(u, -k, axes), ND)
defvjp(np.roll, lambda u, ans, a, shift, axis=None: np.roll(u, _negated(shift), axis), ND)


# ------------------------------------------------------------------ repeating, broadcasting


def _tile_vjp(u, ans, A, reps):
    shape = _shape(A)
    reps = tuple(int(r) for r in reps) if np.iterable(reps) else (int(reps),)
    d = max(len(reps), len(shape))
    s, r = (1,) * (d - len(shape)) + tuple(shape), (1,) * (d - len(reps)) + reps
    u = np.reshape(u, tuple(n for pair in zip(r, s) for n in pair))  # (copies, element) per axis
    return as_arg(np.sum(u, axis=tuple(range(0, 2 * d, 2))), A)


def _repeat_vjp(u, ans, a, repeats, axis=None):
    shape, ax = _flat_or(a, axis)
    n = shape[ax]
    counts = np.asarray(repeats)
    if counts.size == 1:  # the same count for each element: sum over the copies
        u = np.reshape(u, shape[:ax] + (n, int(counts.reshape(()))) + shape[ax + 1:])
        return as_arg(np.sum(u, axis=ax + 1), a)
    return as_arg(_scattered(u, shape, ax, np.repeat(np.arange(n), counts)), a)


defvjp(np.tile, _tile_vjp, ND)
defvjp(np.repeat, _repeat_vjp, ND)
defvjp(np.broadcast_to, lambda u, ans, array, shape, subok=False: unbroadcast(u, array), ND)


# ------------------------------------------------------------------ taking


def _take_vjp(u, ans, a, indices, axis=None, out=None, mode="raise"):
    shape, ax = _flat_or(a, axis)
    idx = np.asarray(indices)
    if mode == "wrap":
        idx = idx % shape[ax]
    elif mode == "clip":
        idx = np.clip(idx, 0, shape[ax] - 1)
    return as_arg(_scattered(u, shape, ax, idx), a)


def _take_along_axis_vjp(u, ans, arr, indices, axis=-1):
    shape, ax = _flat_or(arr, axis)
    nd = len(shape)
    key = tuple(
        np.asarray(indices) if d == ax else np.reshape(np.arange(shape[d]), (1,) * d + (-1,) + (1,) * (nd - d - 1))
        for d in range(nd)
    )
    z = zeros_for(shape, u)
    np.add.at(z, key, u)
    return as_arg(z, arr)


defvjp(np.take, _take_vjp, ND)
defvjp(np.take_along_axis, _take_along_axis_vjp, ND)


# ------------------------------------------------------------------ diagonals, triangles


def _diag_vjp(u, ans, v, k=0):
    shape = _shape(v)
    if len(shape) == 1:
        return np.diagonal(u, k)
    rows, cols = shape
    r0, c0, n = max(-k, 0), max(k, 0), _shape(u)[0]
    if n == 0:
        return np.zeros(shape)
    return np.pad(np.diag(u), ((r0, rows - r0 - n), (c0, cols - c0 - n)))


defvjp(np.diag, _diag_vjp, ND)
defvjp(np.tril, lambda u, ans, m, k=0: unbroadcast(np.tril(u, k), m), ND)  # a vector: its rows summed
defvjp(np.triu, lambda u, ans, m, k=0: unbroadcast(np.triu(u, k), m), ND)


# ------------------------------------------------------------------ filling, real and imaginary parts

defvjp(np.full_like, None, lambda u, ans, a, fill_value, *args, **kwargs: unbroadcast(u, fill_value), ND)
defvjp(np.full, ND, lambda u, ans, shape, fill_value, *args, **kwargs: unbroadcast(u, fill_value), ND)
defvjp(np.real, lambda u, ans, val: as_arg(u, val))
defvjp(np.imag, None)


# ------------------------------------------------------------------ pad, append


def _mine(ctx, v, depth=8):
    """Whether ``v`` is, or (lists, tuples) holds, a value this run differentiates."""
    if isinstance(v, Tagged):
        return v.tag is ctx._tag
    return bool(depth) and type(v) in (list, tuple) and any(_mine(ctx, e, depth - 1) for e in v)


_GATHER_PADS = ("edge", "wrap", "reflect", "symmetric")


def _padded_vjp(u, ans, array, pad_width, mode="constant", **kwargs):
    shape = _shape(array)
    if mode in ("constant", "empty"):
        return as_arg(u[tuple(slice(b, b + n) for (b, _), n in zip(_pairs(pad_width, len(shape)), shape))], array)
    source = np.pad(np.reshape(np.arange(int(np.prod(shape))), shape), pad_width, mode)  # each element's origin
    z = zeros_for(int(np.prod(shape)), u)
    np.add.at(z, source, u)
    return as_arg(z, array)


defvjp(_padded, _padded_vjp, ND)


@ReverseCtx.primitive(np.pad)
@native_primitive
def _pad(ctx, array, pad_width, mode="constant", **kwargs):
    array = _arrayed(ctx, array)
    if not _mine(ctx, array) and not any(_mine(ctx, v) for v in kwargs.values()):
        return enclosing_call(ctx._tag, np.pad, (array, pad_width, mode), kwargs)
    if _mine(ctx, pad_width) or _mine(ctx, mode):
        raise NoRuleError("numpy.pad: pad_width and mode must be constants")
    for key, value in kwargs.items():
        if _mine(ctx, value):
            raise NoRuleError("numpy.pad is differentiable in the array only, and %s= carries a derivative" % key)
    even = kwargs.get("reflect_type", "even") == "even"
    if not (isinstance(mode, str) and (mode in ("constant", "empty") or (mode in _GATHER_PADS and even))):
        raise NoRuleError(
            "numpy.pad in mode %r%s has no reverse-mode rule (modes constant, empty, edge, wrap, reflect and "
            "symmetric have one); use ad.ForwardMode()" % (mode, "" if even else " with reflect_type='odd'")
        )
    return Context.overdub(ctx, _padded, array, pad_width, mode, **kwargs)


def _appended_arr(u, ans, arr, values, axis=None):
    if axis is None:
        return as_arg(u[:int(np.prod(_shape(arr)))], arr)
    ax = normalize_axis_index(int(axis), len(_shape(arr)))
    return u[_axis_key(ax, slice(0, _shape(arr)[ax]))]


def _appended_values(u, ans, arr, values, axis=None):
    if axis is None:
        return as_arg(u[int(np.prod(_shape(arr))):], values)
    ax = normalize_axis_index(int(axis), len(_shape(arr)))
    return u[_axis_key(ax, slice(_shape(arr)[ax], None))]


defvjp(_appended, _appended_arr, _appended_values, ND)


@ReverseCtx.primitive(np.append)
@native_primitive
def _append(ctx, arr, values, axis=None):
    return Context.overdub(ctx, _appended, _arrayed(ctx, arr), _arrayed(ctx, values), axis)


# ------------------------------------------------------------------ results that are lists of arrays


class _Placed:
    """The pullback of a piece: its cotangent padded with zeros to the input's shape."""

    __slots__ = ("widths",)

    def __init__(self, widths):
        self.widths = widths

    def __call__(self, u):
        return np.pad(u, self.widths)


class _Shaped:
    """The pullback of ``x`` broadcast (summed back) or given unit axes (reshaped back)."""

    __slots__ = ("x", "back")

    def __init__(self, x, back):
        self.x, self.back = x, back

    def __call__(self, u):
        return self.back(u, self.x)


def _piece(o, ctx, node, pull):
    if node is None or np.result_type(primal(o)).kind not in "fc":
        return o
    return make_traced(o, ctx._tag, Node(((node, pull),)))


def _only_first(fn, nodes):
    if any(n is not None for n in nodes[1:]):
        raise NoRuleError("numpy.%s: only the array may carry a derivative; the split points and axis are "
                          "constants" % fn.__name__)


def _splitting(fn, axis_of):
    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        primals, nodes, found = traced_args(ctx, args)
        _only_first(fn, nodes)
        outs = enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
        if not found:
            return outs
        shape = _shape(primals[0])
        ax = normalize_axis_index(int(axis_of(args, kwargs, len(shape))), len(shape))
        pieces, start = [], 0
        for o in outs:
            n = _shape(o)[ax]
            widths = [(0, 0)] * len(shape)
            widths[ax] = (start, shape[ax] - start - n)
            pieces.append(_piece(o, ctx, nodes[0], _Placed(tuple(widths))))
            start += n
        return type(outs)(pieces)

    return primitive


def _given_axis(args, kwargs, nd):
    return args[2] if len(args) > 2 else kwargs.get("axis", 0)


_splitting(np.split, _given_axis)
_splitting(np.array_split, _given_axis)
_splitting(np.hsplit, lambda args, kwargs, nd: 1 if nd > 1 else 0)
_splitting(np.vsplit, lambda args, kwargs, nd: 0)
_splitting(np.dsplit, lambda args, kwargs, nd: 2)


def _one_per_argument(fn, arrayed, back):
    """A primitive for ``fn(*arrays)``, whose result ``i`` is argument ``i`` broadcast or reshaped:
    ``back(u, x)`` is the cotangent of argument ``x``."""

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        if arrayed:
            args = [_arrayed(ctx, a) for a in args]
        primals, nodes, found = traced_args(ctx, args)
        outs = enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
        if not found:
            return outs
        if len(args) == 1 and fn is not np.broadcast_arrays:
            return _piece(outs, ctx, nodes[0], _Shaped(primals[0], back))
        return type(outs)(_piece(o, ctx, n, _Shaped(x, back)) for o, n, x in zip(outs, nodes, primals))

    return primitive


_one_per_argument(np.broadcast_arrays, True, unbroadcast)
for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):  # several arrays too (vjps.py's rules take one)
    _one_per_argument(_fn, False, as_arg)


# ------------------------------------------------------------------ stacking


class _Slab:
    """The pullback of part ``i`` of a stack: its slice along ``axis``, in the part's shape."""

    __slots__ = ("axis", "start", "stop", "x")

    def __init__(self, axis, start, stop, x):
        self.axis, self.start, self.stop, self.x = axis, start, stop, x

    def __call__(self, u):
        return as_arg(u[_axis_key(self.axis, slice(self.start, self.stop))], self.x)


def _stacking(fn, reshape, axis_of):
    """A primitive for ``fn(tup)``: the parts given unit axes by ``reshape``, joined along ``axis_of(shapes)``."""

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, tup, **kwargs):
        if type(tup) not in (list, tuple):
            if _mine(ctx, tup) and np.ndim(primal(tup)) >= 1:  # an array: the sequence of its slices along axis 0
                return primitive(ctx, [tup[i] for i in range(len(primal(tup)))], **kwargs)
            return enclosing_call(ctx._tag, fn, (tup,), kwargs)
        parts, found = _parts(ctx, tup)
        ans = enclosing_call(ctx._tag, fn, (parts,), kwargs)
        if not found or np.result_type(primal(ans)).kind not in "fc":
            return ans
        if any(len(index) != 1 for index, _ in found):
            raise NoRuleError("numpy.%s of nested lists holding values being differentiated has no reverse-mode "
                              "rule; make each part an array first (np.array)" % fn.__name__)
        shapes = [reshape(_shape(p)) for p in parts]
        ax = axis_of(shapes)
        starts = np.cumsum([0] + [s[ax] for s in shapes]).tolist()
        i_of = [index[0] for index, _ in found]
        parents = tuple((node, _Slab(ax, starts[i], starts[i + 1], parts[i])) for i, (_, node) in zip(i_of, found))
        return make_traced(ans, ctx._tag, Node(parents))

    return primitive


_stacking(np.vstack, lambda s: _at_least(s, 2), lambda shapes: 0)
_stacking(np.hstack, lambda s: _at_least(s, 1), lambda shapes: 0 if len(shapes[0]) == 1 else 1)
_stacking(np.dstack, lambda s: _at_least(s, 3), lambda shapes: 2)
_stacking(np.column_stack, _column, lambda shapes: 1)
