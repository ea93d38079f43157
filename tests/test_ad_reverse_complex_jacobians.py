"""Reverse mode's Jacobians, vector-Jacobian products and pullbacks of complex inputs and results.

With the pairing ``Re(sum(u * t))``, a backward pass seeded with ``u`` sends back cotangents whose
real parts are ``Re(uᵀ J)`` along the input's real directions; seeded with ``-1j * u``, ``Im(uᵀ J)``.
So a complex output element takes two passes, a complex input is taken along its real directions
(as forward mode takes it), and every result must equal forward mode's.
"""

import numpy as np
import pytest

import ad

R, F = ad.ReverseMode(), ad.ForwardMode()
Z = np.array([1 + 2j, 0.5 - 1j, -0.3 + 0.2j])
X = np.array([0.3, 0.7, -0.2])
CASES = {
    "complex to complex": (lambda z: np.array([z[0] * z[1], np.conj(z[2]), np.abs(z[1]), np.exp(z[0]) * z[2]]), Z),
    "complex to real": (lambda z: np.abs(z) ** 2 + np.real(z * z[::-1]), Z),
    "real to complex": (lambda x: np.exp(1j * x) * x[0] + np.fft.fft(x), X),
    "real to a list, one part complex": (lambda x: [np.sum(x), np.sum(x * 1j) ** 2], X),
    "complex to a constant": (lambda z: np.ones(2) * 1j, Z),
}


def _w(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("name", list(CASES))
def test_jacobian_vjp_and_pullback_equal_forward_modes(name):
    f, a = CASES[name]
    value, J = ad.value_and_jacobian(f, a, backend=R)
    np.testing.assert_allclose(np.asarray(J, dtype=complex), np.asarray(ad.jacobian(f, a, backend=F), dtype=complex),
                               rtol=1e-12, atol=1e-14)
    shape = np.shape(np.asarray(f(a), dtype=complex))
    for w in (_w(shape, 1), np.real(_w(shape, 2))):  # complex and real cotangents
        expected = ad.vjp(f, a, w, backend=F)[1]
        np.testing.assert_allclose(ad.vjp(f, a, w, backend=R)[1], expected, rtol=1e-12, atol=1e-14)
        _, pull = ad.value_and_pullback(f, a, backend=R)
        np.testing.assert_allclose(pull(w), expected, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(pull(w), expected, rtol=1e-12, atol=1e-14)  # (called again: the tape is kept)


def test_a_holomorphic_jacobian_is_the_complex_derivative():
    f = lambda z: z ** 3 + np.sin(z)  # noqa: E731
    np.testing.assert_allclose(np.diag(ad.jacobian(f, Z, backend=R)), 3 * Z ** 2 + np.cos(Z), rtol=1e-12)


def test_the_gradient_of_a_complex_result_matches_forward_mode():
    f = lambda y: np.sum(1j * y * y)  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, X, backend=R), ad.gradient(f, X, backend=F), rtol=1e-12)
    np.testing.assert_allclose(ad.gradient(f, X, backend=R), 2j * X, rtol=1e-12)


@pytest.mark.parametrize("outer, inner", [(F, R), (R, F)], ids=["forward over reverse", "reverse over forward"])
def test_hessians_of_a_complex_input(outer, inner):
    """Forward over reverse once dropped the imaginary part of every second derivative: a complex
    number that the enclosing forward derivative carries (a ``Dual``, which has no dtype) was taken for
    a real one, whose cotangent keeps only its real part."""
    f = lambda z: np.sum(np.abs(z) ** 4) + np.real(z[0] * z[1] * np.exp(z[2])) + np.imag(1j * z[0] * z[2])  # noqa: E731
    np.testing.assert_allclose(ad.hessian(f, Z, backend=ad.HigherOrder(outer, inner)), ad.hessian(f, Z),
                               rtol=1e-10, atol=1e-12)


def test_hessian_of_real_inputs_with_complex_numbers_inside_forward_over_reverse():
    """The same mistake gave this real function a complex Hessian (``0.255+1.544j`` for ``0.255``)."""
    x = np.array([0.3, -0.7, 1.1])
    f = lambda y: np.real(np.exp(1j * y[0]) * y[1] * (1 + 2j)) + y[2] ** 2  # noqa: E731
    np.testing.assert_allclose(ad.hessian(f, x, backend=ad.HigherOrder(F, R)), ad.hessian(f, x), rtol=1e-12, atol=1e-14)


def test_reverse_over_reverse_of_a_complex_input():
    """Indexing's pullback scatters with np.add.at: recorded by the outer run, complex values included."""
    both = ad.HigherOrder(R, R)
    for f in (lambda z: np.sum(np.abs(z) ** 4 + np.real(z * z * np.exp(z))),
              lambda z: np.real(z[0] * z[1] * np.exp(z[2])) + np.abs(z[1]) ** 3):
        np.testing.assert_allclose(ad.hessian(f, Z, backend=both), ad.hessian(f, Z), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["conj", "abs", "square", "real", "norm", "mixed", "sign"])
def test_jvp_along_complex_directions_in_reverse_mode(name):
    """A complex input moved along a complex direction: reverse mode adds the derivatives along the
    imaginary directions (for a function that is not holomorphic they are not 1j times the real ones);
    it took the real ones alone and answered J v for conj, abs and real."""
    f = {"conj": np.conj, "abs": np.abs, "square": lambda z: z * z, "real": np.real,
         "norm": lambda z: np.sum(np.abs(z) ** 2), "mixed": lambda z: z[0] * np.conj(z[1]) + np.abs(z[1]),
         "sign": lambda z: np.sign(z) * np.imag(z)}[name]
    z, v = np.array([1 + 2j, 3 - 1j]), np.array([1j, 0.5 - 2j])
    value, expected = ad.jvp(f, z, v)
    got_value, got = ad.jvp(f, z, v, backend=ad.ReverseMode())
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_value, value)
    assert np.iscomplexobj(got) == np.iscomplexobj(expected)
    eps = 1e-6  # and against central differences
    fd = (np.asarray(f(z + eps * v)) - np.asarray(f(z - eps * v))) / (2 * eps)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)
