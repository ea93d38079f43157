"""Sparsity detection: patterns of Jacobians and Hessians, global and local, on plain Python and NumPy code.

Each pattern is checked against the dense Jacobian (Hessian) of forward mode at random inputs: every
nonzero derivative must be in the pattern (never a missing entry), and for code whose structure is
exact the pattern must equal it.
"""

import numpy as np
import pytest

import ad

pytest.importorskip("scipy")

RNG = np.random.default_rng(0)
A = np.diag(np.ones(6)) + np.diag(np.ones(5), 1)


def _buffer_loop(x):
    r = np.zeros(len(x))
    for i in range(1, len(x) - 1):
        r[i] = x[i - 1] - 2 * x[i] + x[i + 1]
    r[0] = x[0]
    return r


def _stencil(x):
    r = np.empty_like(x)
    r[1:-1] = x[:-2] - 2 * x[1:-1] + x[2:] + x[1:-1] ** 2
    r[0] = x[0] - 1
    r[-1] = x[-1]
    return r


def _add_at(x):
    r = np.zeros(3)
    np.add.at(r, [0, 0, 2, 1], x[:4])
    return r


def _views(x):
    y = x.copy()
    v = y[2:]
    v[0] = x[0] * x[5]  # a write through a view is seen by the array it views
    return y


# name: (function, exact) -- exact: the global pattern equals the Jacobian's at a random input
JACOBIANS = {
    "elementwise": (lambda x: np.sin(x) * 2 + np.exp(x), True),
    "python loop": (lambda x: np.array([x[i] * x[i + 1] for i in range(len(x) - 1)]), True),
    "buffer loop": (_buffer_loop, True),
    "stencil": (_stencil, True),
    "constant matrix": (lambda x: A @ x, True),
    "einsum": (lambda x: np.einsum("ij,j->i", A, x), True),
    "outer": (lambda x: np.outer(x, x).ravel(), True),
    "roll": (lambda x: np.roll(x, 1) - x, True),
    "diff": (lambda x: np.diff(x) ** 2, True),
    "diff n=2": (lambda x: np.diff(x, n=2), True),
    "pad edge": (lambda x: np.pad(x, 1, mode="edge")[1:] * 2, True),
    "convolve": (lambda x: np.convolve(x, [1.0, -2.0, 1.0], mode="same"), True),
    "correlate valid": (lambda x: np.correlate(x, [1.0, 0.0, 3.0], mode="valid"), True),
    "cumsum": (np.cumsum, True),
    "reductions": (lambda x: x.reshape(2, 3).sum(axis=0) * x.reshape(2, 3).max(axis=1).sum(), False),
    "sum over an axis": (lambda x: x.reshape(2, 3).sum(axis=0) ** 2, True),
    "mean": (lambda x: x - x.mean(), True),
    "concatenate": (lambda x: np.concatenate([x[:2], [1.0, x[3]], x[4:] ** 2]), True),
    "stack": (lambda x: np.stack([x, x[::-1]]), True),
    "gradient": (np.gradient, True),
    "tril": (lambda x: np.tril(np.outer(x, np.ones(6))).sum(axis=1), True),
    "fft": (lambda x: np.abs(np.fft.fft(x)), True),
    "add.at": (_add_at, True),
    "views": (_views, True),
    "2-d": (lambda x: (x.reshape(3, 2) @ np.array([[1.0, 0.0], [0.0, 0.0]])).T, True),
    "python numbers": (lambda x: [x[0] * 2 + x[1], x[2] ** 2, abs(x[3]), max(x[4], x[0])], False),
    "where": (lambda x: np.where(x > 0, x, 0.0) + np.maximum(x, 0), False),
    "sort": (np.sort, False),
    "solve": (lambda x: np.linalg.solve(A + np.diag(x), np.ones(6)), False),
}


@pytest.mark.parametrize("name", sorted(JACOBIANS))
def test_jacobian_pattern_holds_every_nonzero(name):
    f, exact = JACOBIANS[name]
    for _ in range(3):
        x = RNG.normal(size=6)
        P = ad.jacobian_sparsity(f, x)
        J = np.reshape(ad.jacobian(f, x), P.shape)
        nonzero = np.abs(J) > 0
        assert P.toarray()[nonzero].all(), "a nonzero derivative is missing from the pattern"
        if exact:
            assert np.array_equal(P.toarray(), nonzero)


def test_pattern_is_a_boolean_csr_matrix_of_raveled_shapes():
    P = ad.jacobian_sparsity(lambda x: x[:, ::-1] * 2, np.ones((2, 3)))
    assert P.format == "csr" and P.dtype == bool and P.shape == (6, 6)
    assert P[0, 2] and P[5, 3] and P.nnz == 6


def test_global_detector_refuses_a_branch_on_the_input():
    def f(x):
        return x * 2 if x[0] > 0 else x[::-1]

    with pytest.raises(ad.SparsityBranchError, match="local=True"):
        ad.jacobian_sparsity(f, np.ones(3))
    assert ad.jacobian_sparsity(f, np.ones(3), local=True).toarray().tolist() == np.eye(3, dtype=bool).tolist()
    assert np.flipud(ad.jacobian_sparsity(f, -np.ones(3), local=True).toarray()).tolist() == \
        np.eye(3, dtype=bool).tolist()


def test_global_detector_refuses_an_index_from_the_input():
    def f(x):
        return x[np.argmax(x)] * x

    with pytest.raises(ad.SparsityBranchError):
        ad.jacobian_sparsity(f, np.arange(3.0))
    P = ad.jacobian_sparsity(f, np.arange(3.0), local=True).toarray()
    assert P.tolist() == [[1, 0, 1], [0, 1, 1], [0, 0, 1]]


def test_global_detector_refuses_a_mask_from_the_input():
    with pytest.raises(ad.SparsityBranchError):
        ad.jacobian_sparsity(lambda x: x[x > 0].sum(), np.ones(3))


def test_comparison_results_in_arithmetic_are_constants():
    P = ad.jacobian_sparsity(lambda x: x * (x > 0), np.ones(4))  # relu written with a mask
    assert np.array_equal(P.toarray(), np.eye(4, dtype=bool))


def test_missing_rule_is_named():
    def g(x):
        return np.interp(x, [0.0, 1.0], [0.0, 1.0]) + np.kaiser(4, 2.0) * x

    assert ad.jacobian_sparsity(g, np.ones(4)).nnz == 4
    with pytest.raises(ad.NoRuleError, match="numpy.i0 has no sparsity rule"):
        ad.jacobian_sparsity(lambda x: np.i0(x), np.ones(3))


def test_bad_input():
    with pytest.raises(TypeError, match="array of numbers"):
        ad.jacobian_sparsity(lambda x: x, {"a": 1.0})
    with pytest.raises(TypeError, match="array of numbers"):
        ad.jacobian_sparsity(lambda x: x, "abc")
    with pytest.raises(TypeError, match="return an array"):
        ad.jacobian_sparsity(lambda x: {"y": x}, np.ones(2))
    with pytest.raises(ValueError, match="single number"):
        ad.hessian_sparsity(lambda x: x * 2, np.ones(2))


def test_input_list_and_constant_output():
    assert ad.jacobian_sparsity(lambda x: x[0] * x[1], [1.0, 2.0]).toarray().tolist() == [[True, True]]
    assert ad.jacobian_sparsity(lambda x: np.zeros(3), np.ones(2)).nnz == 0


def _chain(x):
    return np.sum(x[:-1] * x[1:]) + np.sum(np.sin(x))


def _rosenbrock(x):
    return np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


HESSIANS = {
    "chain": (_chain, True),
    "rosenbrock": (_rosenbrock, True),
    "quadratic form": (lambda x: x @ (A @ x), True),
    "linear": (lambda x: np.sum(A @ x), True),
    "python loop": (lambda x: sum(x[i] ** 2 * x[(i + 2) % 6] for i in range(6)), True),
    "quotient": (lambda x: np.sum(x[:3] / x[3:]), True),
    "norm and product": (lambda x: np.linalg.norm(x[:2]) + np.prod(x[3:]), False),
    "exp of sum": (lambda x: np.exp(x[0] + x[1]) + x[2] * 3 + np.sum(x[3:] ** 2), True),
}


@pytest.mark.parametrize("name", sorted(HESSIANS))
def test_hessian_pattern_holds_every_nonzero(name):
    f, exact = HESSIANS[name]
    for _ in range(3):
        x = RNG.normal(size=6)
        P = ad.hessian_sparsity(f, x).toarray()
        H = np.asarray(ad.hessian(f, x))
        nonzero = np.abs(H) > 1e-12
        assert P[nonzero].all()
        assert np.array_equal(P, P.T)
        if exact:
            assert np.array_equal(P, nonzero)


def test_detection_leaves_no_dependencies_behind():
    buf = np.zeros(3)

    def f(x):
        buf[:] = x * 2
        return buf.copy()

    assert ad.jacobian_sparsity(f, np.ones(3)).nnz == 3
    assert np.array_equal(np.sin(buf), np.sin(np.full(3, 2.0)))  # a plain array again
    assert ad.jacobian(f, np.ones(3)).tolist() == (2 * np.eye(3)).tolist()
