"""Reverse mode of ``scipy.linalg`` (``ad/rules/vjps_scipy_linalg.py``, registered when SciPy is
imported): every rule against forward mode by the dot-product test, and a composite function's
gradient and forward-over-reverse Hessian. Skipped without SciPy."""

import numpy as np
import pytest

import ad
from ad.testing import check_vjp
from tests.test_ad_reverse_linalg import _B, BM, PIV, SMALL, STACK, X9, A, R, S, b

sl = pytest.importorskip("scipy.linalg")

SCIPY = {
    "solve": (sl.solve, (A, b)),
    "solve transposed": (lambda a, y: sl.solve(a, y, transposed=True), (A, BM)),
    "solve sym": (lambda a, y: sl.solve(a, y, assume_a="sym"), (A, b)),
    "solve pos lower": (lambda a, y: sl.solve(a, y, assume_a="pos", lower=True), (S, BM)),
    "solve upper triangular": (lambda a, y: sl.solve(a, y, assume_a="upper triangular"), (A, b)),
    "solve stack": (sl.solve, (STACK, b)),
    "solve_triangular": (sl.solve_triangular, (A, b)),
    "solve_triangular lower T": (lambda a, y: sl.solve_triangular(a, y, trans=1, lower=True), (A, BM)),
    "solve_triangular unit C": (lambda a, y: sl.solve_triangular(a, y, trans="C", unit_diagonal=True), (A, BM)),
    "cholesky": (sl.cholesky, (S,)),
    "cholesky lower": (lambda a: sl.cholesky(a, lower=True), (S,)),
    "cho_factor": (lambda a: sl.cho_factor(a)[0], (S,)),
    "cho_factor lower": (lambda a: sl.cho_factor(a, True)[0], (S,)),
    "cho_solve": (lambda a, y: sl.cho_solve(sl.cho_factor(a), y), (S, b)),
    "cho_solve lower": (lambda a, y: sl.cho_solve(sl.cho_factor(a, lower=True), y), (S, BM)),
    "cho_solve factor": (lambda c, y: sl.cho_solve((c, False), y), (np.triu(A), BM)),
    "lu_factor": (lambda a: sl.lu_factor(a)[0], (A,)),
    "lu_solve": (lambda a, y: sl.lu_solve(sl.lu_factor(a), y), (A, b)),
    "lu_solve trans": (lambda a, y: sl.lu_solve(sl.lu_factor(a), y, trans=1), (A, BM)),
    "lu_solve packed": (lambda lu, y: sl.lu_solve((lu, PIV), y, 2), (A, BM)),
    "inv": (sl.inv, (A,)),
    "inv pos": (lambda a: sl.inv(a, assume_a="pos"), (S,)),
    "inv diagonal": (lambda a: sl.inv(a, assume_a="diagonal"), (A,)),
    "det": (sl.det, (A,)),
    "eigh": (sl.eigh, (S,)),
    "eigh upper": (lambda a: sl.eigh(a, lower=False), (S,)),
    "eigvalsh": (sl.eigvalsh, (S,)),
    "expm": (sl.expm, (SMALL,)),
    "expm stack": (sl.expm, (0.3 * STACK,)),
    "expm scalar": (sl.expm, (0.7,)),
    "logm": (sl.logm, (S,)),
    "sqrtm": (sl.sqrtm, (S,)),
    "solve_sylvester": (sl.solve_sylvester, (A, S, BM @ BM.T + _B)),
    "solve_continuous_lyapunov": (sl.solve_continuous_lyapunov, (A, S)),
    "solve_discrete_lyapunov": (sl.solve_discrete_lyapunov, (0.2 * A, S)),
}


@pytest.mark.parametrize("name", list(SCIPY))
def test_scipy_linalg_transposes_forward_mode(name):
    f, args = SCIPY[name]
    check_vjp(f, args, rtol=1e-8, atol=1e-10)


def scipy_model(x):
    a = np.reshape(x, (3, 3))
    s = a @ a.T + 2 * np.eye(3)
    y = sl.cho_solve(sl.cho_factor(s), np.arange(3.0))
    z = sl.lu_solve(sl.lu_factor(a + 4 * np.eye(3)), y)
    return np.sum(sl.expm(0.2 * a) * z) + np.sum(sl.sqrtm(s)) + np.sum(sl.solve_triangular(s, z, lower=True))


def test_gradient_and_hessian_of_a_composite_function_match_forward_mode():
    np.testing.assert_allclose(ad.gradient(scipy_model, X9, backend=R), ad.gradient(scipy_model, X9),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ad.hessian(scipy_model, X9, backend=R), ad.hessian(scipy_model, X9),
                               rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("f, x, match", [
    (lambda a: sl.eigh(a, S)[0], S, "with b"),
    (lambda a: sl.lu_factor(a[:3])[0], A, "non-square"),
])
def test_unsupported_cases_raise_no_rule_error(f, x, match):
    with pytest.raises(ad.NoRuleError, match=match):
        ad.gradient(lambda a: np.sum(f(a)), x, backend=R)
