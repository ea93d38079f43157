"""Reverse-mode rules for ``numpy.linalg``: ``solve``, ``inv``, ``det``, ``slogdet``, ``cholesky``,
``eigh``, ``eigvalsh``, ``pinv``, ``lstsq``, ``matrix_power`` and ``multi_dot`` here; ``svd``,
``svdvals``, ``qr`` and ``cond`` in ``vjps_decompositions``. Stacks of matrices broadcast.

Conventions are the forward rules' (``linalg.py``), transposed:

* ``cholesky``, ``eigh``, ``eigvalsh`` read one triangle (lower; upper for ``upper=True`` /
  ``UPLO='U'``): the cotangent lives on that triangle, the other one gets zero.
* ``eigh``'s eigenvectors assume distinct eigenvalues (a tie gives inf/nan), their signs fixed
  as NumPy returns them. ``slogdet``'s sign of a real matrix, ``lstsq``'s rank: no derivative.
* ``pinv``: the rank held fixed (for complex values, the terms in ``dA^H`` are conjugated). ``lstsq``:
  one matrix of full rank (NoRuleError otherwise).

Functions returning tuples (``slogdet``, ``eigh``, ``lstsq``, ``svd``, ``qr``) are primitives
(``tuple_rule``) giving each output its own node, whose pullback reaches the inputs; arguments
other than the matrices (``UPLO``, ``rcond``, ``n``, ``p``) must be constants (NoRuleError).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools

import numpy as np

from context.tagging import enclosing_call, native_primitive
from context.tagging.values import primal

from ..engine import reverse_writes
from ..engine.forward import NOT_DIFFERENTIABLE, NoRuleError
from ..engine.reverse import Node, ReverseCtx, _no_traced_keywords, defvjp, make_traced, split
from .pullbacks import _detached, from_vjp, unbroadcast
from .vjps import _parts

ND = NOT_DIFFERENTIABLE


def _shape(x):
    return np.shape(primal(x))


def mT(x):
    return np.swapaxes(x, -1, -2)


def mH(x):
    """The conjugate transpose (of the last two axes)."""
    return np.conjugate(mT(x))


def right_solve(x, r):
    """``x r^-1`` (stacks broadcast)."""
    return mT(np.linalg.solve(mT(r), mT(x)))


def triangle_adjoint(s, lower):
    """The adjoint of ``g -> `` the symmetric matrix read from ``g``'s ``lower`` (else upper) triangle:
    ``s + s^T`` on the strict triangle read, ``s``'s diagonal, zero on the other triangle. For a
    complex ``s``, the Hermitian matrix read (its diagonal's imaginary part ignored, as LAPACK does):
    ``s + s^H`` on the strict triangle, the real part of the diagonal."""
    m = _shape(s)[-1]
    strict = np.tri(m, k=-1) if lower else np.tri(m, k=-1).T
    if np.iscomplexobj(primal(s)):
        return (s + mH(s)) * strict + np.real(s) * np.eye(m)
    return (s + mT(s)) * strict + s * np.eye(m)


def _as_matrix(u, shape):
    """``u`` (the cotangent of one number per matrix of a stack) with two unit axes for broadcasting."""
    return np.reshape(u, tuple(shape) + (1, 1))


# ------------------------------------------------------------------ primitives returning tuples


def _traced(ctx, value, res, primals, kwargs, nodes, vjps, saves):
    """``value`` (one output of ``res``) tagged with a node whose pullbacks are ``vjps`` (per argument)."""
    if vjps is None or np.result_type(primal(value)).kind not in "fc":
        return value
    parents = []
    for i, (node, vjp) in enumerate(zip(nodes, vjps)):
        if node is not None and vjp is not None:
            pull = from_vjp(vjp)(res, primals, kwargs, i)
            reverse_writes.save(ctx, pull, saves)
            parents.append((node, pull))
    return make_traced(value, ctx._tag, Node(tuple(parents))) if parents else value


def tuple_rule(fn, plan, name=None):
    """Register a primitive for ``fn``: ``plan(*args, **kwargs)`` (primal values) checks the options
    (NoRuleError) and gives the pullbacks: ``(vjp_0, vjp_1, ...)`` per argument for a result that is
    one array, or a list of those per output of a tuple result (None for an output without one).
    ``vjp_i(u, res, *args, **kwargs)`` gets the output's cotangent and the whole result."""
    name = name or "numpy.linalg." + fn.__name__

    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        _no_traced_keywords(fn, ctx, kwargs)
        primals, nodes, found = split(ctx, args)
        if not found:
            return enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
        table = plan(*primals, **kwargs)
        single = not isinstance(table, list)
        width = max(len(v) for v in ([table] if single else table) if v is not None)
        for i, node in enumerate(nodes):
            if node is not None and i >= width:
                raise NoRuleError("%s: argument %d carries a derivative; make it a constant" % (name, i + 1))
        res = enclosing_call(ctx._tag, fn, tuple(primals), kwargs)
        saves = [p for p in primals if type(p) is np.ndarray]
        if single:
            return _traced(ctx, res, res, primals, kwargs, nodes, table, saves)
        outs = [_traced(ctx, v, res, primals, kwargs, nodes, vjps, saves) for v, vjps in zip(res, table)]
        return type(res)._make(outs) if hasattr(type(res), "_fields") else type(res)(outs)

    primitive.__qualname__ = primitive.__name__ = "vjp rule of %s" % name
    return primitive


# ------------------------------------------------------------------ solve, inv, det, slogdet


def _solve_parts(u, ans, a, b):
    """``(b's cotangent, x)`` as stacks of matrices (a vector ``b`` as a column), and whether ``b`` is one."""
    vector = np.ndim(primal(b)) == 1
    um, xm = (u[..., None], ans[..., None]) if vector else (u, ans)
    return np.linalg.solve(mT(a), um), xm, vector


def _solve_a(u, ans, a, b):
    gb, xm, _ = _solve_parts(u, ans, a, b)
    return unbroadcast(-(gb @ mT(xm)), a)


def _solve_b(u, ans, a, b):
    gb, _, vector = _solve_parts(u, ans, a, b)
    return unbroadcast(gb[..., 0] if vector else gb, b)


defvjp(np.linalg.solve, _solve_a, _solve_b)
defvjp(np.linalg.inv, lambda u, ans, a: -(mT(ans) @ u @ mT(ans)))


def inv_transposed(u, a):
    """``u`` (one number per matrix) times ``a^-T``: the cotangent of ``log|det a|``."""
    return _as_matrix(u, _shape(a)[:-2]) * mT(np.linalg.inv(a))


defvjp(np.linalg.det, lambda u, ans, a: inv_transposed(u * ans, a))
def _slogdet_plan(a):
    """The sign of a real matrix's determinant is constant; of a complex one it is ``exp(i Im(log det))``,
    whose cotangent is ``i Im(u sign) a^-T`` (``log|det|``'s is ``u a^-T``)."""
    sign = None
    if np.iscomplexobj(primal(a)):
        sign = (lambda u, res, a: inv_transposed(1j * np.imag(u * res[0]), a),)
    return [sign, (lambda u, res, a: inv_transposed(u, a),)]


tuple_rule(np.linalg.slogdet, _slogdet_plan)


# ------------------------------------------------------------------ cholesky, eigh


def cholesky_adjoint(lbar, low, lower):
    """The cotangent of the array ``cholesky`` reads (its ``lower`` or upper triangle) for the
    cotangent ``lbar`` of the lower factor ``low``: ``L^-T Phi(L^T Lbar) L^-1``, then the triangle."""
    m = _shape(low)[-1]
    p = mT(low) @ lbar
    phi = p * np.tri(m, k=-1) + p * (0.5 * np.eye(m))
    if np.iscomplexobj(primal(low)) or np.iscomplexobj(primal(lbar)):
        # a = L L^H: L^-T phi conj(L)^-1, and the Hermitian part (the pairing Re(sum(u * t)) transposes)
        s = np.linalg.solve(mT(low), mT(np.linalg.solve(mH(low), mT(phi))))
        return triangle_adjoint(0.5 * (s + mH(s)), lower)
    s = np.linalg.solve(mT(low), mT(np.linalg.solve(mT(low), mT(phi))))  # L^-T phi L^-1
    return triangle_adjoint(0.5 * (s + mT(s)), lower)


def _cholesky_vjp(u, ans, a, upper=False):
    if upper:  # U = L^H: for complex values, conjugate-linear in L
        if np.iscomplexobj(primal(ans)):
            return cholesky_adjoint(mH(u), mH(ans), False)
        return cholesky_adjoint(mT(u), mT(ans), False)
    return cholesky_adjoint(u, ans, True)


defvjp(np.linalg.cholesky, _cholesky_vjp)


def _uplo(args, kwargs):
    uplo = args[0] if args else kwargs.get("UPLO", "L")
    return uplo.upper() == "L"


def _eigvals_cotangent(u, w, v, lower):
    # an eigenvalue moves by v_i^H dA v_i: the cotangent of the matrix read is conj(V) diag(u) V^T
    left = np.conjugate(v) if np.iscomplexobj(primal(v)) else v
    return triangle_adjoint((left * u[..., None, :]) @ mT(v), lower)


def _eigvecs_cotangent(u, w, v, lower):
    """The transpose of forward mode's ``dV = V (F * V^H dA V)`` (``F = 1 / (w_j - w_i)`` off the
    diagonal: a complex eigenvector's phase is left unchanged, as forward mode leaves it):
    ``conj(V) (F * V^T u) V^T``, for the triangle read."""
    eye = np.eye(_shape(w)[-1])
    f = (1 - eye) / (w[..., None, :] - w[..., :, None] + eye)  # 1 / (w_j - w_i) off the diagonal
    left = np.conjugate(v) if np.iscomplexobj(primal(v)) else v
    return triangle_adjoint(left @ (f * (mT(v) @ u)) @ mT(v), lower)


def _eigh_plan(a, *args, **kwargs):
    return [(lambda u, res, a, *args, **kwargs: _eigvals_cotangent(u, res[0], res[1], _uplo(args, kwargs)),),
            (lambda u, res, a, *args, **kwargs: _eigvecs_cotangent(u, res[0], res[1], _uplo(args, kwargs)),)]


def _eigvalsh_vjp(u, ans, a, *args, **kwargs):
    lower = _uplo(args, kwargs)
    w, v = np.linalg.eigh(a, "L" if lower else "U")
    return _eigvals_cotangent(u, w, v, lower)


def eig_values_vjp(u, res, a, *args, **kwargs):
    """``eig``'s eigenvalues: ``dw = diag(V^-1 dA V)``, so the cotangent of ``a`` is ``V^-T diag(u) V^T``
    (holomorphic where the eigenvalues are distinct). ``res``: ``(w, v)``."""
    v = res[1]
    return np.linalg.solve(mT(v), u[..., :, None] * mT(v))


def eig_vectors_vjp(u, res, a, *args, **kwargs):
    """The transpose of forward mode's eigenvector tangent (``decompositions.eig_tangent``), step by
    step from its last: the largest-modulus component kept real (complex vectors), unit length kept,
    ``dV = V (F * M)`` with ``F = 1 / (w_j - w_i)`` off the diagonal and ``M = V^-1 dA V``."""
    w, v = res
    cplx = np.iscomplexobj(primal(v))
    if cplx:
        n = _shape(v)[-1]
        k = np.argmax(np.abs(primal(v)), axis=-2)
        pick = (np.arange(n)[:, None] == k[..., None, :]).astype(float)
        vk = np.sum(v * pick, axis=-2, keepdims=True)
        s = np.sum(u * v, axis=-2, keepdims=True)
        u = u - pick * (1j * np.imag(s) / vk)
    q = np.sum(u * v, axis=-2, keepdims=True)
    u = u - (np.conjugate(v) if cplx else v) * np.real(q)
    eye = np.eye(_shape(w)[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (1 - eye) / (w[..., None, :] - w[..., :, None] + eye)
    mbar = f * (mT(v) @ u)
    return np.linalg.solve(mT(v), mbar @ mT(v))


def eigvals_vjp(u, ans, a, *args, **kwargs):
    """``eigvals``: ``u`` put in ``eig``'s order (forward mode matches them the same way), then as
    ``eig``'s eigenvalues."""
    w, v = np.linalg.eig(a)
    n = _shape(w)[-1]
    nearest = np.argmin(np.abs(np.asarray(primal(ans))[..., :, None] - np.asarray(primal(w))[..., None, :]), axis=-1)
    pick = (nearest[..., :, None] == np.arange(n)).astype(float)
    return eig_values_vjp((mT(pick) @ u[..., :, None])[..., 0], (w, v), a)


tuple_rule(np.linalg.eigh, _eigh_plan)
tuple_rule(np.linalg.eig, lambda a: [(eig_values_vjp,), (eig_vectors_vjp,)])
defvjp(np.linalg.eigvalsh, _eigvalsh_vjp, ND)
defvjp(np.linalg.eigvals, eigvals_vjp)


# ------------------------------------------------------------------ pinv, lstsq


def pinv_adjoint(a, p, pbar):
    """The cotangent of ``a`` for the cotangent ``pbar`` of ``p = pinv(a)``, the rank held fixed
    (the transpose of Golub and Pereyra's formula; terms vanishing at full rank left out, as forward)."""
    rows, cols = _shape(a)[-2:]
    rank = np.linalg.matrix_rank(primal(a))
    out = -(mT(p) @ pbar @ mT(p))
    # the other terms hold dA^H: for complex values their cotangents are conjugated (pairing Re(sum(u * t)))
    complex_ = np.iscomplexobj(primal(p)) or np.iscomplexobj(primal(pbar))
    h = mH if complex_ else mT
    conj = np.conjugate if complex_ else (lambda m: m)
    if not bool(np.all(rank == rows)):
        out = out + conj((np.eye(rows) - a @ p) @ mT(pbar) @ (p @ h(p)))
    if not bool(np.all(rank == cols)):
        out = out + conj((h(p) @ p) @ mT(pbar) @ (np.eye(cols) - p @ a))
    return out


defvjp(np.linalg.pinv, lambda u, ans, a, *args, **kwargs: pinv_adjoint(a, ans, u), ND)


def _lstsq_x(i):
    def vjp(u, res, a, b, *args, **kwargs):
        p = np.linalg.pinv(a)
        vector = np.ndim(primal(b)) == 1
        um, bm = (u[:, None], b[:, None]) if vector else (u, b)
        if i == 1:
            return mT(p) @ u
        return pinv_adjoint(a, p, um @ mT(bm))

    return vjp


def _lstsq_residuals(i):
    def vjp(u, res, a, b, *args, **kwargs):
        vector = np.ndim(primal(b)) == 1
        xm, bm = (res[0][:, None], b[:, None]) if vector else (res[0], b)
        r = 2 * (bm - a @ xm) * u  # the cotangent of b - a x (x's change does not count: a^T r = 0)
        if np.iscomplexobj(primal(r)):  # |r|^2 moves by 2 Re(conj(r) dr)
            r = np.conjugate(r)
        return (r[:, 0] if vector else r) if i == 1 else -(r @ mT(xm))

    return vjp


def _lstsq_s(u, res, a, b, *args, **kwargs):
    uu, _, vh = np.linalg.svd(a, full_matrices=False)
    g = (uu * u) @ vh
    return np.conjugate(g) if np.iscomplexobj(primal(g)) else g  # (conj(u_i v_i^H) for complex values)


def _lstsq_plan(a, b, *args, **kwargs):
    m, n = _shape(a)
    rank = np.linalg.matrix_rank(primal(a))
    if rank < min(m, n):
        raise NoRuleError(
            "numpy.linalg.lstsq of a rank-deficient matrix being differentiated (rank %d of %s): the solution "
            "does not depend smoothly on it; regularize the problem" % (rank, (m, n)))
    residuals = (_lstsq_residuals(0), _lstsq_residuals(1)) if m > n else None
    return [(_lstsq_x(0), _lstsq_x(1)), residuals, None, (_lstsq_s, None)]


tuple_rule(np.linalg.lstsq, _lstsq_plan)


# ------------------------------------------------------------------ matrix_power, multi_dot


def _power_adjoint(u, b, p):
    """The cotangent of ``b`` for the cotangent ``u`` of ``b^p`` (p >= 1): sum of ``(b^T)^k u (b^T)^(p-1-k)``."""
    powers = [None, b]
    for _ in range(2, p):
        powers.append(powers[-1] @ b)
    out = None
    for k in range(p):
        term = u if k == 0 else mT(powers[k]) @ u
        if p - 1 - k:
            term = term @ mT(powers[p - 1 - k])
        out = term if out is None else out + term
    return out


def _matrix_power_vjp(u, ans, a, n):
    p = int(n)
    if p == 0:
        return np.zeros(_shape(a))
    if p > 0:
        return _power_adjoint(u, a, p)
    b = np.linalg.inv(a)
    bbar = u if p == -1 else _power_adjoint(u, b, -p)
    return -(mT(b) @ bbar @ mT(b))


defvjp(np.linalg.matrix_power, _matrix_power_vjp, ND)


class _MultiDotPart:
    """The pullback of part ``i`` of ``multi_dot(arrays)``: ``(left)^T u (right)^T``, reshaped."""

    __slots__ = ("arrays", "i")

    def __init__(self, arrays, i):
        self.arrays, self.i = arrays, i

    def detach(self, root, below=None):
        self.arrays = _detached(self.arrays, root, below)

    def __call__(self, u):
        mats, i = list(self.arrays), self.i
        first, last = np.ndim(primal(mats[0])) == 1, np.ndim(primal(mats[-1])) == 1
        if first:
            mats[0] = mats[0][None, :]
        if last:
            mats[-1] = mats[-1][:, None]
        g = np.reshape(u, (_shape(mats[0])[0], _shape(mats[-1])[1]))
        if i:
            g = mT(functools.reduce(np.dot, mats[:i])) @ g
        if i < len(mats) - 1:
            g = g @ mT(functools.reduce(np.dot, mats[i + 1:]))
        return np.reshape(g, _shape(self.arrays[i]))


@ReverseCtx.primitive(np.linalg.multi_dot)
@native_primitive
def _multi_dot(ctx, arrays, **kwargs):
    if type(arrays) not in (list, tuple):
        primals, nodes, found = split(ctx, (arrays,))
        if found:
            raise NoRuleError("numpy.linalg.multi_dot of one array being differentiated: pass a list of arrays")
        return enclosing_call(ctx._tag, np.linalg.multi_dot, (arrays,), kwargs)
    primal_seq, found = _parts(ctx, arrays)
    if not found:
        return enclosing_call(ctx._tag, np.linalg.multi_dot, (arrays,), kwargs)
    if kwargs.get("out") is not None or any(len(index) > 1 for index, _ in found):
        raise NoRuleError("numpy.linalg.multi_dot with out= or nested lists of numbers has no reverse-mode rule")
    ans = enclosing_call(ctx._tag, np.linalg.multi_dot, (primal_seq,), kwargs)
    parents = []
    for (i,), node in found:
        pull = _MultiDotPart(primal_seq, i)
        reverse_writes.save(ctx, pull, primal_seq)
        parents.append((node, pull))
    return make_traced(ans, ctx._tag, Node(tuple(parents)))
