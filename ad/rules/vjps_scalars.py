"""Reverse-mode rules for numbers and their conversions: NumPy's scalar types (``np.float64(x)``...),
``asanyarray``/``ascontiguousarray``, ``nan_to_num``, ``angle``, ``real_if_close``; the ``math``
functions whose forward rules are whole ``frule``s (``hypot``, ``fsum``, ``dist``, ``frexp``,
``modf``), the builtin ``divmod`` and ``operator.matmul``.

Conventions are the forward rules' (``number_types.py``, ``math_module.py``, ``builtins.py``):
the float types and the conversions pass the cotangent on (a Python float's is a float);
``nan_to_num`` sends none to the elements it replaced; ``angle`` of real input, ``frexp``'s
exponent, ``modf``'s whole part and ``divmod``'s quotient have derivative 0 (untagged results);
``divmod(x, y)``'s remainder is ``x - y q``. ``hypot``, ``fsum`` and ``dist`` take any number of
values (``fsum``/``dist``: lists, tuples, iterables or arrays, each item its own cotangent).
``matmul`` is ``np.matmul``'s rule. Raise NoRuleError: the complex types (reverse mode has no
complex values), an integer ``dtype`` for the conversions, ``nan_to_num(copy=False)`` of an array
being differentiated (a write), ``nan``/``posinf``/``neginf`` carrying a derivative.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math
import operator

import numpy as np

from context.tagging import enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine import reverse_writes
from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import Node, ReverseCtx, defvjp, make_traced, split, vjp_primitive
from .pullbacks import _detached, from_vjp, unbroadcast
from .vjps import _array_parents, _built, _matmul_a, _matmul_b, _parts
from .vjps_numeric import defvjp_named
from .vjps_shapes import _mine, as_arg


class _Pull:
    """The pullback ``fn(u, *saved)``; ``detach`` keeps copies of the saved arrays about to be written."""

    __slots__ = ("fn", "saved")

    def __init__(self, fn, *saved):
        self.fn, self.saved = fn, saved

    def detach(self, root, below=None):
        self.saved = tuple(_detached(self.saved, root, below))

    def __call__(self, u):
        return self.fn(u, *self.saved)


def _node(ctx, parents, saved=()):
    """A node for ``parents``, whose pullbacks keep the ndarrays among ``saved`` (seen by writes)."""
    arrays = [a for a in saved if type(a) is np.ndarray]
    if arrays:
        for _, pull in parents:
            reverse_writes.save(ctx, pull, arrays)
    return Node(tuple(parents))


def _same(u):
    return u


# ------------------------------------------------------------------ NumPy's number types, conversions


def _in_place(given):
    if not given["copy"] and isinstance(primal(given["x"]), np.ndarray):
        raise NoRuleError("np.nan_to_num(copy=False) of an array being differentiated writes into it, which reverse "
                          "mode does not record; use copy=True (the default)")


defvjp_named(np.nan_to_num, {"x": lambda u, ans, x, *args: as_arg(np.where(np.isfinite(primal(x)), u, 0.0), x)},
             _in_place)
defvjp_named(np.angle, {"z": None})  # real input: 0 or pi, piecewise constant
defvjp_named(np.real_if_close, {"a": lambda u, ans, a, tol=100: as_arg(u, a)})


for _kind in (np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128, np.clongdouble):
    defvjp(_kind, lambda u, ans, x: as_arg(u, x))  # (a complex kind of a real value: the real part of u reaches it)


def _as_array(fn):
    recorded = vjp_primitive(fn, (from_vjp(lambda u, ans, a, *args, **kwargs: as_arg(u, a)), NOT_DIFFERENTIABLE))

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, a, *args, **kwargs):
        dtype = args[0] if args else kwargs.get("dtype")
        if dtype is not None and np.dtype(dtype).kind not in "fc" and _mine(ctx, a):
            raise NoRuleError("%s(..., dtype=%s) would truncate a value being differentiated and drop its derivative; "
                              "round it first (np.floor, np.rint: derivative 0) or keep a float dtype"
                              % (qualified_name(fn), np.dtype(dtype)))
        if type(a) in (list, tuple):
            return _built(ctx, fn, (a,) + args, kwargs, _array_parents)
        return recorded(ctx, a, *args, **kwargs)

    return primitive


_as_array(np.asanyarray)
_as_array(np.ascontiguousarray)


# ------------------------------------------------------------------ math, builtins, operator


def _hypot_maker(ans, primals, kwargs, i):
    return _Pull(lambda u, x, out: u * x / out, primals[i], ans)


ReverseCtx.primitive(math.hypot)(vjp_primitive(math.hypot, (_hypot_maker,)))
defvjp(operator.matmul, _matmul_a, _matmul_b)


def _items(ctx, seq):
    """``(primals, [(index, node)])`` of a sequence of numbers: a list, tuple, other iterable, or an
    array being differentiated (one node, index None)."""
    if _mine(ctx, seq, 0):
        return seq.value, [(None, seq.meta)]
    primals, found = _parts(ctx, seq if type(seq) in (list, tuple) else list(seq))
    return primals, [(index[0], node) for index, node in found]


def _ones_times(u, shape):
    return u * np.ones(shape)


@ReverseCtx.primitive(math.fsum)
@native_primitive
def _fsum(ctx, seq):
    t = ctx._tag
    primals, found = _items(ctx, seq)
    ans = enclosing_call(t, math.fsum, (primals,))
    if not found:
        return ans
    shape = np.shape(primals)
    return make_traced(ans, t, Node(tuple((node, _Pull(_ones_times, shape) if i is None else _same)
                                          for i, node in found)))


def _dist_term(u, p, q, i, out, sign):
    if i is None:
        return sign * u * (np.array(p) - np.array(q)) / out
    return sign * u * (p[i] - q[i]) / out


@ReverseCtx.primitive(math.dist)
@native_primitive
def _dist(ctx, p, q):
    t = ctx._tag
    (pp, found_p), (pq, found_q) = _items(ctx, p), _items(ctx, q)
    ans = enclosing_call(t, math.dist, (pp, pq))
    if not found_p and not found_q:
        return ans
    parents = [(node, _Pull(_dist_term, pp, pq, i, ans, 1.0)) for i, node in found_p]
    parents += [(node, _Pull(_dist_term, pp, pq, i, ans, -1.0)) for i, node in found_q]
    return make_traced(ans, t, _node(ctx, parents, (pp, pq)))


def _one_traced(fn, pull_of):
    """A primitive for ``fn(x)`` returning a pair whose first item alone carries a derivative."""

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, x):
        t = ctx._tag
        if not _mine(ctx, x, 0):
            return enclosing_call(t, fn, (x,))
        first, second = enclosing_call(t, fn, (x.value,))
        return make_traced(first, t, Node(((x.meta, pull_of(second)),))), second

    return primitive


_one_traced(math.frexp, lambda exponent: _Pull(lambda u, e: u / 2.0 ** e, exponent))
_one_traced(math.modf, lambda whole: _same)


def _rest_y(u, quotient, y):
    return unbroadcast(-u * quotient, y)


@ReverseCtx.primitive(divmod)
@native_primitive
def _divmod(ctx, x, y):
    t = ctx._tag
    primals, nodes, found = split(ctx, (x, y))
    quotient, rest = enclosing_call(t, divmod, tuple(primals))
    if not found or np.result_type(primal(rest)).kind not in "fc":
        return quotient, rest
    parents = []
    if nodes[0] is not None:
        parents.append((nodes[0], _Pull(unbroadcast, primals[0])))
    if nodes[1] is not None:
        parents.append((nodes[1], _Pull(_rest_y, quotient, primals[1])))
    return quotient, make_traced(rest, t, _node(ctx, parents, (quotient,)))
