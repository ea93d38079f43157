"""NumPy 2's array-API functions (``ad/rules/array_api.py``) in forward and reverse mode.

Each is differentiated through NumPy's own implementation: the Jacobian must match central
differences in forward mode (one direction at a time and in chunks) and in reverse mode, the
value must be NumPy's exactly, and a bad argument must raise NumPy's own error.
"""

import numpy as np
import pytest

import ad
from ad.rules import array_api

X = np.linspace(0.1, 1.2, 6)
CASES = {
    "linalg.outer": lambda y: np.linalg.outer(y[:3], y[3:]),
    "linalg.matmul": lambda y: np.linalg.matmul(y.reshape(2, 3), y.reshape(3, 2)),
    "linalg.tensordot": lambda y: np.linalg.tensordot(y.reshape(2, 3), y.reshape(3, 2), axes=1),
    "linalg.vecdot": lambda y: np.linalg.vecdot(y.reshape(2, 3), y.reshape(2, 3) ** 2)
    + np.linalg.vecdot(y.reshape(2, 3), y.reshape(2, 3), axis=0).sum(),
    "linalg.trace": lambda y: np.linalg.trace(y.reshape(2, 3), offset=1),
    "linalg.diagonal": lambda y: np.linalg.diagonal(y.reshape(2, 3)),
    "linalg.cross": lambda y: np.linalg.cross(y[:3], y[3:]),
    "linalg.matrix_transpose": lambda y: np.linalg.matrix_transpose(y.reshape(2, 3)) * y[0],
    "linalg.svdvals": lambda y: np.linalg.svdvals(y.reshape(2, 3)),
    "matrix_transpose": lambda y: np.matrix_transpose(y.reshape(2, 3)) * y[0],
    "cumulative_sum": lambda y: np.cumulative_sum(y.reshape(2, 3), axis=1, include_initial=True)
    + np.cumulative_sum(y).sum(),
    "cumulative_prod": lambda y: np.cumulative_prod(y.reshape(2, 3), axis=0, include_initial=True),
    "unstack": lambda y: np.unstack(y.reshape(2, 3))[1] * 2,
}
PRESENT = [name for name in array_api.NAMES if array_api._function(name) in array_api.FUNCTIONS]


def test_every_registered_function_has_a_case():
    assert set(PRESENT) <= set(CASES)
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":
        assert len(PRESENT) == len(array_api.NAMES)


@pytest.mark.parametrize("name", PRESENT)
@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ForwardMode(chunk=2), ad.ReverseMode()], ids=repr)
def test_jacobian_against_central_differences(name, backend):
    f = CASES[name]
    value, J = ad.value_and_jacobian(f, X, backend=backend)
    np.testing.assert_array_equal(value, f(X))
    np.testing.assert_allclose(J, ad.jacobian(f, X, backend=ad.FiniteDifferences()), rtol=1e-6, atol=1e-7)


@pytest.mark.skipif(not hasattr(np.linalg, "outer"), reason="NumPy before 2.0 has no np.linalg.outer")
@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()], ids=repr)
def test_numpys_own_errors(backend):
    with pytest.raises(ValueError, match="must be one-dimensional"):
        ad.jacobian(lambda y: np.linalg.outer(y.reshape(2, 3), y), X, backend=backend)
