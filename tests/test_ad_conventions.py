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
