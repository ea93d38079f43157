"""Derivative rules for the ``math`` module: every differentiable function.

Where a derivative is infinite (``sqrt`` at 0, ``log`` at 0) the rule's own float
arithmetic raises as Python does (ZeroDivisionError, ValueError): no number is made up.
Piecewise-constant functions (``floor``, ``ceil``, ``trunc``, predicates) have zero
derivative and return untagged results.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math

from ..engine.forward import NOT_DIFFERENTIABLE, ZERO, defjvp, defzero, frule
from .special import digamma, sign

_LN2, _LN10 = math.log(2.0), math.log(10.0)

defjvp(math.sin, lambda g, ans, x: g * math.cos(x))
defjvp(math.cos, lambda g, ans, x: -g * math.sin(x))
defjvp(math.tan, lambda g, ans, x: g * (1 + ans * ans))
defjvp(math.asin, lambda g, ans, x: g / math.sqrt(1 - x * x))
defjvp(math.acos, lambda g, ans, x: -g / math.sqrt(1 - x * x))
defjvp(math.atan, lambda g, ans, x: g / (1 + x * x))
defjvp(math.atan2, lambda g, ans, y, x: g * x / (x * x + y * y), lambda g, ans, y, x: -g * y / (x * x + y * y))
defjvp(math.sinh, lambda g, ans, x: g * math.cosh(x))
defjvp(math.cosh, lambda g, ans, x: g * math.sinh(x))
defjvp(math.tanh, lambda g, ans, x: g * (1 - ans * ans))
defjvp(math.asinh, lambda g, ans, x: g / math.sqrt(x * x + 1))
defjvp(math.acosh, lambda g, ans, x: g / math.sqrt(x * x - 1))
defjvp(math.atanh, lambda g, ans, x: g / (1 - x * x))
defjvp(math.exp, lambda g, ans, x: g * ans)
defjvp(math.exp2, lambda g, ans, x: g * ans * _LN2)
defjvp(math.expm1, lambda g, ans, x: g * (ans + 1))
defjvp(math.log, lambda g, ans, x, base=math.e: g / (x * math.log(base)),
       lambda g, ans, x, base: -g * ans / (base * math.log(base)))
defjvp(math.log2, lambda g, ans, x: g / (x * _LN2))
defjvp(math.log10, lambda g, ans, x: g / (x * _LN10))
defjvp(math.log1p, lambda g, ans, x: g / (1 + x))
defjvp(math.sqrt, lambda g, ans, x: g / (2 * ans))
defjvp(math.cbrt, lambda g, ans, x: g / (3 * ans * ans))
defjvp(math.pow, lambda g, ans, x, y: g * y * math.pow(x, y - 1), lambda g, ans, x, y: g * math.log(x) * ans)
defjvp(math.erf, lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * math.exp(-x * x))
defjvp(math.erfc, lambda g, ans, x: -g * (2 / math.sqrt(math.pi)) * math.exp(-x * x))
defjvp(math.gamma, lambda g, ans, x: g * ans * digamma(x))
defjvp(math.lgamma, lambda g, ans, x: g * digamma(x))
defjvp(math.fabs, lambda g, ans, x: g * sign(x))
defjvp(math.copysign, lambda g, ans, x, y: g * sign(x) * math.copysign(1.0, y), ZERO)
defjvp(math.degrees, lambda g, ans, x: g * (180 / math.pi))
defjvp(math.radians, lambda g, ans, x: g * (math.pi / 180))
defjvp(math.fmod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * math.trunc(x / y))
defjvp(math.remainder, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * round(x / y))
defjvp(math.ldexp, lambda g, ans, x, i: g * 2.0 ** i, NOT_DIFFERENTIABLE)
defjvp(math.nextafter, lambda g, ans, x, y, *steps, **kw: g, ZERO)
defzero(math.floor, math.ceil, math.trunc, math.isfinite, math.isinf, math.isnan, math.isclose, math.ulp)


@frule(math.hypot)
def _hypot(primals, tangents):
    out = math.hypot(*primals)
    terms = [x * g for x, g in zip(primals, tangents) if g is not None]
    return out, sum(terms[1:], terms[0]) / out


@frule(math.frexp)
def _frexp(primals, tangents):
    mantissa, exponent = math.frexp(primals[0])
    return (mantissa, exponent), (tangents[0] / 2.0 ** exponent, None)


@frule(math.fsum, sequences=(0,))
def _fsum(primals, tangents):
    present = [g for g in tangents[0] if g is not None]
    return math.fsum(primals[0]), sum(present[1:], present[0])


@frule(math.dist, sequences=(0, 1))
def _dist(primals, tangents):
    p, q = primals
    out = math.dist(p, q)
    terms = []
    for pi, qi, dp, dq in zip(p, q, *tangents):
        if dp is not None:
            terms.append((pi - qi) * dp)
        if dq is not None:
            terms.append((qi - pi) * dq)
    return out, sum(terms[1:], terms[0]) / out


@frule(math.modf)
def _modf(primals, tangents):
    fraction, whole = math.modf(primals[0])
    return (fraction, whole), (tangents[0], None)
