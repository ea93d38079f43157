"""Forward AD of NumPy's matrix decompositions and matrix functions (``ad/rules/decompositions.py``):
svd, svdvals, eig, eigvals, qr, complex eigh, singular-value norms, matrix_power, multi_dot, cond,
tensorinv, tensorsolve. Each rule is checked against central differences (``check_grads``, up to
order 2), with chunks of directions (``ad.jacobian``) and nested (``ad.hessian``).

Where singular vectors or eigenvectors are defined only up to a phase (complex matrices) or a
rotation (the extra vectors of ``full_matrices``/``'complete'``), the functions checked do not
depend on that choice: ``abs(u)``, projections ``u u^H``, ``u s vh``.
"""

import numpy as np
import pytest

import ad
from ad.testing import check_grads, numerical_jvp

RNG = np.random.default_rng(0)


def real(*shape):
    return RNG.standard_normal(shape)


def cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def mH(x):
    return np.conjugate(np.swapaxes(x, -1, -2))


def flat(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    return np.concatenate([np.ravel(o) for o in out])


def check_chunk(f, x, rtol=1e-4, atol=1e-5):
    """``ad.jacobian`` (chunks of directions) agrees with central differences along a random direction;
    a complex ``x`` is taken as its real and imaginary parts."""
    c = np.iscomplexobj(x)

    def g(y):
        return flat(f(y[0] + 1j * y[1] if c else y))

    y = np.stack([x.real, x.imag]) if c else x
    jac = np.asarray(ad.jacobian(g, y))
    v = np.random.default_rng(1).standard_normal(y.shape)
    want, = numerical_jvp(g, (y,), [v])
    np.testing.assert_allclose(jac.reshape(jac.shape[0], -1) @ v.ravel(), want, rtol=rtol, atol=atol)


def check(f, x, order=2, rtol=1e-4, atol=1e-5):
    check_grads(f, (x,), order=order, rtol=rtol, atol=atol)
    check_chunk(f, x)


SHAPES = [(3, 5), (4, 4), (5, 3), (2, 5, 3), (2, 3, 5)]


def _k(a):
    return min(np.shape(a)[-2:])


# ---------------------------------------------------------------------- svd


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_real_reduced(shape):
    check(lambda a: tuple(np.linalg.svd(a, full_matrices=False)), real(*shape))


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_complex_phase_invariant(shape):
    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.abs(u), s, np.abs(vh), (u * s[..., None, :]) @ vh, u[..., :, :1] @ vh[..., :1, :]

    check(f, cplx(*shape))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("make", [real, cplx])
def test_svd_full_matrices(shape, make):
    def f(a):  # the complement's vectors only through their projector
        u, s, vh = np.linalg.svd(a)
        k = _k(a)
        u2, vh2 = u[..., :, k:], vh[..., k:, :]
        return s, np.abs(u[..., :, :k]), np.abs(vh[..., :k, :]), u2 @ mH(u2), mH(vh2) @ vh2

    check(f, make(*shape))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("make", [real, cplx])
def test_singular_values(shape, make):
    a = make(*shape)
    check(lambda x: np.linalg.svd(x, compute_uv=False), a)
    check(np.linalg.svdvals, a, order=1)


@pytest.mark.parametrize("make", [real, cplx])
def test_svd_hermitian_reads_lower_triangle(make):
    a = make(4, 4)
    check(lambda x: np.linalg.svd(x, hermitian=True, compute_uv=False), a)
    if make is real:
        check(lambda x: tuple(np.linalg.svd(x, hermitian=True)), a)


def test_svd_of_a_real_matrix_along_a_complex_tangent_is_c_linear():
    a, v = real(4, 3), real(4, 3)
    _, t = ad.jvp(lambda x: flat(np.linalg.svd(x)), a, v)
    _, ti = ad.jvp(lambda x: flat(np.linalg.svd(x)), a, 1j * v)
    np.testing.assert_allclose(ti, 1j * t, atol=1e-12)


def test_svd_tie_gives_nan_vectors_and_the_formula_for_values():
    v = real(3, 3)
    with np.errstate(all="ignore"):
        _, du = ad.jvp(lambda x: np.linalg.svd(x)[0], np.eye(3), v)
        _, ds = ad.jvp(lambda x: np.linalg.svd(x)[1], np.eye(3), v)
    assert not np.all(np.isfinite(du))
    u, _, vh = np.linalg.svd(np.eye(3))  # a kink: the tangent is the formula's, diag(U^T v V)
    np.testing.assert_allclose(ds, np.diag(u.T @ v @ vh.T))


# ---------------------------------------------------------------------- eig


def test_eig_real():
    check(lambda a: (lambda w, v: (w, np.abs(v)))(*np.linalg.eig(a)), real(5, 5))


@pytest.mark.parametrize("shape", [(4, 4), (3, 4, 4)])
def test_eig_complex_is_numpys_normalisation(shape):
    # zgeev: unit length, largest component real and positive; the tangent keeps both
    check(lambda a: tuple(np.linalg.eig(a)), cplx(*shape))


def test_eig_batched_real():
    check(lambda a: (lambda w, v: (w, np.abs(v)))(*np.linalg.eig(a)), real(3, 4, 4))


@pytest.mark.parametrize("make", [real, cplx])
def test_eigvals(make):
    check(np.linalg.eigvals, make(2, 4, 4))


def test_eig_of_a_real_matrix_along_a_complex_tangent_is_c_linear():
    a, v = real(4, 4), real(4, 4)
    _, t = ad.jvp(lambda x: flat(np.linalg.eig(x)), a, v)
    _, ti = ad.jvp(lambda x: flat(np.linalg.eig(x)), a, 1j * v)
    np.testing.assert_allclose(ti, 1j * t, atol=1e-12)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_complex(uplo):
    def f(a):
        w, v = np.linalg.eigh(a, uplo)
        return w, np.abs(v), v[..., :, :1] @ mH(v[..., :, :1])

    check(f, cplx(2, 4, 4))


def test_eigh_real_matrix_complex_tangent_raises():
    with pytest.raises(ad.NoRuleError, match="eigh"):
        ad.jvp(lambda a: np.linalg.eigh(a)[1], real(3, 3), cplx(3, 3))


# ----------------------------------------------------------------------- qr


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("make", [real, cplx])
def test_qr_reduced(shape, make):
    check(lambda a: tuple(np.linalg.qr(a)), make(*shape))
    check(lambda a: np.linalg.qr(a, "r"), make(*shape), order=1)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5), (2, 6, 3)])
@pytest.mark.parametrize("make", [real, cplx])
def test_qr_complete(shape, make):
    def f(a):
        q, r = np.linalg.qr(a, "complete")
        k = _k(a)
        return r, q[..., :, :k], q[..., :, k:] @ mH(q[..., :, k:])

    check(f, make(*shape))


def test_qr_raw_raises():
    with pytest.raises(ad.NoRuleError, match="qr"):
        ad.jacobian(lambda a: np.linalg.qr(a, "raw")[0], real(3, 3))


# -------------------------------------------------------------------- norms


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
@pytest.mark.parametrize("make", [real, cplx])
def test_singular_value_norms(ord, make):
    check(lambda a: np.linalg.norm(a, ord), make(4, 3))
    check(lambda a: np.linalg.norm(a, ord, axis=(2, 0), keepdims=True), make(4, 2, 3))
    check(lambda a: np.linalg.matrix_norm(a, ord=ord), make(2, 3, 4))


# --------------------------------------------------------- matrix functions


@pytest.mark.parametrize("p", [0, 1, 2, 3, 5, -1, -3])
@pytest.mark.parametrize("make", [real, cplx])
def test_matrix_power(p, make):
    a = make(2, 3, 3) + 3 * np.eye(3)
    if p == 0:
        _, t = ad.jvp(lambda x: np.linalg.matrix_power(x, 0), a, a)
        assert not np.any(t)
        return
    check(lambda x: np.linalg.matrix_power(x, p), a)


def test_multi_dot():
    b, c = real(3, 4), real(4)
    check(lambda a: np.linalg.multi_dot([a, b, c]), real(2, 3))
    check(lambda x: np.linalg.multi_dot([x[0], x, b]), real(3, 3))  # the same value in two places


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, np.inf])
def test_cond(p):
    check(lambda a: np.linalg.cond(a, p), real(2, 3, 3) + 2 * np.eye(3))
    check(lambda a: np.linalg.cond(a, p), cplx(3, 3) + 2 * np.eye(3), order=1)


def test_tensorinv_and_tensorsolve():
    a = real(4, 4) + 3 * np.eye(4)
    check(lambda x: np.linalg.tensorinv(x.reshape(4, 2, 2), ind=1), a)
    check(lambda x: np.linalg.tensorsolve(x.reshape(2, 2, 2, 2), x[0].reshape(2, 2)), a)
    check(lambda x: np.linalg.tensorsolve(x.reshape(2, 2, 2, 2), x[1].reshape(2, 2), axes=(0,)), a)


def test_matrix_rank_has_no_tangent():
    rank = ad.jvp(np.linalg.matrix_rank, real(3, 3), real(3, 3))[1]
    assert not np.any(rank)


# ------------------------------------------------------------------ nested


@pytest.mark.parametrize("f", [
    lambda a: np.linalg.norm(a, "nuc"),
    lambda a: np.sum(np.linalg.svd(a)[0] ** 3),
    lambda a: np.sum(np.abs(np.linalg.eig(a)[1]) ** 2 * np.arange(3)),
    lambda a: np.sum(np.linalg.qr(a)[0][:, 0] * np.linalg.qr(a)[1][0]),
    lambda a: np.sum(np.linalg.matrix_power(a, 3) ** 2),
])
def test_hessian(f):
    a = real(3, 3)
    h = np.asarray(ad.hessian(f, a)).reshape(9, 9)
    eps = 1e-5
    fd = np.stack([
        (np.asarray(ad.gradient(f, a + eps * e.reshape(3, 3))) - np.asarray(ad.gradient(f, a - eps * e.reshape(3, 3))))
        .ravel() / (2 * eps) for e in np.eye(9)
    ])
    np.testing.assert_allclose(h, fd, rtol=1e-4, atol=1e-5)
