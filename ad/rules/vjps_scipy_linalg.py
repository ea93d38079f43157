"""Reverse-mode rules for ``scipy.linalg`` (loaded when it is imported): ``solve``,
``solve_triangular``, ``cholesky``, ``cho_factor``, ``cho_solve``, ``lu_factor``, ``lu_solve``, ``inv``,
``det``, ``eigh`` (``eigvalsh`` through it), ``eig`` and ``eigvals`` (as NumPy's), ``expm``, ``logm``,
``sqrtm``, ``solve_sylvester``, ``solve_continuous_lyapunov`` and ``solve_discrete_lyapunov``.

Conventions are the forward rules' (``scipy_linalg.py``), transposed:

* The cotangent is of the array as SciPy reads it: where only a triangle, a band or the
  diagonal is read (``assume_a=``, ``lower=``, ``unit_diagonal=``, the packed factors of
  ``cho_solve``/``lu_solve``), entries not read get zero; a symmetric matrix read from a
  triangle sends ``s + s^T`` to that triangle. ``lu_solve``'s pivots are constants.
* ``expm``, ``logm``: the adjoint of the Fréchet derivative at ``A`` is the Fréchet derivative
  at ``A^T``, computed with the block identity ``f([[A^T, U], [0, A^T]])``; ``sqrtm``, the
  Sylvester and Lyapunov solvers: the adjoint equation (``X^T Z + Z X^T = U`` for ``sqrtm``).
* ``eigh``: one matrix (``b=None``), all eigenvalues, distinct for the eigenvectors.

Raise NoRuleError: ``lu_factor`` of a non-square matrix, ``eigh`` with ``b`` or a subset, an
unknown ``assume_a``. Complex values (and complex results, ``logm``/``sqrtm`` of some real matrices):
the rules hold with the pairing ``Re(sum(u * t))`` (``vjps_scipy_linalg_more.COMPLEX`` lists them), where
``trans=2`` is ``trans=1`` of the conjugate, Hermitian factors conjugate their mirror, and the Lyapunov
equations' ``a^H`` makes them conjugate-linear in ``a`` there.
The other factorisations, the banded solvers and the constructors are in ``vjps_scipy_linalg_more``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.linalg as sl

from context.tagging import native_primitive
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import ReverseCtx, defvjp, vjp_primitive
from .pullbacks import from_vjp, unbroadcast
from .scipy_linalg_common import _perm_matrix, _read
from .scipy_linalg_functions import _by_blocks
from .scipy_linalg_solvers import _trans
from .vjps_linalg import (
    _eigvals_cotangent, _eigvecs_cotangent, cholesky_adjoint, eig_values_vjp, eig_vectors_vjp, eigvals_vjp,
    inv_transposed, mH, mT, right_solve, triangle_adjoint, tuple_rule,
)

ND = NOT_DIFFERENTIABLE
_SYMMETRIC = ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")


def _shape(x):
    return np.shape(primal(x))


def _opts(names, args, kwargs):
    opts = dict(zip(names, args))
    opts.update(kwargs)
    return opts


def _columns(u, ans, b):
    """``(u, x)`` as stacks of matrices (a vector ``b`` as a column), and whether ``b`` is a vector."""
    vector = np.ndim(primal(b)) == 1
    return (u[..., None], ans[..., None], True) if vector else (u, ans, False)


def _back(gm, vector, b):
    return unbroadcast(gm[..., 0] if vector else gm, b)


def _read_adjoint(s, a, assume_a, lower):
    """The adjoint of ``_read`` (the matrix SciPy reads from ``a``): a mask, or the triangle's."""
    if assume_a in _SYMMETRIC:
        return triangle_adjoint(s, lower)
    return _read(s, a, assume_a, lower)


# ------------------------------------------------------------------ solve, solve_triangular

_SOLVE = ("lower", "overwrite_a", "overwrite_b", "check_finite", "assume_a", "transposed")


def _solve_parts(u, ans, a, b, args, kwargs):
    opts = _opts(_SOLVE, args, kwargs)
    um, xm, vector = _columns(u, ans, b)
    eff = _read(a, a, opts.get("assume_a"), opts.get("lower", False))
    transposed = opts.get("transposed", False)
    gb = np.linalg.solve(eff if transposed else mT(eff), um)
    return gb, xm, vector, opts


def _solve_a(u, ans, a, b, *args, **kwargs):
    gb, xm, _, opts = _solve_parts(u, ans, a, b, args, kwargs)
    g = -(xm @ mT(gb)) if opts.get("transposed", False) else -(gb @ mT(xm))
    return unbroadcast(_read_adjoint(g, a, opts.get("assume_a"), opts.get("lower", False)), a)


def _solve_b(u, ans, a, b, *args, **kwargs):
    gb, _, vector, _ = _solve_parts(u, ans, a, b, args, kwargs)
    return _back(gb, vector, b)


defvjp(sl.solve, _solve_a, _solve_b, ND)

_TRIANGULAR = ("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite")


def _triangular_parts(u, ans, a, b, args, kwargs):
    """``trans=2`` (``a^H``) of a complex ``a`` is ``trans=1`` of ``conj(a)``: the cotangent of ``a`` is
    then conjugated (``conjugated``)."""
    opts = _opts(_TRIANGULAR, args, kwargs)
    t = _trans(opts.get("trans", 0))
    conjugated = t == 2 and np.iscomplexobj(primal(a))
    lower, unit = opts.get("lower", False), opts.get("unit_diagonal", False)
    um, xm, vector = _columns(u, ans, b)
    gb = sl.solve_triangular(np.conjugate(a) if conjugated else a, um, trans=0 if t else 1, lower=lower,
                             unit_diagonal=unit)
    return gb, xm, vector, t, lower, unit, conjugated


def _triangular_a(u, ans, a, b, *args, **kwargs):
    gb, xm, _, t, lower, unit, conjugated = _triangular_parts(u, ans, a, b, args, kwargs)
    m = _shape(a)[-1]
    mask = np.tri(m) if lower else 1 - np.tri(m, k=-1)
    if unit:
        mask = mask - np.eye(m)
    g = -(xm @ mT(gb)) if t else -(gb @ mT(xm))
    return unbroadcast((np.conjugate(g) if conjugated else g) * mask, a)


def _triangular_b(u, ans, a, b, *args, **kwargs):
    gb, _, vector = _triangular_parts(u, ans, a, b, args, kwargs)[:3]
    return _back(gb, vector, b)


defvjp(sl.solve_triangular, _triangular_a, _triangular_b, ND)


# ------------------------------------------------------------------ Cholesky


def _lower_flag(lower):
    return bool(np.ravel(primal(lower))[0]) if np.size(primal(lower)) else False


def _factor_cotangent(u, c, low):
    """The cotangent of the matrix factored for the cotangent ``u`` of its factor ``c`` (one triangle)."""
    m = _shape(c)[-1]
    mask = np.tri(m) if low else 1 - np.tri(m, k=-1)
    if low:
        return cholesky_adjoint(u * mask, c * mask, True)
    # the upper factor is L^H: for complex values, conjugate-linear in L
    h = mH if np.iscomplexobj(primal(c)) else mT
    return cholesky_adjoint(h(u * mask), h(c * mask), False)


def _cholesky_vjp(u, ans, a, *args, **kwargs):
    return _factor_cotangent(u, ans, _opts(("lower",), args, kwargs).get("lower", False))


def _cho_factor_c(u, res, a, *args, **kwargs):
    low = _opts(("lower",), args, kwargs).get("lower", False)
    c = res[0]
    g = _factor_cotangent(u, c, low)
    m = _shape(a)[-1]
    other = np.tri(m, k=-1) if not low else np.tri(m, k=-1).T
    if np.any(primal(c) * other != 0):  # the other triangle holds a's entries (older SciPy)
        g = g + u * other
    return g


defvjp(sl.cholesky, _cholesky_vjp, ND)
tuple_rule(sl.cho_factor, lambda a, *args, **kwargs: [(_cho_factor_c,), None], "scipy.linalg.cho_factor")


def _cho_parts(u, ans, c, lower, b):
    """``a^-T u`` (``a`` Hermitian: ``conj(a^-1 conj(u))``), the solution, and whether ``b`` is a vector."""
    um, xm, vector = _columns(u, ans, b)
    if np.iscomplexobj(primal(c)):
        return np.conjugate(sl.cho_solve((c, lower), np.conjugate(um))), xm, vector
    return sl.cho_solve((c, lower), um), xm, vector


def _cho_c(u, ans, c, lower, b, *args, **kwargs):
    gb, xm, _ = _cho_parts(u, ans, c, lower, b)
    g = -(gb @ mT(xm))
    low = _lower_flag(lower)
    m = _shape(c)[-1]
    mask = np.tri(m) if low else 1 - np.tri(m, k=-1)
    f = c * mask
    if np.iscomplexobj(primal(c)) or np.iscomplexobj(primal(g)):  # a = f f^H (lower) or f^H f
        g, f = g + mH(g), np.conjugate(f)
    else:
        g = g + mT(g)
    return unbroadcast((g @ f if low else f @ g) * mask, c)  # a = f f^T (lower) or f^T f


def _cho_b(u, ans, c, lower, b, *args, **kwargs):
    gb, _, vector = _cho_parts(u, ans, c, lower, b)
    return _back(gb, vector, b)


def _cho_solve_flat(c, lower, b, *args, **kwargs):
    return sl.cho_solve((c, lower), b, *args, **kwargs)


_cho_solve_flat.__qualname__ = _cho_solve_flat.__name__ = "cho_solve"
_cho_recorded = vjp_primitive(_cho_solve_flat, (from_vjp(_cho_c), ND, from_vjp(_cho_b), ND))


@ReverseCtx.primitive(sl.cho_solve)
@native_primitive
def _cho_solve(ctx, c_and_lower, b, *args, **kwargs):
    c, lower = c_and_lower
    return _cho_recorded(ctx, c, lower, b, *args, **kwargs)


# ------------------------------------------------------------------ LU


def _lu_unpacked(lu):
    m = _shape(lu)[-1]
    strict = np.tri(m, k=-1)
    return lu * strict + np.eye(m), lu * (1 - strict), strict


def _lu_factor_vjp(u, res, a, *args, **kwargs):
    lu, piv = res
    low, up, strict = _lu_unpacked(lu)
    cbar = strict * (mT(low) @ (u * strict)) + (1 - strict) * ((u * (1 - strict)) @ mT(up))
    p = _perm_matrix(piv, _shape(a)[-1])  # p a = l u
    return mT(p) @ right_solve(np.linalg.solve(mT(low), cbar), mT(up))


def _lu_factor_plan(a, *args, **kwargs):
    m, n = _shape(a)[-2:]
    if m != n:
        raise NoRuleError("scipy.linalg.lu_factor of a non-square matrix has no reverse-mode rule; "
                          "use ad.ForwardMode()")
    return [(_lu_factor_vjp,), None]


tuple_rule(sl.lu_factor, _lu_factor_plan, "scipy.linalg.lu_factor")


def _lu_parts(u, ans, lu, piv, b, args, kwargs):
    """As ``_triangular_parts``: ``trans=2`` of complex factors is ``trans=1`` of ``conj(a)``."""
    t = _trans(_opts(("trans",), args, kwargs).get("trans", 0))
    um, xm, vector = _columns(u, ans, b)
    if t == 2 and np.iscomplexobj(primal(lu)):  # conj(a)^-1 u = conj(a^-1 conj(u))
        return np.conjugate(sl.lu_solve((lu, piv), np.conjugate(um), trans=0)), xm, vector, t
    return sl.lu_solve((lu, piv), um, trans=0 if t else 1), xm, vector, t


def _lu_lu(u, ans, lu, piv, b, *args, **kwargs):
    gb, xm, _, t = _lu_parts(u, ans, lu, piv, b, args, kwargs)
    g = -(xm @ mT(gb)) if t else -(gb @ mT(xm))  # the cotangent of a = p^T l u
    if t == 2 and np.iscomplexobj(primal(lu)):
        g = np.conjugate(g)
    low, up, strict = _lu_unpacked(lu)
    pg = _perm_matrix(piv, _shape(lu)[-1]) @ g
    return unbroadcast(strict * (pg @ mT(up)) + (1 - strict) * (mT(low) @ pg), lu)


def _lu_b(u, ans, lu, piv, b, *args, **kwargs):
    gb, _, vector, _ = _lu_parts(u, ans, lu, piv, b, args, kwargs)
    return _back(gb, vector, b)


def _lu_solve_flat(lu, piv, b, *args, **kwargs):
    return sl.lu_solve((lu, piv), b, *args, **kwargs)


_lu_solve_flat.__qualname__ = _lu_solve_flat.__name__ = "lu_solve"
_lu_recorded = vjp_primitive(_lu_solve_flat, (from_vjp(_lu_lu), ND, from_vjp(_lu_b), ND))


@ReverseCtx.primitive(sl.lu_solve)
@native_primitive
def _lu_solve(ctx, lu_and_piv, b, *args, **kwargs):
    lu, piv = lu_and_piv
    return _lu_recorded(ctx, lu, piv, b, *args, **kwargs)


# ------------------------------------------------------------------ inv, det, eigh


def _inv_vjp(u, ans, a, *args, **kwargs):
    opts = _opts(("overwrite_a", "check_finite"), args, kwargs)
    assume_a, lower = opts.get("assume_a"), opts.get("lower", False)
    if assume_a == "diagonal":  # SciPy inverts the diagonal, and may leave the rest of a in place
        eye = np.eye(_shape(a)[-1])
        kept = np.any(primal(ans) * (1 - eye) != 0)
        return (u * (1 - eye) if kept else 0) - u * eye * (ans * ans)
    return _read_adjoint(-(mT(ans) @ u @ mT(ans)), a, assume_a, lower)


defvjp(sl.inv, _inv_vjp, ND)
defvjp(sl.det, lambda u, ans, a, *args, **kwargs: inv_transposed(u * ans, a), ND)


def _eigh_lower(kwargs):
    return kwargs.get("lower", True)


def _sl_eigh_plan(a, b=None, **kwargs):
    if b is not None or kwargs.get("subset_by_index") is not None or kwargs.get("subset_by_value") is not None:
        raise NoRuleError("scipy.linalg.eigh with b or a subset has no reverse-mode rule; use ad.ForwardMode()")

    def values(u, res, a, *args, **kwargs):
        if kwargs.get("eigvals_only", False):
            w, v = sl.eigh(a, lower=_eigh_lower(kwargs))
            return _eigvals_cotangent(u, w, v, _eigh_lower(kwargs))
        return _eigvals_cotangent(u, res[0], res[1], _eigh_lower(kwargs))

    def vectors(u, res, a, *args, **kwargs):
        return _eigvecs_cotangent(u, res[0], res[1], _eigh_lower(kwargs))

    return (values,) if kwargs.get("eigvals_only", False) else [(values,), (vectors,)]


tuple_rule(sl.eigh, _sl_eigh_plan, "scipy.linalg.eigh")


_EIG_OPTIONS = ("b", "left", "right", "overwrite_a", "overwrite_b", "check_finite", "homogeneous_eigvals")


def _sl_eig_plan(a, *args, **kwargs):
    """``eig`` as ``numpy.linalg.eig`` (its eigenvalues complex even when real); ``right=False`` and
    ``eigvals`` as ``numpy.linalg.eigvals`` (the eigenvalues matched to eig's order)."""
    opts = _opts(_EIG_OPTIONS, args, kwargs)
    if opts.get("b") is not None or opts.get("left", False) or opts.get("homogeneous_eigvals", False):
        raise NoRuleError("scipy.linalg.eig with b, left=True or homogeneous_eigvals has no reverse-mode rule; "
                          "use ad.ForwardMode()")
    if not opts.get("right", True):
        return (eigvals_vjp,)
    return [(eig_values_vjp,), (eig_vectors_vjp,)]


def _sl_eigvals_plan(a, *args, **kwargs):
    opts = _opts(_EIG_OPTIONS[:1] + _EIG_OPTIONS[3:], args, kwargs)
    if opts.get("b") is not None or opts.get("homogeneous_eigvals", False):
        raise NoRuleError("scipy.linalg.eigvals with b or homogeneous_eigvals has no reverse-mode rule; "
                          "use ad.ForwardMode()")
    return (eigvals_vjp,)


tuple_rule(sl.eig, _sl_eig_plan, "scipy.linalg.eig")
tuple_rule(sl.eigvals, _sl_eigvals_plan, "scipy.linalg.eigvals")


# ------------------------------------------------------------------ matrix functions


def _expm_vjp(u, ans, a):
    if np.ndim(primal(a)) < 2:
        return np.reshape(u * ans, _shape(a))
    return _by_blocks(sl.expm, mT(a), u, ans)


def _logm_vjp(u, ans, a):
    if np.ndim(primal(a)) < 2:
        raise NoRuleError("scipy.linalg.logm of a scalar: use np.log")
    return _by_blocks(sl.logm, mT(a), u, ans)


defvjp(sl.expm, _expm_vjp)
defvjp(sl.logm, _logm_vjp)
defvjp(sl.sqrtm, lambda u, ans, a: sl.solve_sylvester(mT(ans), mT(ans), u))


def _sylvester_q(u, x, a, b):
    return sl.solve_sylvester(mT(a), mT(b), u)  # the adjoint equation a^T z + z b^T = u


defvjp(sl.solve_sylvester,
       lambda u, x, a, b, q: unbroadcast(-(_sylvester_q(u, x, a, b) @ mT(x)), a),
       lambda u, x, a, b, q: unbroadcast(-(mT(x) @ _sylvester_q(u, x, a, b)), b),
       lambda u, x, a, b, q: unbroadcast(_sylvester_q(u, x, a, b), q))


def _continuous_a(u, x, a, q):
    z = sl.solve_continuous_lyapunov(mT(a), u)  # a x + x a^H = q (the transposed equation has a^T)
    second = mT(z) @ x  # (from x da^H: conjugate-linear in a)
    return unbroadcast(-(z @ mT(x) + (np.conjugate(second) if np.iscomplexobj(primal(a)) else second)), a)


defvjp(sl.solve_continuous_lyapunov, _continuous_a,
       lambda u, x, a, q: unbroadcast(sl.solve_continuous_lyapunov(mT(a), u), q))


def _discrete_a(u, x, a, q, *args, **kwargs):
    z = sl.solve_discrete_lyapunov(mT(a), u, *args, **kwargs)  # a x a^H - x + q = 0
    if np.iscomplexobj(primal(a)):  # da x a^H + a x da^H: the second conjugate-linear in a
        return unbroadcast(z @ np.conjugate(a) @ mT(x) + np.conjugate(mT(z) @ a @ x), a)
    return unbroadcast(z @ a @ mT(x) + mT(z) @ a @ x, a)


defvjp(sl.solve_discrete_lyapunov, _discrete_a,
       lambda u, x, a, q, *args, **kwargs: unbroadcast(sl.solve_discrete_lyapunov(mT(a), u, *args, **kwargs), q),
       ND)
