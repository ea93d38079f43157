"""Forward AD of NumPy's order statistics and nan reductions (``ad/rules/order_statistics.py``),
against central differences.

Each rule is checked with ``check_grads`` (derivatives of order 1 and 2 along random
directions, complex ones for complex inputs) and with ``ad.jacobian`` (a chunk of
directions at once), plus its conventions (ties, NaN) and its refusals.
"""

import numpy as np
import pytest

import ad

from tests.ad_rule_checks import V, X, Z, check, check_jacobian, refused



# ---------------------------------------------------------------- partition and order statistics


@pytest.mark.parametrize("kth", [0, 3, 6, (1, 5)])
def test_partition(kth):
    check(lambda v: np.partition(v, kth), V)
    check_jacobian(lambda v: np.partition(v, kth), V)
    check_jacobian(lambda x: np.partition(x, 2, axis=0), X)
    check_jacobian(lambda x: np.partition(x, 7, axis=None), X)


def test_partition_ties_follow_original_order():
    jac = ad.jacobian(lambda x: np.partition(x * np.array([1.0, 1.0, 1.0, 0.0]), 1), np.ones(4))
    # the result is [0, 1, 1, 1]: the three tied ones take the tangents of elements 0, 1, 2 in order
    np.testing.assert_array_equal(jac, [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}])
def test_median(kwargs):
    check(lambda x: np.median(x, **kwargs), X)
    check_jacobian(lambda x: np.median(x, **kwargs), X)
    check_jacobian(lambda x: np.median(x[:3], **kwargs), X)  # odd and even counts


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull",
                                    "median_unbiased", "inverted_cdf"])
def test_quantile_methods(method):
    check_jacobian(lambda v: np.quantile(v, [0.1, 0.45, 0.8], method=method), V)
    check_jacobian(lambda x: np.percentile(x, 37.0, axis=1, method=method, keepdims=True), X)


def test_quantile_shapes():
    q = np.array([[0.2, 0.5], [0.7, 0.95]])
    check(lambda x: np.quantile(x, q, axis=0), X)
    check_jacobian(lambda x: np.quantile(x, q, axis=1, keepdims=True), X)
    check_jacobian(lambda x: np.percentile(x, 30), X)
    refused(lambda q: np.quantile(X, q[0]), np.array([0.3]), "np.quantile")


def test_nan_order_statistics():
    x = X.copy()
    x[0, 1] = x[2, 3] = x[2, 0] = np.nan
    mask = np.isnan(x)
    check_jacobian(lambda x: np.nanmedian(x, axis=1), x)
    check_jacobian(lambda x: np.nanquantile(x, [0.3, 0.9], axis=0), x)
    check_jacobian(lambda x: np.nanpercentile(x, 60.0), x)
    jac = ad.jacobian(lambda x: np.nanmedian(x, axis=1), x)
    assert np.all(jac[:, mask] == 0)  # NaN elements have no influence
    # with NaN in a slice, median is NaN: its tangent too
    assert np.isnan(ad.jacobian(lambda x: np.median(x, axis=1), x)[0]).all()
    allnan = np.full((2, 3), np.nan)
    allnan[1] = [1.0, 2.0, 3.0]
    with pytest.warns(RuntimeWarning):
        jac = ad.jacobian(lambda x: np.nanmedian(x, axis=1), allnan)
    assert np.isnan(jac[0]).all() and jac[1].tolist() == [[0, 0, 0], [0, 1, 0]]


# ---------------------------------------------------------------- nan reductions


def with_nans(a):
    a = a.copy()
    a.flat[[1, 7, 12]] = np.nan
    return a


@pytest.mark.parametrize("fn", [np.nansum, np.nanmean, np.nanvar, np.nanstd, np.nanmax, np.nanmin, np.nanprod,
                                np.nancumsum, np.nancumprod, np.nanmedian])
def test_nan_reductions(fn):
    x = with_nans(X)
    check_jacobian(fn, x)
    check_jacobian(lambda x: fn(x, axis=0), x)
    check_jacobian(lambda x: fn(x, axis=1), x)
    jac = ad.jacobian(lambda x: fn(x, axis=1), x)
    assert np.all(jac[..., np.isnan(x)] == 0)


def test_nan_reductions_second_order_and_complex():
    x = with_nans(X)
    for fn in (np.nanvar, np.nanstd, np.nanprod, np.nancumprod, np.nanmax, np.nanmedian):
        check(lambda v: fn(np.where(np.isnan(x), np.nan, v), axis=1), X)
    check(lambda v: np.nanquantile(np.where(np.isnan(x), np.nan, v), [0.2, 0.7], axis=0), X)
    zc = with_nans(Z)
    for fn in (np.nanvar, np.nanstd, np.nanprod, np.nancumsum, np.nanmean):
        check(lambda v: fn(np.where(np.isnan(zc), np.nan, v), axis=0), Z)


def test_nan_reduction_options():
    x = with_nans(X)
    check_jacobian(lambda x: np.nanvar(x, axis=1, ddof=1, keepdims=True), x)
    check_jacobian(lambda x: np.nanstd(x, axis=0, correction=1), x)
    check_jacobian(lambda x: np.nanmax(x, axis=1, initial=0.5), x)
    check_jacobian(lambda x: np.nanprod(x, axis=0, keepdims=True), x)
    one = np.array([[1.0, np.nan], [2.0, 3.0]])  # a slice of one element: std constant 0
    assert ad.jacobian(lambda x: np.nanstd(x, axis=1), one)[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    refused(lambda x: np.nanvar(x, mean=np.zeros(1)), np.ones(3), "nanvar")


def test_nanmax_ties_and_all_nan():
    jac = ad.jacobian(lambda x: np.nanmax(x * np.array([2.0, np.nan, 2.0])), np.ones(3))
    assert jac.tolist() == [2.0, 0.0, 0.0]  # the first of the tied maxima
    with pytest.warns(RuntimeWarning):
        jac = ad.jacobian(lambda x: np.nanmin(x * np.array([[np.nan, np.nan], [1.0, 2.0]]), axis=1), np.ones(2))
    assert np.isnan(jac[0]).all() and jac[1].tolist() == [1.0, 0.0]


def test_lists_of_values_being_differentiated():
    for fn in (np.nan_to_num, np.nancumsum, np.nanprod, np.median, np.nanmax):
        value, tangent = ad.jvp(lambda t: fn([t, 2.0 * t, np.nan * t]), 1.5, 1.0)
        want = fn(np.array([1.5, 3.0, np.nan]))
        np.testing.assert_array_equal(value, want)
        assert isinstance(value, np.ndarray) == isinstance(want, np.ndarray)
