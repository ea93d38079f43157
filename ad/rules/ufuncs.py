"""Derivative rules for NumPy's ufuncs: every differentiable one, elementwise.

Each entry gives the tangent contribution of one argument (``g`` its tangent, ``ans``
the result), written as ``g`` times a factor computed from the primals: the tangent may
be much larger than the primal (a chunk of directions, a nested derivative's), so it is
touched once. Arguments broadcast as the ufunc broadcasts them (``defjvp`` lines up
chunked tangents). Piecewise-constant ufuncs (rounding, ``sign`` of real values,
predicates, comparisons) have zero derivative and return untagged results; ``sign`` of complex
values is ``x / |x|``, with its derivative. Integer-only ufuncs
(bitwise operations, ``gcd``, shifts) have no rule: a value being differentiated
reaching one is an error naming it.

Conventions, as in the scalar rules: ``abs`` at 0 has derivative 0; ``maximum`` and
``minimum`` at a tie take the first argument's derivative; ``fmax``/``fmin`` take the
argument they return when the other is NaN.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import dispatch, native_primitive
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE, ZERO, ForwardCtx, defjvp, defzero, frule
from .special import dabs, dpow_base, dpow_exponent, dsign

_LN2, _LN10 = np.log(2.0), np.log(10.0)
_DEG = np.pi / 180.0


defjvp(np.negative, lambda g, ans, x: -g)
defjvp(np.positive, lambda g, ans, x: g)
defjvp(np.absolute, lambda g, ans, x: dabs(g, x))
defjvp(np.fabs, lambda g, ans, x: g * np.sign(x))
defjvp(np.sqrt, lambda g, ans, x: g / (2 * ans))
defjvp(np.cbrt, lambda g, ans, x: g / (3 * ans * ans))
defjvp(np.square, lambda g, ans, x: g * (2 * x))
defjvp(np.reciprocal, lambda g, ans, x: g * -(ans * ans))
defjvp(np.exp, lambda g, ans, x: g * ans)
defjvp(np.exp2, lambda g, ans, x: g * (ans * _LN2))
defjvp(np.expm1, lambda g, ans, x: g * (ans + 1))
defjvp(np.log, lambda g, ans, x: g / x)
defjvp(np.log2, lambda g, ans, x: g / (x * _LN2))
defjvp(np.log10, lambda g, ans, x: g / (x * _LN10))
defjvp(np.log1p, lambda g, ans, x: g / (1 + x))
defjvp(np.sin, lambda g, ans, x: g * np.cos(x))
defjvp(np.cos, lambda g, ans, x: g * -np.sin(x))
defjvp(np.tan, lambda g, ans, x: g * (1 + ans * ans))
defjvp(np.arcsin, lambda g, ans, x: g / np.sqrt(1 - x * x))
defjvp(np.arccos, lambda g, ans, x: -g / np.sqrt(1 - x * x))
defjvp(np.arctan, lambda g, ans, x: g / (1 + x * x))
defjvp(np.sinh, lambda g, ans, x: g * np.cosh(x))
defjvp(np.cosh, lambda g, ans, x: g * np.sinh(x))
defjvp(np.tanh, lambda g, ans, x: g * (1 - ans * ans))
defjvp(np.arcsinh, lambda g, ans, x: g / np.sqrt(x * x + 1))
# (arccosh: not sqrt(x * x - 1), whose branch differs for complex x)
defjvp(np.arccosh, lambda g, ans, x: g / (np.sqrt(x - 1) * np.sqrt(x + 1)))
defjvp(np.arctanh, lambda g, ans, x: g / (1 - x * x))
defjvp(np.deg2rad, lambda g, ans, x: g * _DEG)
defjvp(np.radians, lambda g, ans, x: g * _DEG)
defjvp(np.rad2deg, lambda g, ans, x: g / _DEG)
defjvp(np.degrees, lambda g, ans, x: g / _DEG)
defjvp(np.conjugate, lambda g, ans, x: np.conjugate(g))

defjvp(np.add, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
defjvp(np.subtract, lambda g, ans, x, y: g, lambda g, ans, x, y: -g)


def _product(gx, gy, ans, x, y):
    """The tangent of ``x * y``; of ``x * x`` in two operations where the sum of terms takes three."""
    if gx is gy and x is y:
        return gx * (2 * x)
    return gx * y + x * gy


defjvp(np.multiply, lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g, joint=_product)
defjvp(np.true_divide, lambda g, ans, x, y: g / y, lambda g, ans, x, y: g * (-ans / y),
       joint=lambda gx, gy, ans, x, y: (gx - gy * ans) / y)  # three operations where the terms take five
defjvp(np.power, dpow_base, dpow_exponent)
defjvp(np.float_power, lambda g, ans, x, y: g * (y * np.float_power(x, y - 1)), dpow_exponent)
defjvp(np.arctan2, lambda g, ans, y, x: g * (x / (x * x + y * y)), lambda g, ans, y, x: g * (-y / (x * x + y * y)))
defjvp(np.hypot, lambda g, ans, x, y: g * (x / ans), lambda g, ans, x, y: g * (y / ans))
defjvp(np.logaddexp, lambda g, ans, x, y: g * np.exp(x - ans), lambda g, ans, x, y: g * np.exp(y - ans))
defjvp(np.logaddexp2, lambda g, ans, x, y: g * np.exp2(x - ans), lambda g, ans, x, y: g * np.exp2(y - ans))


def _kept(g, chosen):
    """``g`` where ``chosen``, 0 elsewhere (not ``g * chosen``: the argument not chosen may have a
    nan or infinite tangent, which must not reach the result)."""
    return np.where(chosen, g, 0.0)


defjvp(np.maximum, lambda g, ans, x, y: _kept(g, x >= y), lambda g, ans, x, y: _kept(g, x < y))
defjvp(np.minimum, lambda g, ans, x, y: _kept(g, x <= y), lambda g, ans, x, y: _kept(g, x > y))
defjvp(np.fmax, lambda g, ans, x, y: _kept(g, (x >= y) | np.isnan(y)),
       lambda g, ans, x, y: _kept(g, (x < y) | np.isnan(x)))
defjvp(np.fmin, lambda g, ans, x, y: _kept(g, (x <= y) | np.isnan(y)),
       lambda g, ans, x, y: _kept(g, (x > y) | np.isnan(x)))
defjvp(np.remainder, lambda g, ans, x, y: g, lambda g, ans, x, y: g * -np.floor_divide(x, y))
defjvp(np.fmod, lambda g, ans, x, y: g, lambda g, ans, x, y: g * -np.trunc(x / y))
defjvp(np.copysign, lambda g, ans, x, y: g * (np.sign(x) * np.sign(ans)), ZERO)
defjvp(np.ldexp, lambda g, ans, x, y: g * np.exp2(y), NOT_DIFFERENTIABLE)
defjvp(np.nextafter, lambda g, ans, x, y: g, ZERO)

defzero(
    np.floor, np.ceil, np.trunc, np.rint, np.floor_divide, np.heaviside, np.signbit,
    np.spacing, np.isfinite, np.isinf, np.isnan, np.equal, np.not_equal, np.less, np.less_equal,
    np.greater, np.greater_equal, np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
)


@ForwardCtx.primitive(np.divmod)
@native_primitive
def _divmod(ctx, x, y, **kwargs):
    # the quotient has zero derivative; the remainder is np.remainder's, with its broadcasting
    return dispatch(np.floor_divide, (x, y), kwargs), dispatch(np.remainder, (x, y), kwargs)


SIGN_IS_DIRECTION = bool(np.sign(1j) == 1j)  # NumPy 2; before, the sign of the real part (piecewise constant)


@frule(np.sign)
def _sign(primals, tangents, **kwargs):
    # piecewise constant for real values; x / |x| (NumPy 2's definition) for complex ones
    x = primals[0]
    ans = np.sign(x, **kwargs)
    if not (SIGN_IS_DIRECTION and np.iscomplexobj(primal(x))):
        return ans, None
    return ans, dsign(tangents[0], x)


@frule(np.modf)
def _modf(primals, tangents, **kwargs):
    fraction, whole = np.modf(primals[0], **kwargs)
    return (fraction, whole), (tangents[0] * 1.0, None)  # a tangent of its own, as the fraction is new


@frule(np.frexp)
def _frexp(primals, tangents, **kwargs):
    mantissa, exponent = np.frexp(primals[0], **kwargs)
    return (mantissa, exponent), (tangents[0] / np.exp2(exponent), None)
