"""Forward rules for the solvers of ``scipy.linalg``: ``solve``, ``solve_triangular``, ``solve_banded``,
``solveh_banded``, ``cho_solve``, ``lu_solve``, ``solve_sylvester``, ``solve_continuous_lyapunov`` and
``solve_discrete_lyapunov``, in every array argument: ``dx`` solves the same system with ``db - dA x``."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.linalg as sl

from ..engine.forward import frule
from .linalg import _is_complex, _mH, _mT, _widened
from .scipy_linalg_common import _no_tangent, _options, _perm_matrix, _read, _stacked
from .tangents import lead, shape_of


def _adj(x, complex_primal):
    return _mH(x) if complex_primal else _mT(x)


def _rhs(x, b, db, terms):
    """``db - sum(terms)`` as a stack of matrices lined up with ``x`` (a vector ``b`` as a column):
    ``terms(xm)`` gives the products ``dA x`` (chunk axes first) for the matrix form ``xm`` of ``x``."""
    vector = len(shape_of(b)) == 1
    xm = x[..., None] if vector else x
    rhs = None
    if db is not None:
        dbm = db[..., None] if vector else db
        rhs = _widened(dbm, lead(db, b), len(shape_of(b)) + vector, len(shape_of(xm)))
    term = terms(xm)
    if term is not None:
        rhs = -term if rhs is None else rhs - term
    return rhs, vector


def _times(da, a, xm):
    """``da @ xm`` with ``da``'s chunk axes lined up ahead of ``xm``'s stack axes (None for no ``da``)."""
    if da is None:
        return None
    return _widened(da, lead(da, a), len(shape_of(a)), len(shape_of(xm))) @ xm


def _solve_opts(primals, kwargs):
    names = ("lower", "overwrite_a", "overwrite_b", "check_finite", "assume_a", "transposed")
    return _options(names, primals[2:], kwargs)


@frule(sl.solve)
def _solve(primals, tangents, **kwargs):
    a, b = primals[:2]
    da, db = tangents[:2]
    _no_tangent("solve", tangents, *range(2, len(tangents)))
    opts = _solve_opts(primals, kwargs)
    x = sl.solve(a, b, **opts)
    transposed = opts.get("transposed", False)

    def terms(xm):
        if da is None:
            return None
        d = _read(da, a, opts.get("assume_a"), opts.get("lower", False))
        return _times(_mT(d) if transposed else d, a, xm)

    rhs, vector = _rhs(x, b, db, terms)
    dx = sl.solve(a, rhs, **opts)
    return x, (dx[..., 0] if vector else dx)


def _trans(t):
    return {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}[t]


@frule(sl.solve_triangular)
def _solve_triangular(primals, tangents, **kwargs):
    a, b = primals[:2]
    da, db = tangents[:2]
    _no_tangent("solve_triangular", tangents, *range(2, len(tangents)))
    opts = _options(("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite"), primals[2:], kwargs)
    x = sl.solve_triangular(a, b, **opts)

    def terms(xm):
        if da is None:
            return None
        m = shape_of(a)[-1]
        mask = np.tri(m) if opts.get("lower", False) else 1 - np.tri(m, k=-1)
        if opts.get("unit_diagonal", False):
            mask = mask - np.eye(m)
        d = da * mask
        t = _trans(opts.get("trans", 0))
        if t == 1:
            d = _mT(d)
        elif t == 2:
            d = _adj(d, _is_complex(a))
        return _times(d, a, xm)

    rhs, vector = _rhs(x, b, db, terms)
    dx = sl.solve_triangular(a, rhs, **opts)
    return x, (dx[..., 0] if vector else dx)


def _shifted(coef, xm, s_out, s_in):
    """The rows ``y[j + s_out] = coef[j] * xm[j + s_in]`` (zero elsewhere) of a band product."""
    n = shape_of(xm)[-2]
    lo, hi = max(0, -s_out, -s_in), min(n, n - s_out, n - s_in)
    if hi <= lo:
        return None
    part = coef[..., lo:hi, None] * xm[..., lo + s_in:hi + s_in, :]
    top, bottom = lo + s_out, n - (hi + s_out)
    shape = list(shape_of(part))
    pieces = []
    if top:
        pieces.append(np.zeros_like(part, shape=tuple(shape[:-2] + [top, shape[-1]])))
    pieces.append(part)
    if bottom:
        pieces.append(np.zeros_like(part, shape=tuple(shape[:-2] + [bottom, shape[-1]])))
    return np.concatenate(pieces, axis=-2) if len(pieces) > 1 else part


def _band_times(dab, ab, xm, entries):
    """``dA @ xm`` for a banded ``dA`` stored as ``dab``: ``entries`` lists ``(row, s_out, s_in, how)``,
    row ``row`` of the storage giving ``y[j + s_out] += how(dab[row, j]) xm[j + s_in]``."""
    d = _widened(dab, lead(dab, ab), len(shape_of(ab)), len(shape_of(xm)))
    out = None
    for row, s_out, s_in, how in entries:
        term = _shifted(how(d[..., row, :]), xm, s_out, s_in)
        if term is not None:
            out = term if out is None else out + term
    return out


def _same(x):
    return x


@frule(sl.solve_banded)
def _solve_banded(primals, tangents, **kwargs):
    (nlower, nupper), ab, b = primals[:3]
    dab, db = tangents[1:3]
    _no_tangent("solve_banded", tangents, 0, *range(3, len(tangents)))
    opts = _options(("overwrite_ab", "overwrite_b", "check_finite"), primals[3:], kwargs)
    x = sl.solve_banded((nlower, nupper), ab, b, **opts)
    entries = [(r, r - nupper, 0, _same) for r in range(nlower + nupper + 1)]
    rhs, vector = _rhs(x, b, db, lambda xm: None if dab is None else _band_times(dab, ab, xm, entries))
    dx = sl.solve_banded((nlower, nupper), ab, rhs)
    return x, (dx[..., 0] if vector else dx)


@frule(sl.solveh_banded)
def _solveh_banded(primals, tangents, **kwargs):
    ab, b = primals[:2]
    dab, db = tangents[:2]
    _no_tangent("solveh_banded", tangents, *range(2, len(tangents)))
    opts = _options(("overwrite_ab", "overwrite_b", "lower", "check_finite"), primals[2:], kwargs)
    x = sl.solveh_banded(ab, b, **opts)
    cplx = _is_complex(ab)
    conj = np.conjugate if cplx else _same
    diag = np.real if cplx else _same
    u = shape_of(ab)[-2] - 1
    if opts.get("lower", False):  # ab[i - j, j] = a[i, j]
        entries = [(0, 0, 0, diag)] + [e for s in range(1, u + 1) for e in ((s, s, 0, _same), (s, 0, s, conj))]
    else:  # ab[u + i - j, j] = a[i, j]
        entries = [(u, 0, 0, diag)] + [
            e for r in range(u) for e in ((r, r - u, 0, _same), (r, 0, r - u, conj))
        ]
    rhs, vector = _rhs(x, b, db, lambda xm: None if dab is None else _band_times(dab, ab, xm, entries))
    dx = sl.solveh_banded(ab, rhs, lower=opts.get("lower", False))
    return x, (dx[..., 0] if vector else dx)


def _lower_flag(lower):
    return bool(np.ravel(lower)[0]) if np.size(lower) else False


@frule(sl.cho_solve, sequences=(0,))
def _cho_solve(primals, tangents, **kwargs):
    (c, lower), b = primals[:2]
    (dc, dlower), db = tangents[:2]
    _no_tangent("cho_solve", tangents, *range(2, len(tangents)))
    x = sl.cho_solve((c, lower), b, **_options(("overwrite_b", "check_finite"), primals[2:], kwargs))
    low = _lower_flag(lower)

    def terms(xm):
        if dc is None:
            return None
        m = shape_of(c)[-1]
        f = c * (np.tri(m) if low else 1 - np.tri(m, k=-1))  # the factor read
        df = dc * (np.tri(m) if low else 1 - np.tri(m, k=-1))
        adj = _mH if _is_complex(c) else _mT
        da = df @ _mH(f) + f @ adj(df) if low else adj(df) @ f + _mH(f) @ df
        return _times(da, c, xm)

    rhs, vector = _rhs(x, b, db, terms)
    dx = sl.cho_solve((c, lower), rhs)
    return x, (dx[..., 0] if vector else dx)


def _lu_parts(lu):
    """``(l, u)`` unpacked from ``lu_factor``'s square packed factors."""
    m = shape_of(lu)[-1]
    strict = np.tri(m, k=-1)
    return lu * strict + np.eye(m), lu * (1 - strict)


@frule(sl.lu_solve, sequences=(0,))
def _lu_solve(primals, tangents, **kwargs):
    (lu, piv), b = primals[:2]
    (dlu, dpiv), db = tangents[:2]
    _no_tangent("lu_solve", tangents, *range(2, len(tangents)))
    opts = _options(("trans", "overwrite_b", "check_finite"), primals[2:], kwargs)
    x = sl.lu_solve((lu, piv), b, **opts)

    def terms(xm):
        if dlu is None:
            return None
        m = shape_of(lu)[-1]
        low, up = _lu_parts(lu)
        dl, du = dlu * np.tri(m, k=-1), dlu * (1 - np.tri(m, k=-1))
        da = _mT(_perm_matrix(piv, m)) @ (dl @ up + low @ du)  # a = P^T (L U)
        t = _trans(opts.get("trans", 0))
        if t == 1:
            da = _mT(da)
        elif t == 2:
            da = _adj(da, _is_complex(lu))
        return _times(da, lu, xm)

    rhs, vector = _rhs(x, b, db, terms)
    dx = sl.lu_solve((lu, piv), rhs, trans=opts.get("trans", 0))
    return x, (dx[..., 0] if vector else dx)


def _sum(terms):
    """The sum of the terms that are not None (None if all are)."""
    out = None
    for term in terms:
        if term is not None:
            out = term if out is None else out + term
    return out


@frule(sl.solve_sylvester)
def _solve_sylvester(primals, tangents):
    a, b, q = primals  # a x + x b = q
    x = sl.solve_sylvester(a, b, q)
    da, db, dq = (_stacked(t, p, x) for t, p in zip(tangents, primals))
    rhs = _sum([dq, None if da is None else -(da @ x), None if db is None else -(x @ db)])
    return x, sl.solve_sylvester(a, b, rhs)


@frule(sl.solve_continuous_lyapunov)
def _solve_continuous_lyapunov(primals, tangents):
    a, q = primals  # a x + x a^H = q
    x = sl.solve_continuous_lyapunov(a, q)
    da, dq = (_stacked(t, p, x) for t, p in zip(tangents, primals))
    rhs = _sum([dq, None if da is None else -(da @ x + x @ _adj(da, _is_complex(a)))])
    return x, sl.solve_continuous_lyapunov(a, rhs)


@frule(sl.solve_discrete_lyapunov)
def _solve_discrete_lyapunov(primals, tangents, **kwargs):
    a, q = primals[:2]  # a x a^H - x + q = 0
    _no_tangent("solve_discrete_lyapunov", tangents, 2)
    x = sl.solve_discrete_lyapunov(*primals, **kwargs)
    da, dq = (_stacked(t, p, x) for t, p in zip(tangents[:2], primals[:2]))
    term = None if da is None else da @ x @ _mH(a) + a @ x @ _adj(da, _is_complex(a))
    return x, sl.solve_discrete_lyapunov(a, _sum([dq, term]), *primals[2:], **kwargs)
