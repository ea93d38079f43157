"""autograd's tests/test_linalg.py, on plain NumPy (``numpy.linalg``).

autograd checks these with ``modes=["rev"]`` because its own forward mode lacks rules for
them; the order (2 unless it says 1) is what matters here.
"""

import numpy as onp

from ._core import R, Suite, made

S = Suite("test_linalg.py")
SUITES = [S]
c = S.check


def _T(ns, A):
    return ns.np.swapaxes(A, -1, -2)


def symmetrized(build):
    """autograd's check_symmetric_matrix_grads: the function of ``(tril(A) + tril(A).T) / 2``."""
    def outer(ns):
        fun = build(ns)

        def new_fun(A, *rest):
            L = ns.np.tril(A)
            return fun((L + _T(ns, L)) / 2.0, *rest)
        return new_fun
    return outer


def psd(n, label=None):
    """``rand_psd(n)``: ``M M^T`` for a random ``M``."""
    return made(label or "rand_psd(%d)" % n, lambda r: (lambda m: m @ m.T)(r.randn(n, n)))


c("test_inv", lambda ns: lambda x: ns.np.linalg.inv(x),
  made("M@M+I(8)", lambda r: (lambda m: m @ m + onp.eye(8))(r.randn(8, 8))), func="np.linalg.inv")
for _M in range(5 // 2, 5 + 5 // 2 + 1):
    c("test_pinv", lambda ns: lambda x: ns.np.linalg.pinv(x), R(5, _M), func="np.linalg.pinv")
    c("test_pinv", lambda ns: lambda x: ns.np.linalg.pinv(x), R(2, 5, _M), func="np.linalg.pinv")
for _M in range(5 // 2, 5 + 5 // 2 + 1):
    # np.linalg._dot(np.linalg.T(x), x) is autograd's x^T x
    c("test_pinv", lambda ns: lambda x: ns.np.linalg.pinv(ns.np.matmul(_T(ns, x), x)), R(5, _M),
      func="np.linalg.pinv", label="low rank, R(5,%d)" % _M)
    c("test_pinv", lambda ns: lambda x: ns.np.linalg.pinv(ns.np.matmul(_T(ns, x), x)), R(2, 5, _M),
      func="np.linalg.pinv", label="low rank, R(2,5,%d)" % _M)
c("test_inv_3d", lambda ns: lambda x: ns.np.linalg.inv(x), R(4, 4, 4) + made("5I", lambda r: 5 * onp.eye(4)),
  func="np.linalg.inv")
c("test_inv_3d", lambda ns: lambda x: ns.np.linalg.inv(x), R(4, 4, 4, 4) + made("5I", lambda r: 5 * onp.eye(4)),
  func="np.linalg.inv")


def _solve(shape_b, which, bfun=None):
    def build(ns, r):
        B = r.randn(*shape_b)
        if which == 0:
            return lambda a: ns.np.linalg.solve(a, B)
        if which == "3d":
            return lambda a: ns.np.linalg.solve(a, B[..., None])[..., 0]
        return None
    return build


c("test_solve_arg1", _solve((8, 7), 0), R(8, 8) + made("10I", lambda r: 10 * onp.eye(8)), func="np.linalg.solve")
c("test_solve_arg1_1d", _solve((8,), 0), R(8, 8) + made("10I", lambda r: 10 * onp.eye(8)), func="np.linalg.solve")
c("test_solve_arg2", lambda ns, r: (lambda A: lambda b: ns.np.linalg.solve(A, b))(r.randn(6, 6) + onp.eye(6)),
  R(6, 5), func="np.linalg.solve")
c("test_solve_arg1_3d", _solve((5, 4), "3d"), R(5, 4, 4) + made("5I", lambda r: 5 * onp.eye(4)),
  func="np.linalg.solve")
c("test_solve_arg1_3d_3d", _solve((5, 4, 6), 0), R(5, 4, 4) + made("5I", lambda r: 5 * onp.eye(4)),
  func="np.linalg.solve")
c("test_det", lambda ns: lambda x: ns.np.linalg.det(x), R(6, 6), func="np.linalg.det")
c("test_det_3d", lambda ns: lambda x: ns.np.linalg.det(x), R(3, 3, 3), func="np.linalg.det")
c("test_slogdet", lambda ns: lambda x: ns.np.linalg.slogdet(x)[1], R(6, 6, key="m"), func="np.linalg.slogdet")
c("test_slogdet", lambda ns: lambda x: ns.np.linalg.slogdet(x)[1], -R(6, 6, key="m"), func="np.linalg.slogdet")
c("test_slogdet_3d", lambda ns: lambda x: ns.np.sum(ns.np.linalg.slogdet(x)[1]),
  made("3 x (rand_psd(5)+5I)", lambda r: onp.stack([(lambda m: m @ m.T + 5 * onp.eye(5))(r.randn(5, 5))
                                                     for _ in range(3)])), func="np.linalg.slogdet")

# norms
NORM = "np.linalg.norm"
C6 = made("C(6)", lambda r: r.randn(6) + 1j * r.randn(6))
c("test_vector_2norm", lambda ns: lambda x: ns.np.linalg.norm(x), R(6), func=NORM)
c("test_norm_list_of_boxes", lambda ns: lambda x: ns.np.linalg.norm([x, x + 2]), 0.0, order=1, func=NORM,
  label="list")
c("test_norm_list_of_boxes", lambda ns: lambda x: ns.np.linalg.norm((x, x + 2)), 0.0, order=1, func=NORM,
  label="tuple")
c("test_vector_2norm_complex", lambda ns: lambda x: ns.np.linalg.norm(x), C6, func=NORM)
c("test_frobenius_norm", lambda ns: lambda x: ns.np.linalg.norm(x), R(6, 5), func=NORM)
c("test_frobenius_norm_complex", lambda ns: lambda x: ns.np.linalg.norm(x),
  made("C(6,5)", lambda r: r.randn(6, 5) + 1j * r.randn(6, 5)), func=NORM)
c("test_frobenius_norm_axis", lambda ns: lambda x: ns.np.linalg.norm(x, axis=(0, 1)), R(6, 5, 4), func=NORM)
c("test_frobenius_norm_axis_complex", lambda ns: lambda x: ns.np.linalg.norm(x, axis=(0, 1)),
  made("C(6,5,4)", lambda r: r.randn(6, 5, 4) + 1j * r.randn(6, 5, 4)), func=NORM)
for _ord in range(2, 5):
    c("test_vector_norm_ord", lambda ns: lambda x, ord: ns.np.linalg.norm(x, ord=ord), R(6), _ord, func=NORM)
    c("test_vector_norm_ord_complex", lambda ns: lambda x, ord: ns.np.linalg.norm(x, ord=ord), C6, _ord, func=NORM)
for _axis in range(3):
    c("test_norm_axis", lambda ns: lambda x, axis: ns.np.linalg.norm(x, axis=axis), R(6, 5, 4), _axis, func=NORM)
    c("test_norm_axis_complex", lambda ns: lambda x, axis: ns.np.linalg.norm(x, axis=axis),
      made("C(6,5,4)", lambda r: r.randn(6, 5, 4) + 1j * r.randn(6, 5, 4)), _axis, func=NORM)
c("test_norm_nuclear", lambda ns: lambda x: ns.np.linalg.norm(x, ord="nuc"), R(6, 5), order=1, func=NORM)
c("test_norm_nuclear_complex", lambda ns: lambda x: ns.np.linalg.norm(x, ord="nuc"),
  made("C(6,5)", lambda r: r.randn(6, 5) + 1j * r.randn(6, 5)), func=NORM)
c("test_norm_nuclear_axis", lambda ns: lambda x: ns.np.linalg.norm(x, ord="nuc", axis=(0, 1)), R(6, 5, 4), order=1,
  func=NORM)
c("test_norm_nuclear_axis_complex", lambda ns: lambda x: ns.np.linalg.norm(x, ord="nuc", axis=(0, 1)),
  made("C(6,5,4)", lambda r: r.randn(6, 5, 4) + 1j * r.randn(6, 5, 4)), func=NORM)

# eigh, eig
EIGH = "np.linalg.eigh"
c("test_eigvalh_lower", lambda ns: lambda x: tuple(ns.np.linalg.eigh(x)), R(6, 6), func=EIGH)
c("test_eigvalh_upper", lambda ns: lambda x: tuple(ns.np.linalg.eigh(x, "U")), R(6, 6), func=EIGH)


def _bhmat(r):
    mat = r.randn(2, 3, 6, 6) + 10 * onp.eye(6)[None, None, ...]
    return onp.einsum("...ij,...kj->...ik", mat, mat)


c("test_eigvalh_lower_broadcasting", lambda ns: lambda x: tuple(ns.np.linalg.eigh(x)), made("M M^T (2,3,6,6)", _bhmat),
  func=EIGH)
c("test_eigvalh_upper_broadcasting", lambda ns: lambda x: tuple(ns.np.linalg.eigh(x, "U")),
  made("M M^T (2,3,6,6)", _bhmat), func=EIGH)
C66 = made("C(6,6)", lambda r: r.randn(6, 6) + 1j * r.randn(6, 6))
c("test_eigvalh_lower_complex", lambda ns: lambda x: (lambda w, v: (w, ns.np.abs(v)))(*ns.np.linalg.eigh(x)), C66,
  func=EIGH)
c("test_eigvalh_upper_complex", lambda ns: lambda x: (lambda w, v: (w, ns.np.abs(v)))(*ns.np.linalg.eigh(x, "U")),
  C66, func=EIGH)
EIG = "np.linalg.eig"
c("test_eig_real", lambda ns: lambda x: (lambda w, v: (ns.np.abs(w), ns.np.abs(v)))(*ns.np.linalg.eig(x)), R(8, 8),
  func=EIG)
c("test_eig_complex", lambda ns: lambda x: (lambda w, v: (w, ns.np.abs(v)))(*ns.np.linalg.eig(x)),
  made("C(8,8)", lambda r: r.randn(8, 8) + 1j * r.randn(8, 8)), func=EIG)
c("test_eig_batched", lambda ns: lambda x: (lambda w, v: (w, ns.np.abs(v)))(*ns.np.linalg.eig(x)),
  made("C(5,8,8)", lambda r: r.randn(5, 8, 8) + 1j * r.randn(5, 8, 8)), func=EIG)

# cholesky
CHOL = "np.linalg.cholesky"
c("test_cholesky", symmetrized(lambda ns: lambda A: ns.np.linalg.cholesky(A)), psd(6), func=CHOL)
c("test_cholesky_broadcast", symmetrized(lambda ns: lambda A: ns.np.linalg.cholesky(A)),
  made("3 x rand_psd(6)", lambda r: onp.stack([(lambda m: m @ m.T)(r.randn(6, 6)) for _ in range(3)])), func=CHOL)


def _reparam(ns):
    def fun(A):
        rng = onp.random.RandomState(0)
        z = ns.np.dot(ns.np.linalg.cholesky(A), rng.randn(A.shape[0]))
        return ns.np.linalg.norm(z)
    return fun


c("test_cholesky_reparameterization_trick", symmetrized(_reparam), psd(6), func=CHOL)

# svd
SVD = "np.linalg.svd"


def _svd(absolute):
    def build(ns):
        def fun(x):
            u, s, v = ns.np.linalg.svd(x, full_matrices=False)
            return (ns.np.abs(u), s, ns.np.abs(v)) if absolute else (u, s, v)
        return fun
    return build


for _kind, _shape in [("wide", (3, 5)), ("square", (4, 4)), ("tall", (5, 3))]:
    for _dims, _full in [("2d", _shape), ("3d", ((3,) if _kind == "square" else (4,)) + _shape)]:
        c("test_svd_%s_%s" % (_kind, _dims), _svd(False), R(*_full), func=SVD)
        c("test_svd_%s_%s_complex" % (_kind, _dims), _svd(True),
          made("C%s" % (_full,), (lambda f: lambda r: r.randn(*f) + 1j * r.randn(*f))(_full)), func=SVD)
c("test_svd_only_s_2d", lambda ns: lambda x: ns.np.linalg.svd(x, full_matrices=False, compute_uv=False), R(5, 3),
  func=SVD)
c("test_svd_only_s_2d_complex", lambda ns: lambda x: ns.np.linalg.svd(x, full_matrices=False, compute_uv=False),
  made("C(5,3)", lambda r: r.randn(5, 3) + 1j * r.randn(5, 3)), func=SVD)
c("test_svd_only_s_3d", lambda ns: lambda x: ns.np.linalg.svd(x, full_matrices=False, compute_uv=False), R(4, 5, 3),
  func=SVD)
c("test_svd_only_s_3d_complex", lambda ns: lambda x: ns.np.linalg.svd(x, full_matrices=False, compute_uv=False),
  made("C(4,5,3)", lambda r: r.randn(4, 5, 3) + 1j * r.randn(4, 5, 3)), func=SVD)
