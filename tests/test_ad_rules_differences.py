"""Forward AD of NumPy's differences, grids and interpolation (``ad/rules/differences.py``),
against central differences.

Each rule is checked with ``check_grads`` (derivatives of order 1 and 2 along random
directions, complex ones for complex inputs) and with ``ad.jacobian`` (a chunk of
directions at once), plus its conventions (sample points, spacings, dtypes) and its refusals.
"""

import numpy as np
import pytest

import ad

from tests.ad_rule_checks import V, X, Z, check, check_jacobian, refused, rng



# ---------------------------------------------------------------- differences and integrals


@pytest.mark.parametrize("kwargs", [{}, {"n": 2}, {"axis": 0}, {"n": 2, "axis": 0}, {"n": 3, "axis": -1}])
def test_diff(kwargs):
    check(lambda x: np.diff(x, **kwargs), X)
    check(lambda x: np.diff(x, **kwargs), Z)
    check_jacobian(lambda x: np.diff(x, **kwargs), X)


def test_diff_prepend_append():
    check_jacobian(lambda x: np.diff(x, prepend=1.5, append=x[:, :2], axis=1), X)
    check(lambda x, p: np.diff(x, axis=0, prepend=p, append=2.0), X, X[:1] * 3)
    check(lambda x, p: np.diff(x, 2, 0, p), X, Z[1:2])  # a complex prepend, differentiable
    check(lambda p: np.diff(X, prepend=p), 0.7)  # only the prepended scalar carries a tangent


def test_diff_n0_returns_input():
    x = np.arange(3.0)
    assert ad.derivative(lambda t: np.diff(t * x, n=0), 1.0).tolist() == [0.0, 1.0, 2.0]


def test_ediff1d():
    check(lambda x: np.ediff1d(x), X)
    check(lambda x, b: np.ediff1d(x, to_begin=b, to_end=[1.0, 2.0]), Z, Z[0, :2])
    check_jacobian(lambda x: np.ediff1d(x, to_end=x[0, 0] * 2), X)


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": -1}, {"axis": (0, 1)}, {"edge_order": 2}])
def test_gradient(kwargs):
    check(lambda x: np.gradient(x, **kwargs), X)
    check(lambda x: np.gradient(x, **kwargs), Z, order=1)
    check_jacobian(lambda x: np.gradient(x, **kwargs), X)


def test_gradient_spacings():
    coords = np.array([0.0, 0.5, 1.5, 1.7, 3.0])
    check_jacobian(lambda x: np.gradient(x, 0.3, coords, edge_order=2), X)
    check_jacobian(lambda x: np.gradient(x, coords, axis=1), X)
    check(lambda v: np.gradient(v, 2.0), V)
    refused(lambda h: np.gradient(X, h[0]), np.array([0.5]), "np.gradient")


def test_trapezoid():
    xs = np.cumsum(np.abs(X), axis=1)
    check_jacobian(lambda y: np.trapezoid(y), X)
    check_jacobian(lambda y: np.trapezoid(y, xs[0], axis=1), X)
    check_jacobian(lambda y: np.trapezoid(y, xs, axis=-1), X)
    check(lambda y, x: np.trapezoid(y, x), Z, xs)  # bilinear: both carry tangents
    check(lambda y, x: np.trapezoid(y, x, axis=0), X, np.abs(X))
    check(lambda y, dx: np.trapezoid(y, dx=dx, axis=0), X, 0.3)
    assert np.all(ad.derivative(lambda dx: np.trapezoid(X, xs, dx=dx), 0.3) == 0.0)  # dx unused with x


def test_unwrap():
    p = np.cumsum(rng.uniform(0.5, 2.5, size=8))
    check_jacobian(np.unwrap, p)
    check(lambda p: np.unwrap(p, discont=4.0), p)
    refused(lambda per: np.unwrap(p, period=per[0]), np.array([5.0]), "unwrap")


def test_polyder_polyval():
    p = np.array([0.5, -1.0, 2.0, 3.0])
    check(lambda p: np.polyder(p, 2), p)
    check(lambda p, x: np.polyval(p, x), p, X)
    check(lambda p, x: np.polyval(p, x), p + 0.5j, Z)
    check(lambda p, x: np.polyval(p, x), p, 0.7)
    check_jacobian(lambda p: np.polyval(p, X[0]), p)
    check_jacobian(lambda x: np.polyval(p, x), X)
    check_jacobian(lambda p: np.polyval(p, 0.3), p)


# ---------------------------------------------------------------- grids


@pytest.mark.parametrize("kwargs", [{}, {"endpoint": False}, {"num": 1}, {"num": 0}])
def test_linspace(kwargs):
    kwargs = dict({"num": 6}, **kwargs)
    check(lambda a, b: np.linspace(a, b, **kwargs), 1.2, -3.4)
    check(lambda a, b: np.linspace(a, b, **kwargs), 1.2 + 1j, 3.0 - 2j)
    check_jacobian(lambda v: np.linspace(v[0], v[1:4], **kwargs), V)


def test_linspace_axis_retstep_dtype():
    check_jacobian(lambda v: np.linspace(v[:3], v[3:6], 4, axis=-1), V)
    check_jacobian(lambda v: np.linspace(v[:3], 2.0, 4, axis=1), V)
    check_jacobian(lambda v: np.linspace(v[:3, None], v[3:5], 4, axis=1), V)
    check(lambda a, b: np.linspace(a, b, 5, retstep=True), 0.5, 2.0)
    assert ad.derivative(lambda b: np.linspace(0.0, b, 3, dtype=int).sum() + b, 4.5) == 1.0


def test_logspace():
    check(lambda a, b: np.logspace(a, b, 5), 0.2, 1.3)
    check(lambda a, b, base: np.logspace(a, b, 5, base=base), 0.2, 1.3, 2.5)
    check_jacobian(lambda v: np.logspace(v[:2], v[2:4], 3, axis=-1), V)
    check_jacobian(lambda v: np.logspace(v[:2], 1.0, 3, base=np.array([2.0, 3.0])), V)
    check(lambda b: np.logspace(0.5, 1.5, 4, base=b, axis=1), np.array([2.0, 3.0]))


def test_geomspace():
    check(lambda a, b: np.geomspace(a, b, 5), 0.7, 3.1)
    check(lambda a, b: np.geomspace(a, b, 5, endpoint=False), -0.7, -3.1)
    check(lambda a, b: np.geomspace(a, b, 4), 1.0 + 0.5j, -2.0 + 1j)
    check_jacobian(lambda v: np.geomspace(np.exp(v[:3]), 2.0, 4, axis=-1), V)


# ---------------------------------------------------------------- interp


def test_interp():
    xp = np.array([-1.0, 0.0, 0.7, 1.5, 2.0])
    fp = np.array([1.0, -2.0, 0.5, 3.0, 1.0])
    x = np.array([-1.7, -0.4, 0.3, 1.1, 1.9, 2.6])  # no sample point: no kink
    check(lambda x: np.interp(x, xp, fp), x)
    check(lambda x, fp: np.interp(x, xp, fp), x, fp + 0.3j)
    check(lambda x, fp, left, right: np.interp(x, xp, fp, left, right), x, fp, 3.0, -4.0)
    check(lambda fp: np.interp(x, xp, fp, left=7.0), fp)
    check(lambda x, fp: np.interp(x, xp, fp, period=3.5), x * 3, fp)
    check_jacobian(lambda fp: np.interp(x, xp, fp), fp)
    check_jacobian(lambda x: np.interp(x, xp, fp), x)
    check(lambda t: np.interp(t, xp, fp), 0.4)
    refused(lambda xp: np.interp(x, xp, fp), xp, "np.interp")


def test_interp_slope_at_samples():
    xp = np.array([0.0, 1.0, 2.0])
    fp = np.array([0.0, 2.0, 1.0])
    slopes = np.diag(ad.jacobian(lambda x: np.interp(x, xp, fp), np.array([-1.0, 0.0, 1.0, 2.0, 3.0])))
    assert slopes.tolist() == [0.0, 2.0, -1.0, -1.0, 0.0]  # the right segment's slope; the last one's at xp[-1]


def test_cross_already_handled():
    check(lambda a, b: np.cross(a, b, axisa=0, axisc=0), X[:3, :3], Z[:3, :3])
