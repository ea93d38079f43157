"""Forward AD of ``scipy.linalg`` (``ad/rules/scipy_linalg.py``): solvers, factorizations, eigh,
matrix functions and special matrices, against central differences (``check_grads`` up to
order 2), with chunks of directions (``ad.jacobian``), nested (``ad.hessian``), on real and
complex matrices and stacks of them. Functions of eigenvectors and singular vectors are
checked through what does not depend on their phases.
"""

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")
stats = pytest.importorskip("scipy.stats")

import ad  # noqa: E402
from ad.testing import check_grads, numerical_jvp  # noqa: E402

RNG = np.random.default_rng(0)


def real(*shape):
    return RNG.standard_normal(shape)


def cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def square(make, *batch, n=4, shift=4.0):
    return make(*batch, n, n) + shift * np.eye(n)


def psd(make, *batch, n=4):
    m = make(*batch, n, n)
    return m @ np.conjugate(np.swapaxes(m, -1, -2)) + n * np.eye(n)


def flat(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    return np.concatenate([np.ravel(o) for o in out if o is not None and np.asarray(o).dtype.kind in "fc"])


def check_chunk(f, args, rtol=1e-4, atol=1e-5):
    """``ad.jacobian`` (chunks of directions) in each argument agrees with central differences;
    a complex argument is taken as its real and imaginary parts."""
    rng = np.random.default_rng(1)
    for i, x in enumerate(args):
        if not (isinstance(x, np.ndarray) and x.dtype.kind in "fc"):
            continue
        c = np.iscomplexobj(x)

        def g(y, i=i):
            a = list(args)
            a[i] = y[0] + 1j * y[1] if c else y
            return flat(f(*a))

        y = np.stack([x.real, x.imag]) if c else x
        jac = np.asarray(ad.jacobian(g, y))
        v = rng.standard_normal(y.shape)
        want, = numerical_jvp(g, (y,), [v])
        np.testing.assert_allclose(jac.reshape(jac.shape[0], -1) @ v.ravel(), want, rtol=rtol, atol=atol)


def check(f, *args, order=2):
    check_grads(f, args, order=order, rtol=1e-4, atol=1e-5)
    check_chunk(f, args)


KINDS = {"real": (real, ()), "complex": (cplx, ()), "stack": (real, (2,))}


# ------------------------------------------------------------------ solvers


STRUCTURES = [None, "gen", "sym", "her", "pos", "diagonal", "tridiagonal", "banded",
              "upper triangular", "lower triangular"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("assume_a", STRUCTURES)
def test_solve_and_inv(kind, assume_a):
    make, batch = KINDS[kind]
    a = psd(make, *batch) if assume_a in ("pos", "her") else square(make, *batch)
    for lower in (False, True) if assume_a in ("sym", "her", "pos") else (False,):
        check(lambda x, y: sl.solve(x, y, assume_a=assume_a, lower=lower), a, make(4, 3), order=1)
        check(lambda x, y: sl.solve(x, y, assume_a=assume_a, lower=lower), a, make(4))
        if assume_a not in ("tridiagonal", "banded"):
            check(lambda x: sl.inv(x, assume_a=assume_a, lower=lower), a)


def test_solve_transposed():
    check(lambda x, y: sl.solve(x, y, transposed=True), square(real), real(4, 2))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_solve_triangular(kind, trans):
    make, batch = KINDS[kind]
    for lower in (False, True):
        for unit in (False, True):
            check(lambda x, y: sl.solve_triangular(x, y, trans=trans, lower=lower, unit_diagonal=unit),
                  square(make, *batch), make(4), order=1)
    check(lambda x, y: sl.solve_triangular(x, y, trans=trans, lower=True), square(make, *batch), make(4, 2))


@pytest.mark.parametrize("kind", KINDS)
def test_lu(kind):
    make, batch = KINDS[kind]
    a = square(make, *batch)
    check(lambda x: sl.lu_factor(x)[0], a)
    for trans in (0, 1, 2):
        check(lambda x, y: sl.lu_solve(sl.lu_factor(x), y, trans=trans), a, make(4))
    if not batch:
        check(lambda x, y: sl.lu_solve((x, np.array([2, 3, 2, 3])), y, trans=1), a, make(4, 2))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 5)])
@pytest.mark.parametrize("make", [real, cplx])
def test_lu_rectangular(shape, make):
    a = make(*shape)
    check(lambda x: sl.lu(x)[1:], a)
    check(lambda x: sl.lu(x, permute_l=True), a, order=1)
    check(lambda x: sl.lu(x, p_indices=True)[1:], a, order=1)
    if len(shape) == 2:
        check(lambda x: sl.lu_factor(x)[0], a, order=1)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky(kind, lower):
    make, batch = KINDS[kind]
    a = psd(make, *batch)
    check(lambda x: sl.cholesky(x, lower=lower), a)
    check(lambda x: sl.cho_factor(x, lower=lower)[0], a, order=1)
    check(lambda x, y: sl.cho_solve(sl.cho_factor(x, lower=lower), y), a, make(4, 2))
    check(lambda c, y: sl.cho_solve((c, lower), y), square(make, *batch), make(4))  # the factor's triangle


@pytest.mark.parametrize("make", [real, cplx])
def test_sylvester_and_lyapunov(make):
    a, b, q = make(3, 3), make(2, 2) + 4 * np.eye(2), make(3, 2)
    check(sl.solve_sylvester, a, b, q)
    check(sl.solve_continuous_lyapunov, make(3, 3) - 4 * np.eye(3), make(3, 3))
    check(sl.solve_discrete_lyapunov, make(3, 3) / 4, make(3, 3))


def test_sylvester_stacks_of_different_shapes():
    check(sl.solve_sylvester, square(real, 2, n=3), real(3, 3) + 5 * np.eye(3), real(3, 3))


@pytest.mark.parametrize("kind", KINDS)
def test_solve_banded(kind):
    make, batch = KINDS[kind]
    ab = make(*batch, 4, 6) + 5 * (np.arange(4) == 2)[:, None]
    check(lambda x, y: sl.solve_banded((1, 2), x, y), ab, make(6))
    check(lambda x, y: sl.solve_banded((1, 2), x, y), ab, make(6, 2), order=1)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("rows", [2, 3])
def test_solveh_banded(kind, lower, rows):
    make, batch = KINDS[kind]
    ab = make(*batch, rows, 6)
    diag = 0 if lower else rows - 1
    ab[..., diag, :] = np.abs(ab[..., diag, :]) + 8
    check(lambda x, y: sl.solveh_banded(x, y, lower=lower), ab, make(6, 2))


# ----------------------------------------------------------- factorizations


@pytest.mark.parametrize("kind", KINDS)
def test_det(kind):
    make, batch = KINDS[kind]
    check(sl.det, make(*batch, 4, 4))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(kind, lower):
    make, batch = KINDS[kind]
    a = make(*batch, 4, 4)

    def pairs(w, v):
        return w, np.abs(v), v[..., :, 1:2] @ np.conjugate(np.swapaxes(v[..., :, 1:2], -1, -2))

    check(lambda x: pairs(*sl.eigh(x, lower=lower)), a)
    check(lambda x: sl.eigvalsh(x, lower=lower), a, order=1)
    check(lambda x, y: pairs(*sl.eigh(x, y, lower=lower)), a, psd(make, *batch))
    check(lambda x: pairs(*sl.eigh(x, subset_by_index=[1, 2])), a, order=1)
    check(lambda x: sl.eigh(x, subset_by_index=[0, 1], eigvals_only=True), a, order=1)


def test_eigh_subset_by_value():
    a = real(5, 5)
    w = np.linalg.eigvalsh(a)
    check(lambda x: sl.eigh(x, subset_by_value=[(w[1] + w[2]) / 2, (w[3] + w[4]) / 2])[0], a)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 5)])
@pytest.mark.parametrize("make", [real, cplx])
def test_svd_qr_pinv(shape, make):
    a = make(*shape)
    check(lambda x: (lambda u, s, vh: (np.abs(u), s, np.abs(vh)))(*sl.svd(x, full_matrices=False)), a, order=1)
    check(sl.svdvals, a, order=1)
    check(lambda x: sl.qr(x, mode="economic"), a, order=1)
    check(lambda x: sl.qr(x, mode="r"), a, order=1)
    check(sl.pinv, a, order=1)
    if len(shape) == 2:
        check(lambda x: sl.qr(x, mode="economic", pivoting=True)[:2], a, order=1)


@pytest.mark.parametrize("make", [real, cplx])
def test_eig_and_pinvh(make):
    a = make(4, 4)
    check(lambda x: (lambda w, v: (w, np.abs(v)))(*sl.eig(x)), a)
    check(sl.eigvals, a, order=1)
    check(sl.pinvh, psd(make), order=1)


# --------------------------------------------------------- matrix functions


@pytest.mark.parametrize("kind", KINDS)
def test_expm_logm_sqrtm(kind):
    make, batch = KINDS[kind]
    a = make(*batch, 3, 3)
    check(sl.expm, a)
    check(sl.logm, psd(make, *batch, n=3))
    check(sl.logm, a, order=1)  # real matrices with negative eigenvalues: a complex logarithm
    check(sl.sqrtm, psd(make, *batch, n=3))
    check(sl.sqrtm, a, order=1)


def test_functions_through_expm():
    check(sl.cosm, real(3, 3), order=1)
    check(sl.sinm, cplx(3, 3), order=1)


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("make", [real, cplx])
def test_polar(side, make):
    check(lambda x: sl.polar(x, side), make(3, 3))
    check(lambda x: sl.polar(x, side), np.eye(3) + 0 * make(3, 3), order=1)  # repeated singular values
    check(lambda x: sl.polar(x, side), make(4, 3) if side == "right" else make(3, 4), order=1)


def test_special_matrices():
    c, r = cplx(4), real(3)
    check(sl.toeplitz, c)
    check(sl.toeplitz, c, r)
    check(sl.hankel, c, r)
    check(sl.circulant, c)
    check(sl.leslie, real(4), r)


def test_multivariate_normal_logpdf_through_eigh():
    x, mean = real(4), real(4)
    cov = psd(real)
    check(lambda m: stats.multivariate_normal.logpdf(x, m, cov), mean)
    check(lambda m: stats.multivariate_normal.pdf(x, m, cov), mean, order=1)


@pytest.mark.parametrize("f", [
    lambda a: np.sum(sl.solve_sylvester(a, a.T + 3 * np.eye(3), np.eye(3)) ** 2),
    lambda a: np.sum(sl.sqrtm(a @ a.T + np.eye(3))[0]),
    lambda a: np.trace(sl.expm(a) @ a),
    lambda a: np.sum(sl.eigh(a @ a.T, np.eye(3) + 0.1 * a @ a.T)[1][:, 0] ** 2),
    lambda a: np.sum(sl.lu_solve(sl.lu_factor(a + 3 * np.eye(3)), np.ones(3)) ** 2),
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


# ------------------------------------------------------------------ refused


@pytest.mark.parametrize("f, name", [
    (lambda a: sl.lstsq(a, np.ones(3))[0], "lstsq"),
    (lambda a: sl.schur(a)[0], "schur"),
    (lambda a: sl.funm(a, np.exp), "funm"),
    (lambda a: sl.fractional_matrix_power(a, 0.3), "fractional_matrix_power"),
    (lambda a: sl.eigh(a, np.eye(3), type=2)[0], "eigh"),
    (lambda a: sl.eig(a, left=True)[0], "eig"),
    (lambda a: sl.qr(a, mode="raw")[0], "qr"),
])
def test_refused(f, name):
    with pytest.raises(ad.NoRuleError, match=name):
        ad.jvp(lambda x: flat(f(x)), real(3, 3) + 3 * np.eye(3), real(3, 3))


def test_eigh_of_a_real_matrix_along_a_complex_direction_is_refused():
    with pytest.raises(ad.NoRuleError, match="eigh"):
        ad.jvp(lambda x: sl.eigh(x)[0], real(3, 3), cplx(3, 3))
