"""Derivative rules for NumPy's order statistics and nan reductions: ``partition``,
``argpartition``, ``median``, ``quantile``, ``percentile`` and their nan versions, ``nanvar``,
``nanstd``, ``nanmax``, ``nanmin``, ``nanprod``, ``nancumsum``, ``nancumprod``,
``nanargmax``, ``nanargmin``.

* ``partition``: the tangent follows the elements; tied elements take their tangents in
  their original order, in the order they appear in the result (as ``sort``).
* ``median``, ``quantile``, ``percentile`` (every ``method``) and nan versions: the
  interpolation of the two neighbouring sorted elements, ``(1 - γ) dx[i] + γ dx[i+1]``;
  ties in sorted order as ``sort``; ``q`` and ``weights`` must be constants; a NaN
  result (NaN in the slice, or an all-NaN slice) has a NaN tangent.
* nan reductions: NaN elements have no influence. ``nanmax``/``nanmin`` take the first
  extremum's tangent at a tie, as ``max``; an all-NaN slice gives a NaN tangent.
* ``nanargmax``, ``nanargmin``, ``argpartition`` have zero derivative.

A tangent reaching an argument said to be constant raises NoRuleError naming the function.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.tagging import Tagged, dispatch, enclosing_call, native_primitive
from context.tagging.values import primal

from ..engine.forward import ForwardCtx, NoRuleError, _lists_as_arrays, defzero, frule
from .differences import _arguments, _axes, _constants, _scalar_like
from .number_types import _lifted
from .tangents import lead, shape_of

_NoValue = np._NoValue

defzero(np.nanargmax, np.nanargmin, np.argpartition)


# ------------------------------------------------------------------ helpers


def _to_end(a, axes, n):
    """``a``'s primal ``axes`` (after ``n`` chunk axes) moved to the end and merged into one."""
    k = len(axes)
    moved = np.moveaxis(a, [ax + n for ax in axes], list(range(-k, 0))) if k else a
    shape = shape_of(moved)
    return np.reshape(moved, shape[: len(shape) - k] + (-1,))


def _along(idx, n):
    return np.reshape(idx, (1,) * n + np.shape(idx)) if n else idx


def _kept(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _given(value, default):
    return default if value is _NoValue else value


# ------------------------------------------------------------------ partition, order statistics


@frule(np.partition)
def _partition(primals, tangents, **kwargs):
    """Each result position takes the tangent of the element that lands there: the elements of
    equal value, matched in their original order to their positions in the result."""
    args, tans = _arguments(np.partition, primals, tangents, kwargs)
    _constants(np.partition, tans, ("a",))
    out = np.partition(*primals, **kwargs)
    a, g, axis = primal(args["a"]), tans["a"], args["axis"]
    n = lead(g, args["a"])
    if axis is None:
        a = np.ravel(a)
        g = np.reshape(g, shape_of(g)[:n] + (-1,))
        axis = 0
    axis = normalize_axis_index(axis, np.ndim(a))
    source = np.argsort(a, axis=axis, kind="stable")  # input positions in value order
    target = np.argsort(primal(out), axis=axis, kind="stable")  # result positions in value order
    perm = np.empty_like(source)
    np.put_along_axis(perm, target, source, axis=axis)
    return out, np.take_along_axis(g, _along(perm, n), axis=axis + n)


def _order_tangent(x, g, out, axis, keepdims, position, skip_nan):
    """The tangent of an order statistic of ``x`` over ``axis``.

    ``position(ranks)`` is the statistic itself applied, along the last axis, to the ranks
    ``0 .. m-1`` of the sorted elements (NaN for the NaN elements with ``skip_nan``): it gives
    the virtual position ``i + γ`` between sorted elements ``i`` and ``i + 1`` that NumPy
    interpolates, whatever the method; the tangent is ``(1 - γ) dx[i] + γ dx[i+1]``.
    """
    px = np.asarray(primal(x))
    shape = px.shape
    axes = _axes(axis, len(shape))
    n = lead(g, x)
    chunk = shape_of(g)[:n]
    xs = _to_end(px, axes, 0)
    m = xs.shape[-1]
    if m == 0:
        return None
    order = np.argsort(xs, axis=-1, kind="stable")
    gs = np.take_along_axis(_to_end(g, axes, n), _along(order, n), axis=-1)
    ranks = np.broadcast_to(np.arange(m, dtype=float), xs.shape)
    if skip_nan:
        missing = np.isnan(np.take_along_axis(xs, order, axis=-1))
        missing = missing & ~np.all(missing, axis=-1, keepdims=True)  # all-NaN slices: NaN from out below
        ranks = np.where(missing, np.nan, ranks)
    v = np.asarray(position(ranks), dtype=float)
    rest = xs.shape[:-1]
    qshape = v.shape[: v.ndim - len(rest)]
    nq = len(qshape)
    v = np.reshape(np.moveaxis(v, list(range(nq)), list(range(-nq, 0))) if nq else v, rest + (-1,))
    lo = np.floor(v)
    gamma = v - lo
    lo = lo.astype(np.intp)
    hi = np.minimum(lo + 1, m - 1)
    t = (np.take_along_axis(gs, _along(lo, n), axis=-1) * (1 - gamma)
         + np.take_along_axis(gs, _along(hi, n), axis=-1) * gamma)
    t = np.reshape(t, chunk + rest + qshape)
    if nq:
        t = np.moveaxis(t, list(range(n + len(rest), n + len(rest) + nq)), list(range(n, n + nq)))
    if keepdims:
        t = np.reshape(t, chunk + qshape + _kept(shape, axes))
    pout = primal(out)
    nan = np.isnan(pout)
    if np.any(nan):
        t = np.where(nan, np.nan, t)
    return _scalar_like(t, out)


def _order_statistic(fn, q=False, skip_nan=False):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        args, tans = _arguments(fn, primals, tangents, kwargs)
        _constants(fn, tans, ("a",))
        if args.get("weights") is not None:
            raise NoRuleError("np.%s with weights= has no derivative rule; leave weights out" % fn.__name__)
        call = dict(args, overwrite_input=False)  # the input must keep its order: its tangent does
        out = fn(**call)
        method = args.get("method", "linear")
        axis, keepdims = args["axis"], _given(args["keepdims"], False)
        if q:
            def position(ranks):
                return fn(ranks, args["q"], axis=-1, method=method)
        else:
            def position(ranks):
                return fn(ranks, axis=-1)
        return out, _order_tangent(args["a"], tans["a"], out, axis, keepdims, position, skip_nan)

    rule.__name__ = rule.__qualname__ = "_" + fn.__name__
    return rule


_order_statistic(np.median)
_order_statistic(np.nanmedian, skip_nan=True)
_order_statistic(np.quantile, q=True)
_order_statistic(np.percentile, q=True)
_order_statistic(np.nanquantile, q=True, skip_nan=True)
_order_statistic(np.nanpercentile, q=True, skip_nan=True)


# ------------------------------------------------------------------ nan reductions


def _nan_filled(fn, base, fill):
    """``fn`` as NumPy computes it: ``base`` of the input with NaNs replaced by ``fill`` (a constant)."""

    @ForwardCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, a, *args, **kwargs):
        (a,), _ = _lists_as_arrays(ctx, (_lifted(a),))
        t = ctx._tag
        if not (isinstance(a, Tagged) and a.tag is t):
            if any(isinstance(_lifted(v), Tagged) and _lifted(v).tag is t for v in args + tuple(kwargs.values())):
                raise NoRuleError("np.%s is differentiable in a only; make the other arguments constants"
                                  % fn.__name__)
            return enclosing_call(t, fn, (a,) + args, kwargs)
        filled = dispatch(np.where, (np.isnan(primal(a)), fill, a))
        return dispatch(base, (filled,) + args, kwargs)

    primitive.__name__ = primitive.__qualname__ = "rule of np.%s" % fn.__name__
    return primitive


_nan_filled(np.nanprod, np.prod, 1.0)
_nan_filled(np.nancumsum, np.cumsum, 0.0)
_nan_filled(np.nancumprod, np.cumprod, 1.0)


def _moment(fn, root):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        """``2 sum(Re(conj(x - mean) dx)) / (count - ddof)`` over the elements that are not NaN."""
        args, tans = _arguments(fn, primals, tangents, kwargs)
        _constants(fn, tans, ("a",))
        if _given(args["mean"], None) is not None:
            raise NoRuleError("np.%s(..., mean=...) has no derivative rule; leave mean out" % fn.__name__)
        out = fn(*primals, **kwargs)
        x, g = args["a"], tans["a"]
        px = np.asarray(primal(x))
        shape = px.shape
        axes = _axes(args["axis"], len(shape))
        n = lead(g, x)
        keep = ~np.isnan(px) & np.broadcast_to(_given(args["where"], True), shape)
        ddof = _given(args["correction"], _NoValue)
        ddof = args["ddof"] if ddof is _NoValue else ddof
        count = np.sum(keep, axis=axes, keepdims=True)
        xz = np.where(keep, x, 0)
        dev = np.where(keep, xz - np.sum(xz, axis=axes, keepdims=True) / np.maximum(count, 1), 0)
        dz = np.where(keep, g, 0)
        if np.iscomplexobj(px):
            prod = np.real(np.conj(dev) * dz)
        else:
            prod = dev * dz
        s = np.sum(prod, axis=tuple(a + n for a in axes), keepdims=True) / np.maximum(count - ddof, 0)
        if root:
            kept = np.reshape(out, _kept(shape, axes))
            if ddof == 0:  # one element: std is 0 whatever it is (s is 0 there too)
                kept = np.where(count == 1, 1.0, kept)
            d = s / kept
        else:
            d = 2 * s
        return out, _scalar_like(np.reshape(d, shape_of(g)[:n] + shape_of(out)), out)

    rule.__name__ = rule.__qualname__ = "_" + fn.__name__
    return rule


_moment(np.nanvar, root=False)
_moment(np.nanstd, root=True)


def _nan_extremum(fn, largest):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        """The tangent of the first extremum among the elements that are not NaN."""
        args, tans = _arguments(fn, primals, tangents, kwargs)
        _constants(fn, tans, ("a",))
        out = fn(*primals, **kwargs)
        x, g = args["a"], tans["a"]
        px = np.asarray(primal(x))
        shape = px.shape
        axes = _axes(args["axis"], len(shape))
        n = lead(g, x)
        keep = ~np.isnan(px) & np.broadcast_to(_given(args["where"], True), shape)
        xs = _to_end(np.where(keep, px, -np.inf if largest else np.inf), axes, 0)
        if xs.shape[-1] == 0:
            return out, None
        idx = (np.argmax if largest else np.argmin)(xs, axis=-1, keepdims=True)
        d = np.take_along_axis(_to_end(g, axes, n), _along(idx, n), axis=-1)
        chosen = np.take_along_axis(xs, idx, axis=-1)
        initial = _given(args["initial"], None)
        if initial is not None:
            d = d * ((chosen >= initial) if largest else (chosen <= initial))
        pout = np.asarray(primal(out))
        d = np.reshape(d, shape_of(g)[:n] + pout.shape)
        nan = np.isnan(pout)
        if np.any(nan):
            d = np.where(nan, np.nan, d)
        return out, _scalar_like(d, out)

    rule.__name__ = rule.__qualname__ = "_" + fn.__name__
    return rule


_nan_extremum(np.nanmax, True)
_nan_extremum(np.nanmin, False)
