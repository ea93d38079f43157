"""Reverse-mode rules for ``numpy.linalg.svd``, ``svdvals``, ``qr`` and ``cond`` (stacks of matrices
too), and ``singular_value_norm_cotangent`` for the matrix norms ``'nuc'``, 2 and -2.

The transposes of the forward rules (``decompositions.py``), with their conventions: singular
values distinct (the vectors' cotangents divide by ``s_j^2 - s_i^2``; a tie gives inf/nan) and
nonzero where ``m != n`` or the vectors are wanted; signs of vectors fixed as NumPy returns them
(complex vectors: forward mode's gauge, transposed);
``full_matrices=True`` with ``m != n``: the complement's basis is not rotated within itself.
``svd(hermitian=True)`` reads the lower triangle. ``qr`` needs the leading ``min(m, n)`` columns
independent; ``mode='raw'`` raises NoRuleError. ``cond``: ``p`` None, 2, -2 through the extreme
singular values (distinct); the other ``p`` through ``norm(x) norm(inv(x))`` (ties of the 1- and
inf-norms: the first column or row, as argmax). ``qr`` and ``cond`` hold for complex
values too (``vjps_complex``); the others are real-only (reverse mode's rule).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import defvjp
from .special import conjugate_sign
from .vjps_linalg import _as_matrix, mH, mT, right_solve, triangle_adjoint, tuple_rule


def _shape(x):
    return np.shape(primal(x))


# ------------------------------------------------------------------ svd


def _reduced(a, hermitian=False):
    return np.linalg.svd(a, full_matrices=False, hermitian=hermitian)


def _gaps(s):
    """``1 / (s_j^2 - s_i^2)`` off the diagonal, 0 on it."""
    eye = np.eye(_shape(s)[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1 - eye) / (s[..., None, :] ** 2 - s[..., :, None] ** 2 + eye)


def _s_cotangent(sbar, u, vh):
    k = _shape(sbar)[-1]
    g = (u[..., :, :k] * sbar[..., None, :]) @ vh[..., :k, :]
    # a singular value moves by Re(u_i^H da v_i): for complex values the cotangent is conj(u_i v_i^H)
    return np.conjugate(g) if np.iscomplexobj(primal(g)) else g


def _conjugated(adjoint):
    """``adjoint`` (written for the pairing ``Re(sum(conj(u) * t))``, with conjugate transposes) for
    reverse mode's ``Re(sum(u * t))``: conjugate the cotangent going in and the one coming out."""
    def bilinear(ubar, u, s, vh):
        if not np.iscomplexobj(primal(u)):
            return adjoint(ubar, u, s, vh, mT)
        return np.conjugate(adjoint(np.conjugate(ubar), u, s, vh, mH))

    return bilinear


def _u_adjoint(ubar, u, s, vh, h):
    """The transpose of forward mode's ``dU`` (``h``: ``mH`` for complex values, where the phases'
    change that forward mode puts in U adds ``1j Im(diag(U^H ubar)) / s``; else ``mT``)."""
    m, k = _shape(u)[-2], _shape(s)[-1]
    u1, v1h, row = u[..., :, :k], vh[..., :k, :], s[..., None, :]
    ubar1 = ubar[..., :, :k]
    omega = h(u1) @ ubar1
    b = _gaps(s) * omega
    dbar = (b + h(b)) * row
    if h is mH:
        dbar = dbar + np.eye(k) * (1j * np.imag(np.diagonal(omega, axis1=-2, axis2=-1)) / s)[..., None, :]
    g = u1 @ dbar @ v1h
    if m > k:
        g = g + ((ubar1 - u1 @ (h(u1) @ ubar1)) / row) @ v1h
        if _shape(u)[-1] > k:  # full_matrices: the complement's columns
            g = g - u[..., :, k:] @ ((h(ubar[..., :, k:]) @ u1) / row) @ v1h
    return g


def _vh_adjoint(vhbar, u, s, vh, h):
    """The transpose of forward mode's ``dVh`` (``h`` as for ``_u_adjoint``)."""
    n, k = _shape(vh)[-1], _shape(s)[-1]
    u1, v1, col = u[..., :, :k], h(vh[..., :k, :]), s[..., :, None]
    vbar = h(vhbar)
    vbar1 = vbar[..., :, :k]
    b = _gaps(s) * (h(v1) @ vbar1)
    g = u1 @ (col * (b + h(b))) @ h(v1)
    if n > k:
        g = g + (u1 / s[..., None, :]) @ h(vbar1 - v1 @ (h(v1) @ vbar1))
        if _shape(vh)[-2] > k:
            g = g - (u1 / s[..., None, :]) @ (h(v1) @ vbar[..., :, k:]) @ vh[..., k:, :]
    return g


_u_cotangent, _vh_cotangent = _conjugated(_u_adjoint), _conjugated(_vh_adjoint)


def _svd_options(args, kwargs):
    names = ("full_matrices", "compute_uv", "hermitian")
    opts = dict(zip(names, args))
    opts.update(kwargs)
    return opts.get("full_matrices", True), opts.get("compute_uv", True), opts.get("hermitian", False)


def _read(g, hermitian):
    return triangle_adjoint(g, True) if hermitian else g


def _svd_part(which):
    def vjp(u, res, a, *args, **kwargs):
        _, _, hermitian = _svd_options(args, kwargs)
        return _read(which(u, res[0], res[1], res[2]), hermitian)

    return vjp


def _svdvals_vjp(u, res, a, *args, **kwargs):
    _, _, hermitian = _svd_options(args, kwargs)
    uu, _, vh = _reduced(a, hermitian)
    return _read(_s_cotangent(u, uu, vh), hermitian)


def _svd_plan(a, *args, **kwargs):
    _, compute_uv, _ = _svd_options(args, kwargs)
    if not compute_uv:
        return (_svdvals_vjp,)
    return [(_svd_part(_u_cotangent),),
            (_svd_part(lambda sbar, u, s, vh: _s_cotangent(sbar, u, vh)),),
            (_svd_part(_vh_cotangent),)]


tuple_rule(np.linalg.svd, _svd_plan)
tuple_rule(np.linalg.svdvals, lambda a: (_svdvals_vjp,))


def singular_value_norm_cotangent(u, x, ord):
    """The cotangent of ``x`` (stacks of matrices on the last two axes) for the cotangent ``u`` (one per
    matrix) of its ``ord`` (``'nuc'``, 2, -2) norm: ``u U V^T``, or ``u u_i v_i^T`` for the largest
    (smallest) singular value. For ``numpy.linalg.norm``'s rule; move the axes there first."""
    uu, _, vh = _reduced(x)
    if ord == "nuc":
        p = uu @ vh
    elif ord in (2, -2):
        i = 0 if ord == 2 else -1
        p = uu[..., :, i, None] * vh[..., None, i, :]
    else:
        raise ValueError("singular_value_norm_cotangent: ord must be 'nuc', 2 or -2, not %r" % (ord,))
    return np.reshape(u, np.shape(primal(u)) + (1, 1)) * p


# ------------------------------------------------------------------ qr


def _qr_square_part(q, r, qbar, rbar):
    """The cotangent of ``a = q r`` (``q`` m x n orthonormal columns, ``r`` n x n upper, invertible).

    With the pairing ``Re(sum(u * t))``, complex factors change three things from the real
    rule: ``conj(q)`` where ``q`` multiplies the result, ``w^H`` for ``w^T`` where the
    antihermitian ``q^H dq`` is built from its strict lower triangle, and the imaginary part
    of its diagonal, which the forward rule sets so that R's diagonal stays real.
    """
    k = _shape(r)[-1]
    cplx = np.iscomplexobj(primal(q))
    low = np.tri(k, k=-1)
    omega = 0  # the cotangent of q^H dq
    cbar, rest = 0, 0
    if qbar is not None:
        b = mT(q) @ qbar
        omega, cbar, rest = b, -b, qbar
    if rbar is not None:
        c = rbar @ mT(r)
        omega, cbar = omega - c, cbar + c
    cbar = cbar + (omega - (mH(omega) if cplx else mT(omega))) * low
    if cplx:
        cbar = cbar + 1j * np.imag(omega) * np.eye(k)
    return right_solve(rest + (np.conj(q) if cplx else q) @ cbar, mT(r))


def qr_cotangent(a, q, r, qbar, rbar):
    """The cotangent of ``a`` for the cotangents ``qbar`` and ``rbar`` (None for none) of its QR
    factors (reduced or complete ``q``), real or complex."""
    m, n = _shape(a)[-2:]
    cplx = np.iscomplexobj(primal(q))
    conj = np.conj if cplx else (lambda x: x)
    if m < n:  # a = q [r1 r2]: r2 = q^H a2
        rbar1, rbar2 = (None, None) if rbar is None else (rbar[..., :m], rbar[..., m:])
        if rbar2 is not None:
            extra = conj(a[..., m:] @ mT(rbar2))  # (dq^H a2 is conjugate-linear in dq)
            qbar = extra if qbar is None else qbar + extra
        g1 = _qr_square_part(q, r[..., :m], qbar, rbar1)
        g2 = np.zeros(_shape(a)[:-2] + (m, n - m)) if rbar2 is None else conj(q) @ rbar2
        return np.concatenate([g1, np.broadcast_to(g2, _shape(g1)[:-1] + (n - m,))], axis=-1)
    q1, r1 = q[..., :, :n], r[..., :n, :]
    g = _qr_square_part(q1, r1, None if qbar is None else qbar[..., :, :n], None if rbar is None else rbar[..., :n, :])
    if qbar is not None and _shape(q)[-1] > n:  # complete: the complement's columns
        rest = mH(qbar[..., :, n:]) @ conj(q1) if cplx else mT(qbar[..., :, n:]) @ q1
        g = g - right_solve(conj(q[..., :, n:]) @ rest, mT(r1))
    return g


def _qr_mode(args, kwargs):
    mode = args[0] if args else kwargs.get("mode", "reduced")
    if mode not in ("reduced", "complete", "r"):
        raise NoRuleError("numpy.linalg.qr with mode=%r has no reverse-mode rule; use 'reduced', 'complete' or 'r'"
                          % (mode,))
    return mode


def _qr_q(u, res, a, *args, **kwargs):
    return qr_cotangent(a, res[0], res[1], u, None)


def _qr_r(u, res, a, *args, **kwargs):
    if _qr_mode(args, kwargs) == "r":
        return qr_cotangent(a, np.linalg.qr(a)[0], res, None, u)
    return qr_cotangent(a, res[0], res[1], None, u)


def _qr_plan(a, *args, **kwargs):
    if _qr_mode(args, kwargs) == "r":
        return (_qr_r,)
    return [(_qr_q,), (_qr_r,)]


tuple_rule(np.linalg.qr, _qr_plan)


# ------------------------------------------------------------------ cond


def _norm_cotangent(x, p):
    """The cotangent of ``norm(x, p)`` (``'fro'``, ``'nuc'``, 1, -1, inf, -inf; per matrix) for 1:
    the conjugate of the real formula's for complex ``x`` (a real norm pairs with ``Re(u * dx)``)."""
    cplx = np.iscomplexobj(primal(x))
    if p == "fro":
        return (np.conj(x) if cplx else x) / _as_matrix(np.linalg.norm(x, "fro", axis=(-2, -1)), _shape(x)[:-2])
    if p == "nuc":
        uu, _, vh = np.linalg.svd(x, full_matrices=False)
        return np.conj(uu @ vh) if cplx else uu @ vh
    axis = -2 if p in (1, -1) else -1  # 1: the largest column sum; inf: the largest row sum
    sums = np.sum(np.abs(primal(x)), axis=axis)
    pick = np.argmax(sums, axis=-1) if p in (1, np.inf) else np.argmin(sums, axis=-1)
    mask = (np.arange(np.shape(sums)[-1]) == pick[..., None]).astype(float)
    return (conjugate_sign(x) if cplx else np.sign(x)) * np.expand_dims(mask, axis)


def _cond_vjp(u, ans, x, p=None):
    lead_shape = _shape(x)[:-2]
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        uu, s, vh = np.linalg.svd(x, full_matrices=False)
        hi, lo = s[..., 0], s[..., -1]
        dhi = uu[..., :, :1] @ vh[..., :1, :]  # (conj(u_i v_i^H) for complex x: a singular value is real)
        dlo = uu[..., :, -1:] @ vh[..., -1:, :]
        if np.iscomplexobj(primal(x)):
            dhi, dlo = np.conj(dhi), np.conj(dlo)
        if p == -2:
            hi, lo, dhi, dlo = lo, hi, dlo, dhi
        return _as_matrix(u / lo, lead_shape) * dhi - _as_matrix(u * hi / (lo * lo), lead_shape) * dlo
    if not (p in ("fro", "nuc") or p in (1, -1, np.inf, -np.inf)):
        raise NoRuleError("numpy.linalg.cond with p=%r has no reverse-mode rule" % (p,))
    b = np.linalg.inv(x)  # (holomorphic: its adjoint needs no conjugate)
    nx, nb = np.linalg.norm(x, p, axis=(-2, -1)), np.linalg.norm(b, p, axis=(-2, -1))
    gx, gb = _norm_cotangent(x, p), _norm_cotangent(b, p)
    return _as_matrix(u * nb, lead_shape) * gx - _as_matrix(u * nx, lead_shape) * (mT(b) @ gb @ mT(b))


defvjp(np.linalg.cond, _cond_vjp, NOT_DIFFERENTIABLE)
