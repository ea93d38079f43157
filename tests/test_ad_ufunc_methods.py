"""``ufunc.reduce`` and ``ufunc.accumulate`` in both modes (``ad/rules/ufunc_methods.py``), and nan
kept out of the directions that do not move a singular point's inputs (``std``, norms)."""

import numpy as np
import pytest

import ad

R = ad.ReverseMode()
X = np.random.default_rng(0).uniform(-1, 1, 12)

CASES = {
    "add.reduce": lambda x: np.add.reduce(x.reshape(3, 4)) @ np.arange(4.0),
    "add.reduce axis=None": lambda x: np.add.reduce(x.reshape(3, 4) ** 2, axis=None),
    "multiply.reduce": lambda x: np.sum(np.multiply.reduce(1 + x.reshape(3, 4), axis=1)),
    "maximum.reduce": lambda x: np.sum(np.maximum.reduce(x.reshape(3, 4), axis=1)),
    "minimum.reduce keepdims": lambda x: np.sum(np.minimum.reduce(x.reshape(3, 4), axis=0, keepdims=True) ** 2),
    "logaddexp.reduce": lambda x: np.logaddexp.reduce(x),
    "logaddexp.reduce axis": lambda x: np.sum(np.logaddexp.reduce(x.reshape(3, 4), axis=1) ** 2),
    "logaddexp2.reduce": lambda x: np.logaddexp2.reduce(x * 3),
    "add.accumulate": lambda x: np.sum(np.add.accumulate(x) ** 2),
    "multiply.accumulate": lambda x: np.sum(np.multiply.accumulate(1 + 0.1 * x.reshape(3, 4), axis=1)),
}


@pytest.mark.parametrize("name", CASES)
def test_ufunc_methods_in_both_modes(name):
    f = CASES[name]
    expected = ad.gradient(f, X, backend=ad.FiniteDifferences())
    for backend in (ad.ForwardMode(), R):
        np.testing.assert_allclose(ad.gradient(f, X, backend=backend), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ad.hessian(f, X, backend=R), ad.hessian(f, X), rtol=1e-10, atol=1e-12)


def test_values_are_numpys():
    np.testing.assert_allclose(ad.jvp(np.logaddexp.reduce, X, np.ones(12))[0], np.logaddexp.reduce(X), rtol=1e-14)
    np.testing.assert_allclose(ad.jvp(lambda x: np.logaddexp.reduce(np.full(3, -np.inf) + x[:3]), X, np.ones(12))[0],
                               -np.inf)


def test_other_methods_name_themselves():
    for f, match in ((np.subtract.reduce, "np.subtract.reduce"), (np.maximum.accumulate, "np.maximum.accumulate")):
        for backend in (ad.ForwardMode(), R):
            with pytest.raises(ad.NoRuleError, match=match):
                ad.gradient(lambda x: np.sum(f(x)), X, backend=backend)


def test_a_singular_point_spreads_no_nan_to_directions_that_do_not_move_it():
    """std of equal values and the norm of a zero row: nan (no derivative, as in JAX) only along
    the inputs that move them; 0 along the others, in both modes. Forward mode sees that x[6]
    moves all of std's elements alike (std stays 0: derivative 0); reverse mode cannot, as JAX."""
    f = lambda x: np.std(np.ones((3, 4)) * x[6])
    np.testing.assert_array_equal(ad.gradient(f, X, backend=ad.ForwardMode()), np.zeros(12))
    g = ad.gradient(f, X, backend=R)
    assert np.isnan(g[6]) and np.all(np.delete(g, 6) == 0)
    f = lambda x: np.std(np.concatenate([np.ones(3) * x[6], [x[6] * x[1]]]))  # x[6] moves them alike; x[1] not
    g = ad.gradient(f, np.ones(12), backend=ad.ForwardMode())
    assert g[6] == 0 and np.isnan(g[1]) and np.all(np.delete(g, [1, 6]) == 0)

    def rows(x):
        A = x.reshape(3, 4) * np.array([[1.0], [0.0], [1.0]])  # row 1 is zero whatever x is
        return np.linalg.norm(A, axis=1).sum()

    expected = ad.gradient(rows, X, backend=ad.FiniteDifferences())
    np.testing.assert_allclose(ad.gradient(rows, X, backend=ad.ForwardMode()), expected, atol=1e-7)
