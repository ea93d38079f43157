"""Derivative rules for ``np.convolve`` and ``np.correlate`` (and the helper ``scipy_signal`` shares).

Both are bilinear in their two arrays, whatever ``mode``: the tangent is the sum of the same
function applied with each argument replaced by its tangent (one call per chunk direction).
``convolve`` is complex-linear in both arguments. ``correlate(a, v)`` conjugates ``v``: it is
complex-linear in ``a`` and conjugate-linear in ``v``, which is real-linear, so the term of a
tangent ``dv`` of a complex ``v`` is ``correlate(a, dv)`` itself. A complex tangent of a *real*
``v`` is taken C-linearly, as everywhere in ``ad`` (real and imaginary parts apart), which makes
``correlate(a, conj(dv))``. ``mode`` is a string; nothing else can carry a derivative.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError, frule
from .linear import linear_term


def as_read(g, x):
    """Tangent ``g`` of an argument ``x`` that the function reads conjugated, as the function must see it:
    ``conj(g)`` for a real ``x`` and a complex ``g`` (taken C-linearly), ``g`` otherwise."""
    if np.iscomplexobj(g) and not np.iscomplexobj(x):
        return np.conjugate(g)
    return g


def bilinear_tangent(fn, primals, tangents, kwargs, conjugated=False, first_primals=None):
    """The tangent of ``fn(*primals, **kwargs)``, bilinear in arguments 0 and 1 (reading argument 1
    conjugated if ``conjugated``): ``fn(g0, x1, ...) + fn(x0, g1, ...)``, per chunk direction.
    ``first_primals`` replaces ``primals`` in argument 0's term (an affine padding set to 0); None if
    neither carries a tangent."""
    tangent = None
    if tangents[0] is not None:
        tangent = linear_term(fn, primals if first_primals is None else first_primals, 0, tangents[0], kwargs)
    if len(tangents) > 1 and tangents[1] is not None:
        g = as_read(tangents[1], primals[1]) if conjugated else tangents[1]
        term = linear_term(fn, primals, 1, g, kwargs)
        tangent = term if tangent is None else tangent + term
    return tangent


def defbilinear(fn, conjugated=False):
    """Register the rule of ``fn(x0, x1, *options)``, bilinear in ``x0`` and ``x1`` (conjugating ``x1``
    if ``conjugated``); a tangent reaching an option raises NoRuleError."""

    @frule(fn)
    def rule(primals, tangents, **kwargs):
        for j in range(2, len(tangents)):
            if tangents[j] is not None:
                raise NoRuleError(
                    "%s is differentiable in its two arrays only; argument %d carries a derivative: make it a "
                    "constant" % (qualified_name(fn), j + 1)
                )
        return fn(*primals, **kwargs), bilinear_tangent(fn, primals, tangents, kwargs, conjugated)

    rule.__qualname__ = rule.__name__ = "bilinear rule of %s" % qualified_name(fn)
    return fn


defbilinear(np.convolve)
defbilinear(np.correlate, conjugated=True)
