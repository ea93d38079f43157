"""``np.add.at``/``np.subtract.at`` (accumulation with repeated indices), ``np.putmask`` and
``np.place`` under forward AD, against central differences."""

import numpy as np
import pytest

import ad
from ad.testing import check_grads

# a 1-D finite-element mesh: 4 elements over 5 nodes, each element adds its 2x2 stiffness
ELEMENTS = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])


def assemble(k):
    """The global stiffness matrix of springs with stiffnesses ``k`` (one per element)."""
    K = np.zeros((5, 5))
    local = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for e, (i, j) in enumerate(ELEMENTS):
        np.add.at(K, (np.array([i, i, j, j]), np.array([i, j, i, j])), k[e] * local.ravel())
    return K


def test_finite_element_assembly():
    k = np.array([1.0, 2.0, 3.0, 4.0])
    J = ad.jacobian(assemble, k)
    for e in range(4):
        np.testing.assert_allclose(J[..., e], assemble(np.eye(4)[e]))
    check_grads(lambda k: np.linalg.solve(assemble(k)[1:, 1:], np.ones(4)), [k], order=2)


def test_repeated_indices_accumulate_and_subtract():
    def f(x):
        out = np.ones(3)
        np.add.at(out, [0, 1, 0, 0], x)
        np.subtract.at(out, np.array([2, 2]), x[:2] ** 2)
        return out

    x = np.array([1.0, 2.0, 3.0, 4.0])
    J = ad.jacobian(f, x)
    np.testing.assert_allclose(J, [[1, 0, 1, 1], [0, 1, 0, 0], [-2, -4, 0, 0]])
    check_grads(f, [x], order=2)
    check_grads(f, [x + 1j * x[::-1]], order=1)


def test_into_the_array_being_differentiated():
    def f(x):
        y = x * 1.0
        np.add.at(y, [1, 1], x[0])
        return y

    np.testing.assert_allclose(ad.jacobian(f, np.array([1.0, 2.0])), [[1, 0], [2, 1]])


def test_other_ufuncs_at_and_a_differentiated_index_raise():
    with pytest.raises(ad.NoRuleError, match=r"np\.multiply\.at has no derivative rule"):
        ad.jacobian(lambda x: np.multiply.at(x.copy(), [0], 2.0), np.ones(2))


def test_putmask_with_cycled_values():
    def f(x):
        y = x.copy()
        np.putmask(y, y > 1.5, x[:2] * 10)
        return y

    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ad.jacobian(f, x), [[1, 0, 0], [0, 10, 0], [10, 0, 0]])
    check_grads(f, [x], order=2)
    with pytest.raises(ad.NoRuleError, match="mask"):
        ad.gradient(lambda m: np.putmask(np.ones(2), np.array([m, m]), 0.0) or 1.0, 1.0)


def test_place_reads_values_in_order():
    def f(x):
        y = x * 1.0
        np.place(y, y > 1.5, [x[0] * 5, x[0] * 7])
        return y

    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(ad.jacobian(f, x), [[1, 0, 0, 0], [5, 0, 0, 0], [7, 0, 0, 0], [5, 0, 0, 0]])
    check_grads(f, [x], order=1)
