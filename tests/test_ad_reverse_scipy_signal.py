"""Reverse-mode rules of scipy.signal's convolutions and correlations: every mode, method,
boundary and axes, by the dot-product test against forward mode, and one gradient against
central differences."""

import numpy as np
import pytest

import ad
from ad.testing import check_vjp

signal = pytest.importorskip("scipy.signal")

RNG = np.random.default_rng(0)
A1, B1 = RNG.normal(size=7), RNG.normal(size=3)
A, K = RNG.normal(size=(5, 6)), RNG.normal(size=(3, 2))
MODES = ("full", "same", "valid")


def _cases():
    for mode in MODES:
        for method in ("direct", "fft"):
            yield f"convolve 1-d {mode} {method}", lambda a, b, m=mode, me=method: signal.convolve(a, b, m, me), (A1, B1)
            yield f"convolve, larger second {mode} {method}", lambda a, b, m=mode, me=method: signal.convolve(a, b, m, me), (B1, A1)
            yield f"correlate 2-d {mode} {method}", lambda a, b, m=mode, me=method: signal.correlate(a, b, m, me), (A, K)
        yield f"correlate, larger second {mode}", lambda a, b, m=mode: signal.correlate(a, b, mode=m), (B1, A1)
        yield f"fftconvolve {mode}", lambda a, b, m=mode: signal.fftconvolve(a, b, m), (A, K)
        yield f"oaconvolve along axis 1 {mode}", lambda a, b, m=mode: signal.oaconvolve(a, b[:, :1].T, m, axes=1), (A, K)
        yield f"fftconvolve along axis 0, broadcast {mode}", lambda a, b, m=mode: signal.fftconvolve(a, b[:, :1], m, axes=0), (A, K)
        for boundary in ("fill", "wrap", "symm"):
            yield f"convolve2d {mode} {boundary}", lambda a, b, m=mode, bd=boundary: signal.convolve2d(a, b, m, bd), (A, K)
            yield f"correlate2d {mode} {boundary}", lambda a, b, m=mode, bd=boundary: signal.correlate2d(a, b, m, bd), (A, K)
        yield f"convolve2d fill value {mode}", lambda a, b, c, m=mode: signal.convolve2d(a, b, m, "fill", c), (A, K, 0.7)
        yield f"correlate2d fill value by keyword {mode}", lambda a, b, c, m=mode: signal.correlate2d(a, b, mode=m, fillvalue=c), (A, K, 0.7)


CASES = {name: (f, args) for name, f, args in _cases()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dot_product(name):
    f, args = CASES[name]
    check_vjp(f, args)


def test_gradient_against_differences():
    def loss(a):
        return np.sum(signal.convolve2d(a, K, "same", "wrap") ** 2) + np.sum(signal.fftconvolve(a, K, "valid"))

    g = ad.gradient(loss, A, backend=ad.ReverseMode())
    h, fd = 1e-6, np.zeros_like(A)
    for i in np.ndindex(A.shape):
        e = np.zeros_like(A)
        e[i] = h
        fd[i] = (loss(A + e) - loss(A - e)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


SECOND_ORDER = [name for name in sorted(CASES) if " full" in name or "fill value" in name]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_nested_every_way(name):
    """The pullbacks compute with the operands as given, so that an enclosing derivative
    differentiates them (they used the operands' plain values: the Hessian forward over reverse and
    reverse over reverse of a convolution lost its cross terms, found by autograd's suite in reverse mode)."""
    f, args = CASES[name]
    sizes = [int(np.size(a)) for a in args]
    shapes = [np.shape(a) for a in args]
    cuts = np.cumsum([0] + sizes)
    small = np.concatenate([np.ravel(a)[:] for a in args]) * 0.5

    def loss(v):
        parts = [np.reshape(v[cuts[i]:cuts[i + 1]], shapes[i]) if shapes[i] else v[cuts[i]] for i in range(len(args))]
        return np.sum(np.sin(f(*parts)))

    H = ad.hessian(loss, small)
    F, R = ad.ForwardMode(), ad.ReverseMode()
    for outer, inner in ((F, R), (R, R), (R, F)):
        np.testing.assert_allclose(ad.hessian(loss, small, backend=ad.HigherOrder(outer, inner)), H,
                                   rtol=1e-9, atol=1e-9)
