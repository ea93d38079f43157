"""Forward-mode automatic differentiation on pycassette's contexts and tagging.

``ad.derivative(f, x)`` (alias ``ad.D``) runs ``f`` under a ``ForwardCtx`` with ``x``
tagged by its tangent. Nested derivatives each get a fresh tag, so perturbations are
never confused. Rules are one-line table entries (``ad.rules_*``); add your own with
``@ad.frule(fn)`` or ``ad.defjvp(fn, ...)``.
"""

from . import rules_builtins, rules_math, rules_operator  # noqa: F401  (register the rules)
from .api import (
    D,
    derivative,
    gradient,
    hessian,
    hvp,
    jacobian,
    jvp,
    value_and_derivative,
    value_and_gradient,
)
from .dual import Dual
from .forward import ZERO, ForwardCtx, NoRuleError, defjvp, defzero, frule

__all__ = [
    "D",
    "Dual",
    "ForwardCtx",
    "NoRuleError",
    "ZERO",
    "defjvp",
    "defzero",
    "derivative",
    "frule",
    "gradient",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "value_and_derivative",
    "value_and_gradient",
]
