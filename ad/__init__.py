"""Forward-mode automatic differentiation on pycassette's contexts and tagging.

``ad.derivative(f, x)`` (alias ``ad.D``) runs ``f`` under a ``ForwardCtx`` with ``x``
tagged by its tangent. Nested derivatives each get a fresh tag, so perturbations are
never confused. Rules are one-line table entries (``ad.rules_*``); add your own with
``@ad.frule(fn)`` or ``ad.defjvp(fn, ...)``.
"""

from . import (  # noqa: F401  (register the rules)
    rules_array, rules_builtins, rules_index, rules_linalg, rules_math, rules_meta, rules_operator,
    rules_products, rules_reduce, rules_shape, rules_ufunc,
)
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
    value_and_hessian,
    value_and_jacobian,
    value_gradient_and_hessian,
    vjp,
)
from .backends import Backend, FiniteDifferences, ForwardMode, HigherOrder
from .dual import Dual
from .dualarray import DualArray
from .forward import ZERO, ForwardCtx, NoRuleError, defjvp, defzero, frule
from .lazy import LazyHessian, LazyJacobian, lazy_hessian, lazy_jacobian


def __getattr__(name):
    """``__version__``: pycassette's version, as ``context.__version__`` (read when first asked for)."""
    if name == "__version__":
        import context

        return context.__version__
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = [
    "Backend", "D", "Dual", "DualArray", "FiniteDifferences", "ForwardCtx", "ForwardMode", "HigherOrder",
    "LazyHessian", "LazyJacobian", "NoRuleError", "ZERO", "defjvp", "defzero", "derivative", "frule",
    "gradient", "hessian", "hvp", "jacobian", "jvp", "lazy_hessian", "lazy_jacobian", "value_and_derivative",
    "value_and_gradient", "value_and_hessian", "value_and_jacobian", "value_gradient_and_hessian", "vjp",
]
