"""Reverse mode's rules for reductions and products (``ad/rules/vjps_reductions.py``): each against
forward mode by the dot-product test; exact cotangents at zeros and ties; gradients and
forward-over-reverse Hessians of composite functions; clear refusals."""

import warnings

import numpy as np
import pytest

import ad
from ad.testing import check_vjp

R = ad.ReverseMode()
rng = np.random.default_rng(7)
M = rng.standard_normal((3, 4))
T = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(5)
S = rng.standard_normal((4, 4))
W3 = rng.uniform(0.5, 2.0, 3)
W4 = rng.uniform(0.5, 2.0, 4)
ZM = M * np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]])  # zeros: 1 and 2 per column
A3 = rng.standard_normal((4, 3))
B3 = rng.standard_normal((4, 3))

CASES = {
    # prod, cumprod
    "prod": (np.prod, (M,)),
    "prod axis": (lambda x: np.prod(x, axis=1), (M,)),
    "prod axes keepdims": (lambda x: np.prod(x, axis=(0, 2), keepdims=True), (T,)),
    "prod initial": (lambda x: np.prod(x, 0, initial=2.5), (M,)),
    "prod zeros": (lambda x: np.prod(x, axis=0), (ZM,)),
    "prod zeros all": (np.prod, (ZM[:, 2:],)),
    "prod list": (lambda x: np.prod([x[0], x[1], 2.0]), (V,)),
    "prod method": (lambda x: x.prod(axis=-1), (T,)),
    "cumprod": (np.cumprod, (M,)),
    "cumprod axis": (lambda x: np.cumprod(x, axis=1), (T,)),
    "cumprod long": (lambda x: np.cumprod(x, axis=0), (rng.standard_normal((11, 2)),)),
    "cumprod zeros": (lambda x: np.cumprod(x, axis=1), (ZM,)),
    "cumprod method": (lambda x: x.cumprod(0), (ZM,)),
    # var, std, average
    "var": (np.var, (M,)),
    "var axis ddof": (lambda x: np.var(x, axis=1, ddof=1), (M,)),
    "var axes keepdims": (lambda x: np.var(x, axis=(0, 2), keepdims=True), (T,)),
    "var correction": (lambda x: np.var(x, 0, correction=1), (M,)),
    "std": (np.std, (T,)),
    "std axis ddof keepdims": (lambda x: np.std(x, -1, None, None, 1, True), (T,)),
    "std method": (lambda x: x.std(axis=0), (M,)),
    "average": (np.average, (M,)),
    "average axis": (lambda x: np.average(x, axis=1, keepdims=True), (M,)),
    "average weights": (lambda x, w: np.average(x, weights=w), (M, M ** 2 + 0.5)),
    "average weights axis": (lambda x, w: np.average(x, 1, w), (M, W4)),
    "average weights axes": (lambda x, w: np.average(x, axis=(2, 0), weights=w), (T, rng.uniform(1, 2, (4, 2)))),
    "average returned": (lambda x, w: np.average(x, 0, w, True), (M, W3)),
    "average weights only": (lambda w: np.average(M, axis=0, weights=w, keepdims=True), (W3,)),
    # ptp, max, min
    "ptp": (np.ptp, (M,)),
    "ptp axis keepdims": (lambda x: np.ptp(x, axis=1, keepdims=True), (T,)),
    "max axes": (lambda x: np.max(x, axis=(0, 2)), (T,)),
    "max axes keepdims": (lambda x: np.max(x, axis=(-1, 0), keepdims=True), (T,)),
    "amin axes": (lambda x: np.amin(x, (1, 2)), (T,)),
    "min none keepdims": (lambda x: np.min(x, keepdims=True), (M,)),
    "max initial": (lambda x: np.max(x, axis=1, initial=0.5), (M,)),
    "max method": (lambda x: x.max(axis=(0, 1)), (T,)),
    "nanmax": (lambda x: np.nanmax(x, axis=0), (M,)),
    "nanmin": (np.nanmin, (T,)),
    # norms
    "norm": (np.linalg.norm, (T,)),
    "norm fro": (lambda x: np.linalg.norm(x, "fro"), (M,)),
    "norm vector": (np.linalg.norm, (V,)),
    "norm 1": (lambda x: np.linalg.norm(x, 1), (V,)),
    "norm inf": (lambda x: np.linalg.norm(x, np.inf), (V,)),
    "norm -inf": (lambda x: np.linalg.norm(x, -np.inf), (V,)),
    "norm 3 axis": (lambda x: np.linalg.norm(x, 3, axis=1), (M,)),
    "norm 0.5 keepdims": (lambda x: np.linalg.norm(x, 0.5, axis=-1, keepdims=True), (T,)),
    "norm 2 axis": (lambda x: np.linalg.norm(x, 2, axis=0), (M,)),
    "norm 0": (lambda x: np.linalg.norm(x, 0) * x, (V,)),
    "norm matrix 1": (lambda x: np.linalg.norm(x, 1), (M,)),
    "norm matrix -1": (lambda x: np.linalg.norm(x, -1), (M,)),
    "norm matrix inf": (lambda x: np.linalg.norm(x, np.inf), (M,)),
    "norm matrix -inf axes": (lambda x: np.linalg.norm(x, -np.inf, axis=(2, 0)), (T,)),
    "norm matrix fro axes keepdims": (lambda x: np.linalg.norm(x, "fro", axis=(0, 2), keepdims=True), (T,)),
    "norm nuc": (lambda x: np.linalg.norm(x, "nuc"), (M,)),
    "norm 2 matrix": (lambda x: np.linalg.norm(x, 2, axis=(1, 2)), (T,)),
    "norm -2 matrix": (lambda x: np.linalg.norm(x, -2, axis=(2, 1), keepdims=True), (T,)),
    "vector_norm": (lambda x: np.linalg.vector_norm(x, axis=(0, 2), ord=3), (T,)),
    "vector_norm inf keepdims": (lambda x: np.linalg.vector_norm(x, axis=1, keepdims=True, ord=np.inf), (M,)),
    "matrix_norm": (np.linalg.matrix_norm, (T,)),
    "matrix_norm 1": (lambda x: np.linalg.matrix_norm(x, ord=1, keepdims=True), (T,)),
    # trace, diagonal
    "trace": (np.trace, (S,)),
    "trace offset": (lambda x: np.trace(x, -1), (M,)),
    "trace axes": (lambda x: np.trace(x, 1, axis1=2, axis2=1), (T,)),
    "trace method": (lambda x: x.trace(), (M,)),
    "diagonal": (np.diagonal, (M,)),
    "diagonal offset": (lambda x: np.diagonal(x, 2), (M,)),
    "diagonal negative": (lambda x: np.diagonal(x, -1, 2, 1), (T,)),
    "diagonal empty": (lambda x: np.diagonal(x, 5) + np.sum(x), (M,)),
    "diagonal method": (lambda x: x.diagonal(axis1=0, axis2=2), (T,)),
    # sort, clip
    "sort": (np.sort, (M,)),
    "sort axis 0": (lambda x: np.sort(x, axis=0), (T,)),
    "sort none": (lambda x: np.sort(x, axis=None), (M,)),
    "clip": (lambda x: np.clip(x, -0.5, 0.5), (M,)),
    "clip bounds": (lambda x, lo, hi: np.clip(x, lo, hi), (M, -np.abs(V[:4]), np.abs(W4))),
    "clip keywords": (lambda x: np.clip(x, min=-0.3), (M,)),
    "clip None": (lambda x, hi: np.clip(x, None, hi), (M, W4 - 1)),
    "clip method": (lambda x: x.clip(-1, 0.2), (T,)),
    # einsum
    "einsum matmul": (lambda a, b: np.einsum("ij,jk->ik", a, b), (M, A3)),
    "einsum implicit": (lambda a, b: np.einsum("ij,jk", a, b), (M, A3)),
    "einsum implicit trans": (lambda a: np.einsum("ji", a), (M,)),
    "einsum sum": (lambda a: np.einsum("ijk->j", a), (T,)),
    "einsum total": (lambda a: np.einsum("ij->", a), (M,)),
    "einsum trace": (lambda a: np.einsum("ii", a), (S,)),
    "einsum diag": (lambda a: np.einsum("ii->i", a), (S,)),
    "einsum 3 repeated": (lambda a: np.einsum("iji->j", a), (rng.standard_normal((3, 2, 3)),)),
    "einsum repeated with other": (lambda a, b: np.einsum("ii,ij->j", a, b), (S, A3)),
    "einsum three": (lambda a, b, c: np.einsum("ij,jk,kl->il", a, b, c), (M, A3, S[:3, :2])),
    "einsum outer": (lambda a, b: np.einsum("i,j->ij", a, b), (V, W4)),
    "einsum ellipsis": (lambda a, b: np.einsum("...ij,jk->...ik", a, b), (T, A3)),
    "einsum ellipsis bcast": (lambda a, b: np.einsum("...i,...i->...", a, b), (T, M)),
    "einsum ellipsis unit": (lambda a, b: np.einsum("...i,...i->...", a, b), (T[:1], T)),
    "einsum ellipsis implicit": (lambda a: np.einsum("...ij", a), (T,)),
    "einsum size-1 label": (lambda a, b: np.einsum("ij,ij->i", a, b), (M[:, :1], M)),
    "einsum sublist": (lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), (M, A3)),
    "einsum sublist ellipsis": (lambda a, b: np.einsum(a, [Ellipsis, 1], b, [1], [Ellipsis]), (T, W4)),
    "einsum optimize": (lambda a, b, c: np.einsum("ij,jk,k->i", a, b, c, optimize=True), (M, A3, W3)),
    "einsum scalar": (lambda a, b: np.einsum(",ij->ij", a, b), (np.float64(1.5), M)),
    "einsum same operand": (lambda a: np.einsum("ij,ij->", a, a), (M,)),
    # tensordot, inner, vdot, kron, cross, vecdot
    "tensordot": (lambda a, b: np.tensordot(a, b, 1), (M, A3)),
    "tensordot default": (lambda a, b: np.tensordot(a, b), (T, M)),
    "tensordot pairs": (lambda a, b: np.tensordot(a, b, axes=([0, 2], [1, 0]))[::-1], (T, rng.standard_normal((4, 2, 5)))),
    "tensordot int axes": (lambda a, b: np.tensordot(a, b, axes=(1, 0)), (M, A3)),
    "tensordot 0": (lambda a, b: np.tensordot(a, b, 0), (V, W3)),
    "inner": (np.inner, (M, T)),
    "inner vectors": (np.inner, (V, V[::-1])),
    "inner scalar": (np.inner, (np.float64(2.0), M)),
    "inner list": (lambda a: np.inner([a[0], a[1]], a[:2]), (V,)),
    "vdot": (np.vdot, (M, A3.T)),
    "kron": (np.kron, (M, A3)),
    "kron ranks": (np.kron, (V, T)),
    "kron ranks 2": (np.kron, (T, W3)),
    "cross": (np.cross, (A3, B3)),
    "cross broadcast": (np.cross, (A3, B3[0])),
    "cross axes": (lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0), (A3.T, B3)),
    "cross axis": (lambda a, b: np.cross(a, b, axis=0), (A3.T, B3.T)),
    "vecdot": (np.vecdot, (T, M)),
    "matvec": (np.matvec, (T, W4)),
    "vecmat": (np.vecmat, (W3, T)),
}


try:  # 2-vectors: deprecated in NumPy 2.0, an error in later versions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        np.cross(np.ones(2), np.ones(3))
    CASES.update({
        "cross 2": (np.cross, (A3[:, :2], B3[:, :2])),
        "cross 2 3": (np.cross, (A3[:, :2], B3)),
        "cross 3 2": (np.cross, (A3, B3[:, :2])),
    })
except ValueError:
    pass


@pytest.mark.parametrize("name", list(CASES))
def test_dot_product_against_forward_mode(name):
    f, args = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # cross of 2-vectors (NumPy 2.0 to 2.4)
        check_vjp(f, args)


def _tripled(x):
    return 3.0 * x


ad.defjvp(_tripled, lambda g, ans, x: 3.0 * g)
ad.defvjp(_tripled, lambda u, ans, x: np.flip(3.0 * u))  # deliberately wrong: a permutation too many


def test_the_dot_product_test_fails_on_a_wrong_rule():
    check_vjp(_tripled, (np.array([1.0]),))  # right where the permutation is the identity
    with pytest.raises(AssertionError):
        check_vjp(_tripled, (V,))


# ------------------------------------------------------------------ exact values


def test_prod_with_zeros_is_the_product_of_the_others():
    x = np.array([2.0, 0.0, 3.0, 0.5])
    np.testing.assert_array_equal(ad.gradient(np.prod, x, backend=R), [0.0, 3.0, 0.0, 0.0])
    x = np.array([2.0, 0.0, 3.0, 0.0])
    g = ad.gradient(np.prod, x, backend=R)
    assert np.all(np.isfinite(g)) and not np.any(g)
    g = ad.gradient(lambda a: np.sum(np.prod(a, axis=0)), ZM, backend=R)
    expected = np.array([[np.prod(np.delete(ZM[:, j], i)) for j in range(4)] for i in range(3)])
    np.testing.assert_allclose(g, expected, rtol=1e-14)


def test_cumprod_with_zeros_is_exact():
    x = np.array([2.0, 0.0, 3.0, 0.5, 0.0, 4.0])
    jac = ad.jacobian(np.cumprod, x, backend=R)
    expected = np.array([[np.prod(np.delete(x[: k + 1], i)) if i <= k else 0.0 for i in range(6)]
                         for k in range(6)])
    np.testing.assert_allclose(jac, expected, rtol=1e-14)
    assert np.all(np.isfinite(jac))


def test_max_over_several_axes_sends_the_cotangent_to_the_first_extremum():
    x = np.zeros((2, 2, 3))
    x[1, 0, 2] = x[1, 1, 1] = x[0, 1, 2] = 5.0  # ties: the first in the (axis 1, axis 2) slices
    g = ad.gradient(lambda a: np.sum(np.max(a, axis=(1, 2))), x, backend=R)
    expected = np.zeros((2, 2, 3))
    expected[0, 1, 2] = expected[1, 0, 2] = 1.0
    np.testing.assert_array_equal(g, expected)
    np.testing.assert_array_equal(g, ad.gradient(lambda a: np.sum(np.max(a, axis=(1, 2))), x))
    g = ad.gradient(lambda a: np.max(a, axis=(2, 1)).sum(), x, backend=R)  # the axes in the order given
    np.testing.assert_array_equal(g, ad.gradient(lambda a: np.max(a, axis=(2, 1)).sum(), x))
    # an initial that wins sends nothing
    g = ad.gradient(lambda a: np.sum(np.max(a, axis=0, initial=0.5)), np.array([[0.1, 2.0], [0.2, 1.0]]), backend=R)
    np.testing.assert_array_equal(g, [[0.0, 1.0], [0.0, 0.0]])


def test_ptp_and_ties():
    x = np.array([1.0, 3.0, 3.0, -2.0, -2.0])
    np.testing.assert_array_equal(ad.gradient(np.ptp, x, backend=R), [0, 1, 0, -1, 0])
    np.testing.assert_array_equal(ad.gradient(np.ptp, np.ones(3), backend=R), [0, 0, 0])  # a constant slice
    np.testing.assert_array_equal(ad.gradient(np.ptp, x), [0, 1, 0, -1, 0])  # forward mode: the same rule


def test_sort_is_stable_and_clip_takes_the_argument_at_a_bound():
    x = np.array([2.0, 1.0, 2.0, 0.0])
    jac = ad.jacobian(np.sort, x, backend=R)
    np.testing.assert_array_equal(jac, np.eye(4)[[3, 1, 0, 2]])
    g = ad.gradient(lambda a: np.sum(np.clip(a, 0.0, 2.0)), np.array([0.0, 1.0, 2.0, 3.0, -1.0]), backend=R)
    np.testing.assert_array_equal(g, [1, 1, 1, 0, 0])
    lo = ad.gradient(lambda b: np.sum(np.clip(np.array([0.0, 1.0, -1.0]), b, 2.0)), 0.0, backend=R)
    assert lo == 1.0  # only the element strictly below it


def test_singular_points_as_forward_mode():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.all(np.isnan(ad.gradient(np.linalg.norm, np.zeros(3), backend=R)))
        assert np.all(np.isnan(ad.gradient(np.std, np.ones(3), backend=R)))
    np.testing.assert_array_equal(ad.gradient(lambda x: np.linalg.norm(x, 1), np.array([0.0, -2.0]), backend=R), [0, -1])
    np.testing.assert_array_equal(ad.gradient(lambda x: np.sum(np.std(x, axis=1)), np.ones((3, 1)), backend=R), 0)
    np.testing.assert_array_equal(ad.gradient(lambda x: np.linalg.norm(x, 0), V, backend=R), 0)


def test_average_returned_and_weights_by_keyword():
    def f(x, w):
        avg, scl = np.average(x, axis=1, weights=w, returned=True)
        return np.sum(avg * scl ** 2)

    gx = ad.grad(f, (0, 1), backend=R)(M, W4)
    fx = ad.grad(f, (0, 1))(M, W4)
    for g, e in zip(gx, fx):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    for axis, weighted in ((0, False), (1, True), (None, True), ((0, 1), False), (-1, False)):
        def h(x):
            avg, scl = np.average(x, axis, x ** 2 + 1 if weighted else None, True)
            return np.sum(avg * scl)

        value, grad = ad.value_and_gradient(h, M, backend=R)
        np.testing.assert_allclose(value, h(M), rtol=1e-14)
        np.testing.assert_allclose(grad, ad.gradient(h, M), rtol=1e-12)
    np.testing.assert_array_equal(np.average(M, 0, None, True)[1], [3.0] * 4)


# ------------------------------------------------------------------ composite functions, nested


def _f1(x):
    y = np.einsum("ij,kj->ik", x, x) + np.eye(3)
    return np.linalg.norm(y, "nuc") + np.trace(y) * np.prod(np.diagonal(y)) + np.var(np.sort(x, axis=None))


def _f2(x):
    z = np.clip(np.tensordot(x, x, axes=([0], [0])), -1.0, 1.0)
    return np.sum(np.cumprod(np.abs(z) + 0.5, axis=1)) + np.ptp(x) * np.std(x, ddof=1) + np.vdot(x, np.kron(x[:1], x[:, :1]).T[:4, :3].T)


def _f3(x):
    w = x[0] ** 2 + 1.0
    return np.average(x ** 2, axis=1, weights=w).sum() + np.max(np.cross(x[:, :3], x[:, 1:]), axis=(0, 1)) + np.inner(x, x).sum()


@pytest.mark.parametrize("f", [_f1, _f2, _f3])
def test_gradient_and_hessian_match_forward_mode(f):
    np.testing.assert_allclose(ad.gradient(f, M, backend=R), ad.gradient(f, M), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ad.hessian(f, M, backend=R), ad.hessian(f, M), rtol=1e-9, atol=1e-10)


def test_hessian_of_prod_with_zeros_and_einsum_trace():
    x = np.array([1.5, 0.0, -2.0, 0.0])
    np.testing.assert_array_equal(ad.hessian(np.prod, x, backend=R), ad.hessian(np.prod, x))
    f = lambda a: np.einsum("ii", a @ a) * np.einsum("ij->", a)  # noqa: E731
    np.testing.assert_allclose(ad.hessian(f, S, backend=R), ad.hessian(f, S), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize("f", [
    lambda x: np.max(x, where=x > 0, initial=0.0),
    lambda x: np.prod(x, out=np.empty(())),
    lambda x: np.var(x, mean=np.mean(V, keepdims=True)),
    lambda x: np.clip(x, 0, 1, out=np.empty(5)),
    lambda x: np.ptp(x, out=np.empty(())),
])
def test_refusals(f):
    with pytest.raises(ad.NoRuleError):
        ad.jacobian(f, V, backend=R)


@pytest.mark.skipif("descending" not in np.sort.__doc__, reason="NumPy without sort(descending=)")
def test_descending_sort_is_refused():
    f = lambda x: np.sort(x, descending=True)  # noqa: E731
    with pytest.raises(ad.NoRuleError):
        ad.jacobian(f, V, backend=R)


def test_a_traced_axis_or_offset_is_refused():
    with pytest.raises((ad.NoRuleError, TypeError)):
        ad.gradient(lambda k: np.trace(M, offset=k), 1.0, backend=R)


@pytest.mark.skipif(not hasattr(np, "vecdot"), reason="NumPy before 2.0 has no np.vecdot")
def test_vecdot_along_another_axis():
    """``axis=`` moves each operand's axis last (it was refused)."""
    x = np.linspace(0.2, 1.4, 6)

    def f(y):
        m = np.reshape(y, (2, 3))
        return np.sum(np.vecdot(m, m * m, axis=0) * np.arange(1.0, 4.0)) + np.sum(np.vecdot(m[:, None], m[:, None], axis=0))

    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=ad.ForwardMode()), rtol=1e-12)
