"""The conventions at kinks and ties (docs/ad.md's table) hold for Python numbers and NumPy arrays alike."""

import math

import numpy as np
import pytest

import ad
from ad import D


def array_d(f, x):
    """d/dx of ``f`` on a one-element array, as a number."""
    return float(ad.jvp(f, np.array([x]), np.array([1.0]))[1][0])


@pytest.mark.parametrize("scalar, array, x, expected", [
    (abs, np.abs, 0.0, 0.0),
    (math.fabs, np.fabs, 0.0, 0.0),
    (lambda x: max(x, 2 * x - 1), lambda x: np.maximum(x, 2 * x - 1), 1.0, 1.0),
    (lambda x: max(2 * x - 1, x), lambda x: np.maximum(2 * x - 1, x), 1.0, 2.0),
    (lambda x: min(x, 2 * x - 1), lambda x: np.minimum(x, 2 * x - 1), 1.0, 1.0),
    (lambda x: min(3 * x - 2, x), lambda x: np.minimum(3 * x - 2, x), 1.0, 3.0),
    (lambda x: min(1.0, x), lambda x: np.minimum(1.0, x), 1.0, 0.0),
    (math.sqrt, np.sqrt, 0.0, math.inf),
    (lambda x: x ** 0, lambda x: x ** 0, 0.0, 0.0),
    (math.floor, np.floor, 2.0, 0.0),
    (round, np.round, 2.5, 0.0),
])
def test_scalar_and_array_conventions_agree(scalar, array, x, expected):
    assert D(scalar, x) == expected
    assert array_d(array, x) == expected


def test_fmax_fmin_take_the_argument_returned():
    assert array_d(lambda x: np.fmax(x, 2 * x - 1), 1.0) == 1.0
    assert array_d(lambda x: np.fmax(2 * x - 1, x), 1.0) == 2.0
    assert array_d(lambda x: np.fmax(np.nan * x, 3 * x), 1.0) == 3.0
    assert array_d(lambda x: np.fmin(3 * x, np.nan * x), 1.0) == 3.0


def test_clip_at_a_bound_takes_the_arguments_derivative():
    assert array_d(lambda x: np.clip(x, 1.0, 2.0), 1.0) == 1.0
    assert array_d(lambda x: np.clip(3 * x, 3.0, 2 * x + 1), 1.0) == 3.0


def test_reductions_with_ties_take_the_first_tied_element():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    g = ad.gradient(lambda v: np.max(v), x)
    assert list(g) == [0.0, 1.0, 0.0, 0.0]
    assert list(ad.gradient(lambda v: np.min(v), np.array([2.0, 1.0, 1.0]))) == [0.0, 1.0, 0.0]
    assert ad.gradient(lambda v: max(v), [1.0, 3.0, 3.0]) == [0.0, 1.0, 0.0]  # Python's max: the first too
    assert list(ad.gradient(lambda v: np.linalg.norm(v, np.inf), np.array([-3.0, 3.0]))) == [-1.0, 0.0]


def test_sort_keeps_tied_tangents_in_order():
    J = ad.jacobian(lambda v: np.sort(v), np.array([2.0, 1.0, 2.0]))
    np.testing.assert_array_equal(J, [[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    assert ad.jacobian(lambda v: sorted(v), [2.0, 1.0, 2.0]) == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


R, F = ad.ReverseMode(), ad.ForwardMode()
UNTOUCHED_CASES = {  # an element the output does not depend on sends nothing back, whatever its derivative
    "where(x > 0, log(x), 0)": (lambda x: np.sum(np.where(x > 0, np.log(x), 0.0)), [0.0, 1.0, -1.0], [0.0, 1.0, 0.0]),
    "nansum past a nan constant": (lambda x: np.nansum(x * np.array([1.0, np.nan, 1.0])), [0.0, 1.0, 2.0],
                                   [1.0, 0.0, 1.0]),
    "the issue's sum(v ** 2)": (lambda v: np.sum(v ** 2), [np.nan, np.inf, 1.0], [np.nan, np.inf, 2.0]),
    "sqrt at 0, in the untaken branch": (lambda x: np.sum(np.where(x > 0, np.sqrt(x), x)), [0.0, 4.0], [1.0, 0.25]),
    "an element indexed out": (lambda x: np.log(x)[1] + np.sum(x), [0.0, 2.0], [1.0, 1.5]),
    "a number in a nansum": (lambda t: np.nansum(np.array([t, t * np.nan])), 2.0, 1.0),
}


@pytest.mark.parametrize("case", list(UNTOUCHED_CASES))
def test_both_modes_send_nothing_through_an_untouched_element(case):
    f, x, expected = UNTOUCHED_CASES[case]
    x = np.array(x) if isinstance(x, list) else x
    with np.errstate(all="ignore"):
        forward, reverse = ad.gradient(f, x, backend=F), ad.gradient(f, x, backend=R)
    np.testing.assert_array_equal(forward, expected)
    np.testing.assert_array_equal(reverse, expected)


def test_a_jacobian_row_whose_output_is_not_finite_keeps_its_nan():
    """Each row is checked on its own output: an output that is nan depended on what made it so."""
    f = lambda x: np.array([np.sum(np.where(x > 0, np.log(x), 0.0)), np.sum(np.sqrt(x - 1.0) * 0.0)])  # noqa: E731
    x = np.array([0.0, 0.5])
    with np.errstate(all="ignore"):
        J = ad.jacobian(f, x, backend=R)
        np.testing.assert_array_equal(J[0], [0.0, 2.0])
        assert np.isnan(J[1]).all()  # sqrt(-1) * 0 is nan: the row stays nan
        np.testing.assert_array_equal(J, ad.jacobian(f, x, backend=F))


def test_where_the_modes_differ_a_zero_factor():
    """``sqrt(x) * 0.0`` at 0: forward mode multiplies the direction's infinite tangent by 0 (nan);
    reverse mode's zero cotangent sends nothing back (the one-sided derivative of x, 1)."""
    f = lambda x: np.sum(np.sqrt(x) * 0.0 + x)  # noqa: E731
    with np.errstate(all="ignore"):
        assert np.isnan(ad.gradient(f, np.array([0.0]), backend=F)[0])
        assert ad.gradient(f, np.array([0.0]), backend=R)[0] == 1.0


def test_hessians_forward_over_reverse_send_nothing_through_an_untouched_element():
    f = lambda x: np.sum(np.where(x > 0, np.log(x) * x, x * x))  # noqa: E731
    x = np.array([0.0, 2.0])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ad.hessian(f, x, backend=ad.HigherOrder(F, R)), ad.hessian(f, x))


def test_a_masked_number_is_a_constant_to_an_enclosing_derivative():
    """The masked second pass replaces a number's ``0 * inf`` by a plain 0 (it was ``0.0 * term``,
    itself ``nan`` when an enclosing derivative carried the term)."""
    g = lambda x: np.sum(np.sqrt(x[0]) * 0.0 + x * x)  # noqa: E731  (x[0]: a number, not an array)
    x = np.array([0.0, 1.0])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ad.gradient(g, x, backend=R), [0.0, 2.0])
        for outer in (F, R):
            np.testing.assert_array_equal(ad.hessian(g, x, backend=ad.HigherOrder(outer, R)), [[2.0, 0.0], [0.0, 2.0]])
