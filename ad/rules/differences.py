"""Derivative rules for NumPy's differences, grids and interpolation: ``diff``, ``ediff1d``,
``gradient``, ``trapezoid`` (``trapz``), ``unwrap``, ``polyval``, ``polyder``, ``linspace``,
``logspace``, ``geomspace`` and ``interp``; also the argument helpers that ``order_statistics``
and ``number_types`` share (``_arguments``, ``_constants``, ``_scalar_like``...).

What is differentiable, and in which arguments:

* Linear, in the arrays only: ``gradient`` (spacings constants), ``diff`` (also in
  ``prepend``/``append``), ``ediff1d`` (also ``to_begin``/``to_end``), ``polyder``,
  ``unwrap`` (the tangent passes through; ``discont``/``period`` constants).
  ``trapezoid`` in ``y``, ``x`` and ``dx``; ``polyval`` in ``p`` and ``x``.
* ``linspace``/``geomspace`` in ``start`` and ``stop``, ``logspace`` also in ``base``;
  ``num``, ``endpoint``, ``axis`` constants; an integer ``dtype`` gives no tangent.
* ``interp`` in ``x``, ``fp``, ``left`` and ``right``; ``xp`` and ``period`` must be constants.
  At a sample point ``x == xp[j]`` the slope is that of the segment to its right (of the
  last segment at ``xp[-1]``); outside ``[xp[0], xp[-1]]`` it is 0.

A tangent reaching an argument said to be constant raises NoRuleError naming the function.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import inspect

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from context.tagging.values import primal

from ..engine.dual_array import is_array
from ..engine.forward import NoRuleError, frule
from .linear import deflinear
from .tangents import align, chunk_shape, lead, lead_axes, per_direction, shape_of

_NoValue = np._NoValue

deflinear(np.polyder)


# ------------------------------------------------------------------ helpers (shared with the other tables)


_SIGNATURES = {}


def _arguments(fn, primals, tangents, kwargs):
    """``(values, tangents)``: the call's arguments by parameter name (defaults filled in), and
    the tangents of those that carry one."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    bound = sig.bind(*primals, **kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    tans = {names[i]: g for i, g in enumerate(tangents) if g is not None}
    if bound.arguments.get("out") is not None:
        raise TypeError("np.%s: give out= as a keyword argument while differentiating" % fn.__name__)
    return bound.arguments, tans


def _constants(fn, tans, differentiable):
    bad = [name for name in tans if name not in differentiable]
    if bad:
        raise NoRuleError(
            "np.%s is differentiable in %s only; %s carries a derivative: make it a constant"
            % (fn.__name__, ", ".join(differentiable), ", ".join(bad))
        )


def _chunk(tans, args):
    """The chunk shape of the tangents (``()`` or ``(k,)``), from any of them."""
    for name, g in tans.items():
        return chunk_shape(g, args[name])
    return ()


def _inexact(out):
    dtype = getattr(primal(out), "dtype", None)
    return dtype is None or dtype.kind in "fc"


def _scalar_like(t, out):
    """Tangent ``t`` of ``out``: a 0-d array made a scalar when ``out`` is a scalar."""
    if t is not None and not is_array(out) and is_array(t) and len(shape_of(t)) == 0:
        return t[()]
    return t


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)


# ------------------------------------------------------------------ differences


@frule(np.diff)
def _diff(primals, tangents, **kwargs):
    """``diff`` of the tangents of ``prepend``, ``a`` and ``append`` joined (zeros for constants)."""
    args, tans = _arguments(np.diff, primals, tangents, kwargs)
    _constants(np.diff, tans, ("a", "prepend", "append"))
    out = np.diff(*primals, **kwargs)
    if args["n"] == 0:  # NumPy returns a itself
        return out, tans.get("a")
    if not _inexact(out):
        return out, None
    a = args["a"]
    ashape = shape_of(a)
    axis = normalize_axis_index(args["axis"], len(ashape))
    chunk = _chunk(tans, args)
    n = len(chunk)
    parts = []
    for name in ("prepend", "a", "append"):
        v = args[name]
        if v is _NoValue:
            continue
        shape = shape_of(v)
        if name != "a" and not shape:  # a scalar, broadcast as NumPy does
            shape = ashape[:axis] + (1,) + ashape[axis + 1:]
        g = tans.get(name)
        if g is None:
            parts.append(np.zeros(chunk + shape, dtype=primal(out).dtype))
        else:
            vshape = shape_of(v)
            g = np.reshape(g, chunk + (1,) * (len(shape) - len(vshape)) + vshape)
            parts.append(np.broadcast_to(g, chunk + shape))
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis + n)
    return out, np.diff(joined, n=args["n"], axis=axis + n)


@frule(np.ediff1d)
def _ediff1d(primals, tangents, **kwargs):
    args, tans = _arguments(np.ediff1d, primals, tangents, kwargs)
    out = np.ediff1d(*primals, **kwargs)
    chunk = _chunk(tans, args)
    parts = []
    for name in ("to_begin", "ary", "to_end"):
        v = args[name]
        if v is None:
            continue
        g = tans.get(name)
        flat = np.zeros(chunk + (np.size(primal(v)),), dtype=primal(out).dtype) if g is None \
            else np.reshape(g, chunk + (-1,))
        parts.append(flat[..., 1:] - flat[..., :-1] if name == "ary" else flat)
    return out, parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)


@frule(np.gradient)
def _gradient(primals, tangents, axis=None, edge_order=1):
    """``gradient`` of the tangent, with the same spacings (constants) along the shifted axes."""
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError("np.gradient is differentiable in f only; the spacings (varargs) must be constants")
    out = np.gradient(*primals, axis=axis, edge_order=edge_order)
    f, g = primals[0], tangents[0]
    n = lead(g, f)
    axes = _axes(axis, len(shape_of(f)))
    return out, np.gradient(g, *primals[1:], axis=tuple(a + n for a in axes), edge_order=edge_order)


def _trapezoid_rule(fn):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        """Bilinear in (y, x): the sum of the terms with either replaced by its tangent."""
        args, tans = _arguments(fn, primals, tangents, kwargs)
        _constants(fn, tans, ("y", "x", "dx"))
        out = fn(*primals, **kwargs)
        y, x, dx, axis = args["y"], args["x"], args["dx"], args["axis"]
        t = None
        if "y" in tans:
            g = tans["y"]
            n = lead(g, y)
            if n and (x is None or np.ndim(primal(x)) == 1):
                term = fn(g, x, dx, axis=normalize_axis_index(axis, len(shape_of(y))) + n)
            else:
                term = per_direction(lambda gi: fn(gi, x, dx, axis), g, n)
            t = term
        if "x" in tans:
            term = per_direction(lambda gi: fn(y, gi, dx, axis), tans["x"], lead(tans["x"], x))
            t = term if t is None else t + term
        if "dx" in tans and x is None:  # dx counts only without x
            term = per_direction(lambda gi: fn(y, None, gi, axis), tans["dx"], lead(tans["dx"], dx))
            t = term if t is None else t + term
        return out, _scalar_like(t, out)

    return rule


_trapezoid_rule(np.trapezoid)
if getattr(np, "trapz", None) is not None and np.trapz is not np.trapezoid:  # NumPy < 2.4
    _trapezoid_rule(np.trapz)


@frule(np.unwrap)
def _unwrap(primals, tangents, **kwargs):
    """The result is ``p`` plus multiples of ``period``, constant between jumps: the tangent passes."""
    args, tans = _arguments(np.unwrap, primals, tangents, kwargs)
    _constants(np.unwrap, tans, ("p",))
    return np.unwrap(*primals, **kwargs), np.copy(tans["p"])


# ------------------------------------------------------------------ grids


def _spaced(start, stop, gs, ge, num, endpoint, axis, retstep=False, dtype=None):
    """``linspace(gs, ge, ...)`` for tangents ``gs``, ``ge`` (None: zero) of ``start``, ``stop``:
    linspace is linear in (start, stop) together. Chunk axes come first."""
    chunk = chunk_shape(gs, start) if gs is not None else chunk_shape(ge, stop)
    n = len(chunk)
    bshape = np.broadcast_shapes(shape_of(start), shape_of(stop))

    def fit(g, v, other):
        if g is None:
            return np.zeros(chunk + bshape, dtype=np.result_type(primal(other), float))
        vshape = shape_of(v)
        return np.reshape(g, chunk + (1,) * (len(bshape) - len(vshape)) + vshape)

    ax = normalize_axis_index(axis, len(bshape) + 1) + n
    return np.linspace(fit(gs, start, ge), fit(ge, stop, gs), num, endpoint=endpoint, retstep=retstep,
                       dtype=dtype, axis=ax)


def _float_dtype(dtype):
    return dtype is None or np.dtype(dtype).kind in "fc"


@frule(np.linspace)
def _linspace(primals, tangents, **kwargs):
    args, tans = _arguments(np.linspace, primals, tangents, kwargs)
    _constants(np.linspace, tans, ("start", "stop"))
    out = np.linspace(*primals, **kwargs)
    dtype, retstep = args["dtype"], args["retstep"]
    float_out = _float_dtype(dtype)
    t = _spaced(args["start"], args["stop"], tans.get("start"), tans.get("stop"), args["num"], args["endpoint"],
                args["axis"], retstep, dtype if float_out else None)
    if not retstep:
        return out, t if float_out else None
    return out, (t[0] if float_out else None, t[1])


def _ranked(v, g, nd, n, axis=None):
    """Value ``v`` and tangent ``g`` (``n`` chunk axes) with unit axes in front up to rank ``nd``
    (and one at ``axis`` of the result, for base)."""
    shape = (1,) * (nd - len(shape_of(v))) + shape_of(v)
    if axis is not None:
        ax = normalize_axis_index(axis, nd + 1)
        shape = shape[:ax] + (1,) + shape[ax:]
    v = np.reshape(v, shape)
    if g is not None:
        g = np.reshape(g, shape_of(g)[:n] + shape)
    return v, g


@frule(np.logspace)
def _logspace(primals, tangents, **kwargs):
    """``out = base ** y`` with ``y = linspace(start, stop)``: ``out (log(base) dy + y dbase / base)``."""
    args, tans = _arguments(np.logspace, primals, tangents, kwargs)
    _constants(np.logspace, tans, ("start", "stop", "base"))
    out = np.logspace(*primals, **kwargs)
    if not _float_dtype(args["dtype"]):
        return out, None
    start, stop, base = args["start"], args["stop"], args["base"]
    gs, ge, gb = tans.get("start"), tans.get("stop"), tans.get("base")
    num, endpoint, axis = args["num"], args["endpoint"], args["axis"]
    nd = None  # a non-scalar base: all three get the broadcast rank, base a unit axis at axis
    if not isinstance(base, (float, int)) and np.ndim(primal(base)):
        nd = np.broadcast(primal(start), primal(stop), primal(base)).ndim
    n = len(_chunk(tans, args))
    if nd is not None:
        start, gs = _ranked(start, gs, nd, n)
        stop, ge = _ranked(stop, ge, nd, n)
        base, gb = _ranked(base, gb, nd, n, axis)
    t = None
    if gs is not None or ge is not None:
        t = out * (np.log(base) * _spaced(start, stop, gs, ge, num, endpoint, axis))
    if gb is not None:
        y = np.linspace(start, stop, num, endpoint=endpoint, axis=axis)
        if nd is None:
            gb = np.reshape(gb, shape_of(gb) + (1,) * len(shape_of(out)))  # a scalar base, chunked
        term = gb * (y * np.power(base, y - 1))
        t = term if t is None else t + term
    return out, t


@frule(np.geomspace)
def _geomspace(primals, tangents, **kwargs):
    """``out = start (stop / start) ** s``: ``out linspace(dstart / start, dstop / stop)`` (also complex)."""
    args, tans = _arguments(np.geomspace, primals, tangents, kwargs)
    _constants(np.geomspace, tans, ("start", "stop"))
    out = np.geomspace(*primals, **kwargs)
    if not _float_dtype(args["dtype"]):
        return out, None
    start, stop = args["start"], args["stop"]
    gs, ge = tans.get("start"), tans.get("stop")
    rs = None if gs is None else gs / start
    re = None if ge is None else ge / stop
    return out, out * _spaced(start, stop, rs, re, args["num"], args["endpoint"], args["axis"])


# ------------------------------------------------------------------ interpolation, polynomials


def _periodic(x, xp, fp, period):
    """``(x, xp, fp)`` as ``np.interp`` lays them out for ``period``."""
    period = abs(period)
    x = np.mod(x, period)
    xp = np.mod(np.asarray(xp, dtype=float), period)
    order = np.argsort(xp)
    xp, fp = xp[order], fp[order]
    xp = np.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
    fp = np.concatenate((fp[-1:], fp, fp[0:1]))
    return x, xp, fp


def _slope(x, xp, fp, period):
    """The slope of ``interp`` at ``x`` (a primal array): that of the segment to the right of a sample."""
    px = np.asarray(primal(x), dtype=float)
    fp = np.asarray(fp)
    xp = np.asarray(primal(xp), dtype=float)
    if period is not None:
        px, xp, fp = _periodic(px, xp, fp, period)
    i = np.clip(np.searchsorted(xp, px, side="right"), 1, len(xp) - 1)
    dx = xp[i] - xp[i - 1]
    flat = dx == 0
    slope = (fp[i] - fp[i - 1]) / np.where(flat, 1.0, dx)
    inside = ~flat
    if period is None:
        inside = inside & (px >= xp[0]) & (px <= xp[-1])
    return np.where(inside, slope, 0)


@frule(np.interp)
def _interp(primals, tangents, **kwargs):
    args, tans = _arguments(np.interp, primals, tangents, kwargs)
    _constants(np.interp, tans, ("x", "fp", "left", "right"))
    out = np.interp(*primals, **kwargs)
    x, xp, fp, period = args["x"], args["xp"], args["fp"], args["period"]
    t = None
    if "x" in tans:
        g = tans["x"]
        t = align(g, x, out) * _slope(x, xp, fp, period)
    if any(k in tans for k in ("fp", "left", "right")):  # linear in (fp, left, right) together
        chunk = _chunk({k: tans[k] for k in ("fp", "left", "right") if k in tans}, args)
        gfp = tans.get("fp")
        if gfp is None:
            gfp = np.zeros(chunk + shape_of(fp), dtype=np.result_type(primal(fp), float))
        ends = [tans.get(name, None if args[name] is None else np.zeros(chunk)) for name in ("left", "right")]

        def one(i):
            def pick(v):
                return v if v is None or i is None else v[i]
            return np.interp(x, xp, pick(gfp), pick(ends[0]), pick(ends[1]), period)

        term = one(None) if not chunk else np.stack([one(i) for i in range(chunk[0])])
        t = term if t is None else t + term
    return out, _scalar_like(t, out)


@frule(np.polyval)
def _polyval(primals, tangents):
    """Horner's scheme for the tangent: in ``p`` the polynomial of ``dp``; in ``x``, ``p'(x) dx``."""
    p, x = primals
    gp, gx = tangents
    out = np.polyval(p, x)
    if isinstance(primal(p), np.poly1d) or isinstance(primal(x), np.poly1d):
        raise NoRuleError("np.polyval of np.poly1d values has no derivative rule; pass coefficient arrays")
    p = np.asarray(p)
    x = np.asanyarray(x)
    nd = len(shape_of(out))
    t = None
    if gx is not None:
        y, d = 0, 0
        for i in range(len(p)):
            d = d * x + y
            y = y * x + p[i]
        t = align(gx, x, out) * d
    if gp is not None:
        n = lead(gp, p)
        chunk = shape_of(gp)[:n]
        s = 0
        for i in range(len(p)):
            gi = gp[lead_axes(n) + (i,)]
            ishape = shape_of(p)[1:]
            gi = np.reshape(gi, chunk + (1,) * (nd - len(ishape)) + ishape)
            s = s * x + gi
        t = s if t is None else t + s
    return out, _scalar_like(t, out)
