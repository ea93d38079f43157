"""Derivative rules for ``scipy.integrate.odeint``: forward sensitivities and the adjoint method.

``odeint(func, y0, t, args)`` is a native solver (LSODA) calling ``func`` back. Its solution
``Y[k] = y(t[k])`` depends on ``y0``, on the time points and on the arguments: along directions
``s0`` of ``y0`` and ``dp`` of the arguments, ``S = dY`` solves the sensitivity equations
``s' = J_y f(y, t, p) s + J_p f(y, t, p) dp`` with ``s(t[0]) = s0``, integrated beside ``y`` by
``odeint`` itself (the augmented system; the Jacobians of ``func`` come from ``ad.jacobian``
at each step). A time point moves its row by ``f(Y[k], t[k]) dt[k]``, and ``t[0]`` every later
row by ``-S`` along ``f(y0, t[0])`` (``Y[0]`` is ``y0`` whatever ``t[0]``).

Forward mode integrates one sensitivity per chunk direction. Reverse mode integrates the
adjoint equations ``a' = -a J_y``, ``a_p' = -a J_p`` backwards from the last time point to the
first, adding each row's cotangent as its time is passed (the adjoint method, as autograd's
rule): one backward pass whatever the number of inputs. Higher orders work as for any rule:
the rules' own ``odeint`` calls and Jacobians are differentiated by the enclosing
derivative, so every value it differentiates is passed to the solver as ``y0``, ``t`` or an
argument, never in a closure.

The public ``odeint`` binds its arguments, ravels the arguments being differentiated into
one vector and calls ``solve`` (``_odeint_flat``, whose rules these are) under the
derivative's context; ``full_output=True`` is refused while differentiating (the solver's
statistics have no derivative). The values are ``odeint``'s own: the solution comes from
the same call natively; ``Dfun``, ``col_deriv``, ``ml`` and ``mu`` (hints about ``func``'s
Jacobian) are left out of the augmented systems, whose Jacobian they do not describe.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import inspect

import numpy as np
import scipy.integrate as integrate

from context.base import Context
from context.tagging import Tagged, native_primitive
from context.tagging.dispatch import enclosing_call

from .. import api
from ..engine.forward import NOT_DIFFERENTIABLE, ForwardCtx, NoRuleError, defjvp
from ..engine.reverse import ReverseCtx, defvjp

_ODEINT = integrate.odeint
_SIGNATURE = inspect.signature(_ODEINT)
_JACOBIAN_HINTS = ("Dfun", "col_deriv", "ml", "mu")


class _Unflattened:
    """``func(y, t, *args)`` called as ``g(y, t, p)``: ``p`` holds the arguments being
    differentiated, raveled; the others are the constants kept here."""

    def __init__(self, func, layout, tfirst):
        self.func, self.layout, self.tfirst = func, layout, tfirst

    def __call__(self, y, t, p):
        args, start = [], 0
        for item in self.layout:
            if type(item) is tuple:  # (shape, size): a slice of p
                shape, size = item
                args.append(np.reshape(p[start:start + size], shape))
                start += size
            else:
                args.append(item[0])  # [constant]
        return self.func(t, y, *args) if self.tfirst else self.func(y, t, *args)


def _odeint_flat(g, y0, t, p, options):
    """``odeint`` of ``g(y, t, p)`` from ``y0`` at the times ``t`` (the rules' function)."""
    return _ODEINT(g, y0, t, args=(p,), **options)


class _Augmented:
    """The right-hand side of ``y`` and its ``m`` sensitivities ``S`` (``m x n``) for the
    directions ``dp`` (``m x q``) of ``p``: ``z = [y, S]``, ``ap = [p, dp]``."""

    def __init__(self, g, n, m, q):
        self.g, self.n, self.m, self.q = g, n, m, q

    def __call__(self, z, t, ap):
        n, m, q, g = self.n, self.m, self.q, self.g
        y, S = z[:n], np.reshape(z[n:], (m, n))
        p, dp = ap[:q], np.reshape(ap[q:], (m, q))
        J = api.jacobian(lambda v: g(v[:n], t, v[n:]), np.concatenate([y, p]))
        J = np.reshape(J, (n, n + q))
        dS = S @ J[:, :n].T + dp @ J[:, n:].T
        return np.concatenate([np.ravel(g(y, t, p)), np.ravel(dS)])


def _sensitivities(g, y0, t, p, options, s0, dp):
    """``S``, ``len(t) x m x n``: the solution's derivatives along ``s0`` (of ``y0``) and ``dp`` (of ``p``)."""
    n, m, q = np.shape(y0)[0], np.shape(s0)[0], np.shape(p)[0]
    z0 = np.concatenate([y0, np.ravel(s0)])
    ap = np.concatenate([p, np.ravel(dp)])
    Z = _odeint_flat(_Augmented(g, n, m, q), z0, t, ap, _without_hints(options))
    return np.reshape(Z[:, n:], (np.shape(t)[0], m, n))


def _without_hints(options):
    return {k: v for k, v in options.items() if k not in _JACOBIAN_HINTS}


def _directions(d, x):
    """``(lead, D)``: tangent ``d`` of ``x`` (with chunk axes ``lead``) as ``m`` rows of ``x``'s size."""
    lead = np.shape(d)[: np.ndim(d) - np.ndim(x)]
    return lead, np.reshape(d, (int(np.prod(lead)), np.size(x)))


def _as_tangent(S, lead):
    """``S`` (``T x m x n``) as a tangent of the solution with chunk axes ``lead``."""
    T, _, n = np.shape(S)
    return np.reshape(np.moveaxis(S, 1, 0), tuple(lead) + (T, n))


def _jvp_y0(d, ans, g, y0, t, p, options):
    lead, D = _directions(d, y0)
    return _as_tangent(_sensitivities(g, y0, t, p, options, D, np.zeros((np.shape(D)[0], np.size(p)))), lead)


def _jvp_p(d, ans, g, y0, t, p, options):
    lead, D = _directions(d, p)
    return _as_tangent(_sensitivities(g, y0, t, p, options, np.zeros((np.shape(D)[0], np.size(y0))), D), lead)


def _rates(g, ans, t, p):
    """``f(Y[k], t[k])`` for every row: ``len(t) x n``."""
    return np.stack([g(ans[k], t[k], p) for k in range(np.shape(t)[0])])


def _jvp_t(d, ans, g, y0, t, p, options):
    lead, D = _directions(d, t)  # m x T
    F = _rates(g, ans, t, p)
    moved = D[:, :, None] * F[None, :, :]  # each row along its own time's rate
    S = _sensitivities(g, y0, t, p, options, -D[:, 0:1] * F[0:1], np.zeros((np.shape(D)[0], np.size(p))))
    S = np.moveaxis(S, 1, 0)  # m x T x n: t[0] shifts the later rows
    first = np.zeros((np.shape(D)[0], 1, np.size(y0)))
    total = np.concatenate([first, S[:, 1:] + moved[:, 1:]], axis=1)
    return np.reshape(total, tuple(lead) + np.shape(ans))


def _rows(u, ans):
    """Cotangent ``u`` as ``M x T x n`` (its chunk axes, if any, in front) and those axes."""
    lead = np.shape(u)[: np.ndim(u) - 2]
    return np.reshape(u, (int(np.prod(lead)),) + np.shape(ans)), lead


class _Adjoint:
    """The right-hand side of ``y`` and the adjoints ``A`` (``M x n``) and ``Ap`` (``M x q``) of
    ``y`` and ``p``, integrated backwards: ``A' = -A J_y``, ``Ap' = -A J_p``."""

    def __init__(self, g, n, M, q):
        self.g, self.n, self.M, self.q = g, n, M, q

    def __call__(self, z, t, p):
        n, M, q, g = self.n, self.M, self.q, self.g
        y, A = z[:n], np.reshape(z[n:n + M * n], (M, n))
        J = np.reshape(api.jacobian(lambda v: g(v[:n], t, v[n:]), np.concatenate([y, p])), (n, n + q))
        return np.concatenate([np.ravel(g(y, t, p)), np.ravel(-(A @ J[:, :n])), np.ravel(-(A @ J[:, n:]))])


_LAST = [None, None]  # [the arguments of the last adjoint (kept alive: their ids stay theirs), its result]


def _adjoint(u, ans, g, y0, t, p, options):
    """``(lead, cotangent of y0, of t, of p)`` for the solution's cotangent ``u``: the adjoint
    equations integrated backwards from the last time point to the first, each row's cotangent
    added as its time is passed, and ``y`` restarted from the solution there. The three
    arguments' rules ask for it in turn with the same objects: it is computed once for them."""
    key = (u, ans, g, y0, t, p, options)
    last = _LAST[0]
    if last is not None and all(a is b for a, b in zip(key, last)):
        return _LAST[1]
    result = _adjoint_pass(u, ans, g, y0, t, p, options)
    _LAST[:] = [key, result]
    return result


def _adjoint_pass(u, ans, g, y0, t, p, options):
    U, lead = _rows(u, ans)
    M, T, n = np.shape(U)
    q = np.size(p)
    F = _rates(g, ans, t, p)
    later = np.sum(U[:, 1:] * F[None, 1:], axis=-1)  # t[k] moves row k alone: M x (T - 1)
    A, Ap = U[:, T - 1], np.zeros((M, q))
    backwards = {k: v for k, v in _without_hints(options).items() if k != "tcrit"}
    for k in range(T - 1, 0, -1):
        z0 = np.concatenate([ans[k], np.ravel(A), np.ravel(Ap)])
        z = _odeint_flat(_Adjoint(g, n, M, q), z0, np.stack([t[k], t[k - 1]]), p, backwards)[1]
        A = np.reshape(z[n:n + M * n], (M, n)) + U[:, k - 1]
        Ap = np.reshape(z[n + M * n:], (M, q))
    first = -np.sum((A - U[:, 0]) * F[0][None, :], axis=-1)  # t[0] moves every later row
    return lead, A, np.concatenate([first[:, None], later], axis=1), Ap


def _vjp_y0(u, ans, g, y0, t, p, options):
    lead, A, _, _ = _adjoint(u, ans, g, y0, t, p, options)
    return np.reshape(A, tuple(lead) + np.shape(y0))


def _vjp_t(u, ans, g, y0, t, p, options):
    lead, _, At, _ = _adjoint(u, ans, g, y0, t, p, options)
    return np.reshape(At, tuple(lead) + np.shape(t))


def _vjp_p(u, ans, g, y0, t, p, options):
    lead, _, _, Ap = _adjoint(u, ans, g, y0, t, p, options)
    return np.reshape(Ap, tuple(lead) + np.shape(p))


defjvp(_odeint_flat, NOT_DIFFERENTIABLE, _jvp_y0, _jvp_t, _jvp_p, NOT_DIFFERENTIABLE, elementwise=False)
defvjp(_odeint_flat, NOT_DIFFERENTIABLE, _vjp_y0, _vjp_t, _vjp_p, NOT_DIFFERENTIABLE)


def _solve(func, y0, t, layout, parts, tfirst, options):
    """``odeint`` with the arguments being differentiated (``parts``) raveled into one vector."""
    p = np.concatenate([np.ravel(a) for a in parts]) if parts else np.zeros(0)
    y0 = np.ravel(y0 if isinstance(y0, Tagged) else np.asarray(y0, dtype=float))
    t = t if isinstance(t, Tagged) else np.asarray(t, dtype=float)
    return _odeint_flat(_Unflattened(func, layout, tfirst), y0, t, p, options)


def _carries(x):
    return isinstance(x, Tagged) or (type(x) in (list, tuple) and any(_carries(v) for v in x))


def _odeint(ctx, *args, **kwargs):
    bound = _SIGNATURE.bind(*args, **kwargs)
    bound.apply_defaults()
    a = dict(bound.arguments)
    func, y0, t, extra = a.pop("func"), a.pop("y0"), a.pop("t"), a.pop("args")
    if not isinstance(extra, tuple):
        extra = (extra,)
    if not (_carries(y0) or _carries(t) or any(_carries(e) for e in extra)):
        return enclosing_call(ctx._tag, _ODEINT, args, kwargs)
    if a.pop("full_output"):
        raise NoRuleError("scipy.integrate.odeint with full_output=True while differentiating: the solver's "
                          "statistics have no derivative; call it without full_output")
    tfirst = a.pop("tfirst")
    layout, parts = [], []
    for e in extra:
        if _carries(e):
            e = e if isinstance(e, Tagged) else Context.overdub(ctx, np.array, e)
            layout.append((np.shape(e), int(np.size(e))))
            parts.append(e)
        else:
            layout.append([e])
    return Context.overdub(ctx, _solve, func, y0, t, layout, parts, tfirst, a)


ForwardCtx.primitive(_ODEINT)(native_primitive(_odeint))
ReverseCtx.primitive(_ODEINT)(native_primitive(_odeint))
