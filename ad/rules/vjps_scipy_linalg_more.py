"""Reverse-mode rules for the rest of ``scipy.linalg`` with forward rules (loaded when it is
imported): ``svd``, ``svdvals``, ``qr``, ``lu``, ``pinv``, ``pinvh``, ``polar``, ``solve_banded``,
``solveh_banded``, and the constructors ``toeplitz``, ``circulant``, ``hankel``, ``leslie``.

The factorisations reuse ``numpy.linalg``'s cotangent formulas on SciPy's own results
(``vjps_decompositions``: singular vectors for distinct singular values, ``qr`` of full column
rank); ``lu`` is ``lu_factor``'s rule on the unpacked factors (square matrices), ``pinv`` and
``pinvh`` hold the rank fixed (``pinvh`` reads one triangle), ``polar`` is computed from the
singular value decomposition under the tape. The banded solvers form the dense matrix from
the band (a gather, recorded) and solve it. The constructors only place elements: one probe
call, with the elements numbered, says where each goes, and the cotangent is gathered back.
Raise NoRuleError: ``qr`` with ``pivoting`` or ``mode="raw"``, ``lu`` of a non-square matrix
or with ``p_indices``, the ranks of ``pinv``/``pinvh`` asked for.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.linalg as sl

from context.tagging import Tagged, dispatch, native_primitive
from context.tagging.values import primal

from ..engine.forward import NoRuleError
from ..engine.reverse import ReverseCtx, complex_checked
from . import vjps_scipy_linalg as _vsl
from .vjps_decompositions import _s_cotangent, _u_cotangent, _vh_cotangent, qr_cotangent
from .vjps import zeros_for
from .vjps_linalg import mT, pinv_adjoint, right_solve, triangle_adjoint, tuple_rule
from .vjps_numeric import defvjp_named
from .vjps_scipy_linalg import _opts, _shape


# ------------------------------------------------------------------ svd, svdvals

_SVD = ("full_matrices", "compute_uv", "overwrite_a", "check_finite", "lapack_driver")


def _svd_part(which):
    def vjp(u, res, a, *args, **kwargs):
        return which(u, res[0], res[1], res[2])

    return vjp


def _svdvals_vjp(u, res, a, *args, **kwargs):
    uu, _, vh = np.linalg.svd(primal(a), full_matrices=False)
    return _s_cotangent(u, uu, vh)


def _svd_plan(a, *args, **kwargs):
    if not _opts(_SVD, args, kwargs).get("compute_uv", True):
        return (_svdvals_vjp,)
    return [(_svd_part(_u_cotangent),), (_svd_part(lambda sbar, u, s, vh: _s_cotangent(sbar, u, vh)),),
            (_svd_part(_vh_cotangent),)]


tuple_rule(sl.svd, _svd_plan, "scipy.linalg.svd")
tuple_rule(sl.svdvals, lambda a, *args, **kwargs: (_svdvals_vjp,), "scipy.linalg.svdvals")


# ------------------------------------------------------------------ qr

_QR = ("overwrite_a", "lwork", "mode", "pivoting", "check_finite")


def _qr_mode(args, kwargs):
    opts = _opts(_QR, args, kwargs)
    mode = opts.get("mode", "full")
    if opts.get("pivoting", False) or mode not in ("full", "economic", "r"):
        raise NoRuleError("scipy.linalg.qr with pivoting or mode=%r has no reverse-mode rule; use mode 'full', "
                          "'economic' or 'r' without pivoting, or ad.ForwardMode()" % (mode,))
    return mode


def _qr_plan(a, *args, **kwargs):
    mode = _qr_mode(args, kwargs)
    if mode == "r":  # a tuple (R,)
        return [(lambda u, res, a, *ar, **kw: qr_cotangent(a, np.linalg.qr(a, mode="complete")[0], res[0], None, u),)]
    return [(lambda u, res, a, *ar, **kw: qr_cotangent(a, res[0], res[1], u, None),),
            (lambda u, res, a, *ar, **kw: qr_cotangent(a, res[0], res[1], None, u),)]


tuple_rule(sl.qr, _qr_plan, "scipy.linalg.qr")


# ------------------------------------------------------------------ lu

_LU = ("permute_l", "overwrite_a", "check_finite", "p_indices")


def lu_adjoint(cbar, low, up, p):
    """The cotangent of ``a`` for the cotangent ``cbar`` of the packed factors (``l`` strictly below the
    diagonal, ``u`` on and above it) of ``p a = l u`` (``p`` a permutation matrix)."""
    strict = np.tri(_shape(low)[-1], k=-1)
    c = strict * (mT(low) @ (cbar * strict)) + (1 - strict) * ((cbar * (1 - strict)) @ mT(up))
    return mT(p) @ right_solve(np.linalg.solve(mT(low), c), mT(up))


def _lu_plan(a, *args, **kwargs):
    opts = _opts(_LU, args, kwargs)
    m, n = _shape(a)[-2:]
    if m != n or opts.get("p_indices", False):
        raise NoRuleError("scipy.linalg.lu of a non-square matrix, or with p_indices=True, has no reverse-mode "
                          "rule; use lu_factor, or ad.ForwardMode()")
    strict = np.tri(m, k=-1)
    if opts.get("permute_l", False):  # (p l, u): p l's cotangent is l's, moved back by p
        def pl_vjp(u, res, a, *ar, **kw):
            p = _row_permutation(res[0])
            low = mT(p) @ res[0]
            return lu_adjoint((mT(p) @ u) * strict, low, res[1], mT(p))

        def u_vjp(u, res, a, *ar, **kw):
            p = _row_permutation(res[0])
            return lu_adjoint(u * (1 - strict), mT(p) @ res[0], res[1], mT(p))

        return [(pl_vjp,), (u_vjp,)]

    def l_vjp(u, res, a, *ar, **kw):
        return lu_adjoint(u * strict, res[1], res[2], mT(res[0]))

    def u_vjp(u, res, a, *ar, **kw):
        return lu_adjoint(u * (1 - strict), res[1], res[2], mT(res[0]))

    return [None, (l_vjp,), (u_vjp,)]


def _row_permutation(pl):
    """The permutation matrix ``p`` with ``pl = p l`` for ``l`` unit lower triangular: row ``i`` of ``l``
    is the row of ``pl`` whose last nonzero is at column ``i``, its diagonal (a unit)."""
    pl = np.asarray(primal(pl))
    m = pl.shape[-1]
    last = np.array([np.flatnonzero(row)[-1] if np.any(row) else 0 for row in pl])
    p = np.zeros((m, m))
    p[np.arange(m), last] = 1.0  # p_rows[i] = e_{last[i]}: (p l)[i] = l[last[i]]
    return p


tuple_rule(sl.lu, _lu_plan, "scipy.linalg.lu")


# ------------------------------------------------------------------ pinv, pinvh

def _no_rank(opts, name):
    if opts.get("return_rank", False):
        raise NoRuleError("scipy.linalg.%s with return_rank=True has no reverse-mode rule" % name)


def _pinv_a(u, ans, a, *args, **kwargs):
    return pinv_adjoint(np.asarray(primal(a)), ans, u)


def _pinvh_a(u, ans, a, atol, rtol, lower, return_rank, check_finite):
    a = np.asarray(primal(a))
    sym = np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
    return triangle_adjoint(pinv_adjoint(sym, ans, u), lower)


defvjp_named(sl.pinv, {"a": _pinv_a}, check=lambda given: _no_rank(given, "pinv"))
defvjp_named(sl.pinvh, {"a": _pinvh_a}, check=lambda given: _no_rank(given, "pinvh"))


# ------------------------------------------------------------------ polar (from the SVD, under the tape)


def _call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` through its reverse rule where an argument is being differentiated."""
    return dispatch(fn, args, kwargs) if any(isinstance(a, Tagged) for a in args) else fn(*args, **kwargs)


@ReverseCtx.primitive(sl.polar)
@native_primitive
def _polar(ctx, a, side="right"):
    if not isinstance(a, Tagged):
        return sl.polar(a, side)
    if side not in ("right", "left"):
        raise ValueError("`side` must be either 'right' or 'left'")
    w, s, vh = _call(np.linalg.svd, a, full_matrices=False)
    u = _call(np.matmul, w, vh)
    cplx = np.iscomplexobj(primal(a))

    def h(x):  # the conjugate transpose
        xt = _call(np.swapaxes, x, -1, -2)
        return _call(np.conjugate, xt) if cplx else xt

    if side == "right":  # p = v diag(s) v^H
        p = _call(np.matmul, h(vh) * _call(np.expand_dims, s, -2), vh)
    else:  # p = w diag(s) w^H
        p = _call(np.matmul, w * _call(np.expand_dims, s, -2), h(w))
    return u, p


# ------------------------------------------------------------------ banded solvers (dense, under the tape)


def _dense_from_band(ab, above, below, n):
    """The dense ``n x n`` matrix of band storage ``ab`` (``ab[above + i - j, j] = a[i, j]`` inside the
    band, zero outside): a gather from ``ab`` followed by one zero, recorded."""
    rows, cols = np.indices((n, n))
    band = above + rows - cols
    inside = (cols - rows <= above) & (rows - cols <= below) & (band >= 0) & (band < _shape(ab)[0])
    index = np.where(inside, band * n + cols, _shape(ab)[0] * n)
    padded = _call(np.pad, _call(np.ravel, ab), (0, 1))
    return _call(np.take, padded, index)


@ReverseCtx.primitive(sl.solve_banded)
@native_primitive
def _solve_banded(ctx, l_and_u, ab, b, *args, **kwargs):
    if not (isinstance(ab, Tagged) or isinstance(b, Tagged)):
        return sl.solve_banded(l_and_u, ab, b, *args, **kwargs)
    below, above = (int(v) for v in l_and_u)
    return _call(np.linalg.solve, _dense_from_band(ab, above, below, _shape(ab)[-1]), b)


@ReverseCtx.primitive(sl.solveh_banded)
@native_primitive
def _solveh_banded(ctx, ab, b, *args, **kwargs):
    if not (isinstance(ab, Tagged) or isinstance(b, Tagged)):
        return sl.solveh_banded(ab, b, *args, **kwargs)
    lower = _opts(("overwrite_ab", "overwrite_b", "lower", "check_finite"), args, kwargs).get("lower", False)
    k, n = _shape(ab)[-2] - 1, _shape(ab)[-1]
    # one triangle from the band (the lower form keeps a[i, j] at ab[i - j, j]), mirrored
    half = _dense_from_band(ab, 0, k, n) if lower else _dense_from_band(ab, k, 0, n)
    diagonal_once = np.eye(n)
    if np.iscomplexobj(primal(ab)):  # Hermitian: the mirror conjugated, the diagonal's real part (as LAPACK reads it)
        diagonal = _call(np.multiply, half, diagonal_once)
        off = half - diagonal
        dense = off + _call(np.conjugate, _call(np.swapaxes, off, -1, -2)) + _call(np.real, diagonal)
        return _call(np.linalg.solve, dense, b)
    mirrored = _call(np.swapaxes, half, -1, -2)
    dense = half + mirrored - _call(np.multiply, half, diagonal_once)
    return _call(np.linalg.solve, dense, b)


# ------------------------------------------------------------------ constructors that place elements


def _placed(fn, names):
    """Rules for a constructor that places its arguments' elements (``toeplitz``'s first row is the
    conjugate of its column when no row is given): each element's cotangent is the sum of the output's
    cotangents where it was placed, conjugated where its conjugate was. The places are found by
    calling ``fn`` on numbered arrays ``k + 1j k``, whose conjugates show as negative imaginary parts."""
    def rule(index):
        def vjp(u, ans, *args):
            sizes = [int(np.size(primal(a))) if a is not None else 0 for a in args[:len(names)]]
            starts = np.cumsum([0] + sizes)
            numbered = [None if a is None else (np.arange(starts[i] + 1, starts[i + 1] + 1) * (1 + 1j))
                        .reshape(np.shape(primal(a))) for i, a in enumerate(args[:len(names)])]
            placed = np.asarray(fn(*numbered)).ravel()
            ids = np.rint(np.real(placed)).astype(np.int64)
            uf = np.asarray(u).ravel()
            if np.iscomplexobj(primal(uf)):
                uf = np.where(np.imag(placed) < 0, np.conjugate(uf), uf)
            g = zeros_for(starts[-1] + 1, uf)
            np.add.at(g, ids, uf)
            return g[1 + starts[index]:1 + starts[index + 1]].reshape(np.shape(primal(args[index])))

        return vjp

    defvjp_named(fn, {name: rule(i) for i, name in enumerate(names)})


_placed(sl.toeplitz, ("c", "r"))
_placed(sl.circulant, ("c",))
_placed(sl.hankel, ("c", "r"))
_placed(sl.leslie, ("f", "s"))


# ------------------------------------------------------------------ complex values

# The reverse rules of scipy.linalg that hold for complex values (the pairing Re(sum(u * t)), see
# vjps_complex), each checked by the dot-product test against forward mode in
# tests/test_ad_reverse_complex.py; leslie and the banded Cholesky functions are real-only.
COMPLEX = (
    sl.solve, sl.solve_triangular, sl.cholesky, sl.cho_factor, sl.cho_solve, _vsl._cho_solve_flat, sl.lu_factor,
    sl.lu_solve, _vsl._lu_solve_flat, sl.inv, sl.det, sl.eigh, sl.eig, sl.eigvals, sl.expm, sl.logm, sl.sqrtm,
    sl.solve_sylvester, sl.solve_continuous_lyapunov, sl.solve_discrete_lyapunov, sl.svd, sl.svdvals, sl.qr, sl.lu,
    sl.pinv, sl.pinvh, sl.polar, sl.solve_banded, sl.solveh_banded, sl.toeplitz, sl.circulant, sl.hankel,
)
complex_checked(*COMPLEX)
