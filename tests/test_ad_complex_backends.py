"""Every backend gives the same derivatives of functions of complex inputs that are not holomorphic.

Forward mode is the reference (checked against central differences in test_ad_complex_audit.py).
Two wrong answers were found this way: ``FiniteDifferences`` cast a complex input and its
directions to float (dropping their imaginary parts, with only a ComplexWarning), and
``ReverseMode``'s ``jvp`` along a complex direction used the derivatives along the real
directions alone.
"""

import numpy as np
import pytest

import ad

F, R, FD = ad.ForwardMode(), ad.ReverseMode(), ad.FiniteDifferences()
Z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.3j])
V = np.array([1j, 0.5 - 2j, 0.3])
W = np.array([0.7 - 1j, 2.0, 1j])

FUNCTIONS = {
    "conj": np.conj,
    "abs": np.abs,
    "square": lambda z: z * z,
    "real": np.real,
    "mixed": lambda z: z[0] * np.conj(z[1]) + np.abs(z[2]) * z,
    "sign times imag": lambda z: np.sign(z) * np.imag(z),
    "exp": np.exp,
    "angle": np.angle,
}
SCALAR = {
    "abs squared": lambda z: np.sum(np.abs(z) ** 2 * np.real(z)),
    "real part": lambda z: np.real(np.sum(z * z * np.conj(z))),
    "abs of a product": lambda z: np.abs(np.prod(z)),
}


@pytest.mark.parametrize("backend", ["reverse", "finite differences"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_jvp_vjp_and_jacobian_of_complex_inputs(name, backend):
    f, b = FUNCTIONS[name], {"reverse": R, "finite differences": FD}[backend]
    tol = dict(rtol=1e-12, atol=1e-12) if b is R else dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ad.jvp(f, Z, V, backend=b)[1], ad.jvp(f, Z, V, backend=F)[1], **tol)
    np.testing.assert_allclose(ad.vjp(f, Z, W, backend=b)[1], ad.vjp(f, Z, W, backend=F)[1], **tol)
    np.testing.assert_allclose(ad.jacobian(f, Z, backend=b), ad.jacobian(f, Z, backend=F), **tol)


@pytest.mark.parametrize("name", list(SCALAR))
def test_gradients_hessians_and_hvps_of_complex_inputs(name):
    f = SCALAR[name]
    np.testing.assert_allclose(ad.gradient(f, Z, backend=R), ad.gradient(f, Z, backend=F), rtol=1e-12)
    H = ad.hessian(f, Z, backend=ad.HigherOrder(F, F))
    hv = ad.hvp(f, Z, V, backend=ad.HigherOrder(F, F))
    for outer, inner in ((F, R), (R, F), (R, R)):
        both = ad.HigherOrder(outer, inner)
        np.testing.assert_allclose(ad.hessian(f, Z, backend=both), H, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ad.hvp(f, Z, V, backend=both), hv, rtol=1e-10, atol=1e-12)


def test_finite_differences_keep_a_complex_input_complex():
    with np.errstate(all="raise"):
        _, t = ad.jvp(np.conj, Z, V, backend=FD)
    np.testing.assert_allclose(t, np.conj(V), rtol=1e-8)


def test_every_backend_keeps_a_float32_input_float32():
    """Reverse mode made float64 rows whatever the input (forward mode keeps float32, as JAX);
    finite differences compute in float64 whatever the input (their steps need the precision)."""
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    for b in (F, R):
        assert ad.gradient(lambda y: np.sum(y ** 2), x, backend=b).dtype == np.float32
        assert ad.jacobian(lambda y: y ** 2, x, backend=b).dtype == np.float32
        assert ad.vjp(lambda y: y ** 2, x, np.ones(3, np.float32), backend=b)[1].dtype == np.float32
        assert ad.jvp(lambda y: y ** 2, x, x, backend=b)[1].dtype == np.float32
        assert ad.gradient(lambda y: np.sum(y * np.ones(3)), x, backend=b).dtype == np.float64  # a float64 operand
    g = ad.gradient(lambda y: np.sum(np.sin(y)), x, backend=FD)
    np.testing.assert_allclose(g, np.cos(x.astype(float)), rtol=1e-8)
