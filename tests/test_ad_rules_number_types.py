"""Forward AD of NumPy's number types and complex helpers (``ad/rules/number_types.py``),
against central differences.

Each rule is checked with ``check_grads`` (derivatives of order 1 and 2 along random
directions, complex ones for complex inputs) and with ``ad.jacobian`` (a chunk of
directions at once), plus its conventions (kinks, NaN, in-place writes) and its refusals.
"""

import numpy as np

import ad

from tests.ad_rule_checks import V, X, Z, check, check_jacobian, refused, rng



# ---------------------------------------------------------------- complex helpers, sinc


def test_angle():
    check(np.angle, Z)
    check(lambda z: np.angle(z, deg=True), Z)
    check(np.angle, -0.4 - 0.08j)
    check_jacobian(lambda x: np.angle(x[0] + 1j * x[1:]), V)
    assert ad.derivative(np.angle, -0.4) == 0.0  # pi on the negative axis: piecewise constant
    np.testing.assert_array_equal(ad.jacobian(np.angle, X), np.zeros(X.shape * 2))


def test_real_if_close():
    near = X + 1e-20j
    out = ad.jvp(np.real_if_close, near, Z)
    assert not np.iscomplexobj(out[0]) and not np.iscomplexobj(out[1])
    np.testing.assert_array_equal(out[1], Z.real)
    check(np.real_if_close, Z)
    check(np.real_if_close, X)


def test_predicates_have_zero_derivative():
    for fn, arg in ((np.iscomplex, Z), (np.isreal, Z), (np.isposinf, X), (np.isneginf, X)):
        value, tangent = ad.jvp(lambda x: fn(x * 1.0), arg.real, np.ones_like(arg.real))
        assert value.dtype == bool and not np.any(tangent)
    assert ad.derivative(lambda x: np.sum(np.isreal(x)) * x, 2.0) == 1.0
    assert ad.derivative(lambda x: np.argpartition(x * V, 2)[0] + x, 2.0) == 1.0
    assert ad.derivative(lambda x: np.nanargmax(x * V) + np.nanargmin(x * V) + x, 2.0) == 1.0


def test_sinc():
    check(np.sinc, X, order=3)
    check(np.sinc, np.array([0.0, 1e-9, -0.3, 1.0, 2.5]), order=3)
    check(np.sinc, Z * 0.4, order=2)
    check(np.sinc, 0.0, order=4)
    assert ad.derivative(np.sinc, 0.0) == 0.0
    np.testing.assert_allclose(ad.derivative(lambda x: ad.derivative(np.sinc, x), 0.0), -np.pi ** 2 / 3)


# ---------------------------------------------------------------- scalar types


def test_scalar_types():
    assert ad.derivative(lambda t: np.float64(t) * 3, 1.5) == 3.0
    assert ad.derivative(lambda t: np.float32(t * 2) * 1.0, 1.5) == 2.0
    assert ad.derivative(lambda t: np.complex128(t) * 1j, 1.5) == 1j
    check(lambda x: np.float64(x) ** 2, X)
    check(lambda x: np.complex128(x) * 2j, X)
    out = ad.jvp(lambda t: np.int64(t) + t, 2.5, 1.0)
    assert out == (4.5, 1.0)
    ints = ad.jvp(lambda x: np.int64(x[:, -1]), np.abs(X), np.ones_like(X))
    assert ints[0].dtype == np.int64
    np.testing.assert_array_equal(ad.jacobian(lambda x: np.sum(np.int64(x)) * x, X), np.zeros((4, 5, 4, 5))
                                  + np.sum(np.int64(X)) * np.eye(20).reshape(4, 5, 4, 5))


# ---------------------------------------------------------------- nan_to_num


def test_nan_to_num():
    y = np.array([0.0, np.nan, np.inf, -np.inf, 1.0])
    check(lambda x: np.sin(np.nan_to_num(x + y)), rng.normal(size=5))
    check_jacobian(lambda x: np.nan_to_num(x + y, posinf=5.0, neginf=-5.0), rng.normal(size=5))
    with np.errstate(invalid="ignore"):  # multiply's tangent: 1 * inf, 1 * nan
        jac = ad.jacobian(lambda x: np.nan_to_num(x * y), np.ones(5))
    np.testing.assert_array_equal(np.diag(jac), [0.0, 0.0, 0.0, 0.0, 1.0])
    zc = np.array([1 + 1j, complex(np.nan, 2), complex(np.inf, -1), complex(1, np.nan)])
    value, tangent = ad.jvp(np.nan_to_num, zc, np.full(4, 1 + 1j))
    np.testing.assert_array_equal(tangent, [1 + 1j, 1j, 1j, 1.0])
    check(np.nan_to_num, Z)


def test_nan_to_num_in_place():
    def f(x):
        a = x * np.array([1.0, np.nan, 2.0])
        b = np.nan_to_num(a, copy=False)
        return a + b  # a was written in place, tangent included

    np.testing.assert_array_equal(ad.jacobian(f, np.ones(3)), np.diag([2.0, 0.0, 4.0]))

    def into_buffer(x):
        buf = np.zeros(3)
        buf[:] = x * np.array([1.0, np.nan, 2.0])
        np.nan_to_num(buf[1:], copy=False)  # through a view of a plain buffer holding tangents
        return buf * 1.0

    np.testing.assert_array_equal(ad.jacobian(into_buffer, np.ones(3)), np.diag([1.0, 0.0, 2.0]))
    refused(lambda v: np.nan_to_num(np.array([np.nan]), nan=v[0]), np.ones(1), "np.nan_to_num")
