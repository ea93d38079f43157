"""Derivative rules for builtins.

``min``, ``max`` and ``sum`` need none: they only compare and add, through the
operators, whose rules apply (at a tie ``min``/``max`` return the first of the tied
arguments, and with it that argument's derivative). ``float`` keeps the tangent (the
tagging context's conversion rule).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from context.tagging.contexts import TaggedArg

from ..engine.forward import NOT_DIFFERENTIABLE, ZERO, defjvp, defzero, frule
from .special import dabs, dpow_base, dpow_exponent

defjvp(abs, lambda g, ans, x: dabs(g, x))
defjvp(pow, dpow_base, dpow_exponent, NOT_DIFFERENTIABLE)
defzero(round, float.is_integer)
defjvp(float.conjugate, lambda g, ans, x: g)
defjvp(int, ZERO, argtypes=(TaggedArg,))  # matched by type: no user __getattribute__ runs


@frule(divmod)
def _divmod(primals, tangents):
    x, y = primals
    dx, dy = tangents
    quotient, rest = divmod(x, y)
    if dx is None:
        d_rest = -dy * quotient
    elif dy is None:
        d_rest = dx
    else:
        d_rest = dx - dy * quotient
    return (quotient, rest), (None, d_rest)
