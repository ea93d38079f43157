"""Functions the AD API builds around user functions.

They live apart from the engine modules on purpose: they must run under the AD
context like user code (an outer context differentiates through them).
"""


def apply_result(f, x, args, kwargs):
    """``f(x)(*args, **kwargs)``: a function-valued ``f`` applied twice."""
    return f(x)(*args, **kwargs)


def with_component(f, xs, i, xi):
    """``f(xs)`` with ``xs[i]`` replaced by ``xi`` (same container type)."""
    items = list(xs)
    items[i] = xi
    return f(type(xs)(items) if isinstance(xs, tuple) else items)


def gradient_of(f, gradient):
    """``x -> gradient(f, x)``, a function an outer derivative can differentiate."""

    def g(xs):
        return gradient(f, xs)

    return g
