"""Reverse-mode rules for NumPy's order statistics and nan reductions: ``partition``, ``median``,
``quantile``, ``percentile`` (every ``method``) and their nan versions, ``nansum``, ``nanmean``,
``nanvar``, ``nanstd``, ``nanmax``, ``nanmin``, ``nanprod``, ``nancumsum``, ``nancumprod``.

Conventions are the forward rules' (``order_statistics.py``, ``reductions.py``): ``partition``
sends each result element's cotangent back to the element that landed there (ties in their
original order); an order statistic sends ``(1 - γ) u`` and ``γ u`` to the two sorted elements
it interpolates (ties as a stable sort), and NaN where the result is NaN (a NaN in the slice,
or an all-NaN slice for the nan versions, also for ``nanmean``, ``nanmax``, ``nanmin``). NaN
elements get no cotangent from the nan reductions; ``nanmax``/``nanmin`` send it to the first
extremum (an ``initial`` that wins: none). ``nancumprod`` is ``cumprod`` of the input with NaNs
made 1, so it needs ``np.cumprod``'s reverse rule. Raise NoRuleError: ``q``, ``kth``, ``axis``
carrying a derivative, ``weights=``, ``mean=``, ``out=``, ``where=``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import inspect

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.tagging import dispatch, enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine.forward import NoRuleError
from ..engine.reverse import Node, ReverseCtx, make_traced
from .differences import _axes
from .order_statistics import _to_end
from .vjps import _cumsum_vjp, _spread
from .vjps_numeric import arrayed, defvjp_named
from .vjps_shapes import _mine

_NoValue = np._NoValue


def _shape(x):
    return np.shape(primal(x))


def _given(v, default=None):
    return default if v is _NoValue else v


def _from_end(a, shape, axes):
    """The inverse of ``_to_end``: ``a`` of shape ``rest + (m,)`` back to ``shape``."""
    k = len(axes)
    rest = tuple(s for i, s in enumerate(shape) if i not in axes)
    a = np.reshape(a, rest + tuple(shape[i] for i in axes))
    return np.moveaxis(a, list(range(-k, 0)), list(axes)) if k else a


def _scatter(values, index, size):
    """Zeros of ``size`` with ``values`` added at ``index`` (repeats accumulate), in their dtype
    (a complex median's cotangent is complex)."""
    z = np.zeros(size, dtype=np.result_type(primal(values), float))
    np.add.at(z, index, values)
    return z


# ------------------------------------------------------------------ partition


def _partition_a(u, ans, a, kth, axis=-1, kind="introselect", order=None):
    pa, shape = np.asarray(primal(a)), _shape(a)
    if axis is None:
        pa, u, axis = np.ravel(pa), np.ravel(u), 0
    axis = normalize_axis_index(axis, pa.ndim)
    source = np.argsort(pa, axis=axis, kind="stable")  # input positions in value order
    target = np.argsort(primal(ans), axis=axis, kind="stable")  # result positions in value order
    inverse = np.empty_like(source)
    np.put_along_axis(inverse, source, target, axis=axis)
    return np.reshape(np.take_along_axis(u, inverse, axis=axis), shape)


defvjp_named(np.partition, {"a": _partition_a})


# ------------------------------------------------------------------ median, quantile, percentile


class _Interpolated:
    """The pullback of an order statistic: ``u`` scattered to the two sorted elements it interpolates."""

    __slots__ = ("shape", "axes", "qshape", "rest", "lo", "w_lo", "hi", "w_hi")

    def __init__(self, shape, axes, qshape, rest, lo, w_lo, hi, w_hi):
        self.shape, self.axes, self.qshape, self.rest = shape, axes, qshape, rest
        self.lo, self.w_lo, self.hi, self.w_hi = lo, w_lo, hi, w_hi

    def __call__(self, u):
        nq = len(self.qshape)
        u = np.reshape(u, self.qshape + self.rest)
        if nq:
            u = np.moveaxis(u, list(range(nq)), list(range(-nq, 0)))
        v = np.ravel(u)
        size = int(np.prod(self.shape))
        z = _scatter(v * self.w_lo, self.lo, size) + _scatter(v * self.w_hi, self.hi, size)
        rest = self.rest
        return _from_end(np.reshape(z, rest + (-1,)), self.shape, self.axes)


def _interpolation(pa, axis, position, skip_nan, ans):
    """``(axes, qshape, rest, lo, w_lo, hi, w_hi)``: flat indices into the slices (``_to_end``
    layout) and weights of the two sorted elements each result element interpolates."""
    shape = pa.shape
    axes = _axes(axis, len(shape))
    xs = _to_end(pa, axes, 0)
    m = xs.shape[-1]
    rest = xs.shape[:-1]
    order = np.argsort(xs, axis=-1, kind="stable")
    ranks = np.broadcast_to(np.arange(m, dtype=float), xs.shape)
    if skip_nan:
        missing = np.isnan(np.take_along_axis(xs, order, axis=-1))
        missing = missing & ~np.all(missing, axis=-1, keepdims=True)
        ranks = np.where(missing, np.nan, ranks)
    v = np.asarray(position(ranks), dtype=float)
    qshape = v.shape[: v.ndim - len(rest)]
    nq = len(qshape)
    v = np.reshape(np.moveaxis(v, list(range(nq)), list(range(-nq, 0))) if nq else v, rest + (-1,))
    lo = np.floor(v)
    gamma = v - lo
    lo = lo.astype(np.intp)
    hi = np.minimum(lo + 1, m - 1)
    base = np.reshape(np.arange(int(np.prod(rest))) * m, rest + (1,))
    nan = np.isnan(np.reshape(np.moveaxis(np.reshape(np.asarray(ans), qshape + rest), list(range(nq)),
                                          list(range(-nq, 0))) if nq else np.asarray(ans), rest + (-1,)))
    w_lo, w_hi = np.where(nan, np.nan, 1.0 - gamma), np.where(nan, np.nan, gamma)
    flat = [np.ravel(base + np.take_along_axis(order, i, axis=-1)) for i in (lo, hi)]
    return axes, qshape, rest, flat[0], np.ravel(w_lo), flat[1], np.ravel(w_hi)


def _order_statistic(fn, q=False, skip_nan=False):
    sig = inspect.signature(fn)
    name = qualified_name(fn)

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        t = ctx._tag
        args = tuple(arrayed(ctx, v) for v in args)
        kwargs = {k: arrayed(ctx, v) for k, v in kwargs.items()}
        if not any(_mine(ctx, v, 0) for v in args + tuple(kwargs.values())):
            return enclosing_call(t, fn, args, kwargs)
        given = sig.bind(*args, **kwargs)
        given.apply_defaults()
        given = dict(given.arguments)
        a = given["a"]
        if not _mine(ctx, a, 0) or any(_mine(ctx, v) for k, v in given.items() if k != "a"):
            raise NoRuleError("%s is differentiable in a only; make the other arguments constants" % name)
        if given.get("weights") is not None or given.get("out") is not None:
            raise NoRuleError("%s with weights= or out= has no reverse-mode rule; leave them out" % name)
        given.update(a=a.value, overwrite_input=False)  # the input keeps its order: its cotangent follows it
        ans = enclosing_call(t, fn, (), given)
        if np.result_type(primal(ans)).kind not in "fc":
            return ans
        method = given.get("method", "linear")
        if q:
            def position(ranks):
                return fn(ranks, given["q"], axis=-1, method=method)
        else:
            def position(ranks):
                return fn(ranks, axis=-1)
        pa = np.asarray(primal(a))
        if pa.size == 0:
            return ans
        parts = _interpolation(pa, given["axis"], position, skip_nan, primal(ans))
        return make_traced(ans, t, Node(((a.meta, _Interpolated(pa.shape, *parts)),)))

    primitive.__qualname__ = primitive.__name__ = "reverse rule of %s" % name
    return primitive


_order_statistic(np.median)
_order_statistic(np.nanmedian, skip_nan=True)
_order_statistic(np.quantile, q=True)
_order_statistic(np.percentile, q=True)
_order_statistic(np.nanquantile, q=True, skip_nan=True)
_order_statistic(np.nanpercentile, q=True, skip_nan=True)


# ------------------------------------------------------------------ nan reductions


def _kept(a, axis):
    """``(keep, count)``: where ``a`` is not NaN, and how many such elements per slice (keepdims)."""
    keep = ~np.isnan(primal(a))
    return keep, np.sum(keep, axis=_axes(axis, keep.ndim), keepdims=True)


def _nansum_a(u, ans, a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    return np.where(np.isnan(primal(a)), 0.0, _spread(u, a, axis, _given(keepdims, False)))


def _nanmean_a(u, ans, a, axis=None, dtype=None, out=None, keepdims=_NoValue, **_):
    keep, count = _kept(a, axis)
    empty = count == 0  # all-NaN slices: NaN, as the value
    us = _spread(u, a, axis, _given(keepdims, False)) / np.where(empty, np.nan, count)
    return np.where(keep | empty, us, 0.0)


def _moment(root):
    def vjp(u, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, correction=_NoValue, **_):
        keep, count = _kept(a, axis)
        axes = _axes(axis, keep.ndim)
        ddof = _given(correction, ddof)
        xz = np.where(keep, a, 0.0)
        dev = np.where(keep, xz - np.sum(xz, axis=axes, keepdims=True) / np.maximum(count, 1), 0.0)
        us = _spread(u, a, axis, _given(keepdims, False)) / np.maximum(count - ddof, 0)
        if np.iscomplexobj(primal(a)):  # |dev|^2: the conjugate of the deviation, as var's rule
            dev = np.conj(dev)
        if not root:
            return 2.0 * dev * us
        kept = np.reshape(ans, _shape(count))
        if ddof == 0:  # one element: std is 0 whatever it is (dev is 0 too)
            kept = np.where(count == 1, 1.0, kept)
        return dev * us / kept

    return vjp


def _no_mean(given):
    if _given(given.get("mean")) is not None:
        raise NoRuleError("np.nanvar/np.nanstd(..., mean=...) has no derivative rule; leave mean out")


def _nan_extremum(largest):
    def vjp(u, ans, a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
        pa = np.asarray(primal(a))
        axes = _axes(axis, pa.ndim)
        xs = _to_end(np.where(np.isnan(pa), -np.inf if largest else np.inf, pa), axes, 0)
        rest, m = xs.shape[:-1], xs.shape[-1]
        idx = (np.argmax if largest else np.argmin)(xs, axis=-1)
        v = np.reshape(u, rest)
        initial = _given(initial)
        if initial is not None:
            chosen = np.take_along_axis(xs, idx[..., None], axis=-1)[..., 0]
            v = v * ((chosen >= initial) if largest else (chosen <= initial))
        v = np.where(np.isnan(np.reshape(np.asarray(primal(ans)), rest)), np.nan, v)
        z = _scatter(np.ravel(v), np.arange(int(np.prod(rest))) * m + np.ravel(idx), int(np.prod(pa.shape)))
        return _from_end(np.reshape(z, rest + (m,)), pa.shape, axes)

    return vjp


def _nanprod_a(u, ans, a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
    """``u`` times the product of the others in each slice, from prefix and suffix products (no division)."""
    pa = np.asarray(primal(a))
    axes = _axes(axis, pa.ndim)
    xs = _to_end(np.where(np.isnan(pa), 1.0, a), axes, 0)
    rest = _shape(xs)[:-1]
    if not _shape(xs)[-1]:
        return np.zeros(pa.shape)
    one = np.ones(rest + (1,))
    left = np.cumprod(np.concatenate([one, xs[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([one, np.flip(xs[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
    v = np.reshape(u, rest + (1,)) * _given(initial, 1.0)
    cot = np.where(_to_end(np.isnan(pa), axes, 0), 0.0, v * (left * right))
    return _from_end(cot, pa.shape, axes)


defvjp_named(np.nansum, {"a": _nansum_a})
defvjp_named(np.nanmean, {"a": _nanmean_a})
defvjp_named(np.nanvar, {"a": _moment(False)}, _no_mean)
defvjp_named(np.nanstd, {"a": _moment(True)}, _no_mean)
defvjp_named(np.nanmax, {"a": _nan_extremum(True)})
defvjp_named(np.nanmin, {"a": _nan_extremum(False)})
defvjp_named(np.nanprod, {"a": _nanprod_a})
defvjp_named(np.nancumsum, {"a": lambda u, ans, a, axis=None, dtype=None, out=None:
                            np.where(np.isnan(primal(a)), 0.0, _cumsum_vjp(u, ans, a, axis))})


@ReverseCtx.primitive(np.nancumprod)
@native_primitive
def _nancumprod(ctx, a, *args, **kwargs):
    """``cumprod`` of ``a`` with NaNs made 1, as NumPy computes it (``np.cumprod``'s reverse rule)."""
    a = arrayed(ctx, a)
    if not _mine(ctx, a, 0):
        if _mine(ctx, args + tuple(kwargs.values())):
            raise NoRuleError("numpy.nancumprod is differentiable in a only; make the other arguments constants")
        return enclosing_call(ctx._tag, np.nancumprod, (a,) + args, kwargs)
    filled = dispatch(np.where, (np.isnan(primal(a)), 1.0, a))
    return dispatch(np.cumprod, (filled,) + args, kwargs)
