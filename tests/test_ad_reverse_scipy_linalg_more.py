"""Reverse-mode rules of scipy.linalg's svd, svdvals, qr, lu, pinv, pinvh, polar, banded solvers and
constructors: the dot-product test against forward mode, values as SciPy's, and the refusals."""

import numpy as np
import pytest

import ad
from ad.testing import check_vjp

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(1)
A = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
T = RNG.normal(size=(5, 3))
S = A @ A.T
B = RNG.normal(size=4)
BAND = RNG.normal(size=(3, 4)) + np.array([[0.0], [5.0], [0.0]])  # (l, u) = (1, 1)
UPPER = np.vstack([RNG.normal(size=(1, 4)), 5 + RNG.random((1, 4))])
LOWER = np.vstack([5 + RNG.random((1, 4)), RNG.normal(size=(1, 4))])

CASES = {
    "svd": (lambda a: sl.svd(a), (T,)),
    "svd, reduced": (lambda a: sl.svd(a, full_matrices=False), (T,)),
    "svd, values only": (lambda a: sl.svd(a, compute_uv=False), (T,)),
    "svdvals": (sl.svdvals, (T,)),
    "qr": (sl.qr, (T,)),
    "qr, economic": (lambda a: sl.qr(a, mode="economic"), (T,)),
    "qr, r only": (lambda a: sl.qr(a, mode="r")[0], (T,)),
    "lu": (lambda a: sl.lu(a)[1:], (A,)),
    "lu, permute_l": (lambda a: sl.lu(a, permute_l=True), (A,)),
    "pinv": (sl.pinv, (T,)),
    "pinvh, lower": (sl.pinvh, (S,)),
    "pinvh, upper": (lambda a: sl.pinvh(a, lower=False), (S,)),
    "polar": (sl.polar, (A,)),
    "polar, left": (lambda a: sl.polar(a, "left"), (A,)),
    "polar, tall": (sl.polar, (T,)),
    "solve_banded": (lambda ab, b: sl.solve_banded((1, 1), ab, b), (BAND, B)),
    "solveh_banded": (sl.solveh_banded, (UPPER, B)),
    "solveh_banded, lower": (lambda ab, b: sl.solveh_banded(ab, b, lower=True), (LOWER, B)),
    "toeplitz": (sl.toeplitz, (B, B[::-1] * 2)),
    "toeplitz of one vector": (sl.toeplitz, (B,)),
    "circulant": (sl.circulant, (B,)),
    "hankel": (sl.hankel, (B, B[::-1] * 2)),
    "leslie": (sl.leslie, (B, B[:3])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dot_product(name):
    f, args = CASES[name]
    check_vjp(f, args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_are_scipys(name):
    # (polar and the banded solvers are computed under the tape from the SVD and a dense solve:
    # the same numbers as SciPy's own to rounding)
    f, args = CASES[name]
    weights = [RNG.normal(size=np.shape(p)) for p in (lambda o: o if isinstance(o, tuple) else (o,))(f(*args))]

    def loss(*xs):
        out = f(*xs)
        return sum(np.sum(w * p) for w, p in zip(weights, out if isinstance(out, tuple) else (out,)))

    value, _ = ad.value_and_grad(loss, argnums=tuple(range(len(args))), backend=ad.ReverseMode())(*args)
    np.testing.assert_allclose(value, loss(*args), rtol=1e-12)


def test_refusals():
    R = ad.ReverseMode()
    with pytest.raises(ad.NoRuleError, match="pivoting"):
        ad.gradient(lambda a: np.sum(sl.qr(a, pivoting=True)[1]), T, backend=R)
    with pytest.raises(ad.NoRuleError, match="non-square"):
        ad.gradient(lambda a: np.sum(sl.lu(a)[2]), T, backend=R)
    with pytest.raises(ad.NoRuleError, match="return_rank"):
        ad.gradient(lambda a: np.sum(sl.pinv(a, return_rank=True)[0]), T, backend=R)
