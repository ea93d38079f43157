"""Reverse-mode rules for NumPy's reductions and products beyond ``vjps.py``'s: ``prod``,
``cumprod``, ``var``, ``std``, ``average``, ``ptp``, ``max``/``min``/``amax``/``amin`` (any axes,
``keepdims``, ``initial``), ``linalg.norm``/``vector_norm``/``matrix_norm``, ``trace``,
``diagonal``, ``sort``, ``clip``, ``einsum``, ``tensordot``, ``inner``, ``vdot``, ``kron``,
``cross``, ``vecdot``, ``matvec``, ``vecmat``.

Conventions are the forward rules' (``reductions.py``, ``products.py``, ``arrays.py``, ``shapes.py``):

* ``max``/``min`` (over several axes too), ``ptp`` (``max - min``) and the ``inf``/``-inf`` norms
  send the cotangent to the first extremum (``argmax``'s, the reduced axes taken in the order
  given); an ``initial`` that wins sends none. ``sort`` sends each cotangent back to the element
  that landed there, ties in their original order (a stable sort, whatever ``kind`` says).
* ``prod`` and ``cumprod`` never divide by the input: the product of the others comes from
  prefix and suffix products, so zeros are fine.
* ``clip`` is ``minimum(maximum(a, lo), hi)`` as in forward mode: an element at a bound takes
  ``a``'s derivative; a bound's reaches the elements strictly beyond it.
* Where the function has no derivative the rule gives what the forward rule gives: nan for the
  2-norm and Frobenius norm at 0 and ``std`` of constant data (0/0), inf/nan for ``var``/``std``
  with ``ddof`` >= the count; 0 for the 1-norm at a zero entry (``sign(0)``), for ``norm(x, 0)``
  and for ``std`` of single elements with ``ddof=0``. ``norm`` ``'nuc'``/``2``/``-2`` go through
  the SVD (``vjps_decompositions``; at a tie, the singular vectors NumPy returns).
* Products are linear in each array operand: the cotangent of one is the product of the
  result's cotangent with the others (``einsum`` in any form: implicit or explicit output,
  ``...``, sublists, repeated indices, size-1 broadcasting); ``average`` is built from
  ``sum``/``mean`` and takes ``a`` and ``weights`` (by position or keyword; ``returned=True`` too).

Axes, indices, ``ord``, ``ddof``, ``offset`` and ``axes`` are constants. Raise NoRuleError: ``out=``
or ``where=`` with a value being differentiated, ``var``/``std`` with ``mean=``, ``sort`` with
``descending=True`` or ``order=``, ``vecdot``/``matvec``/``vecmat`` with ``axes=``/``axis=``, einsums
needing more than 52 index letters. ``ptp`` also gets a forward rule here (``max - min``), which
forward mode lacked.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
import string

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from context.base import primitives
from context.tagging import dispatch, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, ForwardCtx, NoRuleError
from ..engine.reverse import ReverseCtx, vjp_primitive
from .arrays import _clipped
from .products import _einsum_form, _explicit
from .special import conjugate_sign
from .pullbacks import _detached, from_vjp, unbroadcast
from .vjps_decompositions import singular_value_norm_cotangent
from .vjps_numeric import arrayed, defvjp_named, sum_to
from .vjps_shapes import _mine, as_arg

_NoValue = np._NoValue
ND = NOT_DIFFERENTIABLE


def _shape(x):
    return np.shape(primal(x))


def _given(v, default=None):
    return default if v is _NoValue else v


def _axes(axis, nd):
    """``axis`` as a tuple of non-negative axes, in the order given (None: every axis)."""
    return tuple(range(nd)) if axis is None else normalize_axis_tuple(axis, nd)


def _to_end(a, axes):
    """``a``'s ``axes`` moved to the end (in their order) and merged into one axis."""
    shape, k = _shape(a), len(axes)
    moved = np.moveaxis(a, axes, tuple(range(-k, 0))) if k else a
    return np.reshape(moved, tuple(s for i, s in enumerate(shape) if i not in axes) + (-1,))


def _from_end(a, shape, axes):
    """The inverse of ``_to_end``: ``a`` back to ``shape``."""
    k = len(axes)
    a = np.reshape(a, tuple(s for i, s in enumerate(shape) if i not in axes) + tuple(shape[i] for i in axes))
    return np.moveaxis(a, tuple(range(-k, 0)), axes) if k else a


def _spread(u, shape, axes, keepdims=False):
    """The cotangent ``u`` of a reduction over ``axes`` spread back over ``shape`` (a read-only view)."""
    return np.broadcast_to(np.reshape(u, tuple(1 if i in axes else s for i, s in enumerate(shape))), shape)


def _first(px, axes, largest):
    """A boolean mask of ``px``'s shape: the first maximum (``largest``) or minimum of each reduction,
    and those values (one per slice, last axis of length 1)."""
    xs = _to_end(px, axes)
    idx = (np.argmax if largest else np.argmin)(xs, axis=-1, keepdims=True)
    mask = np.arange(xs.shape[-1]) == idx
    return mask, np.take_along_axis(xs, idx, axis=-1)


# ------------------------------------------------------------------ prod, cumprod


def _others(xs):
    """The product of the other entries along the last axis of ``xs``, from prefix and suffix products."""
    one = np.ones(_shape(xs)[:-1] + (1,))
    left = np.cumprod(np.concatenate([one, xs[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([one, np.flip(xs[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
    return left * right


def _prod_a(u, ans, a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    shape = _shape(a)
    axes = _axes(axis, len(shape))
    if 0 in shape:
        return as_arg(np.zeros(shape), a)
    cot = _spread(u, shape, axes) * _from_end(_others(_to_end(a, axes)), shape, axes)
    initial = _given(initial)
    return as_arg(cot if initial is None else cot * initial, a)


def _cumprod_a(u, ans, a, axis=None, dtype=None, out=None):
    """``cot_i = prefix_i * c_i`` with ``c_i = u_i + x_{i+1} c_{i+1}`` (a scan from the end, in
    ``log2(n)`` whole-array steps): the sum over ``k >= i`` of ``u_k`` times the product of the
    entries ``j <= k``, ``j != i``, with no division."""
    shape = _shape(a)
    if 0 in shape:
        return as_arg(np.zeros(shape), a)
    if axis is None:
        x, v = np.reshape(a, (-1,)), np.reshape(u, (-1,))
    else:
        ax = normalize_axis_index(axis, len(shape))
        x, v = np.moveaxis(a, ax, -1), np.moveaxis(u, ax, -1)
    m = _shape(x)[-1]
    one = np.ones(_shape(x)[:-1] + (1,))
    prefix = np.cumprod(np.concatenate([one, x[..., :-1]], axis=-1), axis=-1)
    b = np.flip(v, axis=-1)  # the scan from the end, flipped to run forward: c'_k = b_k + coef_k c'_(k-1)
    coef = np.flip(np.concatenate([x[..., 1:], one], axis=-1), axis=-1)
    step = 1
    while step < m:
        b = np.concatenate([b[..., :step], b[..., step:] + coef[..., step:] * b[..., :-step]], axis=-1)
        if 2 * step < m:
            coef = np.concatenate([coef[..., :step], coef[..., step:] * coef[..., :-step]], axis=-1)
        step *= 2
    cot = prefix * np.flip(b, axis=-1)
    if axis is None:
        return as_arg(cot, a)
    return np.moveaxis(cot, -1, ax)


defvjp_named(np.prod, {"a": _prod_a})
defvjp_named(np.cumprod, {"a": _cumprod_a})


# ------------------------------------------------------------------ max, min, ptp


def _extremum_a(largest):
    def vjp(u, ans, a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
        px = np.asarray(primal(a))
        axes = _axes(axis, px.ndim)
        if px.size == 0:
            return as_arg(np.zeros(px.shape), a)
        mask, chosen = _first(px, axes, largest)
        initial = _given(initial)
        if initial is not None:  # an initial that wins: no cotangent
            mask = mask & ((chosen >= initial) if largest else (chosen <= initial))
        return as_arg(np.where(_from_end(mask, px.shape, axes), _spread(u, px.shape, axes), 0.0), a)

    return vjp


for _fn in (np.max, np.amax):  # over any axes
    defvjp_named(_fn, {"a": _extremum_a(True)})
for _fn in (np.min, np.amin):
    defvjp_named(_fn, {"a": _extremum_a(False)})


def _ptp(ctx, a, axis=None, out=None, keepdims=_NoValue):
    """``np.ptp`` as ``max - min`` (so its rules are theirs): a primitive of both modes."""
    if out is not None:
        raise NoRuleError("numpy.ptp with out= has no derivative rule; assign the result instead")
    if isinstance(ctx, ReverseCtx):
        a = arrayed(ctx, a)
    kd = _given(keepdims, False)
    return dispatch(np.subtract, (dispatch(np.max, (a, axis, None, kd)), dispatch(np.min, (a, axis, None, kd))))


ReverseCtx.primitive(np.ptp)(native_primitive(_ptp))
if primitives.find(primitives.table_for(ForwardCtx), np.ptp, ())[0] is None:  # forward mode had no rule
    ForwardCtx.primitive(np.ptp)(native_primitive(_ptp))


# ------------------------------------------------------------------ var, std, average


def _moment_a(root):
    def vjp(u, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, correction=_NoValue, **_):
        shape = _shape(a)
        axes = _axes(axis, len(shape))
        count = 1
        for i in axes:
            count *= shape[i]
        ddof = _given(correction, ddof)
        if count == 0 or (root and count == 1 and ddof == 0):  # std of single elements: 0 whatever they are
            return as_arg(np.zeros(shape), a)
        dev = a - np.mean(a, axis=axes, keepdims=True)
        if np.iscomplexobj(primal(dev)):  # |dev|^2 moves by 2 Re(conj(dev) t): the cotangent pairs with t
            dev = np.conjugate(dev)
        with np.errstate(divide="ignore"):
            scale = np.float64(1.0) / np.float64(max(count - ddof, 0))
        us = _spread(u, shape, axes) * scale
        if not root:
            return as_arg(2.0 * dev * us, a)
        return as_arg(dev * us / np.reshape(ans, tuple(1 if i in axes else s for i, s in enumerate(shape))), a)

    return vjp


def _no_mean(given):
    if _given(given.get("mean")) is not None:
        raise NoRuleError("np.var/np.std(..., mean=...) has no reverse-mode rule; leave mean out")


defvjp_named(np.var, {"a": _moment_a(False)}, _no_mean)
defvjp_named(np.std, {"a": _moment_a(True)}, _no_mean)


@ReverseCtx.primitive(np.average)
@native_primitive
def _average(ctx, a, axis=None, weights=None, returned=False, *, keepdims=_NoValue):
    """``np.average`` built from ``mean``, or from ``sum`` of ``a * w`` over ``sum(w)`` as NumPy computes
    it (weights laid along ``axis`` as NumPy lays them)."""
    a, weights = arrayed(ctx, a), arrayed(ctx, weights)
    if _mine(ctx, (axis, returned, keepdims)):
        raise NoRuleError("numpy.average is differentiable in a and weights only; make the other arguments constants")
    pa, pw = np.asanyarray(primal(a)), (None if weights is None else np.asanyarray(primal(weights)))
    np.average(pa, axis, pw, False, keepdims=keepdims)  # NumPy's checks and errors
    kd = _given(keepdims, False)
    if weights is None:
        avg = dispatch(np.mean, (a, axis, None, None, kd))
        if not returned:
            return avg
        pavg = np.asarray(primal(avg))
        scl = pavg.dtype.type(pa.size / pavg.size)
        return avg, (scl if pavg.shape == () else np.broadcast_to(scl, pavg.shape).copy())
    dtype = np.result_type(pa.dtype, pw.dtype, *(("f8",) if pa.dtype.kind in "biu" else ()))
    w = weights
    if pw.shape != pa.shape:
        axes = _axes(axis, pa.ndim)
        w = dispatch(np.transpose, (w, tuple(int(i) for i in np.argsort(axes))))
        w = dispatch(np.reshape, (w, tuple(s if i in axes else 1 for i, s in enumerate(pa.shape))))
    scl = dispatch(np.sum, (w, axis, dtype, None, kd))
    avg = dispatch(np.true_divide, (dispatch(np.sum, (dispatch(np.multiply, (a, w)), axis, dtype, None, kd)), scl))
    if not returned:
        return avg
    shape = _shape(avg)
    if _shape(scl) != shape:
        scl = dispatch(np.copy, (dispatch(np.broadcast_to, (scl, shape)),))
    return avg, scl


# ------------------------------------------------------------------ norms


def _norm_core(u, ans, x, ord, axes, matrix, keepdims):
    """The cotangent of ``x`` for the norm ``ans`` over ``axes`` (a matrix norm if ``matrix``)."""
    shape = _shape(x)
    kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
    us = _spread(u, shape, axes)
    px = np.asarray(primal(x))
    complex_x = np.iscomplexobj(px)
    if ord is None or ord in ("f", "fro") or (ord == 2 and not matrix):
        return us * ((np.conjugate(x) if complex_x else x) / np.reshape(ans, kept))
    if not matrix:
        if ord == 0:  # the count of nonzero entries
            return np.zeros(shape)
        sign = conjugate_sign(x) if complex_x else np.sign(x)
        if ord in (np.inf, -np.inf):
            mask, _ = _first(np.abs(px), axes, ord > 0)
            return np.where(_from_end(mask, shape, axes), us * sign, 0.0)
        if ord == 1:
            return us * sign
        return us * (np.abs(x) ** (ord - 1) * sign) * np.reshape(ans, kept) ** (1 - ord)
    if ord in (1, -1, np.inf, -np.inf):  # the extreme sum of |x| over one axis (first at a tie)
        summed, picked = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
        sums = np.sum(np.abs(px), axis=summed, keepdims=True)
        mask, _ = _first(sums, (picked,), ord > 0)
        mask = np.broadcast_to(_from_end(mask, sums.shape, (picked,)), shape)
        return np.where(mask, us * (conjugate_sign(x) if complex_x else np.sign(x)), 0.0)
    if ord in ("nuc", 2, -2):
        xm = np.moveaxis(x, axes, (-2, -1))
        um = np.moveaxis(np.reshape(u, kept), axes, (-2, -1))
        um = np.reshape(um, _shape(um)[:-2])
        g = singular_value_norm_cotangent(um, xm, ord)
        # a singular value moves by Re(u_i^H dx v_i): its cotangent is conj(u_i v_i^H), u_i v_i^H for real x
        return np.moveaxis(np.conjugate(g) if complex_x else g, (-2, -1), axes)
    raise NoRuleError("numpy.linalg.norm with ord=%r has no reverse-mode rule" % (ord,))


def _norm_x(u, ans, x, ord=None, axis=None, keepdims=False):
    nd = len(_shape(x))
    if axis is None:
        if ord is None or ord in ("f", "fro"):  # every entry, as one vector
            return as_arg(_norm_core(u, ans, x, None, tuple(range(nd)), False, keepdims), x)
        axes = tuple(range(nd))
    else:
        axes = normalize_axis_tuple(axis, nd)
    return as_arg(_norm_core(u, ans, x, ord, axes, len(axes) == 2, keepdims), x)


defvjp_named(np.linalg.norm, {"x": _norm_x})
defvjp_named(np.linalg.vector_norm, {"x": lambda u, ans, x, axis=None, keepdims=False, ord=2: as_arg(
    _norm_core(u, ans, x, ord, _axes(axis, len(_shape(x))), False, keepdims), x)})
defvjp_named(np.linalg.matrix_norm, {"x": lambda u, ans, x, keepdims=False, ord="fro": _norm_core(
    u, ans, x, ord, (len(_shape(x)) - 2, len(_shape(x)) - 1), True, keepdims)})


# ------------------------------------------------------------------ diagonals, trace


def _undiagonal(ud, shape, offset, axis1, axis2):
    """The adjoint of ``np.diagonal(., offset, axis1, axis2)`` on an array of ``shape``: ``ud``
    (the other axes, then the diagonal) placed on that diagonal, zeros elsewhere."""
    ax1, ax2 = normalize_axis_index(axis1, len(shape)), normalize_axis_index(axis2, len(shape))
    n1, n2 = shape[ax1], shape[ax2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    d = max(0, min(n1 - r0, n2 - c0))
    if d == 0:
        return np.zeros(shape)
    rest = tuple(s for i, s in enumerate(shape) if i not in (ax1, ax2))
    m = np.reshape(ud, rest + (d, 1)) * np.eye(d)
    m = np.pad(m, ((0, 0),) * len(rest) + ((r0, n1 - r0 - d), (c0, n2 - c0 - d)))
    return np.moveaxis(m, (-2, -1), (ax1, ax2))


def _diagonal_a(u, ans, a, offset=0, axis1=0, axis2=1):
    return _undiagonal(u, _shape(a), int(offset), axis1, axis2)


def _trace_a(u, ans, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    shape = _shape(a)
    ud = np.reshape(u, _shape(u) + (1,)) * np.ones(_shape(np.diagonal(primal(a), offset, axis1, axis2))[-1:])
    return _undiagonal(ud, shape, int(offset), axis1, axis2)


defvjp_named(np.diagonal, {"a": _diagonal_a})
defvjp_named(np.trace, {"a": _trace_a})


# ------------------------------------------------------------------ sort, clip


def _sort_a(u, ans, a, axis=-1, kind=None, order=None, *, stable=None, descending=_NoValue):
    if order is not None or _given(descending, False):
        raise NoRuleError("numpy.sort with order= or descending=True has no reverse-mode rule; sort ascending")
    pa = np.asarray(primal(a))
    if axis is None:
        inverse = np.argsort(np.argsort(pa, axis=None, kind="stable"), kind="stable")
        return as_arg(np.take(u, inverse), a)
    ax = normalize_axis_index(axis, pa.ndim)
    inverse = np.argsort(np.argsort(pa, axis=ax, kind="stable"), axis=ax, kind="stable")
    return as_arg(np.take_along_axis(u, inverse, axis=ax), a)


defvjp_named(np.sort, {"a": _sort_a})


@ReverseCtx.primitive(np.clip)
@native_primitive
def _clip(ctx, a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):
    """``np.clip``'s argument checks, then its elementwise form ``_clipped`` (rules from the forward ones)."""
    if a_min is _NoValue and a_max is _NoValue:
        a_min, a_max = _given(min), _given(max)
    elif a_min is _NoValue or a_max is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: '%s'" % ("a_min" if a_min is _NoValue
                                                                                  else "a_max"))
    elif min is not _NoValue or max is not _NoValue:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided is forbidden.")
    args = tuple(arrayed(ctx, v) for v in (a, a_min, a_max))
    if out is not None:
        if _mine(ctx, args):
            raise NoRuleError("numpy.clip with out= has no reverse-mode rule; assign the result instead, or use "
                              "ad.ForwardMode()")
        kwargs["out"] = out
    return dispatch(_clipped, args, kwargs)


# ------------------------------------------------------------------ einsum and the products built on it

_LETTERS = string.ascii_letters


def einsum_cotangent(subscripts, operands, j, u, optimize=False):
    """The cotangent of operand ``j`` of ``np.einsum(subscripts, *operands)`` for the result's
    cotangent ``u``: the einsum of ``u`` with the other operands, with an identity for each
    repeated index of operand ``j`` (its diagonal), ones for its indices summed nowhere else,
    and its size-1 (broadcast) axes summed over."""
    inputs, output = _explicit(subscripts)
    shapes = [_shape(op) for op in operands]
    free = iter([c for c in _LETTERS if c not in subscripts])
    try:
        ell = [len(s) - len(t.replace("...", "")) if "..." in t else 0 for t, s in zip(inputs, shapes)]
        k = max(ell, default=0)
        dots = "".join(next(free) for _ in range(k))
        terms = [t.replace("...", dots[k - e:]) for t, e in zip(inputs, ell)]
        sizes = {}
        for t, s in zip(terms, shapes):
            for c, n in zip(t, s):
                if n != 1 or c not in sizes:
                    sizes[c] = n
        subs = [output.replace("...", dots)] + [t for i, t in enumerate(terms) if i != j]
        ops = [u] + [op for i, op in enumerate(operands) if i != j]
        target, seen = [], set()
        for c, n in zip(terms[j], shapes[j]):
            if c in seen:  # a repeated index: the diagonal
                f = next(free)
                subs.append(c + f)
                ops.append(np.eye(n))
                target.append(f)
            elif n == 1 and sizes[c] != 1:  # broadcast: summed over
                f = next(free)
                subs.append(f)
                ops.append(np.ones(1))
                target.append(f)
            else:
                target.append(c)
                seen.add(c)
    except StopIteration:
        raise NoRuleError("numpy.einsum: too many indices for a reverse-mode rule (52 letters)") from None
    present = {}  # the size of each index among the factors so far
    for t, op in zip(subs, ops):
        for c, n in zip(t, _shape(op)):
            present[c] = max(present.get(c, 0), n)
    for c, n in zip(terms[j], shapes[j]):
        if c in seen and present.get(c, 0) < n:  # elsewhere summed, or of size 1: the cotangent is constant along it
            subs.append(c)
            ops.append(np.ones(n))
            present[c] = n
    return np.einsum(",".join(subs) + "->" + "".join(target), *ops, optimize=optimize)


class _EinsumPull:
    """The pullback of the operand at position ``i`` of an ``np.einsum`` call."""

    __slots__ = ("primals", "kwargs", "i")

    def __init__(self, ans, primals, kwargs, i):
        self.primals, self.kwargs, self.i = primals, kwargs, i

    def detach(self, root, below=None):
        self.primals = _detached(self.primals, root, below)

    def __call__(self, u):
        subscripts, positions = _einsum_form(self.primals)
        operands = [self.primals[p] for p in positions]
        cot = einsum_cotangent(subscripts, operands, positions.index(self.i), u, self.kwargs.get("optimize", False))
        return as_arg(cot, self.primals[self.i])


ReverseCtx.primitive(np.einsum)(vjp_primitive(np.einsum, (_EinsumPull,)))


def _tensordot_subscripts(sa, sb, axes=2):
    na, nb = len(sa), len(sb)
    try:
        axes_a, axes_b = axes
    except TypeError:
        n = operator.index(axes)
        axes_a, axes_b = list(range(na - n, na)), list(range(n))
    axes_a = [int(i) % na for i in (axes_a if np.ndim(axes_a) else [axes_a])]
    axes_b = [int(i) % nb for i in (axes_b if np.ndim(axes_b) else [axes_b])]
    if na + nb > len(_LETTERS):
        raise NoRuleError("numpy.tensordot: too many axes for a reverse-mode rule")
    la, lb = _LETTERS[:na], list(_LETTERS[na:na + nb])
    for i, k in zip(axes_a, axes_b):
        lb[k] = la[i]
    out = [la[i] for i in range(na) if i not in axes_a] + [lb[i] for i in range(nb) if i not in axes_b]
    return la + "," + "".join(lb) + "->" + "".join(out)


def _tensordot_x(j):
    def vjp(u, ans, a, b, axes=2):
        return as_arg(einsum_cotangent(_tensordot_subscripts(_shape(a), _shape(b), axes), [a, b], j, u), (a, b)[j])

    return vjp


def _kron_parts(sa, sb):
    nd = max(len(sa), len(sb))
    return (1,) * (nd - len(sa)) + tuple(sa), (1,) * (nd - len(sb)) + tuple(sb), nd


def _kron_x(j):
    def vjp(u, ans, a, b):
        pa, pb, nd = _kron_parts(_shape(a), _shape(b))
        la, lb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
        ur = np.reshape(u, tuple(s for pair in zip(pa, pb) for s in pair))
        subs = "%s,%s->%s" % (la, lb, "".join(x + y for x, y in zip(la, lb)))
        cot = einsum_cotangent(subs, [np.reshape(a, pa), np.reshape(b, pb)], j, ur)
        return as_arg(cot, (a, b)[j])

    return vjp


def _three(v):
    """Vectors (last axis) of 2 components given a third, 0 (NumPy 2 deprecates 2-vectors in ``cross``)."""
    shape = _shape(v)
    return v if shape[-1] == 3 else np.concatenate([v, np.zeros(shape[:-1] + (1,))], axis=-1)


def _cross_x(j):
    def vjp(u, ans, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
        if axis is not None:
            axisa = axisb = axisc = axis
        am, bm = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
        na, nb = _shape(am)[-1], _shape(bm)[-1]
        if na == 2 and nb == 2:  # a scalar result: the z component
            u3 = np.reshape(u, _shape(u) + (1,)) * np.array([0.0, 0.0, 1.0])
        else:
            u3 = np.moveaxis(u, axisc, -1)
        if j == 0:  # <u, a x b> = <a, b x u> = <b, u x a>
            cot, x, ax = np.cross(_three(bm), u3)[..., :na], am, axisa
        else:
            cot, x, ax = np.cross(u3, _three(am))[..., :nb], bm, axisb
        return as_arg(np.moveaxis(sum_to(cot, _shape(x)), -1, ax), (a, b)[j])

    return vjp


def _vdot_x(j):
    """``vdot(a, b) = sum(conj(a) * b)``: the cotangent of ``a`` is ``conj(u * b)``, of ``b`` ``u * conj(a)``
    (conjugates only where a value is complex; see ``vjps_complex``)."""
    def vjp(u, ans, a, b):
        other = np.ravel((b, a)[j])
        if j == 0:
            cot = u * other
            return as_arg(np.conjugate(cot) if np.iscomplexobj(primal(cot)) else cot, a)
        return as_arg(u * (np.conjugate(other) if np.iscomplexobj(primal(other)) else other), b)

    return vjp


defvjp_named(np.tensordot, {"a": _tensordot_x(0), "b": _tensordot_x(1)})
defvjp_named(np.kron, {"a": _kron_x(0), "b": _kron_x(1)})
defvjp_named(np.cross, {"a": _cross_x(0), "b": _cross_x(1)})


def _products_by_position(fn, rules, keywords=(), axis_last=False):
    """``fn(a, b)`` with positional-only operands: lists holding values being differentiated made arrays;
    keyword arguments other than ``keywords`` refused when a value being differentiated is given.
    ``axis_last``: ``fn``'s ``axis=k`` (vecdot's) is taken by moving each operand's axis ``k`` last."""
    recorded = vjp_primitive(fn, tuple(from_vjp(r) for r in rules) + (ND,))

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        args = tuple(arrayed(ctx, v) for v in args)
        if axis_last and "axis" in kwargs:
            kwargs = dict(kwargs)
            axis = kwargs.pop("axis")
            args = tuple(dispatch(np.moveaxis, (v, axis, -1)) for v in args)
        if kwargs.keys() - set(keywords) and _mine(ctx, args):
            raise NoRuleError("%s with %s has no reverse-mode rule; move the axes first (np.moveaxis)"
                              % (qualified_name(fn), ", ".join(sorted(kwargs))))
        return recorded(ctx, *args, **kwargs)

    return primitive


def _inner_x(j):
    def vjp(u, ans, a, b):
        sa, sb = _shape(a), _shape(b)
        if not sa or not sb:  # a product by a number
            return unbroadcast(u * (b, a)[j], (a, b)[j])
        if len(sa) + len(sb) - 2 > len(_LETTERS) - 1:
            raise NoRuleError("numpy.inner: too many axes for a reverse-mode rule")
        la = _LETTERS[:len(sa) - 1]
        lb = _LETTERS[len(sa) - 1:len(sa) + len(sb) - 2]
        z = _LETTERS[len(sa) + len(sb) - 2]
        return as_arg(einsum_cotangent("%s%s,%s%s->%s%s" % (la, z, lb, z, la, lb), [a, b], j, u), (a, b)[j])

    return vjp


_products_by_position(np.inner, (_inner_x(0), _inner_x(1)))
_products_by_position(np.vdot, (_vdot_x(0), _vdot_x(1)))

_GUFUNCS = {"vecdot": "...i,...i->...", "matvec": "...ij,...j->...i", "vecmat": "...i,...ij->...j"}


def _gufunc_x(subs, j, conjugates_first):
    """Argument ``j``'s pullback of a product gufunc; ``vecdot`` and ``vecmat`` take the conjugate of
    their first operand, so (pairing ``Re(sum(u * t))``) its cotangent is ``conj`` of the plain
    product's, and the second operand's is taken with ``conj(a)``."""
    def vjp(u, ans, a, b, **kwargs):
        if conjugates_first and any(np.iscomplexobj(primal(v)) for v in (a, b, u)):
            if j == 0:
                return as_arg(np.conjugate(einsum_cotangent(subs, [a, b], 0, u)), a)
            return as_arg(einsum_cotangent(subs, [np.conjugate(a), b], 1, u), b)
        return as_arg(einsum_cotangent(subs, [a, b], j, u), (a, b)[j])

    return vjp


for _name, _subs in _GUFUNCS.items():
    if hasattr(np, _name):
        _conjugates = _name in ("vecdot", "vecmat")
        _products_by_position(getattr(np, _name), (_gufunc_x(_subs, 0, _conjugates), _gufunc_x(_subs, 1, _conjugates)),
                              ("dtype", "casting", "order"), axis_last=_name == "vecdot")
