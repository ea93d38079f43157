"""Derivative rules for NumPy's matrix decompositions and matrix functions: ``linalg.svd``,
``svdvals``, ``eig``, ``eigvals``, ``qr``, ``matrix_power``, ``multi_dot``,
``tensorinv`` and ``tensorsolve`` (``matrix_rank`` carries no tangent), and the tangents of
the matrix norms of singular values (``norm``/``matrix_norm`` with ``ord='nuc'``, ``2``,
``-2``) that the norm rule (``reductions``) calls. Stacks of matrices work throughout.

Conventions (the tangent helpers are shared with ``scipy_linalg``):

* Singular values and eigenvalues are assumed distinct: the vectors' tangents divide by
  their differences (``1 / (s_j^2 - s_i^2)``, ``1 / (w_j - w_i)``, as JAX's rules), so
  at a tie they are inf/nan. Tied values themselves have a kink there (no derivative);
  their tangent is then the formula's, ``Re diag(U^H dA V)`` with the vectors NumPy
  returns (as ``max`` at a tie takes one argument's); so for the ``ord=2``/``-2`` norms.
* Real matrices: the singular vectors' and eigenvectors' signs are locally constant, so
  the tangents are those of the arrays NumPy returns. ``eig``'s eigenvectors (real or
  complex matrices) follow LAPACK's normalisation: unit length, largest-modulus component
  real; the tangent keeps both, so it is that of NumPy's result.
* Complex ``svd``: the phases of the singular vectors are LAPACK's choice and have no
  derivative of their own; the tangents are JAX's (``V^H dV`` has zero diagonal, the
  phase's change goes to ``U``), right for what does not depend on the phases (``abs(u)``,
  ``u s vh``, projections ``u u^H``). ``full_matrices=True`` with ``m != n``: the extra
  vectors (a basis of the complement) are defined up to a rotation among themselves;
  their tangent is the one that does not rotate them (``U2^H dU2 = 0``); the same holds
  for ``qr(mode='complete')`` with ``m > n``.
* ``qr`` needs the leading ``min(m, n)`` columns independent (else LinAlgError); R's
  diagonal stays real, as LAPACK makes it, so the tangents are those of NumPy's result.
  ``mode='raw'`` raises NoRuleError.
* A complex tangent of a real matrix is taken C-linearly (as ``ad`` does everywhere).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np

from ..engine.forward import NoRuleError, defzero, frule
from .linalg import _diag, _hermitian_from, _is_complex, _mH, _mT
from .shapes import bind
from .tangents import lead, per_direction, shape_of

defzero(np.linalg.matrix_rank)


# ------------------------------------------------------------------ helpers


def _adjoint(x, complex_primal):
    """``x^H`` for a complex primal, ``x^T`` for a real one (C-linear in a complex tangent)."""
    return _mH(x) if complex_primal else _mT(x)


def _reciprocal_gaps(d):
    """``1 / d`` off the diagonal, 0 on it (``d``: matrices of differences; a tie gives inf)."""
    eye = np.eye(shape_of(d)[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1 - eye) / (d + eye)


def _right_solve(g, r):
    """``g r^-1`` for square ``r`` (stacks broadcast, chunk axes of ``g`` first)."""
    return _mT(np.linalg.solve(_mT(r), _mT(g)))


def complexified(tangent, a, g, *args, **kwargs):
    """``tangent(a, g, ...)``, taken C-linearly (real and imaginary parts apart) when ``g`` is
    complex and ``a`` real: for formulas that conjugate or take real parts of tangents."""
    if _is_complex(a) or not _is_complex(g):
        return tangent(a, g, *args, **kwargs)
    re = tangent(a, np.real(g), *args, **kwargs)
    im = tangent(a, np.imag(g), *args, **kwargs)
    if isinstance(re, tuple):
        return tuple(None if x is None else x + 1j * y for x, y in zip(re, im))
    return re + 1j * im


def _symmetric_from(g, lower):
    """The symmetric matrices made of the triangle of ``g`` read (``g`` itself on the diagonal)."""
    m = shape_of(g)[-1]
    strict = np.tri(m, k=-1) if lower else np.tri(m, k=-1).T
    off = g * strict
    return off + _mT(off) + g * np.eye(m)


def _zeros_after(x, axis, size):
    """``x`` with ``size`` zeros appended along ``axis`` (negative)."""
    shape = list(shape_of(x))
    shape[axis] = size
    return np.concatenate([x, np.zeros_like(x, shape=tuple(shape))], axis=axis)


def _matched(w_out, w, dw):
    """``dw`` (tangents of eigenvalues ``w``) reordered to match ``w_out`` (the same eigenvalues,
    from another LAPACK call, maybe in another order): each takes its nearest's tangent."""
    idx = np.argmin(np.abs(w_out[..., :, None] - w[..., None, :]), axis=-1)
    pick = (idx[..., :, None] == np.arange(shape_of(w)[-1])).astype(float)
    return (pick @ dw[..., None])[..., 0]


# ---------------------------------------------------------------------- svd


def svd_tangent(a, g, res, full_matrices=False, compute_uv=True):
    """The tangent of ``svd(a)`` along ``g``: ``ds`` alone, or ``(du, ds, dvh)`` for ``res = (u, s, vh)``."""
    u, s, vh = res
    cplx = _is_complex(a)
    m, n = shape_of(a)[-2:]
    k = min(m, n)
    u1, vh1 = u[..., :, :k], vh[..., :k, :]
    v1 = _mH(vh1)
    dmat = _mH(u1) @ g @ v1  # U^H dA V
    ds = _diag(dmat)
    if cplx:
        ds = np.real(ds)
    if not compute_uv:
        return ds
    adj = _mH if cplx else _mT
    row, col = s[..., None, :], s[..., :, None]
    f = _reciprocal_gaps(row * row - col * col)  # 1 / (s_j^2 - s_i^2)
    dss, sds = dmat * row, col * dmat
    omega_u = f * (dss + adj(dss))
    omega_v = f * (sds + adj(sds))
    if cplx:  # the phases' change, all in U (JAX's choice)
        omega_u = omega_u + np.eye(k) * (1j * np.imag(_diag(dmat)) / s)[..., None, :]
    du, dv = u1 @ omega_u, v1 @ omega_v
    if m > k:
        x = (g @ v1) / row
        du = du + x - u1 @ (_mH(u1) @ x)
        if full_matrices:  # the complement's basis, not rotated within itself
            du = np.concatenate([du, -(u1 @ adj(_mH(u[..., :, k:]) @ x))], axis=-1)
    if n > k:
        y = (adj(g) @ u1) / row
        dv = dv + y - v1 @ (_mH(v1) @ y)
        if full_matrices:
            dv = np.concatenate([dv, -(v1 @ adj(vh[..., k:, :] @ y))], axis=-1)
    return du, ds, adj(dv)


_SVD = ("a", "full_matrices", "compute_uv", "hermitian")


@frule(np.linalg.svd)
def _svd(primals, tangents, **kwargs):
    a, g, opts = bind(np.linalg.svd, _SVD, primals, tangents, kwargs)
    full = opts.get("full_matrices", True)
    compute_uv = opts.get("compute_uv", True)
    res = np.linalg.svd(a, **opts)
    if opts.get("hermitian", False):  # NumPy reads the lower triangle (eigh)
        g = (_hermitian_from if _is_complex(a) else _symmetric_from)(g, True)
    if not compute_uv:
        return res, svd_tangent(a, g, np.linalg.svd(a, full_matrices=False, hermitian=opts.get("hermitian", False)),
                                compute_uv=False)
    return res, svd_tangent(a, g, tuple(res), full, True)


@frule(np.linalg.svdvals)
def _svdvals(primals, tangents):
    a, = primals
    return np.linalg.svdvals(a), svd_tangent(a, tangents[0], np.linalg.svd(a, full_matrices=False), compute_uv=False)


def singular_value_norm_tangent(x, g, ord, axes, n):
    """The tangent of the ``ord`` (``'nuc'``, ``2``, ``-2``) norm of the matrices of ``x`` over
    ``axes`` (rows, columns) along ``g`` (``n`` chunk axes): chunk axes, then ``x``'s other axes."""
    xm = np.moveaxis(x, axes, (-2, -1))
    gm = np.moveaxis(g, tuple(a + n for a in axes), (-2, -1))
    u, s, vh = np.linalg.svd(xm, full_matrices=False)
    if ord == "nuc":
        p = u @ vh
    else:
        i = 0 if ord == 2 else -1
        p = u[..., :, i, None] * vh[..., None, i, :]
    if _is_complex(x):
        return np.sum(np.real(np.conjugate(p) * gm), axis=(-2, -1))
    return np.sum(p * gm, axis=(-2, -1))


# ---------------------------------------------------------------------- eig


def eig_tangent(a, g, w, v, vectors=True):
    """The tangent of ``eig(a) = (w, v)`` along ``g``: ``dw``, or ``(dw, dv)``; ``v`` normalised as LAPACK's."""
    m = np.linalg.solve(v, g @ v)  # V^-1 dA V
    dw = _diag(m)
    if not vectors:
        return dw
    dv = v @ (_reciprocal_gaps(w[..., None, :] - w[..., :, None]) * m)
    dv = dv - v * np.real(np.sum(np.conjugate(v) * dv, axis=-2, keepdims=True))  # unit length
    if _is_complex(v):  # the largest-modulus component stays real
        k = np.argmax(np.abs(v), axis=-2)
        pick = (np.arange(shape_of(v)[-1])[:, None] == k[..., None, :]).astype(float)
        vk = np.sum(v * pick, axis=-2, keepdims=True)
        dvk = np.sum(dv * pick, axis=-2, keepdims=True)
        dv = dv - 1j * v * np.imag(dvk / vk)
    return dw, dv


@frule(np.linalg.eig)
def _eig(primals, tangents):
    a, = primals
    res = np.linalg.eig(a)
    return res, complexified(eig_tangent, a, tangents[0], res[0], res[1])


@frule(np.linalg.eigvals)
def _eigvals(primals, tangents):
    a, = primals
    out = np.linalg.eigvals(a)
    w, v = np.linalg.eig(a)
    return out, _matched(out, w, eig_tangent(a, tangents[0], w, v, vectors=False))


# ----------------------------------------------------------------------- qr


def _qr_tall(g, q, r, cplx):
    """``(dq, dr)`` of the reduced QR ``a = q r`` (``q`` m x n, ``r`` n x n upper, invertible)."""
    k = shape_of(r)[-1]
    adj = _mH if cplx else _mT
    x = _right_solve(g, r)  # dA R^-1
    c = _mH(q) @ x
    low = c * np.tri(k, k=-1)
    omega = low - adj(low)  # Q^H dQ: antihermitian, R's diagonal kept real
    if cplx:
        omega = omega + 1j * np.imag(c) * np.eye(k)
    return x + q @ (omega - c), (c - omega) @ r


def qr_tangent(a, g, q, r):
    """``(dq, dr)`` for ``a = q r`` (reduced or complete ``q``; ``q`` None for R alone)."""
    cplx = _is_complex(a)
    m, n = shape_of(a)[-2:]
    if q is None:
        q = np.linalg.qr(a)[0]
    if m < n:  # a = q [r1 r2]: the square QR of the first m columns, then r2 = q^H a2
        dq, dr1 = _qr_tall(g[..., :m], q, r[..., :m], cplx)
        dr2 = (_mH(dq) if cplx else _mT(dq)) @ a[..., m:] + _mH(q) @ g[..., m:]
        return dq, np.concatenate([dr1, dr2], axis=-1)
    q1, r1 = q[..., :, :n], r[..., :n, :]
    dq, dr = _qr_tall(g, q1, r1, cplx)
    if shape_of(q)[-1] > n:  # complete: the complement's basis, not rotated within itself
        x = _mH(q[..., :, n:]) @ _right_solve(g, r1)
        dq = np.concatenate([dq, -(q1 @ (_mH(x) if cplx else _mT(x)))], axis=-1)
    if shape_of(r)[-2] > n:
        dr = _zeros_after(dr, -2, shape_of(r)[-2] - n)
    return dq, dr


@frule(np.linalg.qr)
def _qr(primals, tangents, **kwargs):
    a, g, opts = bind(np.linalg.qr, ("a", "mode"), primals, tangents, kwargs)
    mode = opts.get("mode", "reduced")
    if mode not in ("reduced", "complete", "r"):
        raise NoRuleError(
            "numpy.linalg.qr with mode=%r has no derivative rule; use mode='reduced', 'complete' or 'r'" % (mode,)
        )
    res = np.linalg.qr(a, mode)
    if mode == "r":
        return res, qr_tangent(a, g, None, res)[1]
    return res, qr_tangent(a, g, res[0], res[1])


# ------------------------------------------------------- matrix functions


@frule(np.linalg.matrix_power)
def _matrix_power(primals, tangents, **kwargs):
    a, g, opts = bind(np.linalg.matrix_power, ("a", "n"), primals, tangents, kwargs)
    p = operator.index(opts["n"])
    out = np.linalg.matrix_power(a, p)
    if p == 0:
        return out, None
    if p > 0:
        b, db = a, g
    else:  # NumPy powers the inverse
        b = out if p == -1 else np.linalg.inv(a)
        db = -(b @ g @ b)
        if p == -1:
            return out, db
        p = -p
    acc = dacc = None
    while True:  # binary powering of (b, db), with the product rule
        if p & 1:
            acc, dacc = (b, db) if acc is None else (acc @ b, dacc @ b + acc @ db)
        p >>= 1
        if not p:
            break
        b, db = b @ b, db @ b + b @ db
    return out, (np.copy(dacc) if dacc is g else dacc)


@frule(np.linalg.multi_dot, sequences=(0,))
def _multi_dot(primals, tangents, **kwargs):
    arrays, gs = list(primals[0]), tangents[0]
    out = np.linalg.multi_dot(arrays, **kwargs)

    def replaced(gi, i):
        return np.linalg.multi_dot(arrays[:i] + [gi] + arrays[i + 1:])

    d = None
    for i, gi in enumerate(gs):
        if gi is not None:
            term = per_direction(replaced, gi, lead(gi, arrays[i]), i)
            d = term if d is None else d + term
    return out, d


@frule(np.linalg.tensorinv)
def _tensorinv(primals, tangents, **kwargs):
    a, g, opts = bind(np.linalg.tensorinv, ("a", "ind"), primals, tangents, kwargs)
    ind = opts.get("ind", 2)
    out = np.linalg.tensorinv(a, ind)
    shape = shape_of(a)
    rows = int(np.prod(shape[:ind]))
    chunk = shape_of(g)[: lead(g, a)]
    inv = np.reshape(out, (-1, rows))
    d = -(inv @ np.reshape(g, chunk + (rows, -1)) @ inv)
    return out, np.reshape(d, chunk + shape_of(out))


@frule(np.linalg.tensorsolve)
def _tensorsolve(primals, tangents, **kwargs):
    a, b = primals[:2]
    axes = primals[2] if len(primals) > 2 else kwargs.get("axes")
    da, db = tangents[:2]
    x = np.linalg.tensorsolve(a, b, axes)
    nd = len(shape_of(a))
    order = None
    if axes is not None:  # NumPy moves these axes of a to the end
        moved = [ax % nd for ax in axes]
        order = tuple([i for i in range(nd) if i not in moved] + moved)
        a = np.transpose(a, order)
    rhs, n = db, lead(db, b) if db is not None else 0
    if da is not None:
        n = lead(da, primals[0])
        if order is not None:
            da = np.transpose(da, tuple(range(n)) + tuple(i + n for i in order))
        term = np.tensordot(da, x, len(shape_of(x)))
        rhs = -term if rhs is None else rhs - term
    return x, per_direction(lambda r: np.linalg.tensorsolve(a, r), rhs, n)
