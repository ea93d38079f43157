"""Special functions the rules need and ``math`` lacks (plain Python, so differentiable too)."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math

import numpy as np

from context.tagging.values import primal


def digamma(x):
    """The digamma function psi(x) = d/dx log(gamma(x)), for real ``x`` not a pole."""
    if x <= 0 and x == math.floor(x):
        raise ValueError("digamma: pole at %r" % (x,))
    if x < 0.5:  # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 6:
        shift -= 1 / x
        x = x + 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132)))))
    return shift + math.log(x) - 0.5 / x - series


def sign(x):
    """-1, 0 or 1 (as an int; elementwise for arrays): the derivative convention of ``abs`` at 0 is 0."""
    if isinstance(primal(x), (np.ndarray, np.generic)):
        return np.sign(x)
    return (x > 0) - (x < 0)


def nonzero_magnitude(x):
    """``(zero, safe)``: where ``|x|`` is 0, and ``|x|`` with those elements 1 (a divisor that never
    divides by zero; results there are replaced by 0)."""
    magnitude = np.abs(x)
    zero = primal(magnitude) == 0
    return zero, np.where(zero, 1.0, magnitude)


def dsign(g, x):
    """The tangent of ``sign(x) = x / |x|`` along ``g`` for complex ``x`` (NumPy 2's ``np.sign``):
    ``g / |x| - x Re(conj(x) g) / |x|^3``, 0 at 0. (For real ``x``, ``sign`` is piecewise constant.)"""
    zero, safe = nonzero_magnitude(x)
    return np.where(zero, 0.0, g / safe - x * (np.real(np.conjugate(x) * g) / safe ** 3))


def sign_cotangent(u, x):
    """The cotangent of complex ``x`` for ``u`` of ``sign(x)`` (pairing ``Re(sum(u * t))`` with
    ``dsign``'s tangent): ``u / |x| - Re(u x) conj(x) / |x|^3``, 0 at 0."""
    zero, safe = nonzero_magnitude(x)
    return np.where(zero, 0.0, u / safe - np.conjugate(x) * (np.real(u * x) / safe ** 3))


def dabs(g, x):
    """The tangent of ``abs(x)`` along ``g``, elementwise for arrays.

    Real ``x``: ``sign(x) * g`` (0 at 0, as for JAX). Complex ``x``: ``Re(conj(x) g) / |x|``,
    a real tangent (``|z|`` is real), 0 at 0; written with ``x`` itself, so that it is
    differentiable again (second derivatives of ``|z|``, of norms of complex arrays).
    """
    p = primal(x)
    if isinstance(p, np.ndarray):
        if not np.iscomplexobj(p):
            return np.sign(x) * g
        zero, safe = nonzero_magnitude(x)
        return np.where(zero, 0.0, np.real(np.conj(x) * g) / safe)
    if isinstance(p, (complex, np.complexfloating)):
        magnitude = abs(x)
        if primal(magnitude) == 0:
            return 0.0 * np.real(g)
        return np.real(np.conj(x) * g) / magnitude
    return sign(x) * g


def conjugate_sign(x):
    """``conj(x) / |x|`` for complex ``x``, 0 at 0: the cotangent ``|x|`` sends back per unit of its
    own (reverse mode's pairing ``Re(u t)``; see ``vjps_complex``)."""
    zero, safe = nonzero_magnitude(x)
    return np.where(zero, 0.0, np.conjugate(x) / safe)


def floor(x):
    """``math.floor`` of a number, ``np.floor`` of an array."""
    return np.floor(x) if isinstance(primal(x), np.ndarray) else math.floor(x)


def dpow_base(g, ans, x, y):
    """The tangent of ``x ** y`` along ``g`` (a tangent of ``x``): ``g * y * x ** (y - 1)``.

    ``y == 0`` gives 0 (``x ** 0`` is constant, also at ``x == 0``). Where the factor is
    infinite (``x == 0``, ``y < 1``), numbers follow IEEE arithmetic as arrays do, giving
    ``inf``, instead of raising ``ZeroDivisionError``.
    """
    if type(y) is int and y >= 1 and type(primal(x)) is np.ndarray:  # x ** 2 and such: nothing to guard
        return g * (2 * x) if y == 2 else g * (y * x ** (y - 1))
    if isinstance(primal(x), np.ndarray) or isinstance(primal(y), np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            py = np.asarray(primal(y))
            if py.ndim == 0 and py != 0:
                return g * (y * x ** (y - 1))
            return g * np.where(py == 0, 0.0, y * x ** (y - 1))
    if y == 0:
        return 0.0 * g
    try:
        return g * y * x ** (y - 1)
    except ZeroDivisionError:  # 0.0 ** negative
        with np.errstate(divide="ignore"):
            return g * y * float(np.float64(primal(x)) ** (primal(y) - 1))


def dpow_exponent(g, ans, x, y):
    """The tangent of ``x ** y`` along ``g`` (a tangent of ``y``): ``g * log(x) * x ** y``.

    ``x == 0`` gives 0 (``0 ** y`` is 0 for ``y > 0``); a negative base with a real result
    (an integer ``y``) has no derivative in ``y``: ``nan``, as for arrays.
    """
    p = primal(x)
    complex_result = np.iscomplexobj(primal(ans)) and not np.iscomplexobj(p)  # a real base: its complex log
    if isinstance(p, np.ndarray) or isinstance(primal(y), np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            base = np.where(np.asarray(p) == 0, 1.0, x)
            return g * (np.log(base + 0j if complex_result else base) * ans)
    if p == 0:
        return 0.0 * g
    if p < 0 and not complex_result:
        return math.nan * g
    return g * (np.log(x + 0j) if complex_result else log(x)) * ans


def log(x):
    """``math.log`` of a number, ``np.log`` of an array."""
    return np.log(x) if isinstance(primal(x), np.ndarray) else math.log(x)
