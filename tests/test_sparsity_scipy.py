"""Sparsity rules of SciPy functions: scipy.signal's convolutions, correlations and lfilter, and
scipy.linalg's solvers, factorisations and constructors, against central differences (exact
patterns for the convolutions and constructors; dense ones must hold every nonzero)."""

import numpy as np
import pytest

import ad
from tests.ad_rule_checks import check_pattern

signal = pytest.importorskip("scipy.signal")
sl = pytest.importorskip("scipy.linalg")

K = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
B = np.diag([2.0, 3.0, 4.0]) + np.diag([1.0, 1.0], 1)


# name: (function, exact)
CASES = {
    "convolve 1-d": (lambda x: signal.convolve(x, [1.0, -1.0]), True),
    "convolve 2-d, direct": (lambda x: signal.convolve(x.reshape(4, 4), K, mode="same", method="direct"), True),
    "convolve 2-d, fft": (lambda x: signal.convolve(x.reshape(4, 4), K, mode="same", method="fft"), True),
    "fftconvolve": (lambda x: signal.fftconvolve(x.reshape(4, 4), K, mode="same"), True),
    "fftconvolve along an axis": (lambda x: signal.fftconvolve(x.reshape(4, 4), np.array([[1.0, 2.0]]), axes=1), True),
    "oaconvolve valid": (lambda x: signal.oaconvolve(x.reshape(4, 4), K, mode="valid"), True),
    "convolve2d wrap": (lambda x: signal.convolve2d(x.reshape(4, 4), K, mode="same", boundary="wrap"), True),
    "convolve2d symm": (lambda x: signal.convolve2d(x.reshape(4, 4), K, "same", "symm"), True),
    "correlate2d, fill value from the input": (
        lambda x: signal.correlate2d(x.reshape(4, 4), K, mode="same", fillvalue=x[0]), True),
    "correlate valid": (lambda x: signal.correlate(x, [1.0, 2.0, 0.5], mode="valid"), True),
    "convolve, both operands": (lambda x: signal.convolve(x[:8], x[8:11]), True),
    "lfilter FIR": (lambda x: signal.lfilter([1.0, 0.0, 0.5], [2.0, 0.0], x), True),
    "lfilter FIR along axis 0": (lambda x: signal.lfilter([1.0, 0.5], [2.0], x.reshape(4, 4), axis=0), True),
    "lfilter IIR": (lambda x: signal.lfilter([1.0, 0.5], [1.0, -0.9], x), True),
    "lfilter with initial conditions": (
        lambda x: np.concatenate(signal.lfilter([1.0, 0.5], [1.0, -0.9], x[:8], zi=x[8:9])), True),
    "lfilter, coefficients from the input": (lambda x: signal.lfilter([1.0, x[0]], [1.0], x[1:5]), False),
    "solve, right-hand side": (lambda x: sl.solve(B, x[:3]), False),
    "solve, matrix": (lambda x: sl.solve(B + np.diag(x[:3]), np.ones(3)), False),
    "cho_solve of cho_factor": (
        lambda x: sl.cho_solve(sl.cho_factor(B @ B.T + np.diag(x[:3]) ** 2), np.ones(3)), False),
    "lu_solve of lu_factor": (lambda x: sl.lu_solve(sl.lu_factor(B + np.diag(x[:3])), x[3:6]), False),
    "expm": (lambda x: sl.expm(np.diag(x[:3]) + B), False),
    "eigh": (lambda x: sl.eigh(B @ B.T + np.diag(x[:3]), eigvals_only=True), False),
    "block_diag": (lambda x: sl.block_diag(x[:2].reshape(1, 2), [[1.0]], x[2:6].reshape(2, 2)), True),
    "toeplitz": (lambda x: sl.toeplitz(x[:3], x[3:6]), True),
    "norm": (lambda x: np.array([sl.norm(x[:3])]), True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scipy_pattern(name):
    f, exact = CASES[name]
    check_pattern(f, np.random.default_rng(0).uniform(0.5, 1.5, size=16), exact)


def test_pivots_are_undecided_and_options_must_be_constants():
    def uses_pivots(x):
        lu, piv = sl.lu_factor(B + np.diag(x[:3]))
        return x[piv]  # an index computed from the values: the global pattern cannot follow it

    with pytest.raises(ad.SparsityBranchError):
        ad.jacobian_sparsity(uses_pivots, np.ones(3))
    assert ad.jacobian_sparsity(uses_pivots, np.ones(3), local=True).nnz == 3
    with pytest.raises(ad.NoRuleError, match="mode depends on the input|must be a constant"):
        ad.jacobian_sparsity(lambda x: signal.convolve2d(x.reshape(2, 2), K, boundary=x[0]), np.ones(4))
