"""Forward AD of products, numpy.linalg, and array building/selection, against central differences.

Each case runs ``f`` at ``x`` with one random tangent and with a chunk of three, and
compares every direction with ``(f(x + h v) - f(x - h v)) / 2h``. Directions are random
(never symmetric), so the rules reading one triangle (cholesky, eigh) are checked to
ignore the other.
"""

import operator

import numpy as np
import pytest

import ad
import ad.rules.arrays  # noqa: F401  (register the rules)
import ad.rules.linalg  # noqa: F401
import ad.rules.products  # noqa: F401
from context import overdub
from context.tagging import Tagged, enabletagging, tag

K = 3
H = 1e-6


def run(f, x, v):
    ctx = enabletagging(ad.ForwardCtx(), f)
    return overdub(ctx, f, tag(x, ctx, v))


def derivative(f, x):
    """d f / d x at scalar ``x``, by hand (nested calls differentiate the inner run)."""
    ctx = enabletagging(ad.ForwardCtx(), f)
    return overdub(ctx, f, tag(x, ctx, 1.0)).meta


def central(f, x, v, h=H):
    return (np.asarray(f(x + h * v)) - np.asarray(f(x - h * v))) / (2 * h)


def check(f, x, seed=0, rtol=1e-5, complex_directions=False):
    """The tangent of ``f`` at ``x`` matches central differences, unchunked and in a chunk of ``K``."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x)
    want_value = f(x)
    for chunk in ((), (K,)):
        v = rng.normal(size=chunk + x.shape)
        if complex_directions:
            v = v + 1j * rng.normal(size=chunk + x.shape)
        out = run(f, x, v)
        assert isinstance(out, Tagged), "the result carries no tangent"
        np.testing.assert_array_equal(out.value, want_value)
        got = np.asarray(out.meta)
        assert got.shape == chunk + np.shape(want_value)
        for gi, vi in zip(got.reshape((-1,) + np.shape(want_value)), v.reshape((-1,) + x.shape)):
            fd = central(f, x, vi)
            scale = max(1.0, float(np.max(np.abs(fd), initial=0.0)))
            np.testing.assert_allclose(gi, fd, rtol=rtol, atol=rtol * scale)


def untagged(out):
    if isinstance(out, (tuple, list)):
        return all(untagged(o) for o in out)
    return not isinstance(out, Tagged)


_r = np.random.default_rng(12345)
M23, M34, M43, M33 = _r.normal(size=(2, 3)), _r.normal(size=(3, 4)), _r.normal(size=(4, 3)), _r.normal(size=(3, 3))
V3, V4 = _r.normal(size=3), _r.normal(size=4)
T234 = _r.normal(size=(2, 3, 4))


def spd(*shape, seed=0):
    """Well-conditioned symmetric positive definite matrices."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) / shape[-1] + np.eye(shape[-1])


def symmetric(n, seed=0):
    """A symmetric matrix with well-separated eigenvalues."""
    rng = np.random.default_rng(seed)
    q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    return q @ np.diag(np.arange(1.0, n + 1) * 1.5 - 3.0) @ q.T


PRODUCTS = {
    "dot vector vector": (lambda x: np.dot(x, x), V3),
    "dot matrix vector": (lambda x: np.dot(x, V4), M34),
    "dot vector matrix": (lambda x: np.dot(V3, x), M34),
    "dot matrix matrix": (lambda x: np.dot(x, M43), M34),
    "dot 3-d 2-d": (lambda x: np.dot(x, M43), T234),
    "dot second operand": (lambda x: np.dot(M23, x), M34),
    "dot scalar": (lambda x: np.dot(x[1], M23), V3),
    "dot method": (lambda x: x.dot(M43), M34),
    "matmul": (lambda x: x @ M43, M34),
    "matmul rmatmul": (lambda x: M23 @ x, M34),
    "matmul vector matrix": (lambda x: x @ M34, V3),
    "matmul matrix vector": (lambda x: x @ V4, M34),
    "matmul vector on a stack": (lambda x: V3 @ x, T234),
    "matmul stack second": (lambda x: M33 @ x, T234),
    "matmul stack first": (lambda x: x @ M43, T234),
    "matmul vector vector": (lambda x: np.matmul(x, x), V3),
    "matmul square": (lambda x: x @ x, M33),
    "operator.matmul": (lambda x: operator.matmul(x, M43), M34),
    "einsum matrix product first": (lambda x: np.einsum("ij,jk->ik", x, M43), M34),
    "einsum matrix product second": (lambda x: np.einsum("ij,jk->ik", M23, x), M34),
    "einsum implicit": (lambda x: np.einsum("ij,jk", x, M43), M34),
    "einsum implicit case order": (lambda x: np.einsum("aB,BC", x, M43), M34),
    "einsum trace": (lambda x: np.einsum("ii", x), M33),
    "einsum diagonal": (lambda x: np.einsum("ii->i", x), M33),
    "einsum transpose": (lambda x: np.einsum("ij->ji", x), M34),
    "einsum both operands": (lambda x: np.einsum("ij,ij->", x, x), M34),
    "einsum three operands": (lambda x: np.einsum("ij,jk,kl->il", M23, x, M43), M34),
    "einsum ellipsis": (lambda x: np.einsum("...ij,jk->...ik", x, M43), T234),
    "einsum implicit ellipsis": (lambda x: np.einsum("ij...,jk", np.moveaxis(T234, 0, -1), x), M43),
    "einsum spaces": (lambda x: np.einsum(" i j , j ", x, V4), M34),
    "einsum sublists": (lambda x: np.einsum(x, [0, 1], M43, [1, 2]), M34),
    "einsum sublists explicit": (lambda x: np.einsum(x, [0, 1], M43, [1, 2], [2, 0]), M34),
    "einsum sublists ellipsis": (lambda x: np.einsum(x, [Ellipsis, 1, 2], M43, [2, 3], [Ellipsis, 3]), T234),
    "outer": (lambda x: np.outer(x, V4), V3),
    "outer of matrices": (lambda x: np.outer(M23, x), M34),
    "inner vectors": (lambda x: np.inner(x, x), V3),
    "inner matrices": (lambda x: np.inner(x, M23), M33),
    "inner second": (lambda x: np.inner(M23, x), M33),
    "tensordot 1": (lambda x: np.tensordot(x, M43, axes=1), T234),
    "tensordot 2": (lambda x: np.tensordot(M23, x, axes=2), T234),
    "tensordot pairs": (lambda x: np.tensordot(x, T234, axes=([1, 0], [0, 1])), M23.T + 1.0),
    "tensordot second": (lambda x: np.tensordot(M34, x, axes=([0], [1])), T234),
    "trace": (lambda x: np.trace(x), M33),
    "trace offset": (lambda x: np.trace(x, 1), M34),
    "trace axes": (lambda x: np.trace(x, 0, 1, 2), T234),
    "trace method": (lambda x: x.trace(axis1=0, axis2=2), T234),
    "vdot": (lambda x: np.vdot(x, M43.T), M34),
    "vdot second": (lambda x: np.vdot(V3, x), V3),
    "kron": (lambda x: np.kron(x, M23), M33),
    "kron second": (lambda x: np.kron(V3, x), M23),
    "kron both": (lambda x: np.kron(x, x), V3),
    "cross": (lambda x: np.cross(x, V3), V3),
    "cross second": (lambda x: np.cross(M43, x), V3),
    "cross stacks": (lambda x: np.cross(x, x[::-1]), M43),
    "cross axis": (lambda x: np.cross(x, M33, axis=0), M34[:, :3]),
    "vecdot": (lambda x: np.vecdot(x, M34), M34),
    "vecdot axis": (lambda x: np.vecdot(M34, x, axis=0), M34),
}
if hasattr(np, "matvec"):
    PRODUCTS["matvec"] = (lambda x: np.matvec(x, V4), T234)
    PRODUCTS["matvec vector"] = (lambda x: np.matvec(M34, x), V4)
    PRODUCTS["vecmat"] = (lambda x: np.vecmat(x, M34), V3)
    PRODUCTS["vecmat matrix"] = (lambda x: np.vecmat(V3, x), T234)


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(name):
    f, x = PRODUCTS[name]
    check(f, x)


B2 = spd(2, 3, 3, seed=3)
A4 = spd(4, 4, seed=4)
TALL = _r.normal(size=(6, 3))
WIDE = _r.normal(size=(3, 5))
S5 = symmetric(5, seed=5)

LINALG = {
    "solve matrix": (lambda x: np.linalg.solve(x, V4), A4),
    "solve vector": (lambda x: np.linalg.solve(A4, x), V4),
    "solve both": (lambda x: np.linalg.solve(x, x[:, 1]), A4),
    "solve columns": (lambda x: np.linalg.solve(A4, x), M43),
    "solve columns both": (lambda x: np.linalg.solve(x, x[:, :2]), A4),
    "solve stack": (lambda x: np.linalg.solve(x, T234[:, :, :2]), B2),
    "solve stack vector": (lambda x: np.linalg.solve(x, V3), B2),
    "solve stack of right sides": (lambda x: np.linalg.solve(M33 + 3 * np.eye(3), x), T234[:, :, :3].copy()),
    "inv": (lambda x: np.linalg.inv(x), A4),
    "inv stack": (lambda x: np.linalg.inv(x), B2),
    "det": (lambda x: np.linalg.det(x), A4),
    "det nonsymmetric": (lambda x: np.linalg.det(x), M33 + 2 * np.eye(3)),
    "det stack": (lambda x: np.linalg.det(x), B2),
    "det 1x1": (lambda x: np.linalg.det(x), np.array([[2.5]])),
    "slogdet": (lambda x: np.linalg.slogdet(x)[1], M33 + 2 * np.eye(3)),
    "slogdet negative": (lambda x: np.linalg.slogdet(x).logabsdet, -A4[:3, :3]),
    "slogdet stack": (lambda x: np.linalg.slogdet(x)[1], B2),
    "cholesky": (lambda x: np.linalg.cholesky(x), A4),
    "cholesky upper": (lambda x: np.linalg.cholesky(x, upper=True), A4),
    "cholesky stack": (lambda x: np.linalg.cholesky(x), B2),
    "eigh values": (lambda x: np.linalg.eigh(x)[0], S5),
    "eigh vectors": (lambda x: np.linalg.eigh(x).eigenvectors, S5),
    "eigh upper": (lambda x: np.linalg.eigh(x, UPLO="U")[1], S5),
    "eigh upper positional": (lambda x: np.linalg.eigh(x, "U")[0], S5),
    "eigh stack": (lambda x: np.linalg.eigh(x)[1], B2),
    "eigvalsh": (lambda x: np.linalg.eigvalsh(x), S5),
    "eigvalsh upper": (lambda x: np.linalg.eigvalsh(x, UPLO="U"), S5),
    "pinv tall": (lambda x: np.linalg.pinv(x), TALL),
    "pinv wide": (lambda x: np.linalg.pinv(x), WIDE),
    "pinv stack": (lambda x: np.linalg.pinv(x), T234),
    "lstsq solution": (lambda x: np.linalg.lstsq(x, V3[[0, 1, 2, 0, 1, 2]] + 1)[0], TALL),
    "lstsq residuals": (lambda x: np.linalg.lstsq(x, V3[[0, 1, 2, 0, 1, 2]] + 1)[1], TALL),
    "lstsq singular values": (lambda x: np.linalg.lstsq(x, V3[[0, 1, 2, 0, 1, 2]])[3], TALL),
    "lstsq columns": (lambda x: np.linalg.lstsq(TALL, x)[0], _r.normal(size=(6, 2))),
    "lstsq columns residuals": (lambda x: np.linalg.lstsq(TALL, x)[1], _r.normal(size=(6, 2))),
    "lstsq both": (lambda x: np.linalg.lstsq(x, x[:, 0] ** 2)[1], TALL),
    "lstsq wide": (lambda x: np.linalg.lstsq(x, V3)[0], WIDE),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(name):
    f, x = LINALG[name]
    check(f, x)


def _hermitian(n, seed):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
    return c @ c.conj().T / n + np.eye(n)


COMPLEX = {
    "inv": (lambda x: np.linalg.inv(x), _hermitian(3, 1)),
    "det": (lambda x: np.linalg.det(x), _hermitian(3, 2) + 0.5j * np.eye(3)),
    "slogdet sign": (lambda x: np.linalg.slogdet(x)[0], _hermitian(3, 3) + 0.5j * np.eye(3)),
    "slogdet logabsdet": (lambda x: np.linalg.slogdet(x)[1], _hermitian(3, 4) + 0.5j * np.eye(3)),
    "cholesky": (lambda x: np.linalg.cholesky(x), _hermitian(3, 5)),
    "cholesky upper": (lambda x: np.linalg.cholesky(x, upper=True), _hermitian(3, 6)),
    "eigvalsh": (lambda x: np.linalg.eigvalsh(x), _hermitian(3, 7)),
    "solve": (lambda x: np.linalg.solve(x, V3), _hermitian(3, 8)),
    "matmul": (lambda x: x @ x.conj(), _hermitian(3, 9)),
    "vdot": (lambda x: np.vdot(x, x), _hermitian(3, 10)[0]),
    "vecdot": (lambda x: np.vecdot(x, M33), _hermitian(3, 11)),
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_linalg_complex(name):
    f, x = COMPLEX[name]
    check(f, x, complex_directions=True)


def test_linalg_results_keep_their_types():
    x = S5
    out = run(np.linalg.eigh, x, np.ones_like(x))
    assert type(out) is type(np.linalg.eigh(x))
    sign, logabsdet = out2 = run(np.linalg.slogdet, A4, np.ones_like(A4))
    assert type(out2) is type(np.linalg.slogdet(A4))
    assert untagged(sign) and not untagged(logabsdet)
    x_, residuals, rank, s = run(lambda a: np.linalg.lstsq(a, V3[[0, 1, 2, 0, 1, 2]]), TALL, np.ones_like(TALL))
    assert untagged(rank) and rank == 3 and not untagged(s)


def test_linalg_errors():
    with pytest.raises(ad.NoRuleError, match="eigvalsh"):
        run(np.linalg.eigh, _hermitian(3, 0).real, 1j * np.ones((3, 3)))  # real matrix, complex tangent
    with pytest.raises(ad.NoRuleError, match="rank-deficient"):
        run(lambda a: np.linalg.lstsq(a, V3[[0, 1, 2, 0, 1, 2]]), np.ones((6, 3)), np.ones((6, 3)))
    with pytest.raises(np.linalg.LinAlgError):
        run(np.linalg.cholesky, -A4, np.ones_like(A4))


# ---- where, clip, sort -------------------------------------------------------------------------

X34 = _r.normal(size=(3, 4))
X234 = _r.normal(size=(2, 3, 4))
MASK34 = _r.normal(size=(3, 4)) > 0

SELECT = {
    "where": (lambda x: np.where(x > 0, x, 2 * x), X34),
    "where constant branch": (lambda x: np.where(MASK34, 1.0, x), X34),
    "where both": (lambda x: np.where(MASK34, x, x[::-1] ** 2), X34),
    "where scalar branch": (lambda x: np.where(MASK34, x[0, 0], np.zeros(4)), X34),
    "where broadcast": (lambda x: np.where(MASK34, x[0], X34), X34),
    "clip": (lambda x: np.clip(x, -0.5, 0.5), X34),
    "clip lower only": (lambda x: np.clip(x, -0.5, None), X234),
    "clip upper only": (lambda x: np.clip(x, None, 0.25), X234),
    "clip keywords": (lambda x: np.clip(x, min=-0.3, max=0.3), X34),
    "clip method": (lambda x: x.clip(-0.3, 0.3), X34),
    "clip method keyword": (lambda x: x.clip(max=0.1), X34),
    "clip array bounds": (lambda x: np.clip(x, -np.abs(M34[0]), np.abs(M34[1])), X34),
    "clip tagged bounds": (lambda x: np.clip(x[:4], x[4], x[5]), np.array([-2.0, -0.4, 0.3, 2.0, -1.0, 1.0])),
    "clip tagged array bounds": (lambda x: np.clip(X34, x[0], x[1]), np.array([-0.3, 0.4])[:, None] * np.ones(4)),
    "clip crossed bounds": (lambda x: np.clip(X34, x[1], x[0]), np.array([-0.3, 0.4])),
    "sort": (lambda x: np.sort(x), X34[0]),
    "sort last axis": (lambda x: np.sort(x), X34),
    "sort axis 0": (lambda x: np.sort(x, axis=0), X34),
    "sort axis 1 of 3": (lambda x: np.sort(x, 1), X234),
    "sort flattened": (lambda x: np.sort(x, axis=None), X234),
    "sort kind": (lambda x: np.sort(x, kind="heapsort"), X34),
}


@pytest.mark.parametrize("name", sorted(SELECT))
def test_select(name):
    f, x = SELECT[name]
    check(f, x)


def test_where_one_argument_and_condition():
    x = X34
    out = run(lambda x: np.where(x > 0), x, np.ones_like(x))
    assert untagged(out)
    for want, got in zip(np.where(x > 0), out):
        np.testing.assert_array_equal(want, got)
    out = run(lambda x: np.where(x, 1.0, 2.0), x, np.ones_like(x))  # a tagged condition: no dependence
    assert untagged(out)


def test_clip_ties_take_the_argument():
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    v = np.arange(1.0, 6.0)
    out = run(lambda x: np.clip(x, -0.5, 0.5), x, v)
    np.testing.assert_array_equal(out.meta, [0.0, 2.0, 3.0, 4.0, 0.0])
    p = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, -0.5, 0.5])  # values, then lo, hi
    out = run(lambda p: np.clip(p[:5], p[5], p[6]), p, np.arange(1.0, 8.0))
    np.testing.assert_array_equal(out.meta, [6.0, 2.0, 3.0, 4.0, 7.0])
    with pytest.raises(TypeError, match="a_max"):
        run(lambda x: np.clip(x, 0.0), x, v)


def test_sort_ties_are_stable():
    x = np.array([1.0, 0.0, 1.0, 0.0])
    v = np.array([10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(run(lambda x: np.sort(x), x, v).meta, [20.0, 40.0, 10.0, 30.0])
    x = np.random.default_rng(0).integers(0, 3, 200).astype(float)  # many ties: quicksort would reorder them
    v = np.arange(200.0)
    want = v[np.argsort(x, kind="stable")]
    np.testing.assert_array_equal(run(lambda x: np.sort(x, kind="quicksort"), x, v).meta, want)
    both = np.stack([v, -v])
    np.testing.assert_array_equal(run(lambda x: np.sort(x[None], axis=None), x, both).meta, [want, -want])


def test_sort_method_sorts_in_place():
    def f(x):
        y = x * 1.0
        y.sort()
        return y

    check(f, X34[0])


# ---- np.array, astype, *_like, full ------------------------------------------------------------

V2 = np.array([0.7, -1.3])

BUILD = {
    "array of scalars": (lambda x: np.array([[x[0], 2.0], [x[1] * x[0], x[1]]]), V2),
    "array of a tuple": (lambda x: np.array((x[1], x[0], 3.0)), V2),
    "array of arrays": (lambda x: np.array([x, 2 * x, np.ones(2)]), V2),
    "array of rows and scalars": (lambda x: np.array([x, [x[1], 1.0]]), V2),
    "array of arrays and lists": (lambda x: np.array([np.zeros(2), [x[1], x[0]]]), V2),
    "array copy": (lambda x: np.array(x), X34),
    "array dtype": (lambda x: np.array([x[0], x[1]], dtype=np.float64), V2),
    "array ndmin": (lambda x: np.array([x[0], x[1]], ndmin=3), V2),
    "array nested deeper": (lambda x: np.array([[[x[0]], [x[1]]], [[1.0], [x[0] * x[1]]]]), V2),
    "array complex": (lambda x: np.array([x[0], 1j * x[1]]), V2),
    "astype float": (lambda x: x.astype(np.float64), X34),
    "astype complex": (lambda x: x.astype(complex), X34),
    "full_like": (lambda x: np.full_like(X34, x[1]), V2),
    "full_like array fill": (lambda x: np.full_like(X234, x), X34[0]),
    "full": (lambda x: np.full((2, 3), x[0]), V2),
    "full row": (lambda x: np.full((3, 2), x), V2),
}


@pytest.mark.parametrize("name", sorted(BUILD))
def test_build(name):
    f, x = BUILD[name]
    check(f, x)


def test_array_dtypes():
    v = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = run(lambda x: np.array([x[0], x[1]], dtype=np.float32), V2, v)
    assert out.value.dtype == np.float32 and out.meta.dtype == np.float32
    np.testing.assert_array_equal(out.meta, v[:, :2].astype(np.float32))
    out = run(lambda x: np.array([x[0], x[1]], dtype=int), V2, v)
    assert untagged(out) and out.dtype == int
    with pytest.raises(ad.NoRuleError, match="dtype"):
        run(lambda x: np.array([x[0], "a"]), V2, v)


def test_array_memory():
    def copied(x):
        y = np.array(x)
        y[0] = 5.0  # writes only the copy and its tangent
        return x + 0.0

    v = np.arange(1.0, 3.0)
    np.testing.assert_array_equal(run(copied, V2, v).meta, v)

    def same(x):
        return np.array(x, copy=False)

    ctx = enabletagging(ad.ForwardCtx(), same)
    tx = tag(V2, ctx, v)
    assert overdub(ctx, same, tx) is tx

    def from_buffer(x):
        buf = np.zeros(3)
        buf[1] = x[0] * 3.0
        return np.array(buf)

    np.testing.assert_array_equal(run(from_buffer, V2, v).meta, [0.0, 3.0, 0.0])


def test_astype():
    v = _r.normal(size=(K,) + X34.shape)
    out = run(lambda x: x.astype(np.float32), X34, v)
    assert out.value.dtype == np.float32 and out.meta.dtype == np.float32
    np.testing.assert_array_equal(out.meta, v.astype(np.float32))
    out = run(lambda x: x.astype(int), X34, v)
    assert untagged(out) and out.dtype == int
    out = run(lambda x: x.astype(bool), X34, v[0])
    assert untagged(out)

    def fresh(x):
        y = x.astype(np.float64)  # a copy by default
        y[0, 0] = 1.0
        return x + 0.0

    np.testing.assert_array_equal(run(fresh, X34, v[0]).meta, v[0])

    def same(x):
        return x.astype(np.float64, copy=False), np.ndarray.astype(x, np.float32)

    ctx = enabletagging(ad.ForwardCtx(), same)
    tx = tag(X34, ctx, v)
    y, z = overdub(ctx, same, tx)
    assert y.value is tx.value and y.meta is tx.meta  # no conversion: the same array
    assert z.meta.dtype == np.float32


def test_products_give_new_memory_and_views_stay_views():
    def fresh(x):
        y = x @ np.eye(4)
        y[0, 0] = 0.0
        return x + 0.0

    v = _r.normal(size=X34.shape)
    np.testing.assert_array_equal(run(fresh, X34, v).meta, v)

    def through_view(x):
        y = x * 1.0
        t = np.einsum("ij->ji", y)  # a view of y, as for NumPy
        t[1, 0] = 3.0 * y[0, 0]  # writes y[0, 1]
        return y

    want = v.copy()
    want[0, 1] = 3.0 * v[0, 0]
    np.testing.assert_array_equal(run(through_view, X34, v).meta, want)


NO_TANGENT = {
    "argmax": lambda x: np.argmax(x, axis=0),
    "argmin": lambda x: np.argmin(x),
    "argsort": lambda x: np.argsort(x, axis=1),
    "searchsorted": lambda x: np.searchsorted(np.sort(x[0]), x[1]),
    "nonzero": lambda x: np.nonzero(x),
    "flatnonzero": lambda x: np.flatnonzero(x),
    "argwhere": lambda x: np.argwhere(x),
    "count_nonzero": lambda x: np.count_nonzero(x, axis=1),
    "shape": lambda x: np.shape(x),
    "ndim": lambda x: np.ndim(x),
    "size": lambda x: np.size(x),
    "isclose": lambda x: np.isclose(x, X34),
    "allclose": lambda x: np.allclose(x, X34),
    "array_equal": lambda x: np.array_equal(x, X34),
    "array_equiv": lambda x: np.array_equiv(x, X34[0]),
    "any": lambda x: np.any(x, axis=0),
    "all": lambda x: x.all(),
    "round": lambda x: np.round(x, 1),
    "round method": lambda x: x.round(),
    "around": lambda x: np.around(x),
    "fix": lambda x: np.fix(x),  # deprecated in NumPy 2.5
    "zeros_like": lambda x: np.zeros_like(x),
    "ones_like": lambda x: np.ones_like(x, dtype=np.float32),
    "empty_like": lambda x: np.empty_like(x).shape,
    "full_like of a constant": lambda x: np.full_like(x, 2.0),
}


@pytest.mark.filterwarnings("ignore:numpy.fix is deprecated:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(NO_TANGENT))
def test_results_without_tangent(name):
    f = NO_TANGENT[name]
    out = run(f, X34, np.ones((K,) + X34.shape))
    assert untagged(out)
    want = f(X34)
    if isinstance(want, tuple):
        for w, o in zip(want, out):
            np.testing.assert_array_equal(o, w)
    else:
        np.testing.assert_array_equal(out, want)


# ---- second derivatives: the rules' own arithmetic differentiated by an outer run ---------------

SECOND = {
    "matmul": lambda x: np.einsum("ij,ij->", x @ x, M33),
    "dot": lambda x: np.dot(x, x)[0, 1],
    "kron": lambda x: np.kron(x, x)[1, 4],
    "det": lambda x: np.linalg.det(x),
    "inv": lambda x: np.linalg.inv(x)[0, 1],
    "solve": lambda x: np.linalg.solve(x, M33[:, 1])[2],
    "cholesky": lambda x: np.linalg.cholesky(x)[2, 1],
    "eigh": lambda x: np.linalg.eigh(x)[1][2, 1],
    "sort": lambda x: np.sort(x * x, axis=0)[1, 2],
    "where": lambda x: np.where(M33 > 0, x * x, x)[0, 1],
    "clip": lambda x: np.clip(x * x, 0.5, 5.0)[1, 2],
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives(name):
    f = SECOND[name]
    x0 = spd(3, 3, seed=9)
    rng = np.random.default_rng(1)
    v, w = rng.normal(size=(2, 3, 3))
    got = derivative(lambda s: derivative(lambda t: f(x0 + t * v + s * w), 0.0), 0.0)
    h = 1e-4
    want = (f(x0 + h * v + h * w) - f(x0 + h * v - h * w) - f(x0 - h * v + h * w) + f(x0 - h * v - h * w)) / (4 * h * h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
