"""Reverse-mode rules for NumPy's differences (``diff``, ``ediff1d``, ``gradient``, ``trapezoid``,
``unwrap``), grids (``linspace``, ``logspace``, ``geomspace``), ``interp`` and ``polyval``; and
``defvjp_named``, the rules by parameter name that the other ``vjps_*`` tables of this family use.

Conventions are the forward rules' (``differences.py``): the same arguments are differentiable,
given by position or by keyword (``diff``'s ``prepend``/``append``, ``trapezoid``'s ``x``/``dx``,
``interp``'s ``fp``/``left``/``right``, ``logspace``'s ``base``...); the others must be constants.
``gradient``'s spacings are constants; ``interp`` at a sample point takes the slope of the segment
to its right, and a NaN ``x`` sends no cotangent. Lists holding values being differentiated are
made arrays first. Raise NoRuleError: an argument said to be constant carrying a derivative,
``linspace(retstep=True)``, ``polyval`` of ``poly1d``, ``trapezoid`` with ``x`` of more axes than
``y``, ``out=`` and ``where=``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import inspect

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.base import Context
from context.tagging import enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, ZERO, NoRuleError
from ..engine.reverse import Node, ReverseCtx, make_traced, split, vjp_primitive
from .differences import _axes, _slope
from .pullbacks import from_vjp, unbroadcast
from .vjps import zeros_for
from .vjps_shapes import _mine, as_arg

_NoValue = np._NoValue
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _shape(x):
    return np.shape(primal(x))


def sum_to(u, shape):
    """Cotangent ``u`` of a broadcast result, summed to ``shape``."""
    return unbroadcast(u, np.broadcast_to(0.0, shape))


def arrayed(ctx, a):
    """``a``, made an array by ``np.array``'s rule if it is a list or tuple holding values of this run."""
    return Context.overdub(ctx, np.array, a) if type(a) in (list, tuple) and _mine(ctx, a) else a


def defvjp_named(fn, rules, check=None):
    """Register ``fn``'s reverse-mode rules by parameter name: ``rules[name]`` is
    ``vjp(u, ans, *args, **kwonly)`` (None: zero derivative), other parameters must be constants.
    Calls carrying a derivative are bound to positional form (keywords included, defaults filled
    in) and ``check(arguments)`` may refuse them; lists holding values being differentiated
    become arrays first."""
    sig = inspect.signature(fn)
    names = [p.name for p in sig.parameters.values() if p.kind in _POSITIONAL]
    makers = tuple(
        (ZERO if rules[n] is None else from_vjp(rules[n])) if n in rules else NOT_DIFFERENTIABLE for n in names
    ) + (NOT_DIFFERENTIABLE,)
    recorded = vjp_primitive(fn, makers)

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        args = tuple(arrayed(ctx, a) for a in args)
        kwargs = {k: arrayed(ctx, v) for k, v in kwargs.items()}
        if not any(_mine(ctx, v, 0) for v in args + tuple(kwargs.values())):
            return recorded(ctx, *args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        where = given.get("where", True)
        if given.get("out") is not None or not (where is True or where is _NoValue):
            raise NoRuleError("%s with out= or where= has no reverse-mode rule; assign the result instead, or use "
                              "ad.ForwardMode()" % qualified_name(fn))
        if any(_mine(ctx, v) for v in bound.kwargs.values()):
            raise NoRuleError("%s is differentiable in %s only; make the other arguments constants"
                              % (qualified_name(fn), ", ".join(rules)))
        if check is not None:
            check(given)
        return recorded(ctx, *bound.args, **{k: v for k, v in bound.kwargs.items() if v is not _NoValue})

    primitive.__qualname__ = primitive.__name__ = "reverse rule of %s" % qualified_name(fn)
    return primitive


def _axis_key(ax, key):
    return (slice(None),) * ax + (key,)


def _diff_adjoint(u, n, ax):
    """The adjoint of ``np.diff(., n, axis=ax)``: the first difference's adjoint is ``-diff`` padded."""
    for _ in range(n):
        u = -np.diff(u, axis=ax, prepend=0.0, append=0.0)
    return u


# ------------------------------------------------------------------ differences


def _diff_part(which):
    def vjp(u, ans, a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
        shape, x = _shape(a), (prepend, a, append)[which]
        if n == 0:  # NumPy returns a itself
            return u if which == 1 else as_arg(np.zeros(_shape(x)), x)
        ax = normalize_axis_index(axis, len(shape))
        lengths = [1 if v is not _NoValue and not _shape(v) else (_shape(v)[ax] if v is not _NoValue else 0)
                   for v in (prepend, a, append)]
        if int(n) >= sum(lengths):  # nothing left: no derivative
            return unbroadcast(np.zeros(_shape(a)[:ax] + (lengths[which],) + _shape(a)[ax + 1:]), x)
        joined = _diff_adjoint(u, int(n), ax)
        start = sum(lengths[:which])
        part = joined[_axis_key(ax, slice(start, start + lengths[which]))]
        return unbroadcast(part, x)

    return vjp


defvjp_named(np.diff, {"a": _diff_part(1), "prepend": _diff_part(0), "append": _diff_part(2)})


def _ediff1d_part(which):
    def vjp(u, ans, ary, to_end=None, to_begin=None):
        sizes = [0 if v is None else int(np.size(primal(v))) for v in (to_begin, ary, to_end)]
        m = max(sizes[1] - 1, 0)
        if which == 1:
            if not sizes[1]:
                return np.zeros(_shape(ary))
            return as_arg(-np.diff(u[sizes[0]:sizes[0] + m], prepend=0.0, append=0.0), ary)
        start = 0 if which == 0 else sizes[0] + m
        return as_arg(u[start:start + sizes[which]], (to_begin, ary, to_end)[which])

    return vjp


defvjp_named(np.ediff1d, {"ary": _ediff1d_part(1), "to_end": _ediff1d_part(2), "to_begin": _ediff1d_part(0)})
defvjp_named(np.unwrap, {"p": lambda u, ans, p, discont=None, axis=-1, **_: u})


class _GradientT:
    """The pullback of ``np.gradient`` along one axis: the transposed banded operator."""

    __slots__ = ("bands", "axis")

    def __init__(self, bands, axis):
        self.bands, self.axis = bands, axis

    def __call__(self, u):
        return sum(np.roll(w * u, k, axis=self.axis) for k, w in self.bands)


def _bands(n, nd, ax, dx, edge_order):
    """``[(k, w_k)]``: ``gradient(f)[i] = sum_k w_k[i] f[i + k]`` along an axis of length ``n``
    (``|k| <= 2``), read off the gradient of five probes, each column ``j`` in one of them."""
    probes = (np.arange(n)[:, None] % 5 == np.arange(5)).astype(float)
    r = np.gradient(probes, dx, axis=0, edge_order=edge_order)
    i = np.arange(n)
    shape = [1] * nd
    shape[ax] = n
    out = []
    for k in range(-2, 3):
        w = np.where((i + k >= 0) & (i + k < n), r[i, (i + k) % 5], 0.0)
        if np.any(w):
            out.append((k, w.reshape(shape)))
    return out


@ReverseCtx.primitive(np.gradient)
@native_primitive
def _gradient(ctx, f, *varargs, axis=None, edge_order=1):
    primals, nodes, found = split(ctx, (arrayed(ctx, f),) + varargs)
    t = ctx._tag
    outs = enclosing_call(t, np.gradient, tuple(primals), {"axis": axis, "edge_order": edge_order})
    if not found:
        return outs
    if any(n is not None for n in nodes[1:]):
        raise NoRuleError("numpy.gradient is differentiable in f only; the spacings (varargs) must be constants")
    shape = _shape(primals[0])
    axes = _axes(axis, len(shape))
    dx = list(varargs) if len(varargs) == len(axes) else list(varargs) * len(axes) if varargs else [1.0] * len(axes)
    pulls = [_GradientT(_bands(shape[a], len(shape), a, primal(d), edge_order), a) for a, d in zip(axes, dx)]
    if len(axes) == 1:
        return make_traced(outs, t, Node(((nodes[0], pulls[0]),)))
    return type(outs)(make_traced(o, t, Node(((nodes[0], p),))) for o, p in zip(outs, pulls))


def _trapezoid_setup(y, x, dx, axis):
    nd = len(_shape(y))
    ax = normalize_axis_index(axis, nd)
    if x is None:
        return ax, dx
    if np.ndim(primal(x)) == 1:
        shape = [1] * nd
        shape[ax] = _shape(x)[0] - 1
        return ax, np.reshape(np.diff(x), shape)
    if np.ndim(primal(x)) > nd:
        raise NoRuleError("np.trapezoid with x of more axes than y has no reverse-mode rule; broadcast y first")
    return ax, np.diff(x, axis=ax)


def _halves(y, ax, u):
    """``u`` spread along ``ax`` times the trapezoids' mean heights ``(y[1:] + y[:-1]) / 2``."""
    return np.expand_dims(u, ax) * (y[_axis_key(ax, slice(1, None))] + y[_axis_key(ax, slice(None, -1))]) / 2.0


def _trapezoid_y(u, ans, y, x=None, dx=1.0, axis=-1):
    ax, d = _trapezoid_setup(y, x, dx, axis)
    slab = list(_shape(y))
    slab[ax] -= 1
    w = np.expand_dims(u, ax) * d / 2.0
    w = np.broadcast_to(w, np.broadcast_shapes(np.shape(primal(w)), tuple(slab)))
    widths = [(0, 0)] * np.ndim(primal(w))
    ax_w = ax + len(widths) - len(_shape(y))
    before, after = list(widths), list(widths)
    before[ax_w], after[ax_w] = (1, 0), (0, 1)
    return unbroadcast(np.pad(w, before) + np.pad(w, after), y)


def _trapezoid_x(u, ans, y, x=None, dx=1.0, axis=-1):
    ax, d = _trapezoid_setup(y, x, dx, axis)
    s = _halves(y, ax, u)
    if np.ndim(primal(x)) == 1:
        return -np.diff(np.reshape(sum_to(s, _shape(d)), (-1,)), prepend=0.0, append=0.0)
    return -np.diff(sum_to(s, _shape(d)), axis=ax, prepend=0.0, append=0.0)


def _trapezoid_dx(u, ans, y, x=None, dx=1.0, axis=-1):
    if x is not None:  # dx counts only without x
        return as_arg(np.zeros(_shape(dx)), dx)
    ax = normalize_axis_index(axis, len(_shape(y)))
    return unbroadcast(_halves(y, ax, u), dx)


_TRAPEZOID = {"y": _trapezoid_y, "x": _trapezoid_x, "dx": _trapezoid_dx}
defvjp_named(np.trapezoid, _TRAPEZOID)
if getattr(np, "trapz", None) is not None and np.trapz is not np.trapezoid:  # NumPy < 2.4
    defvjp_named(np.trapz, _TRAPEZOID)


# ------------------------------------------------------------------ grids


def _fraction(num, endpoint, nd, ax):
    """The weight ``t`` of ``stop`` in ``linspace`` (``1 - t`` is ``start``'s), shaped along ``ax``."""
    shape = [1] * (nd + 1)
    shape[ax] = int(num)
    return np.reshape(np.linspace(0.0, 1.0, int(num), endpoint=endpoint), shape)


def _linspace_part(stop_side):
    def vjp(u, ans, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, **_):
        nd = len(np.broadcast_shapes(_shape(start), _shape(stop)))
        ax = normalize_axis_index(axis, nd + 1)
        t = _fraction(num, endpoint, nd, ax)
        return unbroadcast(np.sum(u * (t if stop_side else 1.0 - t), axis=ax), stop if stop_side else start)

    return vjp


def _no_retstep(given):
    if given["retstep"]:
        raise NoRuleError("np.linspace(..., retstep=True) has no reverse-mode rule; compute the step "
                          "as (stop - start) / (num - 1)")


defvjp_named(np.linspace, {"start": _linspace_part(False), "stop": _linspace_part(True)}, _no_retstep)


def _logspace_setup(start, stop, num, endpoint, base, axis):
    """``(y, base, t, ax, shapes)``: NumPy's ``logspace`` is ``base ** y``, ``y = linspace(start, stop)``,
    with the three given unit axes in front to a common rank and ``base`` one at ``axis``."""
    nd = len(np.broadcast_shapes(_shape(start), _shape(stop), _shape(base)))
    shapes = [(1,) * (nd - len(_shape(v))) + _shape(v) for v in (start, stop, base)]
    y = np.linspace(np.reshape(start, shapes[0]), np.reshape(stop, shapes[1]), num, endpoint=endpoint, axis=axis)
    ax = normalize_axis_index(axis, nd + 1)
    return y, np.expand_dims(np.reshape(base, shapes[2]), ax), _fraction(num, endpoint, nd, ax), ax, shapes


def _logspace_part(which):
    def vjp(u, ans, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
        y, b, t, ax, shapes = _logspace_setup(start, stop, num, endpoint, base, axis)
        arg = (start, stop, base)[which]
        if which == 2:
            return as_arg(sum_to(u * (y * np.power(b, y - 1)), _shape(b)), arg)
        cy = sum_to(u * ans * np.log(b), _shape(y))
        return as_arg(sum_to(np.sum(cy * (t if which else 1.0 - t), axis=ax), shapes[which]), arg)

    return vjp


defvjp_named(np.logspace, {"start": _logspace_part(0), "stop": _logspace_part(1), "base": _logspace_part(2)})


def _geomspace_part(stop_side):
    def vjp(u, ans, start, stop, num=50, endpoint=True, dtype=None, axis=0):
        nd = len(np.broadcast_shapes(_shape(start), _shape(stop)))
        ax = normalize_axis_index(axis, nd + 1)
        t = _fraction(num, endpoint, nd, ax)
        end = stop if stop_side else start
        return unbroadcast(np.sum(u * ans * (t if stop_side else 1.0 - t), axis=ax) / end, end)

    return vjp


defvjp_named(np.geomspace, {"start": _geomspace_part(False), "stop": _geomspace_part(True)})


# ------------------------------------------------------------------ interpolation, polynomials


def _interp_weights(x, xp, left, right, period):
    """``(lo, w_lo, hi, w_hi, below, above)`` over the raveled ``x``: ``np.interp``'s result is
    ``w_lo fp[lo] + w_hi fp[hi]``, or ``left``/``right`` where ``below``/``above`` (when given).
    The weights are computed from ``x`` itself, so an enclosing derivative differentiates them."""
    px = np.ravel(np.asarray(primal(x), dtype=float))
    xv = np.ravel(x)
    xp = np.asarray(primal(xp), dtype=float)
    src = np.arange(len(xp))
    if period is not None:
        period = abs(period)
        px, xv, xp = np.mod(px, period), np.mod(xv, period), np.mod(xp, period)
        order = np.argsort(xp)
        xp = np.concatenate((xp[order][-1:] - period, xp[order], xp[order][:1] + period))
        src = np.concatenate((order[-1:], order, order[:1]))
        left = right = None
    m = len(xp)
    ok = ~np.isnan(px)
    j = np.searchsorted(xp, px, side="right") - 1
    below, above = ok & (j < 0), ok & (px > xp[-1])
    jc = np.clip(j, 0, max(m - 2, 0))
    inner = ok & (j >= 0) & (j < m - 1)
    exact = inner & (xp[jc] == px)
    between = inner & ~exact
    last = ok & (j == m - 1) & ~above
    gap = np.where(between, xp[np.minimum(jc + 1, m - 1)] - xp[jc], 1.0)
    gamma = np.where(between, (xv - xp[jc]) / gap, 0.0)
    single = exact | last | (below & (left is None)) | (above & (right is None))
    lo = np.where(last | above, m - 1, np.where(below, 0, jc))
    w_lo = np.where(between, 1.0 - gamma, np.where(single, 1.0, 0.0))
    return src[lo], w_lo, src[np.minimum(jc + 1, m - 1)], gamma, below, above


def _interp_x(u, ans, x, xp, fp, left=None, right=None, period=None):
    return unbroadcast(u * _slope(x, xp, fp, period), x)


def _interp_fp(u, ans, x, xp, fp, left=None, right=None, period=None):
    lo, w_lo, hi, w_hi, _, _ = _interp_weights(x, xp, left, right, period)
    uf = np.ravel(u)
    z = zeros_for(int(np.size(primal(fp))), uf)  # (complex fp: complex cotangents, the weights real)
    np.add.at(z, lo, uf * w_lo)
    np.add.at(z, hi, uf * w_hi)
    return as_arg(z, fp)


def _interp_end(which):
    def vjp(u, ans, x, xp, fp, left=None, right=None, period=None):
        masks = _interp_weights(x, xp, left, right, period)[4:]
        return as_arg(np.sum(np.ravel(u) * masks[which]), (left, right)[which])

    return vjp


defvjp_named(np.interp, {"x": _interp_x, "fp": _interp_fp, "left": _interp_end(0), "right": _interp_end(1)})


def _polyval_p(u, ans, p, x):
    parts, power = [], 1.0
    for _ in range(_shape(p)[0]):  # from the constant term up
        parts.append(sum_to(u * power, _shape(p)[1:]))
        power = power * x
    return np.stack(parts[::-1])


def _polyval_x(u, ans, p, x):
    y, d = 0.0, 0.0
    for i in range(_shape(p)[0]):
        d = d * x + y
        y = y * x + p[i]
    return unbroadcast(u * d, x)


def _no_poly1d(given):
    if isinstance(primal(given["p"]), np.poly1d) or isinstance(primal(given["x"]), np.poly1d):
        raise NoRuleError("np.polyval of np.poly1d values has no derivative rule; pass coefficient arrays")


defvjp_named(np.polyval, {"p": _polyval_p, "x": _polyval_x}, _no_poly1d)
