"""Derivative rules for NumPy's reductions and scans: ``sum``, ``mean``, ``prod``, ``max``,
``min`` (and ``amax``, ``amin``), ``cumsum``, ``cumprod``, ``var``, ``std``,
``linalg.norm``, ``average``, ``nansum``, ``nanmean``.

The rules take NumPy's arguments (``axis`` None, an int or a tuple; ``keepdims``,
``dtype``, ``where``, ``initial``, ``ddof``/``correction``); the tangent has the result's
shape, after the chunk axis if there is one. Conventions:

* ``max``/``min``, and the ``inf`` norms: at a tie, the derivative of the first
  occurrence (the element ``argmax``/``argmin`` picks), as ``maximum`` at a tie takes
  its first argument's. An ``initial`` that wins gives derivative 0.
* ``prod`` and ``cumprod`` never divide by the input: entries equal to zero are fine.
* Where the function has no derivative the rule gives what the formula gives, and NumPy
  warns: the 2-norm and Frobenius norm at 0 and ``std`` of constant data are 0/0 (nan),
  except along a direction that does not move the elements reduced (for ``std``: that
  moves them all alike), where the result does not move either (0);
  a p-norm with p < 1 at a zero entry is nan; ``var``/``std`` with ``ddof`` >= the count
  are inf/nan, as their values. (``var``/``std`` of single elements with ``ddof=0`` are
  constant 0: untagged.) The 1-norm at a zero entry takes ``sign(0) = 0``, as
  ``abs``.
* A result of integer dtype (``dtype=int``, ``norm(x, 0)``) is piecewise constant: it is
  returned untagged (derivative 0), as ``np.floor``.
* Matrix norms: ``None``/``'fro'``, ``1``, ``-1``, ``inf``, ``-inf``; ``'nuc'`` and ``±2``
  (singular values, rule in ``decompositions``): ``±2`` at a tie of the extreme singular
  values takes the singular vectors NumPy returns first/last.
* ``var``/``std`` with ``mean=`` raise NoRuleError; leave it out.
* ``np.average(a, weights=w)``: ``a`` and ``w`` may both carry tangents, given by
  position or by keyword.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from context.tagging import dispatch, native_primitive
from context.tagging.values import primal

from ..engine.forward import ForwardCtx, NoRuleError, frule
from .decompositions import singular_value_norm_tangent
from .shapes import bind, name_of
from .special import dabs
from .tangents import lead, shape_of, shift_axis

_NoValue = np._NoValue


# ------------------------------------------------------------------ helpers


def _given(opts, key, default=None):
    value = opts.get(key, default)
    return default if value is _NoValue else value


def _inexact(out):
    dtype = getattr(primal(out), "dtype", None)
    return dtype is None or dtype.kind in "fc"


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative axes (None: every axis)."""
    if axis is None:
        return tuple(range(ndim))
    return normalize_axis_tuple(axis, ndim)


def _kept(shape, axes):
    """``shape`` with the reduced ``axes`` kept as length 1 (the ``keepdims=True`` shape)."""
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _to_end(a, axes, n):
    """``a``'s primal ``axes`` (after ``n`` chunk axes) moved to the end and merged into one axis."""
    k = len(axes)
    moved = np.moveaxis(a, [ax + n for ax in axes], list(range(-k, 0))) if k else a
    shape = shape_of(moved)
    return np.reshape(moved, shape[: len(shape) - k] + (-1,))


def _along(idx, n):
    """Index array ``idx`` with ``n`` leading unit axes, to take from a chunked tangent."""
    return idx.reshape((1,) * n + idx.shape) if n else idx


def _dabs(x, g):
    """The tangent of ``abs(x)`` along ``g`` (``sign(0) = 0``)."""
    return dabs(g, x)


def _re_dot(x, g):
    """``Re(conj(x) * g)``, elementwise: the tangent of ``|x|**2 / 2``."""
    if np.iscomplexobj(primal(x)):
        return np.real(np.conj(x) * g)
    return x * g


def _pick(px, g, axes, n, out_shape, largest, mask=None):
    """The tangent of the max (``largest``) or min of ``px`` over ``axes``: ``g`` at the first extremum.

    ``mask`` (a boolean array of ``px``'s shape) leaves elements out; a reduction with none left
    gives None in place of the tangent (its value is ``initial``, a constant).
    """
    xs = _to_end(px, axes, 0)
    if xs.shape[-1] == 0:
        return None, None
    if mask is not None:
        xs = np.where(_to_end(mask, axes, 0), xs, -np.inf if largest else np.inf)
    idx = (np.argmax if largest else np.argmin)(xs, axis=-1, keepdims=True)
    d = np.take_along_axis(_to_end(g, axes, n), _along(idx, n), axis=-1)
    chunk = shape_of(g)[:n]
    return np.reshape(d, chunk + out_shape), np.take_along_axis(xs, idx, axis=-1).reshape(out_shape)


# ---------------------------------------------------------- linear reductions

_SUM = ("a", "axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN = ("a", "axis", "dtype", "out", "keepdims")
_MAX = ("a", "axis", "out", "keepdims", "initial", "where")
_CUM = ("a", "axis", "dtype", "out")
_VAR = ("a", "axis", "dtype", "out", "ddof", "keepdims")
_NORM = ("x", "ord", "axis", "keepdims")


def _linear(fn, x, g, opts, out):
    """``fn`` of tangent ``g`` with ``opts``' axis shifted past the chunk axes (None for an integer ``out``)."""
    if not _inexact(out):
        return None
    n = lead(g, x)
    topts = {k: v for k, v in opts.items() if k in ("dtype", "keepdims", "where")}
    topts["axis"] = shift_axis(opts.get("axis"), len(shape_of(x)), n)
    return fn(g, **topts)


@frule(np.sum)
def _sum(primals, tangents, **kwargs):
    x, g, opts = bind(np.sum, _SUM, primals, tangents, kwargs)
    out = np.sum(x, **opts)
    return out, _linear(np.sum, x, g, opts, out)


@frule(np.mean)
def _mean(primals, tangents, **kwargs):
    x, g, opts = bind(np.mean, _MEAN, primals, tangents, kwargs)
    out = np.mean(x, **opts)
    return out, _linear(np.mean, x, g, opts, out)


@frule(np.nansum)
def _nansum(primals, tangents, **kwargs):
    x, g, opts = bind(np.nansum, _SUM, primals, tangents, kwargs)
    out = np.nansum(x, **opts)
    keep = ~np.isnan(primal(x)) & _given(opts, "where", True)
    return out, _linear(np.sum, x, g, dict(opts, where=keep), out)


@frule(np.nanmean)
def _nanmean(primals, tangents, **kwargs):
    """The mean of the tangent over the entries that are not NaN (an all-NaN slice gives nan, as the value)."""
    x, g, opts = bind(np.nanmean, _MEAN, primals, tangents, kwargs)
    out = np.nanmean(x, **opts)
    keep = ~np.isnan(primal(x)) & _given(opts, "where", True)
    return out, _linear(np.mean, x, g, dict(opts, where=keep), out)


def _cumulative(fn, primals, tangents, kwargs, tangent_of):
    x, g, opts = bind(fn, _CUM, primals, tangents, kwargs)
    out = fn(x, **opts)
    if not _inexact(out):
        return out, None
    axis = opts.get("axis")
    n = lead(g, x)
    if axis is None:  # the flattened array
        x = np.reshape(x, (-1,))
        g = np.reshape(g, shape_of(g)[:n] + (-1,))
        axis = 0
    else:
        axis = normalize_axis_tuple(axis, len(shape_of(x)))[0]
    return out, tangent_of(x, g, axis, n, opts.get("dtype"))


@frule(np.cumsum)
def _cumsum(primals, tangents, **kwargs):
    return _cumulative(np.cumsum, primals, tangents, kwargs,
                       lambda x, g, axis, n, dtype: np.cumsum(g, axis=axis + n, dtype=dtype))


def _cumprod_tangent(x, g, axis, n, dtype):
    """Tangent of ``cumprod(x)`` without division: ``dy[i] = x[i] dy[i-1] + y[i-1] g[i]``, solved
    as a scan of affine maps (Hillis-Steele, ``log2(len)`` steps of whole-array operations)."""
    def part(a, start, stop, shift):
        key = (slice(None),) * (axis + shift) + (slice(start, stop),)
        return a[key]

    shape = shape_of(x)
    m = shape[axis]
    one = np.ones(shape[:axis] + (1,) + shape[axis + 1:], dtype=primal(x).dtype)
    before = np.concatenate([one, part(np.cumprod(x, axis=axis), None, -1, 0)], axis=axis)  # y[i-1]
    a, b = x, g * before
    step = 1
    while step < m:
        b = np.concatenate([part(b, None, step, n), part(a, step, None, 0) * part(b, None, -step, n)
                            + part(b, step, None, n)], axis=axis + n)
        if 2 * step < m:
            a = np.concatenate([part(a, None, step, 0), part(a, step, None, 0) * part(a, None, -step, 0)],
                               axis=axis)
        step *= 2
    return b if dtype is None else b.astype(dtype)


@frule(np.cumprod)
def _cumprod(primals, tangents, **kwargs):
    return _cumulative(np.cumprod, primals, tangents, kwargs, _cumprod_tangent)


# ------------------------------------------------------------ nonlinear ones


@frule(np.prod)
def _prod(primals, tangents, **kwargs):
    """``sum_i g_i * prod_{j != i} x_j``, the products of the others from prefix and suffix products."""
    x, g, opts = bind(np.prod, _SUM, primals, tangents, kwargs)
    out = np.prod(x, **opts)
    if not _inexact(out):
        return out, None
    shape = shape_of(x)
    axes = _axes(opts.get("axis"), len(shape))
    n = lead(g, x)
    where = _given(opts, "where", True)
    keep = None
    if where is not True:  # left-out entries count as factors 1, and their tangents not at all
        keep = _to_end(np.broadcast_to(where, shape), axes, 0)
        x = np.where(np.broadcast_to(where, shape), x, 1.0)
    xs = _to_end(x, axes, 0)
    one = np.ones(shape_of(xs)[:-1] + (1,), dtype=primal(xs).dtype)
    left = np.cumprod(np.concatenate([one, xs[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([one, xs[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    terms = _to_end(g, axes, n) * (left * right)
    d = np.sum(terms, axis=-1, dtype=opts.get("dtype"), where=True if keep is None else keep)
    initial = _given(opts, "initial")
    if initial is not None:
        d = d * initial
    return out, np.reshape(d, shape_of(g)[:n] + shape_of(out))


def _extremum(fn, largest):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = bind(fn, _MAX, primals, tangents, kwargs)
        out = fn(x, **opts)
        px = primal(x)
        where = _given(opts, "where", True)
        mask = None if where is True else np.broadcast_to(where, np.shape(px))
        n = lead(g, x)
        d, chosen = _pick(px, g, _axes(opts.get("axis"), np.ndim(px)), n, shape_of(out), largest, mask)
        initial = _given(opts, "initial")
        if d is not None and initial is not None:
            d = d * ((chosen >= initial) if largest else (chosen <= initial))
        return out, d

    rule.__name__ = rule.__qualname__ = "_" + fn.__name__
    return rule


for _fn, _largest in ((np.max, True), (np.amax, True), (np.min, False), (np.amin, False)):
    _extremum(_fn, _largest)


def _moments(fn, primals, tangents, kwargs):
    """``(out, sum(Re(conj(x - mean) g)) / (N - ddof), chunk shape, keepdims shape, tangent axes
    reduced)`` for var and std."""
    x, g, opts = bind(fn, _VAR, primals, tangents, kwargs)
    if _given(opts, "mean") is not None:
        raise NoRuleError("%s(..., mean=...) has no derivative rule; leave mean out" % name_of(fn))
    out = fn(x, **opts)
    shape = shape_of(x)
    axes = _axes(opts.get("axis"), len(shape))
    n = lead(g, x)
    where = _given(opts, "where", True)
    ddof = _given(opts, "correction")
    ddof = _given(opts, "ddof", 0) if ddof is None else ddof
    if where is True:
        count = 1
        for ax in axes:
            count *= shape[ax]
        if count == 1 and ddof == 0:
            return out, None, None, None, None
    else:
        count = np.sum(np.broadcast_to(where, shape), axis=axes, keepdims=True)
    dev = x - np.mean(x, axis=axes, keepdims=True, where=where)
    taxes = shift_axis(axes, len(shape), n)
    s = np.sum(_re_dot(dev, g), axis=taxes, keepdims=True, where=where)
    return out, s / np.maximum(count - ddof, 0), shape_of(g)[:n], _kept(shape, axes), taxes


@frule(np.var)
def _var(primals, tangents, **kwargs):
    out, d, chunk, _, _ = _moments(np.var, primals, tangents, kwargs)
    return out, None if d is None else np.reshape(2 * d, chunk + shape_of(out))


def _over_reduced(d, out, kept, g, taxes, centred=False):
    """``d / out`` (``out`` reduced over ``taxes`` of tangent ``g``, shaped ``kept`` with its axes
    kept), with 0 where ``out`` is 0 and ``g`` is 0 over the elements reduced (with ``centred``, ``g``
    less its mean there): a direction that does not move them (for ``std``, that moves them all
    alike) does not move the result: the norm of a zero row, ``std`` of equal values. Where it does,
    no derivative exists and the result is nan, as in JAX."""
    q = d / np.reshape(out, kept)
    if np.any(primal(out) == 0):
        pg = primal(g)
        if centred:  # (to rounding: equal values' tangents may be computed with different roundings)
            size = np.max(np.abs(pg), axis=taxes, keepdims=True)
            pg = np.abs(pg - np.mean(pg, axis=taxes, keepdims=True)) > 16 * np.finfo(float).eps * size
        untouched = np.all(pg == 0, axis=taxes, keepdims=True)
        q = np.where(untouched, 0.0, q)
    return q


@frule(np.std)
def _std(primals, tangents, **kwargs):
    out, d, chunk, kept, taxes = _moments(np.std, primals, tangents, kwargs)
    if d is None:  # the deviation of single elements: 0 whatever they are
        return out, None
    return out, np.reshape(_over_reduced(d, out, kept, tangents[0], taxes, centred=True), chunk + shape_of(out))


# ----------------------------------------------------------------------- norm


@frule(np.linalg.norm)
def _norm(primals, tangents, **kwargs):
    x, g, opts = bind(np.linalg.norm, _NORM, primals, tangents, kwargs)
    out = np.linalg.norm(x, **opts)
    ord, axis, nd = opts.get("ord"), opts.get("axis"), len(shape_of(x))
    if axis is None and not (ord is None or ord in ("f", "fro") or nd == 1):
        axis = tuple(range(nd))  # a matrix (NumPy accepted the ord) or a vector
    axes = _axes(axis, nd)
    return out, _norm_tangent(np.linalg.norm, x, g, out, ord, axes, len(axes) == 2)


@frule(np.linalg.vector_norm)
def _vector_norm(primals, tangents, axis=None, keepdims=False, ord=2):
    x, g = primals[0], tangents[0]
    out = np.linalg.vector_norm(*primals, axis=axis, keepdims=keepdims, ord=ord)
    return out, _norm_tangent(np.linalg.vector_norm, x, g, out, ord, _axes(axis, len(shape_of(x))), False)


@frule(np.linalg.matrix_norm)
def _matrix_norm(primals, tangents, keepdims=False, ord="fro"):
    x, g = primals[0], tangents[0]
    out = np.linalg.matrix_norm(*primals, keepdims=keepdims, ord=ord)
    nd = len(shape_of(x))
    return out, _norm_tangent(np.linalg.matrix_norm, x, g, out, ord, (nd - 2, nd - 1), True)


def _norm_tangent(fn, x, g, out, ord, axes, matrix):
    """The tangent of the norm ``out`` of ``x`` over ``axes`` (a matrix norm if ``matrix``), or None."""
    shape = shape_of(x)
    n = lead(g, x)
    kept = _kept(shape, axes)
    px = primal(x)
    taxes = shift_axis(axes, len(shape), n)
    if ord is None or ord in ("f", "fro") or (ord == 2 and not matrix):
        d = _over_reduced(np.sum(_re_dot(x, g), axis=taxes, keepdims=True), out, kept, g, taxes)
    elif not matrix and ord == 0:  # the count of nonzero entries
        return None
    elif not matrix and ord in (np.inf, -np.inf):
        d, _ = _pick(np.abs(px), _dabs(x, g), axes, n, kept, ord > 0)
    elif not matrix and ord == 1:
        d = np.sum(_dabs(x, g), axis=taxes, keepdims=True)
    elif not matrix:  # d ||x||_p = ||x||^(1-p) * sum(|x|^(p-1) d|x|)
        d = np.sum(np.abs(x) ** (ord - 1) * _dabs(x, g), axis=taxes, keepdims=True)
        d = d * np.reshape(out, kept) ** (1 - ord)
    elif ord in (1, -1, np.inf, -np.inf):
        # the sums of |x| over one axis; the tangent of the extreme one over the other
        summed, picked = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
        sums = np.sum(np.abs(px), axis=summed, keepdims=True)
        ds = np.sum(_dabs(x, g), axis=summed + n, keepdims=True)
        d, _ = _pick(sums, ds, (picked,), n, kept, ord > 0)
    elif ord in ("nuc", 2, -2):  # singular values: the rule is with the SVD's
        d = singular_value_norm_tangent(x, g, ord, axes, n)
    else:
        raise NoRuleError("%s with ord=%r for matrices has no derivative rule" % (name_of(fn), ord))
    if d is None:  # an empty reduction: the value is a constant
        return None
    return np.reshape(d, shape_of(g)[:n] + shape_of(out))


# -------------------------------------------------------------------- average


def _weighted_average(a, axis, weights, returned, keepdims):
    """``np.average`` with every argument by position, so that tagged weights reach the rule split."""
    return np.average(a, axis, weights, returned, keepdims=keepdims)


@ForwardCtx.primitive(np.average)
@native_primitive
def _average_call(ctx, a, axis=None, weights=None, returned=False, *, keepdims=_NoValue):
    return dispatch(_weighted_average, (a, axis, weights, returned, keepdims))


@frule(_weighted_average)
def _average(primals, tangents):
    """``(sum(g w) + sum((a - avg) dw)) / sum(w)``, with ``w`` laid along ``axis`` as NumPy lays it."""
    a, axis, w, returned, keepdims = primals
    g, _, dw = tangents[:3]
    if any(t is not None for t in tangents[3:]) or tangents[1] is not None:
        raise NoRuleError("np.average: only a and weights may carry a derivative")
    res = np.average(a, axis, w, returned, keepdims=keepdims)
    avg, scl = res if returned else (res, None)
    shape = shape_of(a)
    nd = len(shape)
    axes = _axes(axis, nd)
    n = lead(g, a) if g is not None else lead(dw, w)
    chunk = (shape_of(g) if g is not None else shape_of(dw))[:n]
    taxes = shift_axis(axes, nd, n)
    if w is None:
        d = np.mean(g, axis=taxes, keepdims=True)
        dscl = None
    else:
        ws = shape_of(w)
        if ws != shape:  # weights along axis: laid out as NumPy lays them
            order = tuple(int(i) for i in np.argsort(axes))
            laid = tuple(s if i in axes else 1 for i, s in enumerate(shape))
            w = np.reshape(np.transpose(w, order), laid)
            if dw is not None:
                dw = np.reshape(np.transpose(dw, tuple(range(n)) + tuple(i + n for i in order)), chunk + laid)
        total = np.sum(w, axis=axes, keepdims=True)
        d = 0
        if g is not None:
            d = np.sum(g * w, axis=taxes, keepdims=True)
        if dw is not None:
            mean = np.sum(a * w, axis=axes, keepdims=True) / total
            d = d + np.sum((a - mean) * dw, axis=taxes, keepdims=True)
        d = d / total
        dscl = None
        if returned and dw is not None:
            kd = False if keepdims is _NoValue else keepdims
            dscl = np.copy(np.broadcast_to(np.sum(dw, axis=taxes, keepdims=kd), chunk + shape_of(scl)))
    d = np.reshape(d, chunk + shape_of(avg))
    return (res, (d, dscl)) if returned else (res, d)
