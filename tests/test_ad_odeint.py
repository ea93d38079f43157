"""``scipy.integrate.odeint`` differentiated in its initial value, time points and arguments
(``ad/rules/scipy_integrate.py``): forward sensitivities and the adjoint method, against
central differences of solutions computed to tight tolerances; second order in all four
nestings; and the calls that are refused or left alone."""

import functools

import numpy as np
import pytest

import ad

integrate = pytest.importorskip("scipy.integrate")

F, R = ad.ForwardMode(), ad.ReverseMode()
TIGHT = dict(rtol=1e-11, atol=1e-11)


def rhs(y, t, a, b):
    return -np.sqrt(t) - y + a - np.mean((y + b) ** 2)


RNG = np.random.default_rng(3)
Y0, A, B = RNG.standard_normal(3), RNG.standard_normal(3), RNG.standard_normal(3)
T = np.linspace(0.1, 0.3, 4)


def _central(f, x, h=1e-5):
    return np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))], axis=-1)


CASES = {
    "y0": (lambda y: integrate.odeint(rhs, y, T, (A, B), **TIGHT), Y0),
    "t": (lambda s: integrate.odeint(rhs, Y0, s, (A, B), **TIGHT), T),
    "args": (lambda a: integrate.odeint(rhs, Y0, T, (a, B), **TIGHT), A),
    "all": (lambda c: integrate.odeint(rhs, Y0 * c[0], T * c[1], (A * c[2], B), **TIGHT), np.array([1.1, 0.9, 1.2])),
}


@pytest.mark.parametrize("mode", [F, R], ids=["forward", "reverse"])
@pytest.mark.parametrize("name", CASES)
def test_first_order(name, mode):
    f, x = CASES[name]
    J = ad.jacobian(f, x, backend=mode)
    assert J.shape == (len(T), 3, len(x))
    assert np.allclose(J, _central(f, x), rtol=1e-7, atol=1e-8)


def test_the_value_is_odeints_own():
    f, x = CASES["all"]
    value, _ = ad.value_and_jacobian(f, x)
    assert np.array_equal(value, f(x))


def _loss(c):
    y = integrate.odeint(rhs, Y0[:2] * c[0], T[:3] * c[1], (A[:2] * c[2], B[:2]), rtol=1e-10, atol=1e-10)
    return np.sum(y ** 2)


@functools.lru_cache(maxsize=None)
def _hessian_by_differences():
    """Central differences of the gradient (computed once for the four nestings)."""
    return _central(lambda v: ad.gradient(_loss, v), np.array([1.1, 0.9, 1.2]), 1e-4)


@pytest.mark.parametrize("outer,inner", [(F, F), (F, R), (R, F), (R, R)], ids=["FF", "FR", "RF", "RR"])
def test_second_order(outer, inner):
    c = np.array([1.1, 0.9, 1.2])
    H = ad.hessian(_loss, c, backend=ad.HigherOrder(outer, inner))
    assert np.allclose(H, _hessian_by_differences(), rtol=1e-5, atol=1e-6)


def test_time_first_and_constant_arguments():
    def f(a):  # func(t, y, ...) with tfirst=True; an int and a string among the arguments
        def g(t, y, k, how, a):
            assert how == "decay" and type(k) is int
            return -k * y * a
        return integrate.odeint(g, [1.0, 2.0], [0.0, 0.5, 1.0], args=(2, "decay", a), tfirst=True, **TIGHT)

    a = 0.7
    J = ad.jacobian(lambda v: f(v[0]), np.array([a]))[..., 0]
    t = np.array([0.0, 0.5, 1.0])[:, None]
    expected = -2 * t * np.exp(-2 * a * t) * np.array([1.0, 2.0])
    assert np.allclose(J, expected, rtol=1e-8, atol=1e-10)


def test_refused_and_left_alone():
    with pytest.raises(ad.NoRuleError, match="odeint with full_output=True"):
        ad.jacobian(lambda y: integrate.odeint(rhs, y, T, (A, B), full_output=True)[0], Y0)
    # nothing being differentiated reaches it: the call is odeint's own
    out = ad.derivative(lambda s: s * integrate.odeint(rhs, Y0, T, (A, B))[-1, 0], 2.0)
    assert out == integrate.odeint(rhs, Y0, T, (A, B))[-1, 0]
