"""Derivative rules for ``numpy.linalg``: ``solve``, ``inv``, ``det``, ``slogdet``, ``cholesky``,
``eigh``, ``eigvalsh``, ``pinv`` and ``lstsq``, for single matrices and stacks of them.

Conventions:

* ``det`` and ``slogdet`` solve with the matrix, so at a singular one they raise
  ``LinAlgError``. ``slogdet``'s sign has zero derivative for real matrices (no tangent);
  for complex ones it moves on the unit circle.
* ``cholesky``, ``eigh`` and ``eigvalsh`` read one triangle of their argument (the lower
  one by default; the upper one for ``upper=True`` / ``UPLO='U'``), so their derivative is
  with respect to the array as NumPy reads it: the tangent's other triangle is ignored and
  the Hermitian matrix built from the triangle read is what perturbs the matrix.
* ``eigh``'s eigenvector derivative assumes distinct eigenvalues (it divides by their
  differences) and is that of the vectors NumPy returns, whose signs are locally fixed;
  for complex matrices the vectors' phases are LAPACK's choice and have no derivative: the
  tangent is the one with ``V^H dV`` of zero diagonal (JAX's), right for what does not depend
  on the phases (``abs(v)``, ``v diag(f(w)) v^H``, projections). A complex tangent of a real
  matrix raises NoRuleError (use ``eigvalsh`` for the eigenvalues).
* ``pinv``'s derivative is that of the pseudo-inverse where the rank does not change
  (no singular value is cut off by ``rcond``/``rtol`` unless it is exactly zero).
  ``lstsq`` (one matrix, not a stack) needs full rank, and raises NoRuleError without it;
  its singular values' derivative assumes they are distinct; ``rank`` carries no tangent.

Chunks of tangents need no loop: they broadcast as a stack of matrices does.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.values import primal

from ..engine.forward import NoRuleError, frule
from .tangents import lead, lead_axes


def _mT(x):
    return np.einsum("...ij->...ji", x)


def _mH(x):
    return np.conjugate(_mT(x)) if _is_complex(x) else _mT(x)


def _tr(x):
    return np.einsum("...ii->...", x)


def _diag(x):
    return np.einsum("...ii->...i", x)


def _widened(g, n, ndim, target):
    """Tangent ``g`` (``n`` chunk axes) of an ``ndim``-axis primal, with unit axes after the chunk
    axes so that it broadcasts as a stack of ``target`` axes (stacks align on their trailing axes)."""
    extra = target - ndim
    return g[lead_axes(n) + (None,) * extra] if n and extra > 0 else g


def _is_complex(x):
    return np.iscomplexobj(x)


@frule(np.linalg.solve)
def _solve(primals, tangents, **kwargs):
    a, b = primals
    da, db = tangents
    x = np.linalg.solve(a, b, **kwargs)
    vector = np.ndim(b) == 1  # NumPy 2: b is a vector only when it has one axis; else a stack of matrices
    xm = x[..., None] if vector else x
    rhs = None
    if db is not None:
        dbm = db[..., None] if vector else db
        rhs = _widened(dbm, lead(db, b), np.ndim(b) + vector, np.ndim(xm))
    if da is not None:
        term = _widened(da, lead(da, a), np.ndim(a), np.ndim(xm)) @ xm
        rhs = -term if rhs is None else rhs - term
    dx = np.linalg.solve(a, rhs)
    return x, (dx[..., 0] if vector else dx)


@frule(np.linalg.inv)
def _inv(primals, tangents):
    ans = np.linalg.inv(primals[0])
    return ans, -(ans @ tangents[0] @ ans)


@frule(np.linalg.det)
def _det(primals, tangents):
    a, = primals
    ans = np.linalg.det(a)
    return ans, ans * _tr(np.linalg.solve(a, tangents[0]))


@frule(np.linalg.slogdet)
def _slogdet(primals, tangents):
    a, = primals
    res = np.linalg.slogdet(a)
    t = _tr(np.linalg.solve(a, tangents[0]))
    if _is_complex(a) or _is_complex(tangents[0]):
        return res, (res[0] * 1j * np.imag(t), np.real(t))
    return res, (None, t)


def _hermitian_from(g, lower):
    """The Hermitian matrices (last two axes) made of the triangle of ``g`` that NumPy reads
    (LAPACK takes only the real part of the diagonal)."""
    m = np.shape(g)[-1]
    strict = np.tri(m, k=-1, dtype=bool)
    if not lower:
        strict = strict.T
    off = g * strict
    return off + _mH(off) + (np.real(g) if _is_complex(g) else g) * np.eye(m)


@frule(np.linalg.cholesky)
def _cholesky(primals, tangents, upper=False):
    a, = primals
    g = tangents[0]
    ans = np.linalg.cholesky(a, upper=upper) if upper else np.linalg.cholesky(a)
    low = _mH(ans) if upper else ans
    s = _hermitian_from(g, lower=not upper)
    w = np.linalg.solve(low, _mH(np.linalg.solve(low, s)))  # L^-1 S L^-H
    m = np.shape(a)[-1]
    phi = w * np.tri(m, k=-1) + w * (0.5 * np.eye(m))  # lower triangle, half the diagonal
    dlow = low @ phi
    return ans, (_mH(dlow) if upper else dlow)


def _eig_parts(a, g, uplo):
    """``(eigh's result, M)`` with ``M = V^H S V`` for the Hermitian perturbation ``S`` NumPy reads from ``g``."""
    res = np.linalg.eigh(a, UPLO=uplo)  # checks UPLO
    v = res[1]
    s = _hermitian_from(g, lower=uplo.upper() == "L")
    return res, _mH(v) @ s @ v


@frule(np.linalg.eigh)
def _eigh(primals, tangents, UPLO="L"):
    a = primals[0]
    uplo = primals[1] if len(primals) > 1 else UPLO
    if _is_complex(tangents[0]) and not _is_complex(a):
        raise NoRuleError(
            "numpy.linalg.eigh of a real matrix with a complex tangent: make the matrix complex, or "
            "differentiate the eigenvalues with numpy.linalg.eigvalsh instead"
        )
    res, m = _eig_parts(a, tangents[0], uplo)
    w, v = res
    eye = np.eye(np.shape(a)[-1])
    gaps = w[..., None, :] - w[..., :, None]  # w_j - w_i
    f = (1 - eye) / (gaps + eye)  # 1 / (w_j - w_i) off the diagonal, 0 on it
    return res, (_diag(m), v @ (f * m))


@frule(np.linalg.eigvalsh)
def _eigvalsh(primals, tangents, UPLO="L"):
    a = primals[0]
    uplo = primals[1] if len(primals) > 1 else UPLO
    m = _eig_parts(a, tangents[0], uplo)[1]
    d = _diag(m)
    return np.linalg.eigvalsh(a, UPLO=uplo), (np.real(d) if _is_complex(d) else d)


def _d_pinv(a, p, g):
    """The tangent of ``p = pinv(a)`` along ``g`` (the rank kept: Golub and Pereyra's formula).

    The two terms that vanish for a matrix of full row or column rank (``a p = I``,
    ``p a = I``) are left out there: computed, they are rounding errors amplified by the
    square of the condition number, which second derivatives of ill-conditioned but
    invertible matrices showed (0.25% off at a condition number of 5e4).
    """
    rows, cols = np.shape(a)[-2:]
    rank = np.linalg.matrix_rank(primal(a))
    full_rows = bool(np.all(rank == rows))
    full_cols = bool(np.all(rank == cols))
    out = -(p @ g @ p)
    if not (full_rows and full_cols):
        gh = _mH(g)
        ph = _mH(p)
        if not full_rows:
            out = out + (p @ ph) @ gh @ (np.eye(rows) - a @ p)
        if not full_cols:
            out = out + (np.eye(cols) - p @ a) @ gh @ (ph @ p)
    return out


@frule(np.linalg.pinv)
def _pinv(primals, tangents, **kwargs):
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError("numpy.linalg.pinv: rcond carries a derivative; make it a constant")
    p = np.linalg.pinv(*primals, **kwargs)
    return p, _d_pinv(primals[0], p, tangents[0])


@frule(np.linalg.lstsq)
def _lstsq(primals, tangents, **kwargs):
    a, b = primals[:2]
    da, db = tangents[:2]
    if any(t is not None for t in tangents[2:]):
        raise NoRuleError("numpy.linalg.lstsq: rcond carries a derivative; make it a constant")
    res = np.linalg.lstsq(*primals, **kwargs)
    x, residuals, rank, s = res
    if rank < min(np.shape(a)):
        raise NoRuleError(
            "numpy.linalg.lstsq of a rank-deficient matrix being differentiated (rank %d of %s): the solution "
            "does not depend smoothly on it; regularize the problem" % (rank, np.shape(a))
        )
    vector = np.ndim(b) == 1
    xm = x[:, None] if vector else x
    p = np.linalg.pinv(a)
    dxm = None
    dr = None  # the tangent of b - a x with x held fixed
    if db is not None:
        dbm = db[..., None] if vector else db
        dxm = p @ dbm
        dr = dbm
    if da is not None:
        term = _d_pinv(a, p, da) @ (b[:, None] if vector else b)
        dxm = term if dxm is None else dxm + term
        dr = -(da @ xm) if dr is None else dr - da @ xm
    d_res = None
    if np.size(residuals):  # |b - a x|^2 per column; a^H (b - a x) = 0, so x's change does not count
        r = (b[:, None] if vector else b) - a @ xm
        d_res = 2 * np.sum(np.real(np.conjugate(r) * dr) if _is_complex(dr) or _is_complex(r) else r * dr, axis=-2)
    d_s = None
    if da is not None:  # d s_i = Re(u_i^H da v_i), for distinct singular values
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        d_s = np.einsum("ji,...jk,ik->...i", np.conjugate(u), da, np.conjugate(vh))
        d_s = np.real(d_s) if _is_complex(d_s) else d_s
    return res, ((dxm[..., 0] if vector else dxm), d_res, None, d_s)
