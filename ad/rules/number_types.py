"""Derivative rules for NumPy's number types and complex helpers: the scalar types
(``np.float64(x)``...), ``angle``, ``real_if_close``, ``sinc``, ``nan_to_num``, and the
predicates ``iscomplex``, ``isreal``, ``isposinf``, ``isneginf``.

* ``np.float16/32/64``, ``np.longdouble``, ``np.complex64/128``, ``np.clongdouble`` of a
  value being differentiated keep its tangent (converted); integer and bool types give
  derivative 0, as ``int(x)``. ``iscomplex``, ``isreal``, ``isposinf``, ``isneginf`` have
  zero derivative.
* ``angle``: of real input, 0 (the result is 0 or pi, piecewise constant); of complex
  ``z``, ``Im(conj(z) dz) / |z|**2`` (nan at 0). ``sinc``: every order, 0 at 0 for the first.
* ``real_if_close``: the tangent's real part when the imaginary part was dropped.
* ``nan_to_num``: the tangent where the input is finite (each part of complex input), 0
  where an element was replaced; ``nan``/``posinf``/``neginf`` constants. ``copy=False``
  writes value and tangent in place.

A tangent reaching an argument said to be constant raises NoRuleError naming the function.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import Tagged, dispatch, enclosing_call, native_primitive
from context.tagging.values import primal

from ..engine import buffers, mutation
from ..engine.dual_array import is_array
from ..engine.forward import ZERO, ForwardCtx, NoRuleError, _lists_as_arrays, defjvp, defzero, frule
from .differences import _arguments, _constants, _scalar_like

defzero(np.iscomplex, np.isreal, np.isposinf, np.isneginf)


# ------------------------------------------------------------------ complex helpers


@frule(np.angle)
def _angle(primals, tangents, **kwargs):
    args, tans = _arguments(np.angle, primals, tangents, kwargs)
    _constants(np.angle, tans, ("z",))
    out = np.angle(*primals, **kwargs)
    z = args["z"]
    if not np.iscomplexobj(primal(z)):  # 0 or pi: piecewise constant
        return out, None
    g = tans["z"]
    re, im = np.real(z), np.imag(z)
    t = (re * np.imag(g) - im * np.real(g)) / (re * re + im * im)
    if args["deg"]:
        t = t * (180 / np.pi)
    return out, _scalar_like(t, out)


@frule(np.real_if_close)
def _real_if_close(primals, tangents, **kwargs):
    args, tans = _arguments(np.real_if_close, primals, tangents, kwargs)
    _constants(np.real_if_close, tans, ("a",))
    out = np.real_if_close(*primals, **kwargs)
    g = tans["a"]
    if out is args["a"]:
        return out, g
    if np.iscomplexobj(primal(args["a"])) and not np.iscomplexobj(out):
        g = np.real(g)  # the imaginary part was dropped
    return out, np.asarray(g) if not is_array(g) else g  # a number made a 0-d array, as its value


# ------------------------------------------------------------------ sinc


_SERIES_TERMS = 26


def sinc_derivative(x, order):
    """The ``order``-th derivative of ``np.sinc`` at ``x``, elementwise (real or complex ``x``).

    For ``|x| < 1`` from the Taylor series of ``sin(pi x) / (pi x)``; elsewhere from the
    recurrence ``x s⁽ᵐ⁾ + m s⁽ᵐ⁻¹⁾ = pi^(m-1) sin(pi x + m pi / 2)``, the m-th derivative of
    ``x sinc(x) = sin(pi x) / pi``. Differentiable again: its rule is itself, one order higher.
    """
    x = np.asarray(x)
    small = np.abs(x) < 1
    xs = np.where(small, x, 0)
    series = np.zeros(np.shape(x), dtype=np.result_type(x, float))
    coefficient = 1.0  # (-1)^k pi^2k / (2k+1)!
    for k in range(_SERIES_TERMS):
        power = 2 * k
        if k:
            coefficient *= -np.pi * np.pi / ((2 * k) * (2 * k + 1))
        if power < order:
            continue
        falling = 1.0
        for j in range(order):
            falling *= power - j
        series = series + coefficient * falling * xs ** (power - order)
    xl = np.where(small, 1.0, x)
    s = np.sinc(xl)
    px = np.pi * xl
    waves = (np.sin(px), np.cos(px), -np.sin(px), -np.cos(px))
    for m in range(1, order + 1):
        s = (np.pi ** (m - 1) * waves[m % 4] - m * s) / xl
    return np.where(small, series, s)[()]


defjvp(sinc_derivative, lambda g, ans, x, order: g * sinc_derivative(x, order + 1), ZERO)
defjvp(np.sinc, lambda g, ans, x: g * sinc_derivative(x, 1))


# ------------------------------------------------------------------ nan_to_num


def _replaced_nonfinite(x, nan, posinf, neginf):
    """``np.nan_to_num`` on a copy, the form the rule differentiates."""
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


def _finite_part(g, x):
    """Tangent ``g`` where ``x`` is finite, 0 where it is not (each part of complex ``x``)."""
    px = primal(x)
    if np.iscomplexobj(px):
        return (np.where(np.isfinite(np.real(px)), np.real(g), 0)
                + 1j * np.where(np.isfinite(np.imag(px)), np.imag(g), 0))
    return np.where(np.isfinite(px), g, 0)


@frule(_replaced_nonfinite)
def _replaced_rule(primals, tangents):
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError("np.nan_to_num is differentiable in x only; nan, posinf and neginf must be constants")
    out = _replaced_nonfinite(*primals)
    return out, _scalar_like(_finite_part(tangents[0], primals[0]), out)


def _lifted(x):
    return buffers.lift(x) if type(x) is np.ndarray and buffers.has_shadow(x) else x


@ForwardCtx.primitive(np.nan_to_num)
@native_primitive
def _nan_to_num(ctx, x, copy=True, nan=0.0, posinf=None, neginf=None):
    (x,), _ = _lists_as_arrays(ctx, (_lifted(x),))  # a list holding values being differentiated: an array
    mine = isinstance(x, Tagged) and x.tag is ctx._tag
    if not mine and any(isinstance(_lifted(v), Tagged) and _lifted(v).tag is ctx._tag for v in (nan, posinf, neginf)):
        raise NoRuleError("np.nan_to_num is differentiable in x only; nan, posinf and neginf must be constants")
    if not mine:
        return enclosing_call(ctx._tag, np.nan_to_num, (x, copy, nan, posinf, neginf))
    value = dispatch(_replaced_nonfinite, (x, nan, posinf, neginf))
    if copy or not is_array(x):
        return value
    mutation.assign(x, Ellipsis, value)  # in place, tangent included, as NumPy writes into x
    return x


# ------------------------------------------------------------------ scalar types


def _float_conversion(kind):
    @frule(kind)
    def rule(primals, tangents, **kwargs):
        if len(primals) != 1 or kwargs:
            raise NoRuleError("np.%s(...) takes one value to differentiate" % kind.__name__)
        return kind(primals[0]), kind(tangents[0])

    rule.__name__ = rule.__qualname__ = "_" + kind.__name__
    return rule


_FLOATS = {np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128, np.clongdouble}
_INTEGERS = {np.int8, np.int16, np.int32, np.int64, np.longlong, np.uint8, np.uint16, np.uint32, np.uint64,
             np.ulonglong, np.intp, np.uintp, np.bool_}
for _kind in sorted(_FLOATS, key=lambda k: k.__name__):
    _float_conversion(_kind)
defzero(*sorted(_INTEGERS, key=lambda k: k.__name__))
