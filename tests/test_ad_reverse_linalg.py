"""Reverse mode on NumPy's and SciPy's linear algebra (``vjps_linalg``, ``vjps_decompositions``,
``vjps_scipy_linalg``): every rule against forward mode by the dot-product test, gradients of
composite functions and forward-over-reverse Hessians against forward mode, writes after the tape
saved an array, and the refusals."""

import numpy as np
import pytest

import ad
from ad.rules.vjps_decompositions import singular_value_norm_cotangent
from ad.testing import check_vjp

R = ad.ReverseMode()
N = 4
_rng = np.random.default_rng(20240611)
A = _rng.standard_normal((N, N)) + N * np.eye(N)  # well conditioned
_B = _rng.standard_normal((N, N))
S = _B @ _B.T + N * np.eye(N)  # symmetric positive definite, distinct eigenvalues
STACK = _rng.standard_normal((2, N, N)) + N * np.eye(N)
TALL = _rng.standard_normal((5, 3))
WIDE = _rng.standard_normal((3, 5))
b = _rng.standard_normal(N)
BM = _rng.standard_normal((N, 2))
SMALL = 0.3 * _rng.standard_normal((N, N))
PIV = np.array([2, 2, 3, 3], dtype=np.int32)

NUMPY = {
    "solve": (np.linalg.solve, (A, b)),
    "solve matrix rhs": (np.linalg.solve, (A, BM)),
    "solve stack, vector": (np.linalg.solve, (STACK, b)),
    "inv": (np.linalg.inv, (STACK,)),
    "det": (np.linalg.det, (STACK,)),
    "slogdet": (np.linalg.slogdet, (A,)),
    "slogdet stack": (lambda a: np.linalg.slogdet(a)[1], (STACK,)),
    "cholesky": (np.linalg.cholesky, (S,)),
    "cholesky upper": (lambda a: np.linalg.cholesky(a, upper=True), (S,)),
    "eigh": (np.linalg.eigh, (S,)),
    "eigh UPLO=U": (lambda a: np.linalg.eigh(a, UPLO="U"), (S,)),
    "eigh stack": (np.linalg.eigh, (STACK,)),
    "eigvalsh": (np.linalg.eigvalsh, (S,)),
    "svd square": (np.linalg.svd, (A,)),
    "svd tall full": (np.linalg.svd, (TALL,)),
    "svd wide full": (np.linalg.svd, (WIDE,)),
    "svd tall reduced": (lambda a: np.linalg.svd(a, full_matrices=False), (TALL,)),
    "svd wide reduced": (lambda a: np.linalg.svd(a, False), (WIDE,)),
    "svd stack": (np.linalg.svd, (STACK,)),
    "svd values only": (lambda a: np.linalg.svd(a, compute_uv=False), (TALL,)),
    "svd hermitian": (lambda a: np.linalg.svd(a, hermitian=True), (S,)),
    "svdvals": (np.linalg.svdvals, (WIDE,)),
    "qr tall": (np.linalg.qr, (TALL,)),
    "qr complete": (lambda a: np.linalg.qr(a, "complete"), (TALL,)),
    "qr wide": (np.linalg.qr, (WIDE,)),
    "qr r": (lambda a: np.linalg.qr(a, mode="r"), (TALL,)),
    "qr r wide": (lambda a: np.linalg.qr(a, mode="r"), (WIDE,)),
    "qr stack": (np.linalg.qr, (STACK,)),
    "pinv tall": (np.linalg.pinv, (TALL,)),
    "pinv wide": (np.linalg.pinv, (WIDE,)),
    "pinv rank-deficient": (np.linalg.pinv, (np.outer(TALL[:, 0], WIDE[0]) + np.outer(TALL[:, 1], WIDE[1]),)),
    "lstsq x": (lambda a, y: np.linalg.lstsq(a, y)[0], (TALL, TALL[:, 0] + 1.0)),
    "lstsq underdetermined": (lambda a, y: np.linalg.lstsq(a, y)[0], (WIDE, WIDE[:, 0])),
    "lstsq residuals, s": (lambda a, y: np.linalg.lstsq(a, y)[1::2], (TALL, np.ones((5, 2)))),
    "matrix_power 3": (lambda a: np.linalg.matrix_power(a, 3), (A,)),
    "matrix_power -2": (lambda a: np.linalg.matrix_power(a, -2), (STACK,)),
    "matrix_power 0": (lambda a: np.linalg.matrix_power(a, 0) + a, (A,)),
    "multi_dot": (lambda x, y, z: np.linalg.multi_dot([x, y, z]), (b, A, BM)),
    "multi_dot vectors": (lambda x, y, z: np.linalg.multi_dot([x, y, z]), (TALL, WIDE, np.ones(5))),
    "cond": (np.linalg.cond, (A,)),
    "cond rectangular": (np.linalg.cond, (TALL,)),
    "cond -2": (lambda a: np.linalg.cond(a, -2), (STACK,)),
    "cond fro": (lambda a: np.linalg.cond(a, "fro"), (STACK,)),
    "cond 1": (lambda a: np.linalg.cond(a, 1), (STACK,)),
    "cond -inf": (lambda a: np.linalg.cond(a, -np.inf), (A,)),
    "cond nuc": (lambda a: np.linalg.cond(a, "nuc"), (STACK,)),
}



@pytest.mark.parametrize("name", list(NUMPY))
def test_numpy_linalg_transposes_forward_mode(name):
    f, args = NUMPY[name]
    check_vjp(f, args, rtol=1e-8, atol=1e-10)


def test_cotangent_of_a_triangle_read_is_zero_on_the_other_triangle():
    g = ad.gradient(lambda a: np.sum(np.linalg.cholesky(a)), S, backend=R)
    assert np.all(np.triu(g, 1) == 0) and np.any(np.tril(g, -1) != 0)
    g = ad.gradient(lambda a: np.sum(np.linalg.eigh(a, UPLO="U")[0] ** 2), S, backend=R)
    assert np.all(np.tril(g, -1) == 0)
    # sum(w^2) = tr(S^2): each entry read above the diagonal stands for two of S
    np.testing.assert_allclose(g, 2 * S * (np.eye(N) + 2 * np.triu(np.ones((N, N)), 1)), rtol=1e-10)


# ------------------------------------------------------------------ composite functions


def gaussian_loglik(theta):
    """The log-likelihood of data under N(mu, L L^T + I), the parameters packed in ``theta``."""
    mu, flat = theta[:3], theta[3:]
    low = np.reshape(flat, (3, 3)) * np.tri(3)
    cov = low @ low.T + np.eye(3)
    data = np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.4], [-0.7, 0.9, 0.1]])
    r = data - mu
    sign, logdet = np.linalg.slogdet(cov)
    return -0.5 * np.sum(r * np.linalg.solve(cov, r.T).T) - 1.5 * logdet


def spectral(x):
    a = np.reshape(x, (3, 3))
    s = a @ a.T + np.eye(3)
    w, v = np.linalg.eigh(s)
    u, sv, vh = np.linalg.svd(a)
    q, r = np.linalg.qr(a + 3 * np.eye(3))
    return np.sum(v * np.log(w)) + np.sum(u[:, 0] * sv[0]) + np.sum(q * r) + np.linalg.det(s)


THETA = np.array([0.1, -0.2, 0.3, 1.2, 0.0, 0.0, 0.4, 0.9, 0.0, -0.3, 0.2, 1.1])
X9 = np.array([1.0, 0.2, -0.3, 0.5, 1.4, 0.1, -0.2, 0.3, 0.8])


@pytest.mark.parametrize("f, x", [(gaussian_loglik, THETA), (spectral, X9)], ids=["gaussian", "spectral"])
def test_gradients_of_composite_functions_match_forward_mode(f, x):
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, x", [(gaussian_loglik, THETA), (spectral, X9)], ids=["gaussian", "spectral"])
def test_forward_over_reverse_hessians_match_forward_mode(f, x):
    np.testing.assert_allclose(ad.hessian(f, x, backend=R), ad.hessian(f, x), rtol=1e-7, atol=1e-9)


def test_singular_value_norm_cotangent_is_the_gradient_of_the_norm():
    for ord in ("nuc", 2, -2):
        expected = ad.gradient(lambda a: np.linalg.norm(a, ord), TALL)
        np.testing.assert_allclose(singular_value_norm_cotangent(1.0, TALL, ord), expected, rtol=1e-10)
    got = singular_value_norm_cotangent(np.array([1.0, 2.0]), STACK, 2)
    np.testing.assert_allclose(got[1], 2 * ad.gradient(lambda a: np.linalg.norm(a, 2), STACK[1]), rtol=1e-10)


# ------------------------------------------------------------------ writes after saving, refusals


def test_writes_into_saved_constants_do_not_reach_the_backward_pass():
    def f(y):
        m, c = A.copy(), BM.copy()
        x = np.linalg.solve(m, y)
        p = np.linalg.multi_dot([y, m, c])
        m[0, 0] += 100.0
        c *= 3.0
        return np.sum(x ** 2) + np.sum(p)

    np.testing.assert_allclose(ad.gradient(f, b, backend=R), ad.gradient(f, b), rtol=1e-12)


@pytest.mark.parametrize("f, x, match", [
    (lambda a: np.linalg.lstsq(a, np.ones(5))[0], np.outer(TALL[:, 0], WIDE[0]), "rank-deficient"),
    (lambda a: np.linalg.qr(a, mode="raw")[0], TALL, "mode='raw'"),
    (lambda a: np.linalg.pinv(a, a[0, 0] * 1e-3), TALL, "argument 2"),
    (lambda a: np.linalg.multi_dot(a), STACK, "list of arrays"),
])
def test_unsupported_cases_raise_no_rule_error(f, x, match):
    with pytest.raises(ad.NoRuleError, match=match):
        ad.gradient(lambda a: np.sum(f(a)), x, backend=R)
