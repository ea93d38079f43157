"""The gradient of a real function of a complex array, JAX's convention (``df/dx - i df/dy``), in
both modes and by default, against central differences along the real and imaginary directions;
what is refused."""

import numpy as np
import pytest

import ad
from ad.engine.traced import ComplexValuesError

R, F = ad.ReverseMode(), ad.ForwardMode()
Z = np.array([3 + 4j, 1j, -0.5 + 0.2j, 0.7 - 1.1j])


def _central(f, z, h=1e-6):
    g = np.zeros(z.shape, dtype=complex)
    for k in range(z.size):
        e = np.zeros(z.shape)
        e.flat[k] = 1.0
        dx = (f(z + h * e) - f(z - h * e)) / (2 * h)
        dy = (f(z + 1j * h * e) - f(z - 1j * h * e)) / (2 * h)
        g.flat[k] = dx - 1j * dy
    return g


CASES = {
    "|z|^2": lambda z: np.sum(np.abs(z) ** 2),
    "Re(z^2)": lambda z: np.sum(np.real(z ** 2)),
    "angle |z|": lambda z: np.sum(np.angle(z) * np.abs(z)),
    "Re(exp(z) conj(z))": lambda z: np.real(np.sum(np.exp(z) * np.conj(z))),
    "norm of the fft": lambda z: np.linalg.norm(np.fft.fft(z)),
    "Im(vdot)": lambda z: np.imag(np.vdot(z[::-1], z * 1j)),
    "2-d, a matrix product": lambda z: np.real(np.trace(np.reshape(z, (2, 2)) @ np.conj(np.reshape(z, (2, 2)).T))),
}


@pytest.mark.parametrize("name", CASES)
def test_both_modes_agree_with_central_differences(name):
    f = CASES[name]
    expected = _central(f, Z)
    for backend in (F, R, None):
        got = ad.gradient(f, Z, backend=backend)
        assert got.shape == Z.shape and np.iscomplexobj(got)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_the_convention_is_jaxs():
    """``sum(|z|^2)``: ``2 conj(z)``, the conjugate of the direction of steepest ascent."""
    f = CASES["|z|^2"]
    for backend in (F, R):
        np.testing.assert_allclose(ad.gradient(f, Z, backend=backend), 2 * np.conj(Z), rtol=1e-14)


def test_a_complex_number():
    for backend in (F, R, None):
        g = ad.gradient(lambda z: abs(z) ** 2 + (z * z).real, 3 + 4j, backend=backend)
        assert type(g) is complex
        np.testing.assert_allclose(g, 2 * (3 - 4j) + (6 + 8j), rtol=1e-14)


def test_the_transforms():
    assert ad.grad(lambda z: abs(z) ** 2)(3 + 4j) == 6 - 8j
    np.testing.assert_allclose(ad.value_and_grad(CASES["|z|^2"])(Z)[1], 2 * np.conj(Z), rtol=1e-14)
    assert ad.grad(lambda z, w: abs(z) ** 2 * w)(3 + 4j, 2.0) == 12 - 16j
    with pytest.raises(TypeError, match="complex leaf is differentiated only alone"):
        ad.grad(lambda z, w: abs(z) ** 2 * w, argnums=(0, 1))(3 + 4j, 2.0)


def test_a_default_that_reverse_mode_refuses_falls_back_to_forward_mode():
    z = np.linspace(0.1, 1.0, 40) * (1 + 0.5j)
    f = lambda z: np.sum(np.abs(np.linalg.eigvals(np.reshape(z[:4], (2, 2))))) + np.sum(np.abs(z) ** 2)  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, z), ad.gradient(f, z, backend=F), rtol=1e-12)


def test_what_is_refused():
    for backend in (F, R):
        with pytest.raises(ComplexValuesError, match="returned a complex value"):
            ad.gradient(lambda z: np.sum(z), Z, backend=backend)
    with pytest.raises(TypeError, match="complex input takes backend"):
        ad.gradient(CASES["|z|^2"], Z, backend=ad.FiniteDifferences())
    # (a Jacobian of a complex input, along its real directions, is reverse mode's too: test_ad_reverse_complex_jacobians.py)
    np.testing.assert_allclose(ad.jacobian(lambda z: np.abs(z), Z, backend=R), ad.jacobian(lambda z: np.abs(z), Z, backend=F))
