"""Reverse-mode rules for choosing and assembling values: ``np.select``, ``np.piecewise``,
``np.block``; and the writes ``np.copyto``, ``np.putmask``, ``np.place``, ``np.add.at``, ``np.subtract.at``.

Conventions are the forward rules' (``layout.py``, ``indexing.py``): ``select`` sends each
element's cotangent to the choice the first true condition picks (to ``default`` where none
is true), summed back over broadcast axes; ``piecewise`` runs each function on the elements its
condition selects (a later condition overrides an earlier one, as NumPy writes them in order)
and sends them their cotangents; ``block`` gives each block its part. Conditions are constants.
``np.copyto`` is recorded as the write it is (``dst[...] = src``, or where ``where`` holds);
``putmask`` and ``place`` as ``a[positions] = values`` with the values cycled as NumPy cycles
them. Raise NoRuleError: a condition or mask carrying a derivative.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np

from context.base import Context
from context.tagging import Tagged, dispatch, enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine import reverse_buffers, reverse_writes
from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import Node, ReverseCtx, defvjp, make_traced, split
from .indexed_writes import bound_arguments
from .indexing import scattered_sum
from .pullbacks import unbroadcast
from .vjps_numeric import arrayed
from .vjps_scalars import _Pull
from .vjps_shapes import _mine, as_arg


def _float(ans):
    return np.result_type(primal(ans)).kind in "fc"


# ------------------------------------------------------------------ select


def _masked(u, mask, x):
    return unbroadcast(np.where(mask, u, 0.0), x)


@ReverseCtx.primitive(np.select)
@native_primitive
def _select(ctx, condlist, choicelist, default=0):
    t = ctx._tag
    if _mine(ctx, condlist):
        raise NoRuleError("numpy.select: the conditions must be constants")
    primals, nodes, found = split(ctx, [arrayed(ctx, c) for c in choicelist] + [arrayed(ctx, default)])
    ans = enclosing_call(t, np.select, (condlist, primals[:-1], primals[-1]))
    if not found or not _float(ans):
        return ans
    shape = np.shape(ans)
    taken, masks = np.zeros(shape, dtype=bool), []
    for c in condlist:  # the first true condition picks
        c = np.broadcast_to(np.asarray(primal(c), dtype=bool), shape)
        masks.append(c & ~taken)
        taken = taken | c
    masks.append(~taken)
    return make_traced(ans, t, Node(tuple((n, _Pull(_masked, m, x)) for n, m, x in zip(nodes, masks, primals)
                                          if n is not None)))


# ------------------------------------------------------------------ piecewise


def _conditions(px, condlist, n2):
    """``condlist`` as ``np.piecewise`` reads it: a boolean array, the "otherwise" one added."""
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray)) and px.ndim != 0):
        condlist = [condlist]
    conds = np.asarray(condlist, dtype=bool)
    n = len(conds)
    if n == n2 - 1:
        conds = np.concatenate([conds, ~np.any(conds, axis=0, keepdims=True)], axis=0)
    elif n != n2:
        raise ValueError("with {} condition(s), either {} or {} functions are expected".format(n, n, n + 1))
    return conds


def _pieces(x, conds, funclist, args, kw):
    """``np.piecewise`` as a gather: the pieces' values joined, each element taking its own (or 0)."""
    shape = np.shape(primal(x))
    owner = np.full(shape, -1)
    for i, c in enumerate(conds):
        owner[c] = i
    parts, index, offset = [np.zeros(1)], np.zeros(shape, dtype=np.intp), 1
    for i, (c, func) in enumerate(zip(conds, funclist)):
        count = int(np.count_nonzero(c))
        if not count:
            continue
        values = func(x[c], *args, **kw) if callable(func) else func
        mine = owner == i
        if not np.any(mine):
            continue
        parts.append(np.ravel(np.broadcast_to(values, (count,))))
        index = np.where(mine, offset + np.reshape(np.cumsum(np.ravel(c)) - 1, shape), index)
        offset += count
    return np.reshape(np.take(np.concatenate(parts), np.ravel(index)), shape)


@ReverseCtx.primitive(np.piecewise)
@native_primitive
def _piecewise(ctx, x, condlist, funclist, *args, **kw):
    x = arrayed(ctx, x)
    if _mine(ctx, condlist):
        raise NoRuleError("numpy.piecewise: the conditions must be constants (booleans)")
    if not _mine(ctx, x, 0):
        return enclosing_call(ctx._tag, np.piecewise, (x, condlist, funclist) + args, kw)
    if not isinstance(primal(x), np.ndarray):
        x = Context.overdub(ctx, np.asarray, x)  # as NumPy does: a number becomes a 0-d array
    conds = _conditions(np.asarray(primal(x)), condlist, len(funclist))
    return Context.overdub(ctx, _pieces, x, conds, funclist, args, kw)


# ------------------------------------------------------------------ block


def _mapped(obj, fn, counter):
    """Nested lists ``obj`` with each leaf ``v`` replaced by ``fn(k, v)`` (``k``: its number, in order)."""
    if type(obj) is list:
        return [_mapped(o, fn, counter) for o in obj]
    counter[0] += 1
    return fn(counter[0] - 1, obj)


def _gathered(u, index, x):
    return as_arg(np.take(np.ravel(u), index), x)


@ReverseCtx.primitive(np.block)
@native_primitive
def _block(ctx, arrays):
    t = ctx._tag
    leaves = []
    primals = _mapped(arrays, lambda k, v: leaves.append(v) or (v.value if _mine(ctx, v, 0) else v), [0])
    ans = enclosing_call(t, np.block, (primals,))
    if not any(_mine(ctx, v, 0) for v in leaves) or not _float(ans):
        return ans
    shapes = [np.shape(primal(v.value if _mine(ctx, v, 0) else v)) for v in leaves]
    starts = np.cumsum([0] + [int(np.prod(s)) for s in shapes]).tolist()
    ids = np.block(_mapped(primals, lambda k, v: np.reshape(np.arange(starts[k], starts[k + 1]), shapes[k]), [0]))
    where = np.empty(starts[-1], dtype=np.intp)
    where[np.ravel(ids)] = np.arange(np.size(ids))  # each element of each block: its position in the result
    parents = [(v.meta, _Pull(_gathered, where[starts[k]:starts[k + 1]], v.value)) for k, v in enumerate(leaves)
               if _mine(ctx, v, 0)]
    return make_traced(ans, t, Node(tuple(parents)))


# ------------------------------------------------------------------ writes


def _versioned(a):
    """Whether ``a`` is a plain buffer holding values being differentiated (a write of constants into
    it changes their derivatives: it is recorded too)."""
    return type(a) is np.ndarray and reverse_buffers.has_version(a)


def _masked_write(fn, names, cycled_by_position):
    """``np.putmask(a, mask, values)`` and ``np.place(arr, mask, vals)``: a write of the chosen values
    at the mask's positions, recorded as ``a[positions] = chosen`` (``reverse_writes.assign``), the
    values cycled as NumPy cycles them: ``putmask`` takes ``values.flat[n % size]`` for position
    ``n``, ``place`` takes them in order over the positions chosen."""

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        bound = bound_arguments(fn, names, args, kwargs)
        if len(bound) != 3:
            raise TypeError("%s takes 3 arguments (%s)" % (qualified_name(fn), ", ".join(names)))
        target, mask, values = bound
        if not (_mine(ctx, target) or _mine(ctx, values) or _versioned(target)):
            reverse_writes.before_write(primal(target))  # constants: the tape's saved arrays keep their values
            return enclosing_call(ctx._tag, fn, (primal(target), mask, values), {})
        if _mine(ctx, mask):
            raise NoRuleError("%s: the mask carries a derivative; it must be a constant" % qualified_name(fn))
        shape = np.shape(primal(target))
        chosen = np.flatnonzero(np.broadcast_to(np.asarray(mask, dtype=bool), shape))
        values = arrayed(ctx, values)
        flat = dispatch(np.ravel, (values,)) if isinstance(values, Tagged) else np.ravel(values)
        count = int(np.size(primal(flat)))
        if not chosen.size:
            return None
        if not count:
            raise ValueError("%s: cannot write from an empty values array" % qualified_name(fn))
        which = (chosen if cycled_by_position else np.arange(chosen.size)) % count
        picked = dispatch(operator.getitem, (flat, which)) if isinstance(flat, Tagged) else flat[which]
        reverse_writes.assign(target, np.unravel_index(chosen, shape), picked)
        return None

    primitive.writes_arguments = True
    return primitive


_masked_write(np.putmask, ("a", "mask", "values"), cycled_by_position=True)
_masked_write(np.place, ("arr", "mask", "vals"), cycled_by_position=False)


@ReverseCtx.primitive(np.copyto)
@native_primitive
def _copyto(ctx, dst, src, casting="same_kind", where=True):
    if not (_mine(ctx, dst) or _mine(ctx, src) or _versioned(dst)):
        reverse_writes.before_write(dst)  # constants: the tape's saved arrays keep their values
        return enclosing_call(ctx._tag, np.copyto, (dst, src), {"casting": casting, "where": where})
    if _mine(ctx, where):
        raise NoRuleError("np.copyto: the where= mask carries a derivative; it must be a constant")
    if where is not True:  # elements left out keep dst's values and derivatives
        src = dispatch(np.where, (where, src, reverse_buffers.lift(dst) if _versioned(dst) else dst))
    reverse_writes.assign(dst, Ellipsis, src)


_copyto.writes_arguments = True


def _scattered_vjp(u, ans, shape, dtype, indices, b):
    return unbroadcast(u[indices], b)  # repeated indices: each gets its own copy of the element's cotangent


defvjp(scattered_sum, None, None, NOT_DIFFERENTIABLE, _scattered_vjp)


@ReverseCtx.primitive(np.ufunc.at)
@native_primitive
def _ufunc_at(ctx, ufunc, a, indices, b=None):
    """``np.add.at(a, indices, b)`` and ``np.subtract.at``: recorded as ``a[...] = a + delta``, ``delta``
    the scattered sum of ``b`` (finite-element assembly); other ufuncs' ``at`` raise NoRuleError."""
    name = "np.%s.at" % getattr(ufunc, "__name__", "ufunc")
    if not (_mine(ctx, a) or _mine(ctx, b) or _versioned(a)):
        reverse_writes.before_write(primal(a))  # constants: the tape's saved arrays keep their values
        rest = () if b is None else (b,)
        return enclosing_call(ctx._tag, ufunc.at, (primal(a), indices) + rest, {})
    if ufunc is not np.add and ufunc is not np.subtract:
        raise NoRuleError("%s has no reverse-mode rule (only np.add.at and np.subtract.at have one); write the "
                          "accumulation with np.add.at, or use ad.ForwardMode()" % name)
    if _mine(ctx, indices):
        raise NoRuleError("%s: the index carries a derivative; it must be a constant" % name)
    if b is None:
        raise TypeError("%s() requires an operand b" % name)
    pa = primal(a)
    b = arrayed(ctx, b)
    delta = dispatch(scattered_sum, (pa.shape, np.result_type(pa, primal(b)), indices, b))
    if ufunc is np.subtract:
        delta = dispatch(np.negative, (delta,))
    current = reverse_buffers.lift(a) if _versioned(a) else a
    reverse_writes.assign(a, Ellipsis, dispatch(np.add, (current, delta)))


_ufunc_at.writes_arguments = True
