"""Derivative rules for NumPy's shape functions: reshaping, transposing, joining, splitting,
flipping, rolling, tiling, taking, and conversions (``copy``, ``asarray``, ``real``).

All of them are linear: the tangent is the same operation applied to the tangent, with
the axes shifted past the chunk axis. Memory follows the primal: a result that NumPy
makes as a view of the input (``reshape`` where it can, ``transpose``, ``ravel`` of a
contiguous array, ``squeeze``, ``split``, ``diagonal``...) gets the same view of the input's
tangent, so a write through it reaches the tangent; a new array gets a tangent of its own.
One gap: where the tangent is laid out in memory unlike the primal (a tangent given in
another order), ``reshape``/``ravel`` can give a view of the primal and a copy of the
tangent; writes through that result then miss the tangent.

Constants in the sequences of ``concatenate``, ``stack``, ``vstack``, ``hstack``,
``dstack`` and ``column_stack`` have tangent zero. Indices (``take``, ``take_along_axis``,
``repeat``'s counts) must be constants. ``asarray``/``asanyarray``/``ascontiguousarray``
return a value being differentiated as it is (same value and tangent objects) and raise
NoRuleError for a dtype that is not float or complex (it would truncate). ``np.split`` and
``np.array_split`` return lists, as NumPy does.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from context.tagging import dispatch, native_primitive
from context.tagging.values import primal

from ..engine.forward import ForwardCtx, NoRuleError, defjvp, frule
from .tangents import chunk_shape, lead, shape_of, shift_axis

ndarray = np.ndarray


# ------------------------------------------------------------------ helpers (reductions uses them too)


def name_of(fn):
    module = getattr(fn, "__module__", None)
    return "np.%s%s" % ("linalg." if module == "numpy.linalg" else "", fn.__name__)


def bind(fn, names, primals, tangents, kwargs):
    """``(x, g, options)``: the array argument, its tangent, and the other arguments by name."""
    if len(primals) > len(names):
        raise TypeError("%s takes at most %d positional arguments" % (name_of(fn), len(names)))
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError(
            "%s: only the array argument may carry a derivative, %s must be a constant"
            % (name_of(fn), ", ".join(names[i] for i in range(1, len(tangents)) if tangents[i] is not None))
        )
    opts = dict(zip(names[1:], primals[1:]))
    for key in kwargs:
        if key in opts:
            raise TypeError("%s got multiple values for argument '%s'" % (name_of(fn), key))
    if opts.get("out") is not None:
        raise TypeError("%s: give out= as a keyword argument while differentiating" % name_of(fn))
    opts.update(kwargs)
    return primals[0], tangents[0], opts


def _root(a):
    a = primal(a)
    if type(a) is not ndarray:
        return None
    while isinstance(a.base, ndarray):
        a = a.base
    return a


def _views(a, b):
    root = _root(a)
    return root is not None and root is _root(b)


def matched(out, x, t, g):
    """Tangent ``t`` of ``out`` (made from tangent ``g`` of ``x`` as ``out`` from ``x``) with memory
    of its own unless ``out`` is a view of ``x``."""
    if _views(t, g) and not _views(out, x):
        return np.copy(t)
    return t


def _as_tangent(g, n, shape):
    """Tangent ``g`` (``n`` chunk axes) reshaped to ``shape`` after its chunk axes (a view)."""
    return np.reshape(g, shape_of(g)[:n] + tuple(shape))


def _axis_list(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _order(x, order):
    """``'C'`` or ``'F'``: the index order ``order`` (``'C'``, ``'F'``, ``'A'``) stands for on ``x``."""
    if order in ("A", "a"):
        px = primal(x)
        fortran = type(px) is ndarray and px.flags.f_contiguous and not px.flags.c_contiguous
        return "F" if fortran else "C"
    return order


# ------------------------------------------------------------- reshaping


@frule(np.reshape)
def _reshape(primals, tangents, **kwargs):
    x, g, opts = bind(np.reshape, ("a", "shape", "order"), primals, tangents, kwargs)
    out = np.reshape(x, **opts)
    n = lead(g, x)
    t = np.reshape(g, shape_of(g)[:n] + shape_of(out), order=_order(x, opts.get("order", "C")))
    return out, matched(out, x, t, g)


@frule(np.ravel)
def _ravel(primals, tangents, **kwargs):
    """Order ``'K'`` reads the elements in memory order: the axes sorted by decreasing |stride|."""
    x, g, opts = bind(np.ravel, ("a", "order"), primals, tangents, kwargs)
    out = np.ravel(x, **opts)
    n = lead(g, x)
    order = _order(x, opts.get("order", "C"))
    px = primal(x)
    if order in ("K", "k") and type(px) is ndarray:
        perm = np.argsort(-np.abs(np.array(px.strides, dtype=np.int64)), kind="stable")
        g = np.transpose(g, tuple(range(n)) + tuple(int(p) + n for p in perm))
        order = "C"
    elif order in ("K", "k"):
        order = "C"
    t = np.reshape(g, shape_of(g)[:n] + (-1,), order=order)
    return out, matched(out, x, t, g)


def _reshaped(fn, names):
    """A rule for ``fn``, whose result is the input with unit axes added or removed."""

    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = bind(fn, names, primals, tangents, kwargs)
        out = fn(x, **opts)
        t = _as_tangent(g, lead(g, x), shape_of(out))
        return out, matched(out, x, t, g)

    return rule


_reshaped(np.squeeze, ("a", "axis"))
_reshaped(np.expand_dims, ("a", "axis"))


def _atleast(fn):
    @frule(fn)
    def rule(primals, tangents):
        out = fn(*primals)
        outs = out if len(primals) != 1 else (out,)
        ts = tuple(
            None if g is None else matched(o, x, _as_tangent(g, lead(g, x), shape_of(o)), g)
            for o, x, g in zip(outs, primals, tangents)
        )
        return out, (ts if len(primals) != 1 else ts[0])

    return rule


for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    _atleast(_fn)


@frule(np.broadcast_to)
def _broadcast_to(primals, tangents, **kwargs):
    """A read-only view of the tangent, as the value is one of the input."""
    x, g, opts = bind(np.broadcast_to, ("array", "shape", "subok"), primals, tangents, kwargs)
    out = np.broadcast_to(x, **opts)
    n = lead(g, x)
    shape, xshape = shape_of(out), shape_of(x)
    chunk = shape_of(g)[:n]
    t = np.broadcast_to(np.reshape(g, chunk + (1,) * (len(shape) - len(xshape)) + xshape), chunk + shape)
    return out, t


# ------------------------------------------------------------ axes


@frule(np.transpose)
def _transpose(primals, tangents, **kwargs):
    x, g, opts = bind(np.transpose, ("a", "axes"), primals, tangents, kwargs)
    out = np.transpose(x, **opts)
    nd = len(shape_of(x))
    n = lead(g, x)
    axes = opts.get("axes")
    axes = range(nd - 1, -1, -1) if axes is None else [normalize_axis_index(int(a), nd) for a in axes]
    return out, np.transpose(g, tuple(range(n)) + tuple(a + n for a in axes))


@frule(np.moveaxis)
def _moveaxis(primals, tangents, **kwargs):
    x, g, opts = bind(np.moveaxis, ("a", "source", "destination"), primals, tangents, kwargs)
    out = np.moveaxis(x, **opts)
    nd = len(shape_of(x))
    n = lead(g, x)
    src = [a + n for a in normalize_axis_tuple(opts["source"], nd, "source")]
    dst = [a + n for a in normalize_axis_tuple(opts["destination"], nd, "destination")]
    return out, np.moveaxis(g, src, dst)


@frule(np.swapaxes)
def _swapaxes(primals, tangents, **kwargs):
    x, g, opts = bind(np.swapaxes, ("a", "axis1", "axis2"), primals, tangents, kwargs)
    out = np.swapaxes(x, **opts)
    nd = len(shape_of(x))
    n = lead(g, x)
    return out, np.swapaxes(g, shift_axis(opts["axis1"], nd, n), shift_axis(opts["axis2"], nd, n))


@frule(np.diagonal)
def _diagonal(primals, tangents, **kwargs):
    """A read-only view of the tangent's diagonal, as NumPy gives of the value's."""
    x, g, opts = bind(np.diagonal, ("a", "offset", "axis1", "axis2"), primals, tangents, kwargs)
    out = np.diagonal(x, **opts)
    nd = len(shape_of(x))
    n = lead(g, x)
    axis1 = shift_axis(opts.get("axis1", 0), nd, n)
    axis2 = shift_axis(opts.get("axis2", 1), nd, n)
    return out, np.diagonal(g, opts.get("offset", 0), axis1, axis2)


@frule(np.flip)
def _flip(primals, tangents, **kwargs):
    x, g, opts = bind(np.flip, ("m", "axis"), primals, tangents, kwargs)
    out = np.flip(x, **opts)
    n = lead(g, x)
    return out, np.flip(g, axis=shift_axis(_axis_list(opts.get("axis")), len(shape_of(x)), n))


@frule(np.roll)
def _roll(primals, tangents, **kwargs):
    x, g, opts = bind(np.roll, ("a", "shift", "axis"), primals, tangents, kwargs)
    out = np.roll(x, **opts)
    n = lead(g, x)
    axis = _axis_list(opts.get("axis"))
    if axis is None:  # the flattened array, rolled, in the input's shape
        flat = np.roll(_as_tangent(g, n, (-1,)), opts["shift"], axis=n)
        return out, np.reshape(flat, shape_of(g))
    return out, np.roll(g, opts["shift"], axis=shift_axis(axis, len(shape_of(x)), n))


# ------------------------------------------------------------ conversions


@frule(np.real)
def _real(primals, tangents):
    out = np.real(primals[0])
    return out, matched(out, primals[0], np.real(tangents[0]), tangents[0])


@frule(np.imag)
def _imag(primals, tangents):
    out = np.imag(primals[0])
    return out, matched(out, primals[0], np.imag(tangents[0]), tangents[0])


@frule(np.copy)
def _copy(primals, tangents, **kwargs):
    x, g, opts = bind(np.copy, ("a", "order", "subok"), primals, tangents, kwargs)
    return np.copy(x, **opts), np.copy(g, order=opts.get("order", "K"))


@frule(np.ndarray.__copy__)
def _copy_special(primals, tangents):
    """``copy.copy(a)`` of an array (the copy module calls ``ndarray.__copy__``)."""
    return np.copy(primals[0]), np.copy(tangents[0])


@frule(np.ndarray.__deepcopy__)
def _deepcopy_special(primals, tangents):
    """``copy.deepcopy(a)`` of a float or complex array: a copy of the value and of the tangent."""
    return np.copy(primals[0]), np.copy(tangents[0])


# copies of NumPy scalars: the same number (copy.copy sees np.float64's methods for a scalar's)
defjvp(np.generic.__copy__, lambda g, ans, x: g)
defjvp(np.generic.__deepcopy__, lambda g, ans, x, memo: g, None)


def _as_array(fn, names):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = bind(fn, names, primals, tangents, kwargs)
        dtype = opts.get("dtype")
        if dtype is not None and np.dtype(dtype).kind not in "fc":
            raise NoRuleError(
                "%s(..., dtype=%s) would truncate a value being differentiated and drop its derivative; "
                "round it first (np.floor, np.rint: derivative 0) or keep a float dtype"
                % (name_of(fn), np.dtype(dtype))
            )
        out = fn(x, **opts)
        if out is x:
            return x, g
        topts = {k: v for k, v in opts.items() if k in ("dtype", "order", "copy")}
        t = _as_tangent(fn(g, **topts), lead(g, x), shape_of(out))
        return out, matched(out, x, t, g)

    return rule


_as_array(np.asarray, ("a", "dtype", "order"))
_as_array(np.asanyarray, ("a", "dtype", "order"))
_as_array(np.ascontiguousarray, ("a", "dtype"))


# ------------------------------------------------------------ joining


def _joined(fn, names, primals, tangents, kwargs):
    """``(out, tangents, n, options)`` for a function of a sequence: constants get zero tangents."""
    xs, gs = primals[0], tangents[0]
    if len(primals) > len(names):
        raise TypeError("%s takes at most %d positional arguments" % (name_of(fn), len(names)))
    opts = dict(zip(names[1:], primals[1:]))
    opts.update(kwargs)
    out = fn(xs, **opts)
    dtype = opts.get("dtype")
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        return out, None, 0, opts
    tagged = [(x, g) for x, g in zip(xs, gs) if g is not None]
    if not tagged:
        raise NoRuleError("%s: only the arrays joined may carry a derivative" % name_of(fn))
    x0, g0 = tagged[0]
    chunk = chunk_shape(g0, x0)
    tdtype = getattr(primal(g0), "dtype", float)
    ts = [np.zeros(chunk + shape_of(x), dtype=tdtype) if g is None else g for x, g in zip(xs, gs)]
    return out, ts, len(chunk), opts


@frule(np.concatenate, sequences=(0,))
def _concatenate(primals, tangents, **kwargs):
    out, ts, n, opts = _joined(np.concatenate, ("arrays", "axis"), primals, tangents, kwargs)
    if ts is None:
        return out, None
    axis = opts.get("axis", 0)
    if axis is None:
        ts = [_as_tangent(t, n, (-1,)) for t in ts]
        axis = n
    else:
        axis = shift_axis(axis, len(shape_of(primals[0][0])), n)
    return out, np.concatenate(ts, axis=axis)


@frule(np.stack, sequences=(0,))
def _stack(primals, tangents, **kwargs):
    out, ts, n, opts = _joined(np.stack, ("arrays", "axis"), primals, tangents, kwargs)
    if ts is None:
        return out, None
    return out, np.stack(ts, axis=shift_axis(opts.get("axis", 0), len(shape_of(out)), n))


def _at_least(shape, ndim):
    """The shape ``np.atleast_{ndim}d`` gives an array of ``shape``."""
    shape = tuple(shape)
    if len(shape) >= ndim:
        return shape
    if ndim < 3:
        return (1,) * (ndim - len(shape)) + shape
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def _column(shape):
    return _at_least(shape, 2) if len(shape) != 1 else tuple(shape) + (1,)


def _stacking(fn, reshape, axis_of):
    """A rule for ``fn``: each entry reshaped by ``reshape`` (unit axes added), joined along ``axis_of(shapes)``."""

    @frule(fn, sequences=(0,))
    def rule(primals, tangents, **kwargs):
        out, ts, n, _ = _joined(fn, ("tup",), primals, tangents, kwargs)
        if ts is None:
            return out, None
        shapes = [reshape(shape_of(x)) for x in primals[0]]
        ts = [_as_tangent(t, n, s) for t, s in zip(ts, shapes)]
        return out, np.concatenate(ts, axis=axis_of(shapes) + n)

    return rule


_stacking(np.vstack, lambda s: _at_least(s, 2), lambda shapes: 0)
_stacking(np.hstack, lambda s: _at_least(s, 1), lambda shapes: 0 if len(shapes[0]) == 1 else 1)
_stacking(np.dstack, lambda s: _at_least(s, 3), lambda shapes: 2)
_stacking(np.column_stack, _column, lambda shapes: 1)


# ------------------------------------------------------------ splitting


def _pieces(split, ary, indices_or_sections, axis):
    """``split(...)`` as a tuple, so that the rule can give each piece its tangent."""
    return tuple(split(ary, indices_or_sections, axis))


@frule(_pieces)
def _pieces_rule(primals, tangents):
    split, x, sections, axis = primals
    g = tangents[1]
    if any(t is not None for t in tangents[2:]):
        raise NoRuleError("%s: indices_or_sections and axis must be constants" % name_of(split))
    out = tuple(split(x, sections, axis))
    n = lead(g, x)
    return out, tuple(split(g, sections, shift_axis(axis, len(shape_of(x)), n)))


def _splitting(split):
    @ForwardCtx.primitive(split)
    @native_primitive
    def primitive(ctx, ary, indices_or_sections, axis=0):
        return list(dispatch(_pieces, (split, ary, indices_or_sections, axis)))

    return primitive


_splitting(np.split)
_splitting(np.array_split)


# ------------------------------------------------------------ repeating and taking


@frule(np.tile)
def _tile(primals, tangents, **kwargs):
    x, g, opts = bind(np.tile, ("A", "reps"), primals, tangents, kwargs)
    out = np.tile(x, **opts)
    reps = opts["reps"]
    reps = tuple(reps) if np.iterable(reps) else (reps,)
    xshape = shape_of(x)
    n = lead(g, x)
    d = max(len(reps), len(xshape))
    g = _as_tangent(g, n, (1,) * (d - len(xshape)) + tuple(xshape))
    return out, np.tile(g, (1,) * (n + d - len(reps)) + reps)


@frule(np.repeat)
def _repeat(primals, tangents, **kwargs):
    x, g, opts = bind(np.repeat, ("a", "repeats", "axis"), primals, tangents, kwargs)
    out = np.repeat(x, **opts)
    n = lead(g, x)
    axis = opts.get("axis")
    if axis is None:
        return out, np.repeat(_as_tangent(g, n, (-1,)), opts["repeats"], axis=n)
    return out, np.repeat(g, opts["repeats"], axis=shift_axis(axis, len(shape_of(x)), n))


@frule(np.take)
def _take(primals, tangents, **kwargs):
    x, g, opts = bind(np.take, ("a", "indices", "axis", "out", "mode"), primals, tangents, kwargs)
    out = np.take(x, **opts)
    n = lead(g, x)
    axis = opts.get("axis")
    if axis is None:
        g, axis = _as_tangent(g, n, (-1,)), n
    else:
        axis = shift_axis(axis, len(shape_of(x)), n)
    return out, np.take(g, opts["indices"], axis=axis, mode=opts.get("mode", "raise"))


@frule(np.take_along_axis)
def _take_along_axis(primals, tangents, **kwargs):
    x, g, opts = bind(np.take_along_axis, ("arr", "indices", "axis"), primals, tangents, kwargs)
    out = np.take_along_axis(x, **opts)
    n = lead(g, x)
    idx = opts["indices"]
    idx = np.reshape(idx, (1,) * n + np.shape(idx))
    axis = opts.get("axis", -1)
    if axis is None:
        return out, np.take_along_axis(_as_tangent(g, n, (-1,)), idx, axis=n)
    return out, np.take_along_axis(g, idx, axis=shift_axis(axis, len(shape_of(x)), n))
