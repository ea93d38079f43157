"""Forward AD of ``np.convolve``/``np.correlate`` (``ad/rules/convolution.py``) and of ``scipy.signal``'s
convolutions and correlations (``ad/rules/scipy_signal.py``), against central differences.

Each rule is checked with ``check_grads`` (orders 1 and 2 in both arrays at once, so the cross
terms of a bilinear map count) on real and complex inputs, every mode; with ``ad.jacobian`` (a chunk
of directions) against a finite-difference Jacobian; the conjugated argument of the correlations
with complex tangents; refusals raise NoRuleError naming the function.
"""

import numpy as np
import pytest

import ad
from ad.testing import check_grads
from tests.ad_rule_checks import fd_jacobian

rng = np.random.default_rng(2)
MODES = ["full", "same", "valid"]


def R(*shape):
    return rng.normal(size=shape)


def C(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def check_pair(f, a, v):
    """check_grads in both arguments, and the jacobian in each (chunks of directions)."""
    check_grads(f, (a, v), order=2)
    if not np.iscomplexobj(a) and not np.iscomplexobj(v):
        np.testing.assert_allclose(ad.jacobian(lambda x: f(x, v), a), fd_jacobian(lambda x: f(x, v), a),
                                   rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(ad.jacobian(lambda y: f(a, y), v), fd_jacobian(lambda y: f(a, y), v),
                                   rtol=1e-6, atol=1e-7)


def c_linear(fn, a, v, argnum):
    """The tangent of ``fn`` along a complex direction of its real argument ``argnum``, against
    the C-linear extension (real and imaginary parts of the direction apart)."""
    d = C(*np.shape((a, v)[argnum]))

    def at(x):
        return fn(x, v) if argnum == 0 else fn(a, x)

    _, t = ad.jvp(at, (a, v)[argnum], d)
    _, re = ad.jvp(at, (a, v)[argnum], d.real)
    _, im = ad.jvp(at, (a, v)[argnum], d.imag)
    np.testing.assert_allclose(t, re + 1j * im, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- numpy


@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n, m", [(6, 3), (3, 5), (4, 4)])
def test_numpy(fn, mode, n, m):
    def f(a, v):
        return fn(a, v, mode)

    check_pair(f, R(n), R(m))
    check_pair(f, C(n), C(m))
    check_pair(f, R(n), C(m))
    check_pair(f, C(n), R(m))


@pytest.mark.parametrize("fn", [np.convolve, np.correlate])
def test_numpy_complex_tangent_of_real_input(fn):
    a, v = R(5), R(3)
    c_linear(lambda x, y: fn(x, y, "full"), a, v, 0)
    c_linear(lambda x, y: fn(x, y, "full"), a, v, 1)


def test_correlate_conjugates_v():
    """correlate(a, v) reads conj(v): the tangent along dv is correlate(a, dv), not its C-linear form."""
    a, v, dv = C(5), C(3), C(3)
    _, t = ad.jvp(lambda y: np.correlate(a, y, "full"), v, dv)
    np.testing.assert_allclose(t, np.correlate(a, dv, "full"), rtol=1e-12)


def test_numpy_nested_and_defaults():
    check_grads(lambda a, v: np.sum(np.convolve(a * a, v) ** 2), (R(5), R(3)), order=3)
    check_grads(lambda a: np.correlate(a, a), (R(4),), order=2)  # both arguments, 'valid' by default
    check_grads(lambda a: np.convolve(a, a, mode="same"), (C(4),), order=2)


# ---------------------------------------------------------------- scipy.signal


@pytest.fixture(scope="module")
def signal():
    return pytest.importorskip("scipy.signal")


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
@pytest.mark.parametrize("mode", MODES)
def test_scipy_nd(signal, name, method, mode):
    fn = getattr(signal, name)

    def f(a, v):
        return fn(a, v, mode, method)

    check_pair(f, R(5), R(3))
    check_pair(f, R(4, 3), R(2, 2))
    check_pair(f, C(4, 3), C(3, 2))
    check_pair(f, R(2, 3, 2), C(2, 2, 2))
    check_pair(f, C(4), R(6))


@pytest.mark.parametrize("name", ["fftconvolve", "oaconvolve"])
@pytest.mark.parametrize("mode", MODES)
def test_scipy_fft_convolutions(signal, name, mode):
    fn = getattr(signal, name)
    check_pair(lambda a, v: fn(a, v, mode), R(6, 4), R(3, 2))
    check_pair(lambda a, v: fn(a, v, mode), C(6, 4), C(3, 2))
    check_pair(lambda a, v: fn(a, v, mode=mode, axes=1), R(3, 5), R(3, 2))
    check_pair(lambda a, v: fn(a, v, mode, [0]), C(5, 3), R(2, 1))


@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("boundary, fillvalue", [("fill", 0), ("fill", 1.5), ("wrap", 0), ("symm", 0)])
def test_scipy_2d(signal, name, mode, boundary, fillvalue):
    fn = getattr(signal, name)

    def f(a, v):
        return fn(a, v, mode, boundary, fillvalue)

    check_pair(f, R(5, 4), R(3, 2))
    check_pair(f, C(4, 3), C(2, 2))
    check_pair(lambda a, v: fn(a, v, mode=mode, boundary=boundary, fillvalue=fillvalue), R(3, 3), C(2, 3))


@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_scipy_2d_fillvalue_differentiated(signal, name):
    fn = getattr(signal, name)
    a, v = R(4, 3), R(2, 2)
    check_grads(lambda c: fn(a, v, "full", "fill", c), (0.7,), order=2)
    check_grads(lambda c: fn(a + 0.5j, v, fillvalue=c), (0.7 - 0.2j,), order=2)
    check_grads(lambda x, c: fn(x * c, v, "same", fillvalue=c * c), (a, 0.7), order=2)
    np.testing.assert_allclose(ad.derivative(lambda c: fn(a, v, "valid", fillvalue=c), 0.3),
                               np.zeros((3, 2)))  # 'valid' never reads the padding
    _, t = ad.jvp(lambda c: fn(a, v, fillvalue=c[0]), np.array([0.7]), np.array([0.3 + 0.2j]))  # C-linearly
    np.testing.assert_allclose(t, fn(0 * a + 0j, v, fillvalue=0.3 + 0.2j), rtol=1e-12)


@pytest.mark.parametrize("name", ["correlate", "correlate2d"])
def test_scipy_correlations_conjugate_in2(signal, name):
    fn = getattr(signal, name)
    a, v, dv = C(4, 3), C(2, 2), C(2, 2)
    _, t = ad.jvp(lambda y: fn(a, y), v, dv)
    np.testing.assert_allclose(t, fn(a, dv), rtol=1e-12)
    c_linear(fn, R(4, 3), R(2, 2), 1)
    c_linear(fn, R(4, 3), R(2, 2), 0)


def test_scipy_nested(signal):
    check_grads(lambda a, v: np.sum(signal.convolve(a, v * v) ** 2), (R(4, 3), R(2, 2)), order=3)
    H = ad.hessian(lambda a: np.sum(signal.correlate2d(a, a, boundary="symm") ** 2), R(3, 3))
    check_grads(lambda a: ad.gradient(lambda b: np.sum(signal.correlate2d(b, b, boundary="symm") ** 2), a),
                (R(3, 3),), order=1)
    assert H.shape == (3, 3, 3, 3)


def test_refused(signal):
    a = R(5)
    with pytest.raises(ad.NoRuleError, match="convolve"):
        ad.derivative(lambda t: np.convolve(a * t, a, t), 1.0)
    with pytest.raises(ad.NoRuleError, match="correlate"):
        ad.derivative(lambda t: signal.correlate(a * t, a, "full", t), 1.0)
    with pytest.raises(ad.NoRuleError, match="convolve2d"):
        ad.derivative(lambda t: signal.convolve2d(a[None] * t, a[None], "full", t), 1.0)
