"""Forward rules for the factorizations of ``scipy.linalg``: ``inv``, ``det``, ``cholesky``, ``cho_factor``,
``lu``, ``lu_factor``, ``eigh`` (``eigvalsh`` through it), ``svd``, ``svdvals``, ``qr``, ``eig``, ``eigvals``,
``pinv``, ``pinvh`` and ``polar`` (``svd``/``qr``/``eig`` through ``decompositions``' tangents)."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.linalg as sl

from context.tagging.values import primal

from ..engine.forward import NoRuleError, frule
from . import linalg as _np_linalg
from .decompositions import _matched, _right_solve, _symmetric_from, complexified, eig_tangent, qr_tangent, svd_tangent
from .linalg import _d_pinv, _diag, _hermitian_from, _is_complex, _mH, _mT
from .scipy_linalg_common import _no_tangent, _onehot, _options, _perm_matrix, _read, _stacked
from .tangents import shape_of


def _bound(names, primals, kwargs):
    return _options(names, primals[1:], kwargs)


@frule(sl.inv)
def _inv(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    _no_tangent("inv", tangents, *range(1, len(tangents)))
    opts = _bound(("overwrite_a", "check_finite"), primals, kwargs)
    ans = sl.inv(a, **opts)
    if opts.get("assume_a") == "diagonal":
        return ans, _inv_diagonal(a, g, ans)
    d = _read(g, a, opts.get("assume_a"), opts.get("lower", False))
    return ans, -(ans @ d @ ans)


def _inv_diagonal(a, g, ans):
    """``inv(a, assume_a='diagonal')`` inverts the diagonal; SciPy 1.18 leaves the rest of ``a`` as it was."""
    eye = np.eye(shape_of(a)[-1])
    off = primal(ans) * (1 - eye)
    if np.array_equal(off, primal(a) * (1 - eye)):
        rest = g * (1 - eye)
    elif not np.any(off):
        rest = 0
    else:
        raise NoRuleError("scipy.linalg.inv(assume_a='diagonal'): the off-diagonal of its result is not understood")
    return rest - g * eye * (ans * ans * eye)


@frule(sl.det)
def _det(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    ans = sl.det(a, **_bound(("overwrite_a", "check_finite"), primals, kwargs))
    return ans, ans * _np_linalg._tr(np.linalg.solve(a, g))


def _cholesky_tangent(a, g, lower):
    return _np_linalg._cholesky((a,), (g,), upper=not lower)[1]


@frule(sl.cholesky)
def _cholesky(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("lower", "overwrite_a", "check_finite"), primals, kwargs)
    return sl.cholesky(a, **opts), _cholesky_tangent(a, g, opts.get("lower", False))


@frule(sl.cho_factor)
def _cho_factor(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("lower", "overwrite_a", "check_finite"), primals, kwargs)
    c, lower = sl.cho_factor(a, **opts)
    low = opts.get("lower", False)
    d = _cholesky_tangent(a, g, low)
    m = shape_of(a)[-1]
    other = np.tri(m, k=-1) if not low else np.tri(m, k=-1).T
    rest = primal(c) * other
    if np.any(rest != 0):  # the other triangle holds a's entries (older SciPy)
        if not np.array_equal(rest, primal(a) * other):
            raise NoRuleError("scipy.linalg.cho_factor: the unused triangle of its result is not a's")
        d = d + g * other
    return (c, lower), (d, None)


def _lu_tangent(l, u, dap):
    """``(dl, du)`` of ``a[perm] = l u`` (``l`` m x k unit lower, ``u`` k x n upper) along ``dap = da[perm]``."""
    m, k = shape_of(l)[-2:]
    n = shape_of(u)[-1]
    l1, u1 = l[..., :k, :], u[..., :, :k]
    c = np.linalg.solve(l1, _mT(np.linalg.solve(_mT(u1), _mT(dap[..., :k, :k]))))  # L1^-1 dA11 U1^-1
    strict = np.tri(k, k=-1)
    dl = l1 @ (c * strict)
    du = (c * (1 - strict)) @ u1
    if m > k:
        dl2 = _mT(np.linalg.solve(_mT(u1), _mT(dap[..., k:, :] - l[..., k:, :] @ du)))
        dl = np.concatenate([dl, dl2], axis=-2)
    if n > k:
        du2 = np.linalg.solve(l1, dap[..., :, k:] - dl @ u[..., :, k:])
        du = np.concatenate([du, du2], axis=-1)
    return dl, du


@frule(sl.lu)
def _lu(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("permute_l", "overwrite_a", "check_finite", "p_indices"), primals, kwargs)
    res = sl.lu(a, **opts)
    m = shape_of(a)[-2]
    if opts.get("permute_l", False):  # (p l, u): a = (p l) u
        p, _, u = sl.lu(a)
        l = _mT(p) @ res[0]
        dl, du = _lu_tangent(l, u, _mT(p) @ g)
        return res, (p @ dl, du)
    p, l, u = res
    # p_indices: a = (l u)[p], so l u = a[argsort(p)]; else a = p l u
    pt = _mT(_onehot(p, m) if opts.get("p_indices", False) else p)
    dl, du = _lu_tangent(l, u, pt @ g)
    return res, (None, dl, du)


@frule(sl.lu_factor)
def _lu_factor(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    lu, piv = sl.lu_factor(a, **_bound(("overwrite_a", "check_finite"), primals, kwargs))
    m, n = shape_of(a)[-2:]
    k = min(m, n)
    strict = np.tri(m, n, k=-1)
    l = (lu * strict)[..., :, :k] + np.eye(m, k)
    u = (lu * (1 - strict))[..., :k, :]
    dl, du = _lu_tangent(l, u, _perm_matrix(piv, m) @ g)
    if n > k:
        dl = np.concatenate([dl, np.zeros_like(dl, shape=shape_of(dl)[:-1] + (n - k,))], axis=-1)
    if m > k:
        du = np.concatenate([du, np.zeros_like(du, shape=shape_of(du)[:-2] + (m - k, n))], axis=-2)
    return (lu, piv), (dl * strict + du * (1 - strict), None)


# ---------------------------------------------------------------- eigh


def _eigh_tangent(a, b, da, db, lower, w_all, v_all, w, v, vectors):
    """Tangents of eigenpairs ``(w, v)`` (a subset of ``(w_all, v_all)``) of ``a v = w b v``."""
    sa = None if da is None else _hermitian_from(_stacked(da, a, v_all), lower)
    sb = None if db is None else _hermitian_from(_stacked(db, b, v_all), lower)
    cplx = _is_complex(w_all) or _is_complex(v_all)
    vah = _mH(v_all)
    c = 0 if sa is None else vah @ sa @ v  # V_all^H dA V
    d = 0 if sb is None else vah @ sb @ v
    rhs = c - w[..., None, :] * d if sb is not None else c
    vh = _mH(v)
    dw = 0 if sa is None else _diag(vh @ sa @ v)  # diag of V^H (dA - w dB) V
    if sb is not None:
        dw = dw - w * _diag(vh @ sb @ v)
    if _is_complex(dw):
        dw = np.real(dw)
    if not vectors:
        return dw
    pick = (np.arange(shape_of(w_all)[-1])[:, None] == _nearest(w, w_all)[..., None, :]).astype(float)
    gaps = (w[..., None, :] - w_all[..., :, None]) + pick  # w_j - w_i, 1 where i is j
    f = (1 - pick) / gaps
    dv = v_all @ (f * rhs)
    if sb is not None:  # V^H B V = I
        dd = _diag(vh @ sb @ v)
        dv = dv - v * (np.real(dd) if cplx else dd)[..., None, :] / 2
    return dw, dv


def _nearest(w, w_all):
    """For each of ``w``, the index of the nearest of ``w_all`` (the eigenvalue it is)."""
    return np.argmin(np.abs(primal(w)[..., None, :] - primal(w_all)[..., :, None]), axis=-2)


@frule(sl.eigh)
def _eigh(primals, tangents, **kwargs):
    kwargs = dict(kwargs)
    a = primals[0]
    b = primals[1] if len(primals) > 1 else kwargs.pop("b", None)
    da = tangents[0]
    db = tangents[1] if len(tangents) > 1 else None
    kwargs = _options((), (), kwargs)
    lower = kwargs.get("lower", True)
    only = kwargs.get("eigvals_only", False)
    if kwargs.get("type", 1) != 1 and b is not None:
        raise NoRuleError("scipy.linalg.eigh with type=%r has no derivative rule (type=1 has)" % kwargs["type"])
    if any(t is not None and _is_complex(t) and not _is_complex(p) for t, p in ((da, a), (db, b))):
        raise NoRuleError("scipy.linalg.eigh of a real matrix with a complex tangent: make the matrix complex")
    res = sl.eigh(a, b, **kwargs)
    w, v = (res, None) if only else res
    subset = kwargs.get("subset_by_index") is not None or kwargs.get("subset_by_value") is not None
    if only or subset:
        w_all, v_all = sl.eigh(a, b, lower=lower)
    else:
        w_all, v_all = w, v
    if only:
        v = v_all if not subset else v_all @ (
            np.arange(shape_of(w_all)[-1])[:, None] == _nearest(w, w_all)[..., None, :]).astype(float)
    return res, _eigh_tangent(a, b, da, db, lower, w_all, v_all, w, v, not only)


# ------------------------------------------------- svd, qr, eig, pinv


@frule(sl.svd)
def _svd(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("full_matrices", "compute_uv", "overwrite_a", "check_finite", "lapack_driver"), primals, kwargs)
    res = sl.svd(a, **opts)
    if not opts.get("compute_uv", True):
        return res, svd_tangent(a, g, sl.svd(a, full_matrices=False), compute_uv=False)
    return res, svd_tangent(a, g, tuple(res), opts.get("full_matrices", True), True)


@frule(sl.svdvals)
def _svdvals(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    out = sl.svdvals(a, **_bound(("overwrite_a", "check_finite"), primals, kwargs))
    return out, svd_tangent(a, g, sl.svd(a, full_matrices=False), compute_uv=False)


@frule(sl.qr)
def _qr(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("overwrite_a", "lwork", "mode", "pivoting", "check_finite"), primals, kwargs)
    mode = opts.get("mode", "full")
    if mode == "raw":
        raise NoRuleError("scipy.linalg.qr with mode='raw' has no derivative rule; use 'full', 'economic' or 'r'")
    res = sl.qr(a, **opts)
    if opts.get("pivoting", False):  # a[:, p] = q r, the permutation held fixed
        g = g @ _mT(_onehot(res[-1], shape_of(a)[-1]))
        a = a[..., :, res[-1]]
    if mode == "r":
        if not isinstance(res, tuple):  # SciPy before 1.18 returns a batch's R stacked into one array
            return res, qr_tangent(a, g, None, res)[1]
        dr = qr_tangent(a, g, None, res[0])[1]
        return res, ((dr, None) if opts.get("pivoting", False) else (dr,))
    dq, dr = qr_tangent(a, g, res[0], res[1])
    return res, ((dq, dr, None) if opts.get("pivoting", False) else (dq, dr))


def _scipy_eig_tangent(a, g, w, v, vectors):
    if not _is_complex(v) and _is_complex(w):  # SciPy's real eigenvalues come complex
        out = eig_tangent(a, g, np.real(w), v, vectors)
        dw = out[0] if vectors else out
        dw = dw + 0j if not _is_complex(dw) else dw
        return (dw, out[1]) if vectors else dw
    return eig_tangent(a, g, w, v, vectors)


@frule(sl.eig)
def _eig(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("b", "left", "right", "overwrite_a", "overwrite_b", "check_finite", "homogeneous_eigvals"),
                  primals, kwargs)
    if opts.get("b") is not None or opts.get("left", False) or opts.get("homogeneous_eigvals", False):
        raise NoRuleError("scipy.linalg.eig with b, left=True or homogeneous_eigvals has no derivative rule")
    _no_tangent("eig", tangents, *range(1, len(tangents)))
    res = sl.eig(a, **opts)
    if not opts.get("right", True):
        w, v = sl.eig(a)
        return res, _matched(res, w, complexified(_scipy_eig_tangent, a, g, w, v, False))
    return res, complexified(_scipy_eig_tangent, a, g, res[0], res[1], True)


@frule(sl.eigvals)
def _eigvals(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    if (len(primals) > 1 and primals[1] is not None) or kwargs.get("b") is not None \
            or kwargs.get("homogeneous_eigvals", False):
        raise NoRuleError("scipy.linalg.eigvals with b or homogeneous_eigvals has no derivative rule")
    _no_tangent("eigvals", tangents, *range(1, len(tangents)))
    out = sl.eigvals(a, **_bound(("b", "overwrite_a", "overwrite_b", "check_finite"), primals, kwargs))
    w, v = sl.eig(a)
    return out, _matched(out, w, complexified(_scipy_eig_tangent, a, g, w, v, False))


@frule(sl.pinv)
def _pinv(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    res = sl.pinv(a, **kwargs)
    p = res[0] if kwargs.get("return_rank", False) else res
    d = _d_pinv(a, p, g)
    return res, ((d, None) if kwargs.get("return_rank", False) else d)


@frule(sl.pinvh)
def _pinvh(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    opts = _bound(("atol", "rtol", "lower", "return_rank", "check_finite"), primals, kwargs)
    _no_tangent("pinvh", tangents, *range(1, len(tangents)))
    res = sl.pinvh(a, **opts)
    lower = opts.get("lower", True)
    p = res[0] if opts.get("return_rank", False) else res
    read = _hermitian_from if _is_complex(a) else _symmetric_from
    d = _d_pinv(read(a, lower), p, read(g, lower))
    return res, ((d, None) if opts.get("return_rank", False) else d)


@frule(sl.polar)
def _polar(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    _no_tangent("polar", tangents, 1)
    side = primals[1] if len(primals) > 1 else kwargs.get("side", "right")
    u, p = sl.polar(a, side)
    m, n = shape_of(a)[-2:]
    if (side == "right" and m < n) or (side != "right" and m > n):
        raise NoRuleError("scipy.linalg.polar: its factor p is singular for this shape and side; transpose a")
    adj = _mH if _is_complex(a) else _mT
    if side == "right":  # a = u p, p = (a^H a)^(1/2): p dp + dp p = d(a^H a)
        dp = sl.solve_sylvester(p, p, adj(g) @ a + _mH(a) @ g)
        du = _right_solve(g - u @ dp, p)
    else:  # a = p u, p = (a a^H)^(1/2)
        dp = sl.solve_sylvester(p, p, g @ _mH(a) + a @ adj(g))
        du = np.linalg.solve(p, g - dp @ u)
    return (u, p), (du, dp)
