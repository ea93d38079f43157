"""Forward AD of ``numpy.fft`` (``ad/rules/fft.py``), against central differences.

Every transform is checked with ``check_grads`` (orders 1 and 2, random directions, complex ones
for complex inputs) with its options (``n``, ``s``, ``axis``, ``axes``, ``norm``), and with
``ad.jacobian`` (a chunk of 16 directions through one call) against a finite-difference
Jacobian; complex tangents of real inputs are taken C-linearly; refusals raise NoRuleError.
"""

import numpy as np
import pytest

import ad
from ad.testing import check_grads
from tests.ad_rule_checks import fd_jacobian

# fftn(x, s=...) without axes= is deprecated in NumPy 2 but still means the last len(s) axes: tested too
pytestmark = pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")

fft = np.fft
rng = np.random.default_rng(1)
V = rng.normal(size=6)
M = rng.normal(size=(4, 5))
T = rng.normal(size=(3, 4, 5))


def cplx(x):
    return x + 1j * rng.normal(size=np.shape(x))


# (function, input, options, accepts complex input)
CASES = [
    (fft.fft, V, {}, True),
    (fft.fft, M, {"n": 3, "axis": 0, "norm": "ortho"}, True),
    (fft.fft, M, {"n": 8}, True),
    (fft.ifft, T, {"axis": 1, "norm": "forward"}, True),
    (fft.ifft, V, {"n": 4}, True),
    (fft.fft2, M, {}, True),
    (fft.fft2, T, {"s": (3, 6), "axes": (0, 2)}, True),
    (fft.ifft2, T, {"axes": (-1, 0), "norm": "ortho"}, True),
    (fft.fftn, T, {}, True),
    (fft.fftn, T, {"s": (2, 7)}, True),
    (fft.fftn, T, {"axes": (2, 0), "norm": "forward"}, True),
    (fft.ifftn, T, {"s": (5, 3, 2), "axes": (1, 2, 0)}, True),
    (fft.rfft, V, {}, False),
    (fft.rfft, M, {"n": 7, "axis": 0, "norm": "ortho"}, False),
    (fft.rfft, M, {"n": 3}, False),
    (fft.irfft, V, {}, True),
    (fft.irfft, M, {"n": 9, "axis": 0}, True),
    (fft.irfft, M, {"n": 4, "norm": "forward"}, True),
    (fft.rfft2, T, {}, False),
    (fft.rfft2, T, {"s": (5, 3), "axes": (2, 0)}, False),
    (fft.irfft2, M, {"norm": "ortho"}, True),
    (fft.irfft2, T, {"s": (3, 6), "axes": (0, 1)}, True),
    (fft.rfftn, T, {}, False),
    (fft.rfftn, T, {"s": (3, 3), "axes": (1, 2)}, False),
    (fft.irfftn, T, {}, True),
    (fft.irfftn, T, {"s": (4, 5), "axes": (0, 2), "norm": "forward"}, True),
    (fft.hfft, V, {}, True),
    (fft.hfft, M, {"n": 7, "axis": 0}, True),
    (fft.ihfft, V, {"n": 5}, False),
    (fft.ihfft, M, {"axis": 0, "norm": "ortho"}, False),
    (fft.fftshift, T, {}, True),
    (fft.fftshift, T, {"axes": 1}, True),
    (fft.ifftshift, T, {"axes": (0, -1)}, True),
    (fft.ifftshift, V, {}, True),
]
IDS = ["%s-%d" % (f.__name__, i) for i, (f, *_) in enumerate(CASES)]


@pytest.mark.parametrize("fn, x, opts, complex_ok", CASES, ids=IDS)
def test_check_grads(fn, x, opts, complex_ok):
    def f(y):
        return fn(y, **opts)

    check_grads(f, (x,), order=2)
    if complex_ok:
        check_grads(f, (cplx(x),), order=2)


@pytest.mark.parametrize("fn, x, opts, complex_ok", CASES[::3], ids=IDS[::3])
def test_jacobian_chunk(fn, x, opts, complex_ok):
    def f(y):
        return fn(y, **opts)

    np.testing.assert_allclose(ad.jacobian(f, x), fd_jacobian(f, x), rtol=1e-6, atol=1e-7)


def test_positional_options_and_nested():
    check_grads(lambda y: fft.rfft(y, 5, 0, "ortho"), (M,), order=2)
    check_grads(lambda y: fft.irfftn(y, (3, 4), (0, 2), "forward"), (cplx(T),), order=2)
    check_grads(lambda y: fft.fftshift(y, (0,)), (M,), order=2)
    check_grads(lambda y: np.sum(np.abs(fft.rfft2(y * y)) ** 2), (M,), order=3)
    H = ad.hessian(lambda y: np.sum(np.abs(fft.fft(y)) ** 2 * np.arange(6.0)), V)
    H_ref = fd_jacobian(lambda y: ad.gradient(lambda z: np.sum(np.abs(fft.fft(z)) ** 2 * np.arange(6.0)), y), V)
    np.testing.assert_allclose(H, H_ref, rtol=1e-5, atol=1e-6)


def test_out_keyword():
    def f(y):
        buf = np.empty(6, dtype=complex)
        fft.fft(y, out=buf)
        return buf

    check_grads(f, (V,), order=1)


@pytest.mark.parametrize("fn", [fft.rfft, fft.irfft, fft.hfft, fft.ihfft, fft.fft, fft.ifft])
def test_complex_tangent_of_real_input_is_c_linear(fn):
    v = cplx(V)
    _, t = ad.jvp(fn, V, v)
    np.testing.assert_allclose(t, fn(v.real) + 1j * fn(v.imag), rtol=1e-12, atol=1e-12)


def test_complex_tangent_of_complex_input_is_used_as_it_is():
    z, v = cplx(V), cplx(V)
    _, t = ad.jvp(fft.irfft, z, v)  # real-linear in z: irfft(v), not irfft(re v) + i irfft(im v)
    np.testing.assert_allclose(t, fft.irfft(v), rtol=1e-12, atol=1e-12)
    assert not np.iscomplexobj(t)


def test_refused():
    with pytest.raises(ad.NoRuleError, match="numpy.fft.fft"):
        ad.derivative(lambda t: fft.fft(V * t, n=t), 4.0)
    with pytest.raises(ad.NoRuleError, match="numpy.fft.hfft"):
        ad.derivative(lambda t: np.sum(fft.hfft(V * t, n=t).real), 4.0, backend=ad.ReverseMode())
    with pytest.raises(TypeError, match="out="):
        ad.jacobian(lambda y: fft.fft(y, None, -1, None, np.empty(6, complex)), V)
