"""Shared inputs and checks of the rule tests (``test_ad_rules_*.py``): central-difference Jacobians,
``check_grads`` to second order, and refusals naming the function."""

import numpy as np
import pytest

import ad
from ad.testing import check_grads

rng = np.random.default_rng(0)
X = rng.normal(size=(4, 5))
Z = X + 1j * rng.normal(size=(4, 5))
V = rng.normal(size=7)


def fd_jacobian(f, x, h=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h
        e = e.reshape(x.shape)
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def fd_pattern(f, x, tol=1e-7):
    """Where central differences see a nonzero derivative: a boolean Jacobian, output elements by inputs."""
    J = fd_jacobian(lambda y: np.ravel(f(y)), x)
    return np.abs(J.reshape(J.shape[0], -1)) > tol


def check_pattern(f, x, exact):
    """``ad.jacobian_sparsity(f, x)`` holds every derivative central differences see (and no more, if ``exact``)."""
    P = ad.jacobian_sparsity(f, x).toarray()
    J = fd_pattern(f, x).reshape(P.shape)
    assert P[J].all(), "a nonzero derivative is missing from the pattern"
    if exact:
        assert np.array_equal(P, J)


def check_jacobian(f, x, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(ad.jacobian(f, x), fd_jacobian(f, x), rtol=rtol, atol=atol)


def check(f, *args, order=2, **kw):
    check_grads(f, args, order=order, **kw)


def refused(f, x, name):
    with pytest.raises(ad.NoRuleError, match=name):
        ad.jacobian(f, x)
