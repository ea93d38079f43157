"""Reverse-mode rules for ``scipy.signal``'s convolutions and correlations (loaded when it is
imported): ``convolve``, ``correlate``, ``fftconvolve``, ``oaconvolve``, ``convolve2d``,
``correlate2d``.

Each is bilinear: the cotangent of one operand is the adjoint of the linear map the other
makes, applied to the result's cotangent ``u``. For a convolution that adjoint is a
correlation: ``u`` is padded back to the ``full`` result (the ``same`` and ``valid`` results
are centred in it), then ``correlate(u_full, other, "valid")`` gives the operand's
cotangent; ``correlate`` is ``convolve`` with the second operand flipped; ``fftconvolve``
and ``oaconvolve`` along ``axes`` correlate along those axes only (by ``fftconvolve`` with
the other operand flipped), summing over the axes an operand was broadcast along.
``convolve2d``/``correlate2d`` with ``boundary="wrap"`` or ``"symm"`` read operands through
a boundary, so their adjoint is built from the function itself: for each nonzero of the
fixed operand, a one-hot probe says where each element of the other goes, and ``u`` is
gathered back from there; a ``fillvalue`` (``boundary="fill"``) gets the sum of ``u`` over
the positions it fills. ``mode``, ``method``, ``boundary`` and ``axes`` are constants.
Complex values: ``correlate`` and ``correlate2d`` take the conjugate of ``in2``, so their
cotangents of ``in2`` are conjugated and the correlations used as adjoints are given conjugates.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.signal as signal

from context.tagging.values import primal

from ..engine.reverse import complex_checked
from .pullbacks import unbroadcast
from .vjps import zeros_for
from .vjps_numeric import defvjp_named


def _p(x):
    return np.asarray(primal(x))


def _full(u, shape_full):
    """Cotangent ``u`` of a ``same``/``valid`` result placed where that result sits in the full one."""
    u = np.asarray(u)
    if u.shape == tuple(shape_full):
        return u
    start = [(f - n) // 2 for f, n in zip(shape_full, u.shape)]
    out = zeros_for(shape_full, u)
    out[tuple(slice(s, s + n) for s, n in zip(start, u.shape))] = u
    return out


# ------------------------------------------------------------------ convolve, correlate (n-d)


def _conv_full_shape(a, v):
    return tuple(n + m - 1 for n, m in zip(np.shape(a), np.shape(v)))


def _convolve_in1(u, ans, in1, in2, mode, method):
    full = _conv_full_shape(_p(in1), _p(in2))
    return signal.correlate(_full(u, full), np.conjugate(in2), mode="valid")  # (correlate conjugates)


def _convolve_in2(u, ans, in1, in2, mode, method):
    full = _conv_full_shape(_p(in1), _p(in2))
    return signal.correlate(_full(u, full), np.conjugate(in1), mode="valid")


def _correlate_in1(u, ans, in1, in2, mode, method):  # correlate(a, v) is convolve(a, flip(v))
    full = _conv_full_shape(_p(in1), _p(in2))
    return signal.correlate(_full(u, full), np.flip(in2), mode="valid")


def _correlate_in2(u, ans, in1, in2, mode, method):  # conjugate-linear in v: conj(sum u a) = correlate(conj u, a)
    full = _conv_full_shape(_p(in1), _p(in2))
    return np.flip(signal.correlate(np.conjugate(_full(u, full)), in1, mode="valid"))


defvjp_named(signal.convolve, {"in1": _convolve_in1, "in2": _convolve_in2})
defvjp_named(signal.correlate, {"in1": _correlate_in1, "in2": _correlate_in2})


# ------------------------------------------------------------------ fftconvolve, oaconvolve (along axes)


def _along(one, other, u, axes):
    po, pt = _p(one), _p(other)  # (shapes; the operands themselves are computed with: an enclosing
    nd = max(po.ndim, pt.ndim)   # derivative differentiates the cotangent in them)
    axes = tuple(range(nd)) if axes is None else tuple(int(ax) % nd for ax in np.atleast_1d(axes))
    so, st = po.shape, pt.shape
    full = tuple(so[i] + st[i] - 1 if i in axes else max(so[i], st[i]) for i in range(nd))
    g = signal.fftconvolve(_full(u, full), np.flip(other, axis=axes), mode="valid", axes=axes)
    return unbroadcast(g, one)


for _fn in (signal.fftconvolve, signal.oaconvolve):
    defvjp_named(_fn, {"in1": lambda u, ans, in1, in2, mode, axes: _along(in1, in2, u, axes),
                       "in2": lambda u, ans, in1, in2, mode, axes: _along(in2, in1, u, axes)})


# ------------------------------------------------------------------ convolve2d, correlate2d (boundaries)


def _two_d(fn, conjugates):
    """``conjugates``: ``fn`` takes the conjugate of ``in2`` (``correlate2d``)."""
    weight = np.conjugate if conjugates else (lambda x: x)

    def vjp_in1(u, ans, in1, in2, mode, boundary, fillvalue):
        """For each nonzero of ``in2``, a probe of ``in1``'s elements numbered ``1..n`` says where each
        went; ``u`` comes back from there (the padding, a constant for ``in1``, is probed as 0)."""
        a, k = _p(in1), _p(in2)
        numbers = np.arange(1, a.size + 1, dtype=np.float64).reshape(a.shape)
        flat_k = np.ravel(in2)  # (its elements weigh u: an enclosing derivative differentiates them)
        g = zeros_for(a.size, np.ravel(u)[:1] * flat_k[:1])
        for j in np.flatnonzero(k):
            delta = np.zeros(k.shape)
            delta.flat[j] = 1.0
            ids = np.rint(fn(numbers, delta, mode=mode, boundary=boundary, fillvalue=0)).astype(np.int64)
            hit = ids > 0
            np.add.at(g, ids[hit] - 1, weight(flat_k[j]) * u[hit])
        return np.reshape(g, a.shape)

    def vjp_in2(u, ans, in1, in2, mode, boundary, fillvalue):
        """Element ``j`` of ``in2`` weighs ``fn(in1, delta_j)`` (the padding included)."""
        k = _p(in2)
        parts = []
        for j in range(k.size):
            delta = np.zeros(k.shape)
            delta.flat[j] = 1.0
            parts.append(weight(np.sum(u * fn(in1, delta, mode=mode, boundary=boundary, fillvalue=fillvalue))))
        return np.reshape(np.array(parts), k.shape)

    def vjp_fillvalue(u, ans, in1, in2, mode, boundary, fillvalue):
        reached = fn(np.zeros(_p(in1).shape), in2, mode=mode, boundary=boundary, fillvalue=1.0)
        return np.sum(u * reached)

    defvjp_named(fn, {"in1": vjp_in1, "in2": vjp_in2, "fillvalue": vjp_fillvalue})


_two_d(signal.convolve2d, False)
_two_d(signal.correlate2d, True)
COMPLEX = (signal.convolve, signal.correlate, signal.fftconvolve, signal.oaconvolve, signal.convolve2d, signal.correlate2d)
complex_checked(*COMPLEX)  # (on complex values: tests/test_ad_reverse_complex.py)
