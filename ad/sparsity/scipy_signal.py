"""Sparsity rules for ``scipy.signal``'s convolutions, correlations and ``lfilter`` (registered
when ``scipy.signal`` is imported: ``ad/sparsity/__init__.py``).

A convolution is linear in each operand with the other fixed, so its structure is found
as ``np.convolve``'s is (``linear._convolution``): with a one-hot *delta* at each nonzero
of the constant operand (each element, if both depend on the input), the function itself,
called on the other operand's elements numbered ``1, 2, ...``, moves each number to
where that element lands. Every ``mode``, ``method`` (direct or FFT: the numbers are
rounded back), ``axes`` and ``boundary`` follows from the function's own call; a
``fillvalue`` that depends on the input reaches the padded positions only. The cost is
one call per nonzero of the kernel, a handful for a stencil.

``lfilter(b, a, x)`` with constant coefficients is a convolution of ``x`` with ``b`` when
``a`` has no feedback terms (found by the same probes), and a recursion otherwise: each
output depends on every input up to it along the axis (``np.cumsum``'s structure).
Coefficients or initial conditions that depend on the input reach every output along
the axis (an over-approximation for a filter without feedback).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.signal as signal

from context.resolve import declare_engine_code
from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError
from . import deps
from . import families as F
from .table import defsparsity
from .tracer import UNDECIDED

declare_engine_code(__file__)

_CONVOLUTIONS = {  # function: its parameters after in1, in2, and the one that is a fill value
    signal.convolve: (("mode", "method"), None),
    signal.correlate: (("mode", "method"), None),
    signal.fftconvolve: (("mode", "axes"), None),
    signal.oaconvolve: (("mode", "axes"), None),
    signal.convolve2d: (("mode", "boundary", "fillvalue"), "fillvalue"),
    signal.correlate2d: (("mode", "boundary", "fillvalue"), "fillvalue"),
}


def _known(d):
    return d is not None and d is not UNDECIDED and d.shape[0] > 0


def _bind(fn, args, kwargs, names):
    """``(in1, in2, options)`` of a call, the options by name."""
    if len(args) > 2 + len(names):
        raise TypeError("%s takes at most %d positional arguments" % (qualified_name(fn), 2 + len(names)))
    options = dict(zip(names, args[2:]))
    for key, value in kwargs.items():
        if key not in names or key in options:
            raise TypeError("%s got an unexpected or repeated keyword argument '%s'" % (qualified_name(fn), key))
        options[key] = value
    return args[0], args[1], options


def _convolution(names, fill):
    def rule(ctx, fn, args, kwargs):
        in1, in2, options = _bind(fn, args, kwargs, names)
        (p1, p2), (d1, d2), _ = F._split(ctx, [in1, in2])
        plain = {}
        fill_d = None
        for key, value in options.items():
            (v,), (d,), found = F._split(ctx, [value])
            if found and key != fill:
                raise NoRuleError("%s: %s depends on the input; it must be a constant" % (qualified_name(fn), key))
            if key == fill and _known(d):
                fill_d = d
            plain[key] = v
        ans = F._call(ctx, fn, [p1, p2], plain)
        if not (_known(d1) or _known(d2) or fill_d is not None):
            return ans
        shape = np.shape(ans)
        primals, ds = (np.asarray(p1), np.asarray(p2)), (d1, d2)
        probing = dict(plain, **({fill: 0} if fill else {}))
        parts = []
        for j in (0, 1):
            if not _known(ds[j]):
                continue
            other = 1 - j
            nonzero = np.ones(primals[other].shape, bool) if _known(ds[other]) else primals[other] != 0
            numbers = np.arange(1, primals[j].size + 1, dtype=np.float64).reshape(primals[j].shape)
            for k in np.flatnonzero(nonzero):
                delta = np.zeros(primals[other].shape)
                delta.flat[k] = 1.0
                pair = (numbers, delta) if j == 0 else (delta, numbers)
                ids = np.rint(np.real(fn(*pair, **probing))).astype(np.int64)
                parts.append(deps.take(ds[j], ids - 1))
        if fill_d is not None:  # the positions a padding value reaches: those in1's zeros do not
            reached = np.zeros(shape, bool)
            for k in np.flatnonzero(np.ones(primals[1].shape, bool) if _known(d2) else primals[1] != 0):
                delta = np.zeros(primals[1].shape)
                delta.flat[k] = 1.0
                reached |= np.abs(fn(np.zeros(primals[0].shape), delta, **dict(plain, **{fill: 1.0}))) > 0
            lined = deps.lined(fill_d, shape)
            parts.append(np.where(reached, lined, np.zeros((), lined.dtype)))
        if not parts:
            return ans
        return F.result(ctx, ans, deps.union(parts, shape))

    return rule


_LFILTER = ("b", "a", "x", "axis", "zi")


def _lfilter(ctx, fn, args, kwargs):
    if len(args) > len(_LFILTER):
        raise TypeError("scipy.signal.lfilter takes at most 5 positional arguments")
    bound = dict(zip(_LFILTER, args))
    for key, value in kwargs.items():
        if key not in _LFILTER or key in bound:
            raise TypeError("scipy.signal.lfilter got an unexpected or repeated keyword argument '%s'" % key)
        bound[key] = value
    if "x" not in bound:
        raise TypeError("scipy.signal.lfilter needs b, a and x")
    names = [k for k in _LFILTER if k in bound]
    primals, ds, found = F._split(ctx, [bound[k] for k in names])
    p, d = dict(zip(names, primals)), dict(zip(names, ds))
    if _known(d.get("axis")) or d.get("axis") is UNDECIDED:
        raise NoRuleError("scipy.signal.lfilter: axis depends on the input; it must be a constant")
    ans = F._call(ctx, fn, [], p)
    if not found:
        return ans
    y = ans[0] if isinstance(ans, tuple) else ans
    x = np.asarray(p["x"])
    axis = int(p.get("axis", -1)) % max(x.ndim, 1)
    a = np.atleast_1d(np.asarray(p["a"]))
    feedback = a.size > 1 and np.any(a[1:] != 0)
    parts = []
    if _known(d["x"]):
        Dx = deps.lined(d["x"], x.shape)
        if feedback:  # each output: every input up to it along the axis
            parts.append(F.cumulative(Dx, axis))
        else:
            b = np.atleast_1d(np.asarray(p["b"]))
            numbers = np.arange(1, x.size + 1, dtype=np.float64).reshape(x.shape)
            for k in np.flatnonzero(b != 0) if not _known(d["b"]) else range(b.size):
                delta = np.zeros(b.shape)
                delta.flat[k] = 1.0
                ids = np.rint(fn(delta, [1.0], numbers, axis=axis)).astype(np.int64)  # (a[0] only scales)
                parts.append(deps.take(Dx, ids - 1))
    whole = [deps.reduce(d[k], tuple(range(d[k].ndim - 1)), ()) for k in ("b", "a") if _known(d.get(k))]
    if _known(d.get("zi")):  # (every output along the axis, from every initial condition: over-approximated)
        whole.append(deps.reduce(d["zi"], tuple(range(d["zi"].ndim - 1)), ()))
    if whole:
        parts.append(deps.lined(deps.union(whole, ()), y.shape))
    if not parts:
        return ans
    Dy = deps.union(parts, y.shape)
    if isinstance(ans, tuple):  # (y, zf): the final state depends on everything along the axis
        zf = ans[1]
        Dz = deps.lined(deps.union([deps.reduce(Dy, tuple(range(Dy.ndim - 1)), ())], ()), np.shape(zf))
        return F.result(ctx, y, Dy), F.result(ctx, zf, Dz)
    return F.result(ctx, y, Dy)


def install() -> None:
    for fn, (names, fill) in _CONVOLUTIONS.items():
        defsparsity(fn, _convolution(names, fill))
    defsparsity(signal.lfilter, _lfilter)


install()
