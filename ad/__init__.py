"""Forward-mode automatic differentiation on pycassette's contexts and tagging.

``ad.derivative(f, x)`` (alias ``ad.D``) runs ``f`` under a ``ForwardCtx`` with ``x``
tagged by its tangent. Nested derivatives each get a fresh tag, so perturbations are
never confused. Rules are one-line table entries (``ad.rules``); add your own with
``@ad.frule(fn)``, ``ad.defjvp(fn, ...)`` or ``ad.deflinear(fn)``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from . import testing  # noqa: F401  (ad.testing.check_grads)
from .engine.optional import when_imported
from .rules import (  # noqa: F401  (register the rules)
    array_api, arrays, builtins, cmath_module, conditioning, convolution, decompositions, differences, fft, indexed_writes, indexing,
    layout, linalg,
    math_module, metadata, number_types, operators, order_statistics, products, reductions, shapes, statistics_module,
    ufunc_methods, ufuncs,
)
from .api import (
    D,
    derivative,
    hvp,
    jvp,
    value_and_derivative,
    value_and_gradient,
    value_and_hessian,
    value_and_jacobian,
    value_and_pullback,
    value_gradient_and_hessian,
    vjp,
)
from .backends import Backend, FiniteDifferences, ForwardMode, HigherOrder, ReverseMode
from .engine.dual import Dual
from .engine.dual_array import DualArray
from .engine.forward import NOT_DIFFERENTIABLE, ZERO, ForwardCtx, NoRuleError, defjvp, defzero, frule
from .engine.reverse import ReverseCtx, defvjp, install as _install_reverse
from .rules.linear import deflinear
from .checkpoint import checkpoint
from .transforms import grad, gradient, hessian, hessian_of, jacfwd, jacobian, value_and_grad
from .lazy import LazyHessian, LazyJacobian, lazy_hessian, lazy_jacobian
from .sparsity import SparsityBranchError, hessian_sparsity, jacobian_sparsity
from .sparsity.backend import Sparse


from .rules import (  # noqa: E402,F401  (reverse mode's own rules)
    vjps, vjps_composed, vjps_decompositions, vjps_linalg, vjps_linear, vjps_numeric, vjps_order_statistics,
    vjps_reductions, vjps_scalars, vjps_selection, vjps_shapes, vjps_statistics,
)

_install_reverse()  # reverse-mode rules derived from the elementwise forward rules, now and later

from .rules import vjps_complex  # noqa: E402,F401  (replaces derived rules that complex values need)

when_imported("scipy.special", "ad.rules.scipy_special")
when_imported("scipy.special", "ad.rules.vjps_scipy_special")  # (after: replaces derived rules)
when_imported("scipy.linalg", "ad.rules.scipy_linalg")
when_imported("scipy.linalg", "ad.rules.vjps_scipy_linalg")
when_imported("scipy.linalg", "ad.rules.vjps_scipy_linalg_more")
when_imported("scipy.signal", "ad.rules.scipy_signal")
when_imported("scipy.signal", "ad.rules.vjps_scipy_signal")
when_imported("scipy.integrate", "ad.rules.scipy_integrate")


def __getattr__(name):
    """``__version__``: pycassette's version, as ``context.__version__`` (read when first asked for)."""
    if name == "__version__":
        import context

        return context.__version__
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = [
    "Backend", "D", "Dual", "DualArray", "FiniteDifferences", "ForwardCtx", "ForwardMode", "HigherOrder",
    "LazyHessian", "LazyJacobian", "NOT_DIFFERENTIABLE", "NoRuleError", "ReverseCtx", "ReverseMode", "Sparse",
    "SparsityBranchError", "ZERO",
    "checkpoint", "defjvp", "deflinear", "defvjp", "defzero", "derivative", "frule", "grad", "gradient", "hessian",
    "hessian_of", "hessian_sparsity", "hvp", "jacfwd", "jacobian", "jacobian_sparsity", "jvp", "lazy_hessian", "lazy_jacobian", "value_and_derivative",
    "value_and_grad", "value_and_gradient", "value_and_hessian", "value_and_jacobian", "value_and_pullback",
    "value_gradient_and_hessian", "vjp",
]
