"""Reverse-mode rules (``defvjp``) for the most common functions whose forward rule is a whole
``frule``: sums and means, ``cumsum``, products, shapes, indexing, building arrays from parts, and
``ad.checkpoint``. The other families are in ``vjps_*.py`` (``vjps_reductions`` has ``max``/``min``).

Each entry gives the cotangent of one argument from the result's cotangent ``u``. Conventions
follow the forward rules: ``x[key]`` scatters the cotangent back with repeated indices
accumulating, and indices, axes and shapes are constants. The elementwise functions (ufuncs,
``math``, operators) need no entry: their pullbacks come from their forward rules
(``pullbacks.py``). Functions with no entry raise ``NoRuleError`` in reverse mode;
``ad.ForwardMode()`` differentiates them.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from context.state import STATE, native_call_ex
from context.tagging import Tagged, enclosing_call, native_primitive
from context.tagging.values import primal

from ..checkpoint import Recompute, checkpoint_call
from ..engine import reverse_writes
from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import Node, ReverseCtx, defvjp, make_traced, split
from ..engine.broadcast_sums import shape_of
from .pullbacks import unbroadcast
from .sparse_cotangents import getitem_vjp


def zeros_for(shape, like=None):
    """Zeros of ``shape`` that a cotangent ``like`` can be added into: complex when it is complex (see
    vjps_complex)."""
    return np.zeros(shape, dtype=complex if like is not None and np.iscomplexobj(primal(like)) else float)


def _zeros(x, like=None):
    """Zeros shaped like ``x`` (see ``zeros_for``)."""
    return zeros_for(shape_of(x), like)


# ------------------------------------------------------------------ indexing


defvjp(operator.getitem, getitem_vjp, NOT_DIFFERENTIABLE)  # an index carrying a derivative: an error


# ------------------------------------------------------------------ reductions


def _spread(u, x, axis, keepdims):
    """Cotangent ``u`` of a reduction over ``axis`` of ``x``, spread back over ``x``'s shape."""
    shape = shape_of(x)
    if axis is None and type(u) in _PLAIN_SCALARS and STATE.call_ex is native_call_ex:
        # a whole reduction's plain cotangent, no enclosing derivative: the view made directly
        one = np.asarray(u)
        view = np.ndarray(shape, one.dtype, one, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    if axis is not None and not keepdims:
        u = np.expand_dims(u, normalize_axis_tuple(axis, len(shape)))
    return np.broadcast_to(u, shape)  # a read-only view: cotangents are added into new arrays


_PLAIN_SCALARS = frozenset({float, np.float64, np.float32, complex, np.complex128})


def _sum_vjp(u, ans, x, axis=None, dtype=None, out=None, keepdims=False, **_):
    return _spread(u, x, axis, keepdims)


def _mean_vjp(u, ans, x, axis=None, dtype=None, out=None, keepdims=False, **_):
    shape = shape_of(x)
    count = np.prod([shape[a] for a in normalize_axis_tuple(axis, len(shape))]) if axis is not None else np.prod(shape)
    return _spread(u, x, axis, keepdims) / count


_sum_vjp.shape_only = _mean_vjp.shape_only = (0,)  # x is read for its shape: the tape keeps no copy of it
defvjp(np.sum, _sum_vjp, None)
defvjp(np.mean, _mean_vjp, None)


def _cumsum_vjp(u, ans, x, axis=None, dtype=None, out=None):
    if axis is None:
        return np.reshape(np.flip(np.cumsum(np.flip(u))), shape_of(x))
    return np.flip(np.cumsum(np.flip(u, axis), axis), axis)


defvjp(np.cumsum, _cumsum_vjp, None)


# ------------------------------------------------------------------ products


def _outer(a, b):
    """``a[..., None...] * b``: the outer product of arrays of any rank (``np.multiply.outer``,
    written with a broadcast product, whose rules every mode has)."""
    return np.reshape(a, np.shape(primal(a)) + (1,) * np.ndim(primal(b))) * b


def _dot_a(u, ans, a, b):
    """``dot(a, b)`` sums ``a``'s last axis against ``b``'s last (``b`` a vector) or second-to-last:
    ``u``'s axes after ``a``'s others are summed against ``b``'s other axes (any ranks)."""
    na, nb = np.ndim(primal(a)), np.ndim(primal(b))
    if na == 0 or nb == 0:
        return unbroadcast(u * b, a)
    if nb == 1:
        return _outer(u, b) if na >= 2 else u * b
    if na == 2 and nb == 2:
        return np.dot(u, np.transpose(b))
    rest_b = [ax for ax in range(nb) if ax != nb - 2]
    return np.tensordot(u, b, axes=(list(range(na - 1, na - 1 + len(rest_b))), rest_b))


def _dot_b(u, ans, a, b):
    na, nb = np.ndim(primal(a)), np.ndim(primal(b))
    if na == 0 or nb == 0:
        return unbroadcast(u * a, b)
    if na == 1 and nb <= 2:
        return _outer(a, u) if nb == 2 else u * a
    if na == 2 and nb <= 2:
        return np.dot(np.transpose(a), u)
    g = np.tensordot(a, u, axes=(list(range(na - 1)), list(range(na - 1))))  # (j, b's other axes...)
    return g if nb == 1 else np.moveaxis(g, 0, nb - 2)


defvjp(np.dot, _dot_a, _dot_b)


def _matmul_a(u, ans, a, b):
    na, nb = np.ndim(primal(a)), np.ndim(primal(b))
    if na <= 2 and nb <= 2:
        return _dot_a(u, ans, a, b)
    if na == 1:  # a vector times a stack: a row vector, its axis dropped from the result
        return unbroadcast(np.matmul(u[..., None, :], np.swapaxes(b, -1, -2))[..., 0, :], a)
    if nb == 1:  # a stack times a vector: a column vector
        return unbroadcast(u[..., :, None] * b, a)
    return unbroadcast(np.matmul(u, np.swapaxes(b, -1, -2)), a)


def _matmul_b(u, ans, a, b):
    na, nb = np.ndim(primal(a)), np.ndim(primal(b))
    if na <= 2 and nb <= 2:
        return _dot_b(u, ans, a, b)
    if na == 1:
        return unbroadcast(a[:, None] * u[..., None, :], b)
    if nb == 1:
        return unbroadcast(np.sum(a * u[..., :, None], axis=-2), b)
    return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), u), b)


defvjp(np.matmul, _matmul_a, _matmul_b)
defvjp(np.outer, lambda u, ans, a, b, out=None: np.reshape(np.dot(u, np.ravel(b)), shape_of(a)),
       lambda u, ans, a, b, out=None: np.reshape(np.dot(np.ravel(a), u), shape_of(b)))  # (out=None: np.linalg.outer's)


# ------------------------------------------------------------------ shapes


def _reshape_vjp(u, ans, a, shape=None, order="C", **_):
    if order not in ("C", "c"):
        raise NoRuleError("np.reshape with order=%r has no reverse-mode rule yet" % (order,))
    return np.reshape(u, shape_of(a))


def _back_to_shape(u, ans, a, *args, **kwargs):
    return np.reshape(u, shape_of(a))


defvjp(np.reshape, _reshape_vjp, None)
for _fn in (np.ravel, np.squeeze, np.expand_dims, np.atleast_1d, np.atleast_2d):
    defvjp(_fn, _back_to_shape, None)


def _transpose_vjp(u, ans, a, axes=None):
    if axes is None:
        return np.transpose(u)
    return np.transpose(u, np.argsort([int(i) % np.ndim(primal(a)) for i in axes]))


defvjp(np.transpose, _transpose_vjp, None)
defvjp(np.copy, lambda u, ans, a, *args, **kwargs: u, None)
defvjp(np.ndarray.__copy__, lambda u, ans, a: u)
defvjp(np.ndarray.__deepcopy__, lambda u, ans, a, memo: u, None)
defvjp(np.swapaxes, lambda u, ans, a, axis1, axis2: np.swapaxes(u, axis1, axis2), None, None)


defvjp(np.ndarray.astype, lambda u, ans, a, dtype, *args, **kwargs: u, None)  # float dtypes (int: no tangent)


# ------------------------------------------------------------------ building arrays from parts


def _parts(ctx, seq):
    """``(primals, [(index, node)])`` of a list or tuple (one level, or two for lists of lists)."""
    t = ctx._tag
    out, found = [], []
    for i, e in enumerate(seq):
        if type(e) in (list, tuple):
            inner, sub = _parts(ctx, e)
            out.append(inner)
            found.extend(((i,) + idx, node) for idx, node in sub)
        elif isinstance(e, Tagged) and e.tag is t:
            out.append(e.value)
            found.append(((i,), e.meta))
        else:
            out.append(e)
    return out, found


class _Take:
    """The pullback of one part: the cotangent at its index of the whole."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __call__(self, u):
        return u[self.index]


class _TakeAlong:
    """The pullback of part ``i`` of a concatenation: its slice along ``axis``."""

    __slots__ = ("start", "stop", "axis")

    def __init__(self, start, stop, axis):
        self.start, self.stop, self.axis = start, stop, axis

    def __call__(self, u):
        return np.take(u, np.arange(self.start, self.stop), axis=self.axis)


class _Within:
    """The pullback of an element of a nested list inside a part: the part's cotangent, then the element."""

    __slots__ = ("part", "index")

    def __init__(self, part, index):
        self.part, self.index = part, index

    def __call__(self, u):
        return self.part(u)[self.index]


class _TakeIndex:
    """The pullback of part ``i`` of a stack: its slice at ``i`` along ``axis``."""

    __slots__ = ("i", "axis")

    def __init__(self, i, axis):
        self.i, self.axis = i, axis

    def __call__(self, u):
        return np.take(u, self.i, axis=self.axis)


def _nested(part, index):
    """``part``, or the element ``index[1:]`` of it for a value inside a nested list."""
    return part if len(index) == 1 else _Within(part, index[1:])


def _built(ctx, fn, args, kwargs, parents_of):
    """``fn(seq, ...)`` recorded: ``parents_of(primal_seq, found, ans)`` gives the parents."""
    seq = args[0]
    if type(seq) not in (list, tuple):
        primals, nodes, found = split(ctx, args)
        if not found:
            return enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
        if fn is np.array or fn is np.asarray:  # an array being differentiated, copied (or not)
            ans = enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
            if primal(ans).dtype.kind not in "fc":
                return ans  # an integer or boolean result: no derivative
            return make_traced(ans, ctx._tag, Node(((nodes[0], lambda u: u),)))
        raise NoRuleError("%s of a single array being differentiated has no reverse-mode rule" % fn.__name__)
    primal_seq, found = _parts(ctx, seq)
    ans = enclosing_call(ctx._tag, fn, (primal_seq,) + tuple(args[1:]), kwargs)  # (tagged by enclosing derivatives)
    if not found or primal(ans).dtype.kind not in "fc":
        return ans  # (an integer or boolean result carries no derivative)
    return make_traced(ans, ctx._tag, Node(tuple(parents_of(primal_seq, found, ans))))


def _array_parents(primal_seq, found, ans):
    return [(node, _Take(index)) for index, node in found]


def _stack_parents(axis):
    def parents(primal_seq, found, ans):
        ax = axis % np.ndim(ans)
        return [(node, _nested(_TakeIndex(index[0], ax), index)) for index, node in found]

    return parents


def _concatenate_parents(axis):
    def parents(primal_seq, found, ans):
        if axis is None:
            raise NoRuleError("np.concatenate with axis=None has no reverse-mode rule yet")
        starts = np.cumsum([0] + [np.shape(p)[axis] for p in primal_seq])
        return [(node, _nested(_TakeAlong(starts[index[0]], starts[index[0] + 1], axis), index))
                for index, node in found]

    return parents


@ReverseCtx.primitive(np.array)
@native_primitive
def _array(ctx, obj, *args, **kwargs):
    return _built(ctx, np.array, (obj,) + args, kwargs, _array_parents)


@ReverseCtx.primitive(np.asarray)
@native_primitive
def _asarray(ctx, obj, *args, **kwargs):
    return _built(ctx, np.asarray, (obj,) + args, kwargs, _array_parents)


@ReverseCtx.primitive(np.stack)
@native_primitive
def _stack(ctx, arrays, axis=0, **kwargs):
    return _built(ctx, np.stack, (arrays, axis), kwargs, _stack_parents(axis))


@ReverseCtx.primitive(np.concatenate)
@native_primitive
def _concatenate(ctx, arrays, axis=0, **kwargs):
    return _built(ctx, np.concatenate, (arrays, axis), kwargs, _concatenate_parents(axis))


@ReverseCtx.primitive(operator.setitem)
@native_primitive
def _setitem(ctx, obj, key, value):
    """``obj[key] = value``: a write into an array is recorded as a new version of its buffer."""
    if isinstance(key, Tagged) or (type(key) is tuple and any(isinstance(k, Tagged) for k in key)):
        raise NoRuleError("an array index carries a derivative: indices must be constants (use int(i))")
    if isinstance(obj, np.ndarray) or (isinstance(obj, Tagged) and isinstance(primal(obj), np.ndarray)):
        reverse_writes.assign(obj, key, value)
    else:
        obj[key] = value


# ------------------------------------------------------------------ ad.checkpoint


@ReverseCtx.primitive(checkpoint_call)
@native_primitive
def _checkpointed(ctx, f, args):
    """One node for a checkpointed call: its pullbacks run ``f`` again (``ad.checkpoint``)."""
    primals, nodes, found = split(ctx, args)
    t = ctx._tag
    y = enclosing_call(t, f, tuple(primals))
    if not found:
        return y
    if isinstance(y, Tagged) and y.tag is t:
        raise NoRuleError(
            "ad.checkpoint: %s used a value being differentiated that is not one of its arguments; pass it as "
            "an argument" % getattr(f, "__qualname__", f)
        )
    if type(y) in (list, tuple, dict):
        raise NoRuleError("ad.checkpoint: %s must return a number or an array" % getattr(f, "__qualname__", f))
    recompute = Recompute(f, primals, [n is not None for n in nodes])
    parents = tuple((n, recompute.pull_for(i)) for i, n in enumerate(nodes) if n is not None)
    for _, pull in parents:
        reverse_writes.save(ctx, pull, primals)
    return make_traced(y, t, Node(parents))
