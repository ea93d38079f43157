"""How each kind of function propagates dependencies: the rule builders of sparsity detection.

A rule computes the function's value from the primals, as the function would, and the
result's dependencies from the arguments' by the function's *kind* (``KINDS``). Which
function is of which kind is the table in ``table.py``; ``defsparsity(fn, kind, ...)``
adds an entry. Every kind over-approximates only where it must (a matrix product
with a constant keeps that constant's zeros; one with a value depending on the input
takes all of it), and never drops a dependency.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import contextlib
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.base import Context
from context.tagging import Tagged, enclosing_call, native_primitive
from context.tagging.arrays import root_of
from context.tagging.dispatch import qualified_name
from context.tagging.values import live

from . import deps, second_order, store
from ..engine.forward import NoRuleError
from .tracer import UNDECIDED, SparsityCtx, assign, branch_error, deps_of, lift, result

declare_engine_code(__file__)

ndarray = np.ndarray


# ---- shared steps --------------------------------------------------------------------

class RaggedSequenceError(TypeError):
    """A list or tuple argument holds values depending on the input and cannot be made one array."""


_NO_STATE = contextlib.nullcontext()


def _split(ctx, args, sequences=True, lazy=False):
    """``(primals, deps, found)`` of ``args`` for ``ctx``'s tag (deps: array, UNDECIDED or None).

    A list or tuple holding values of the tag is the array NumPy makes of it, with its
    slots (``sequences``; a rule that takes sequences of separate operands, as
    ``np.concatenate`` does, passes False and reads them itself). One NumPy cannot make
    an array of numbers of raises ``RaggedSequenceError``: its dependencies would be missed.
    With ``lazy``, a buffer's slots may come as the ``deps.Parts`` of a union not joined yet.
    """
    t = ctx._tag
    primals, ds, found = [], [], False
    for a in args:
        kind = type(a)
        if (kind is list or kind is tuple) and sequences and _tree_has(t, a):
            values, d = _stacked(ctx, a)
            primals.append(values)
            ds.append(d)
            found = True
            continue
        if kind is ndarray:
            d = store.get(a, t, lazy)
            primals.append(a)
            ds.append(d)
            if d is not None:
                found = True
            continue
        if issubclass(kind, Tagged):
            if a.tag is not t:
                a = live(a)
            if issubclass(type(a), Tagged) and a.tag is t:
                primals.append(a.value)
                ds.append(a.meta)
                found = True
                continue
            if type(a) is ndarray:
                d = store.get(a, t)
                primals.append(a)
                ds.append(d)
                found = found or d is not None
                continue
        primals.append(a)
        ds.append(None)
    return primals, ds, found


def _stacked(ctx, seq):
    """``(np.array(seq), its slots)`` for a list or tuple holding values of ``ctx``'s tag."""
    t = ctx._tag
    try:
        values = np.array(_primal_tree(t, seq))
    except (TypeError, ValueError) as exc:
        raise RaggedSequenceError("NumPy cannot make one array of it (%s)" % exc) from None
    if values.dtype.kind not in "biufc":
        raise RaggedSequenceError("NumPy makes an array of dtype %s of it" % values.dtype)
    leaves = []
    _tree_deps(t, seq, leaves)
    undecided = any(d is UNDECIDED for d in leaves)
    if undecided and not ctx.local:
        if any(d is not UNDECIDED and d.shape[0] for d in leaves):
            raise RaggedSequenceError("it mixes values computed by a comparison or a rounding of the input "
                                      "with values that depend on it")
        return values, UNDECIDED
    probes, table = _probes(t, [seq], (0,))
    ids = np.asarray(probes[0])
    flat = deps.same_slots(table)
    source = np.concatenate([deps.flat(d) for d in flat], axis=1)
    return values, deps.take(source, ids.astype(np.int64) - 1)


def _call(ctx, fn, primals, kwargs):
    t = ctx._tag
    act = t.activation
    if act is None or act.parent is None:
        return fn(*primals, **kwargs)
    return enclosing_call(t, fn, tuple(primals), kwargs)


def _live(ds, skip=()):
    return [d for i, d in enumerate(ds) if d is not None and d is not UNDECIDED and i not in skip]


def _undecided(ctx, ds):
    return not ctx.local and any(d is UNDECIDED for d in ds)


def _shape(x):
    return x.shape if type(x) is ndarray else np.shape(x)


def primitive(fn: Callable[..., Any], rule: Callable[..., Any]) -> None:
    """Register ``rule(ctx, args, kwargs)`` as the sparsity primitive of ``fn``."""

    @native_primitive
    def impl(ctx, /, *args, **kwargs):
        target = kwargs.pop("out", None)
        mask = kwargs.pop("where", True) if "where" in kwargs else True
        if isinstance(target, tuple):
            target = target[0] if len(target) == 1 else None
        if mask is not True and not hasattr(rule, "zero"):  # (where= of a reduction: another meaning)
            raise TypeError(
                "%s(..., where=mask) is not supported by sparsity detection; compute the result "
                "and select with np.where" % qualified_name(fn)
            )
        if mask is not True and isinstance(mask, Tagged):
            raise branch_error("the where= mask of %s" % qualified_name(fn))
        try:
            with np.errstate(all="ignore") if mask is not True else _NO_STATE:  # (elements left out: computed too)
                out = rule(ctx, fn, args, kwargs)
        except RaggedSequenceError as exc:
            raise TypeError(
                "%s received a list or tuple holding values that depend on the input, and %s; pass an "
                "array (np.stack or np.array the values first)" % (qualified_name(fn), exc)
            ) from None
        if ctx.pairs is not None and not getattr(rule, "pairs_done", False):
            second_order.after(ctx, fn, args, out)
        if mask is not True:  # an elementwise function's where=: the target keeps its elements (and slots) elsewhere
            if target is None:
                current = np.zeros((), dtype=np.result_type(getattr(live(out), "dtype", float)))
            else:
                current = lift(target) if type(live(target)) is np.ndarray else target
            out = Context.overdub(ctx, np.where, mask, out, current)  # (plain arrays carry slots in the store)
        if target is not None:
            assign(target, Ellipsis, out)
            return target
        return out

    impl.__qualname__ = impl.__name__ = "sparsity rule of %s" % qualified_name(fn)
    impl.rule = rule
    SparsityCtx.primitive(fn)(impl)


# ---- kinds ---------------------------------------------------------------------------

def elementwise(zero: tuple[int, ...] = ()):
    """Broadcasting functions: each result element depends on the elements at its position
    (arguments at positions ``zero`` have zero derivative and add nothing)."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args, lazy=ctx.pairs is None)  # (second order reads the slots)
        ans = _call(ctx, fn, primals, kwargs)
        if not found:
            return ans
        if isinstance(ans, tuple):  # np.divmod, np.modf, np.frexp: every part
            return tuple(_elementwise_one(ctx, fn, a, ds, zero) for a in ans)
        return _elementwise_one(ctx, fn, ans, ds, zero)

    rule.pairs_done = True
    rule.zero = zero  # (the operators' fast path applies the same rule: ``operators``)
    return rule


def _elementwise_one(ctx, fn, ans, ds, zero):
    parts = _live(ds, zero)
    if not parts:
        return result(ctx, ans, UNDECIDED if _undecided(ctx, ds) else None)
    if ctx.pairs is not None:
        known = [d if d is not None and d is not UNDECIDED and i not in zero else None for i, d in enumerate(ds)]
        ctx.pairs.add(second_order.kind_of(fn), known, _shape(ans))
    if type(ans) is ndarray:  # an array: a union joined when its slots are needed (``deps.Parts``)
        return result(ctx, ans, deps.lazy_union(parts, ans.shape))
    return result(ctx, ans, deps.union([deps.joined(p) for p in parts], _shape(ans)))


def zero(values: bool = True):
    """Zero derivative: the result depends on no input. If it is computed from the input's values
    (``values``: a comparison, ``floor``), the global detector makes it undecided; shape queries
    (``np.shape``, ``np.zeros_like``) are plain constants."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args)
        ans = _call(ctx, fn, primals, kwargs)
        if not found or not values or ctx.local:
            return ans
        return result(ctx, ans, UNDECIDED)

    rule.pairs_done = True  # linear (or zero) in the values: no second-order pairs
    return rule


def _axis_arg(args, kwargs, position, name="axis"):
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else None


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) % max(ndim, 1) for a in axis)
    return (int(axis) % max(ndim, 1),)


def reduction(position: int = 1, name: str = "axis", data: tuple[int, ...] = (0,), axes: Any = None):
    """Reductions along an axis argument (at ``position``, or keyword ``name``): each result
    element depends on every element it reduces, in each argument at ``data``. ``axes``
    fixes the axes instead (``-2, -1`` for matrix norms); ``"all"`` reduces everything."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args)
        ans = _call(ctx, fn, primals, kwargs)
        if not found:
            return ans
        shape = _shape(ans)
        parts = []
        used = range(len(ds)) if data == "all" else data
        _only_at(fn, ds, used)
        for i in used:
            if i < len(ds) and ds[i] is not None and ds[i] is not UNDECIDED:
                nd = np.ndim(primals[i])
                axis = axes if axes is not None else _axis_arg(args, kwargs, position, name)
                reduced = tuple(range(nd)) if axes == "all" else _axes(axis, nd)
                parts.append(_reduced(ds[i], reduced, shape))
        if not parts:
            return result(ctx, ans, UNDECIDED if _undecided(ctx, ds) else None)
        return result(ctx, ans, deps.union(parts, shape))

    return rule


def _only_at(fn, ds, used):
    """Refuse a value depending on the input at a position the rule does not follow (``initial=``
    of a sum, the ``q`` of a percentile): its dependencies would be missed."""
    for i, d in enumerate(ds):
        if i not in used and d is not None and d is not UNDECIDED and d.shape[0]:
            raise NoRuleError(
                "%s: argument %d depends on the input, and the sparsity rule of %s follows only argument(s) %s; "
                "make it a constant, or give %s a rule with ad.sparsity.defsparsity" %
                (qualified_name(fn), i, qualified_name(fn), ", ".join(str(j) for j in used), qualified_name(fn))
            )


def _reduced(D, axes, shape):
    """``D`` reduced over ``axes`` and lined up with a result of ``shape`` (kept dims, extra
    leading axes such as a quantile's)."""
    kept = tuple(n for i, n in enumerate(D.shape[1:]) if i not in axes)
    R = deps.reduce(D, axes, kept)
    if kept == tuple(shape):
        return R
    if int(np.prod(kept)) == int(np.prod(shape)):
        return R.reshape((R.shape[0],) + tuple(shape))
    if len(shape) >= len(kept) and tuple(shape[len(shape) - len(kept):]) == kept:
        return deps.lined(R, shape)
    keep = tuple(1 if i in axes else n for i, n in enumerate(D.shape[1:]))  # keepdims, and leading axes
    return deps.lined(R.reshape((R.shape[0],) + keep), shape)


def spread(position: int = 1, name: str = "axis", default: Any = -1):
    """Each result element depends on every element along the axis (``np.sort``): a reduction
    broadcast back. ``default`` is the axis when none is given (None: all axes)."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args)
        _only_at(fn, ds, (0,))
        ans = _call(ctx, fn, primals, kwargs)
        if not found or ds[0] is None or ds[0] is UNDECIDED:
            return ans
        axis = _axis_arg(args, kwargs, position, name)
        axis = default if axis is None and name not in kwargs and len(args) <= position else axis
        D = ds[0]
        nd = D.ndim - 1
        if axis is None:
            D = deps.flat(D)
            axis, nd = -1, 1
        out = deps.spread(D, _axes(axis, nd))
        return result(ctx, ans, out.reshape((out.shape[0],) + _shape(ans)))

    rule.pairs_done = True  # linear (or zero) in the values: no second-order pairs
    return rule


def dense():
    """Every result element depends on every element of every argument (linear algebra's
    inverses and factorisations, where no finer structure is known)."""

    def rule(ctx, fn, args, kwargs):
        t = ctx._tag
        ans = _call(ctx, fn, [_primal_tree(t, a) for a in args], {k: _primal_tree(t, v) for k, v in kwargs.items()})
        found = []
        for a in list(args) + list(kwargs.values()):  # (sequences of operands too: np.linalg.multi_dot)
            _tree_deps(t, a, found)
        parts = [deps.reduce(d, tuple(range(d.ndim - 1)), ()) for d in found if d is not UNDECIDED and d.shape[0]]
        if not parts:
            return ans
        D = deps.union(parts, ())
        return _each(ans, lambda a: _dense_result(ctx, a, D))

    return rule


def _dense_result(ctx, a, D):
    """Result ``a`` of a dense rule: numbers and float or complex arrays depend on all of ``D``;
    integer arrays (pivots, permutations) were computed from the values without a derivative
    (undecided under the global detector, so that an index or a branch on them is refused);
    Python flags (``cho_factor``'s ``lower``) are constants."""
    if type(a) is ndarray:
        if a.dtype.kind in "fc":
            return result(ctx, a, deps.lined(D, a.shape))
        return result(ctx, a, UNDECIDED)
    if isinstance(a, (float, complex, np.floating, np.complexfloating)):
        return result(ctx, a, deps.lined(D, ()))
    return a


def _tree_deps(t, x, out):
    x = live(x)
    if type(x) in (list, tuple):
        for e in x:
            _tree_deps(t, e, out)
        return
    d = deps_of(x, t)
    if d is not None:
        out.append(d)


def _each(ans, make):
    if isinstance(ans, tuple):
        parts = [_each(a, make) for a in ans]
        return type(ans)(*parts) if hasattr(ans, "_fields") else tuple(parts)
    if isinstance(ans, list):
        return [_each(a, make) for a in ans]
    return make(ans)


def scan(position: int = 1):
    """Cumulative functions (``np.cumsum``): element ``j`` along the axis depends on elements up to ``j``."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args)
        _only_at(fn, ds, (0,))
        ans = _call(ctx, fn, primals, kwargs)
        if not found or ds[0] is None or ds[0] is UNDECIDED:
            return ans
        D = ds[0]
        axis = _axis_arg(args, kwargs, position)
        if axis is None:
            D = deps.flat(D)
            axis = 0
        out = cumulative(D, int(axis) % (D.ndim - 1))
        return result(ctx, ans, out.reshape((out.shape[0],) + _shape(ans)))

    return rule


def cumulative(D: np.ndarray, axis: int) -> np.ndarray:
    """Slots where element ``j`` along ``axis`` (of the value) depends on the elements ``0..j`` there."""
    moved = np.moveaxis(D, axis + 1, 1)  # (K, L, ...)
    L = moved.shape[1]
    upto = np.arange(L)[:, None] <= np.arange(L)[None, :]  # [i, j]: element i reaches result j
    full = np.where(upto.reshape((1, L, L) + (1,) * (moved.ndim - 2)), moved[:, :, None], 0)
    return np.moveaxis(full.reshape((-1, L) + moved.shape[2:]), 1, axis + 1)


def layout(data: tuple[Any, ...] = (0,), zero_kwargs: tuple[str, ...] = ()):
    """Functions that only move, copy or select elements (reshapes, stacking, padding, ``np.take``):
    the function itself, called on integer *probes* (each element of each argument at ``data``
    numbered, constants 0), tells where each result element comes from. ``("seq", i)`` in
    ``data`` is a sequence (or nested lists) at position ``i``; ``"all"`` is every argument.
    Keywords in ``zero_kwargs`` (a constant fill value) are 0 in the probe call."""

    def rule(ctx, fn, args, kwargs):
        t = ctx._tag
        primals, ds, found = _split(ctx, args, sequences=False)
        found = found or _holds(t, args, data)
        if not found:
            return _call(ctx, fn, primals, kwargs)
        plain = [_primal_tree(t, a) for a in args]
        ans = _call(ctx, fn, plain, kwargs)
        if _is_view_of_input(ans, primals, ds):
            return ans  # a view: its dependencies are its buffer's, found through the store
        probes, table = _probes(t, args, data)
        pk = dict(kwargs)
        for k in zero_kwargs:
            if k in pk:
                pk[k] = 0
        pk.pop("dtype", None)
        ids = fn(*probes, **pk)
        flat = deps.same_slots(table)
        source = np.concatenate([deps.flat(d) for d in flat], axis=1) if flat else None
        return _each_pair(ans, ids, lambda a, i: result(ctx, a, _gathered(source, i)))

    rule.pairs_done = True  # linear (or zero) in the values: no second-order pairs
    return rule


def along_slots(on_slots: Callable[..., Any], data: tuple[Any, ...] = (0,)):
    """Functions that move elements along axes the same way in every slot (``np.roll``,
    ``np.concatenate``): ``on_slots(t, args, kwargs)`` gives the result's slots straight from
    the arguments' (the function applied to the slot arrays, axes shifted by one), or None
    where it does not apply (lists of numbers, undecided parts), and the probe rule of
    ``layout(data)`` runs instead. One pass over the slots, where probing numbers and
    gathers every element."""
    probe = layout(data)

    def rule(ctx, fn, args, kwargs):
        t = ctx._tag
        ans = _call(ctx, fn, [_primal_tree(t, a) for a in args], kwargs)  # NumPy's own errors first
        D = on_slots(t, args, kwargs)
        if D is None:
            return probe(ctx, fn, args, kwargs)
        return result(ctx, ans, D if D.shape[0] else None)

    rule.pairs_done = True  # moves: no second-order pairs
    return rule


def _array_deps(t, x):
    """``(array, slots)`` for an ndarray argument (slots ``deps.none`` if it depends on nothing), or None."""
    x = live(x)
    if type(x) is not ndarray:
        return None
    d = store.get(x, t)
    if d is UNDECIDED:
        return None
    return x, (deps.none(x.shape) if d is None else d)


def roll_slots(t, args, kwargs):
    """``np.roll(a, shift, axis=None)`` on the slots."""
    if len(args) + len(kwargs) > 3 or len(args) < 1:
        return None
    found = _array_deps(t, args[0])
    shift = args[1] if len(args) > 1 else kwargs.get("shift")
    axis = args[2] if len(args) > 2 else kwargs.get("axis")
    if found is None or any(issubclass(type(live(v)), Tagged) for v in (shift, axis)):
        return None
    a, D = found
    if axis is None:
        return _rolled(deps.flat(D), shift, 1).reshape(D.shape)
    nd = max(a.ndim, 1)
    if isinstance(axis, (tuple, list)) or isinstance(shift, (tuple, list, ndarray)):
        axes, shifts = np.broadcast_arrays(np.asarray(axis), np.asarray(shift))  # as np.roll pairs them
        for ax, sh in zip(axes.ravel(), shifts.ravel()):
            D = _rolled(D, int(sh), int(ax) % nd + 1)
        return D
    return _rolled(D, shift, int(axis) % nd + 1)


def _rolled(D, shift, axis):
    """``np.roll(D, shift, axis)`` for one integer shift: two slices joined (``np.roll`` itself
    works out the general case in Python, several times slower on the few slots)."""
    n = D.shape[axis]
    cut = n - int(shift) % n if n else 0
    if cut in (0, n):
        return D
    head = (slice(None),) * axis
    return np.concatenate((D[head + (slice(cut, None),)], D[head + (slice(None, cut),)]), axis=axis)


def concatenate_slots(t, args, kwargs):
    """``np.concatenate(arrays, axis=0)`` on the slots (arrays only; ``dtype``/``casting`` change no slot)."""
    if not args or set(kwargs) - {"axis", "dtype", "casting"} or len(args) > 2:
        return None
    seq = live(args[0])
    if type(seq) not in (list, tuple) or not seq:
        return None
    parts = [_array_deps(t, e) for e in seq]
    if any(p is None for p in parts):
        return None
    axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
    if issubclass(type(live(axis)), Tagged):
        return None
    Ds = deps.same_slots([d for _, d in parts])
    if axis is None:
        return np.concatenate([deps.flat(d) for d in Ds], axis=1)
    nd = parts[0][0].ndim
    if not nd:
        return None  # NumPy's own error, from the probe rule's call
    return np.concatenate(Ds, axis=int(axis) % nd + 1)


def _gathered(source, ids):
    ids = np.asarray(ids)
    if source is None or ids.dtype.kind not in "iuf":
        return None
    return deps.take(source, ids.astype(np.int64) - 1)


def _each_pair(ans, ids, make):
    if isinstance(ans, (tuple, list)):
        return type(ans)(_each_pair(a, i, make) for a, i in zip(ans, ids))
    return make(ans, ids)


def _is_view_of_input(ans, primals, ds):
    if type(ans) is not ndarray or ans.base is None:
        return False
    root = root_of(ans)
    return any(d is not None and type(p) is ndarray and root_of(p) is root for p, d in zip(primals, ds))


def _data_positions(args, data):
    if data == ("all",):
        return [(i, False) for i in range(len(args))]
    return [(d[1], True) if isinstance(d, tuple) else (d, False) for d in data]


def _holds(t, args, data):
    for i, _seq in _data_positions(args, data):
        if i < len(args) and _tree_has(t, args[i]):
            return True
    return False


def _tree_has(t, x):
    x = live(x)
    if type(x) in (list, tuple):
        return any(_tree_has(t, e) for e in x)
    return (issubclass(type(x), Tagged) and x.tag is t) or (type(x) is ndarray and store.get(x, t) is not None)


def _primal_tree(t, x):
    x = live(x)
    if type(x) in (list, tuple):
        return type(x)(_primal_tree(t, e) for e in x)
    if issubclass(type(x), Tagged) and x.tag is t:
        return x.value
    return x


def _probes(t, args, data):
    """``args`` with every element at ``data`` numbered from 1 (constants 0), and the
    dependencies of the numbered elements in order."""
    table = []
    count = [0]

    def probe(x):
        x = live(x)
        if type(x) in (list, tuple):
            return type(x)(probe(e) for e in x)
        d = deps_of(x, t)
        p = x.value if issubclass(type(x), Tagged) and x.tag is t else x
        shape = np.shape(p)
        if d is None or d is UNDECIDED or not d.shape[0]:
            return np.zeros(shape, dtype=np.int64) if shape or isinstance(p, (np.ndarray, np.generic)) else 0
        n = int(np.prod(shape, dtype=np.int64))
        ids = np.arange(count[0] + 1, count[0] + n + 1, dtype=np.int64).reshape(shape)
        count[0] += n
        table.append(deps.flat(np.asarray(d)))
        return ids if shape else ids[()]

    out = list(args)
    for i, _seq in _data_positions(args, data):
        if i < len(out):
            out[i] = probe(out[i])
    return out, table


def getitem(ctx, fn, args, kwargs):
    """``a[key]``: the slots of ``a`` indexed alike (views need nothing: the store has them)."""
    t = ctx._tag
    obj, key = live(args[0]), args[1]
    keys = key if isinstance(key, tuple) else (key,)
    plain = []
    for k in keys:
        k = live(k)
        if issubclass(type(k), Tagged) and k.tag is t:
            if k.meta is UNDECIDED and not ctx.local:
                raise branch_error("an index")
            k = k.value
        elif type(k) is ndarray and store.get(k, t) is UNDECIDED and not ctx.local:
            raise branch_error("a mask or index array")
        plain.append(k)
    key = tuple(plain) if isinstance(key, tuple) else plain[0]
    if not (issubclass(type(obj), Tagged) and obj.tag is t):
        return _call(ctx, operator.getitem, (live(obj), key), {})
    a, D = obj.value, obj.meta
    ans = a[key]
    if D is UNDECIDED:
        return result(ctx, ans if type(ans) is not ndarray or root_of(ans) is ans else ans.copy(), UNDECIDED)
    if type(ans) is ndarray and ans.base is not None and root_of(ans) is root_of(a):
        return ans
    full = (slice(None),) + (key if isinstance(key, tuple) else (key,))
    arrays = sum(1 for k in full if isinstance(k, (list, ndarray)) and not isinstance(k, bool))
    if arrays > 1:  # advanced indices may move the slot axis: number the elements instead
        ids = np.arange(a.size).reshape(a.shape)[key]
        return result(ctx, ans, deps.take(D, ids))
    return result(ctx, ans, D[full])


def setitem(ctx, fn, args, kwargs):
    target, key, value = args
    assign(target, key, value)


getitem.pairs_done = setitem.pairs_done = True  # moves: no second-order pairs
getitem.element_read = True  # (the subscript handler's short path reads vectors' elements alike: ``operators``)


def select(cond: int = 0, choices: tuple[int, ...] = (1, 2)):
    """``np.where(c, a, b)``: each element depends on ``a``'s and ``b``'s there (global), or on the
    one chosen (local, or a condition that does not depend on the input)."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = _split(ctx, args)
        ans = _call(ctx, fn, primals, kwargs)
        if not found:
            return ans
        shape = _shape(ans)
        if ctx.local or ds[cond] is None:  # (a constant condition chooses the same way for every input)
            c = np.broadcast_to(primals[cond], shape)
            a = [deps.lined(ds[i], shape) if ds[i] is not None and ds[i] is not UNDECIDED else deps.none(shape)
                 for i in choices]
            a = deps.same_slots(a)
            return result(ctx, ans, np.where(c, a[0], a[1]))
        parts = _live(ds, (cond,))
        if not parts:
            return result(ctx, ans, UNDECIDED if _undecided(ctx, ds) else None)
        return result(ctx, ans, deps.union(parts, shape))

    rule.pairs_done = True  # linear (or zero) in the values: no second-order pairs
    return rule
