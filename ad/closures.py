"""Functions the AD API builds around user functions.

They live apart from the engine modules on purpose: they must run under the AD
context like user code (an outer context differentiates through them).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)


def apply_result(f, x, args, kwargs):
    """``f(x)(*args, **kwargs)``: a function-valued ``f`` applied twice."""
    return f(x)(*args, **kwargs)


def gradient_of(f, gradient, backend=None):
    """``x -> gradient(f, x, backend=backend)``, a function an outer derivative can differentiate."""

    def g(xs):
        return gradient(f, xs, backend=backend)

    return g
