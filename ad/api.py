"""Forward-mode derivatives of scalar code: ``derivative``, ``jvp``, ``gradient``, ...

Each derivative runs ``f`` once per input direction under a fresh ``ForwardCtx`` (a new
tag per run), so nested derivatives never confuse their perturbations. A derivative
taken inside another is simply more code that the outer one differentiates.
"""

import functools
import numbers

from context import overdub
from context.resolve import declare_engine_code
from context.tagging import Tagged, enabletagging, tag

from . import closures
from .forward import ForwardCtx

declare_engine_code(__file__)


def _scalar(x, who, name="x"):
    if isinstance(x, Tagged):
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError("%s: %s must be a real number, got %s %r" % (who, name, type(x).__name__, x))
    return float(x)


def _vector(xs, who, name="x"):
    if not isinstance(xs, (list, tuple)):
        raise TypeError(
            "%s: %s must be a list or tuple of real numbers, got %s" % (who, name, type(xs).__name__)
        )
    return [_scalar(x, who, "%s[%d]" % (name, i)) for i, x in enumerate(xs)]


def _as_output(v):
    """A plain number becomes a Python float; tagged values (nested derivatives) stay."""
    if isinstance(v, Tagged):
        return v
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return float(v)
    return v


def _split_result(out, ctx, who):
    """``(value, tangent)`` of a result for ``ctx``: numbers, lists/tuples of them."""
    t = ctx._tag
    if isinstance(out, Tagged) and out.tag is t:
        return _as_output(out.value), _as_output(out.meta)
    if isinstance(out, (list, tuple)):
        pairs = [_split_result(o, ctx, who) for o in out]
        kind = type(out) if isinstance(out, tuple) else list
        return kind(p[0] for p in pairs), kind(p[1] for p in pairs)
    if isinstance(out, Tagged) or (isinstance(out, numbers.Real) and not isinstance(out, bool)):
        return _as_output(out), 0.0  # does not depend on the input: any dependence would be tagged
    raise TypeError(
        "%s: the function returned %s; expected a number, a list or tuple of numbers, or a function"
        % (who, type(out).__name__)
    )


def _run(f, xs, seeds):
    """Run ``f`` on ``xs`` with tangent ``seeds[i]`` on ``xs[i]`` (None: no tangent)."""
    ctx = enabletagging(ForwardCtx(), f)
    args = [x if s is None else tag(x, ctx, s) for x, s in zip(xs, seeds)]
    return ctx, args


def value_and_derivative(f, x):
    """``(f(x), f'(x))`` for a function of one real number.

    ``f`` may return a number, a list or tuple of numbers (derivatives elementwise), or a
    function: the derivative of a function-valued ``f`` is the function
    ``lambda *a: derivative(lambda x: f(x)(*a), x)``.
    """
    x = _scalar(x, "derivative")
    ctx, (tx,) = _run(f, [x], [1.0])
    out = overdub(ctx, f, tx)
    if callable(out) and not isinstance(out, Tagged):
        return out, _derivative_of_function(f, x)
    return _split_result(out, ctx, "derivative")


def _derivative_of_function(f, x):
    """The derivative of a function-valued ``f`` at ``x``: a function, taken anew at each call."""

    def derivative_of_result(*args, **kwargs):
        return derivative(functools.partial(closures.apply_result, f, args=args, kwargs=kwargs), x)

    derivative_of_result.__qualname__ = "derivative of %s at %r" % (getattr(f, "__qualname__", f), x)
    return derivative_of_result


def derivative(f, x):
    """``f'(x)`` for a function of one real number (see ``value_and_derivative``)."""
    return value_and_derivative(f, x)[1]


D = derivative


def jvp(f, x, v):
    """``(f(x), J v)``: the directional derivative of ``f`` at ``x`` along ``v`` in one pass.

    ``x`` and ``v`` are both real numbers, or both lists/tuples of the same length.
    """
    if isinstance(x, (list, tuple)):
        xs = _vector(x, "jvp")
        vs = _vector(v, "jvp", "v")
        if len(vs) != len(xs):
            raise ValueError("jvp: x has %d entries but v has %d; they must match" % (len(xs), len(vs)))
        ctx, args = _run(f, xs, vs)
        out = overdub(ctx, f, type(x)(args) if isinstance(x, tuple) else args)
    else:
        xs = _scalar(x, "jvp")
        vs = _scalar(v, "jvp", "v")
        ctx, (arg,) = _run(f, [xs], [vs])
        out = overdub(ctx, f, arg)
    return _split_result(out, ctx, "jvp")


def _partials(f, x, who):
    """``(f(x), [d f / d x_i for each i])``, one forward pass per input."""
    xs = _vector(x, who)
    if not xs:
        raise ValueError("%s: x is empty; there is nothing to differentiate" % who)
    value = None
    columns = []
    for i in range(len(xs)):
        ctx, args = _run(f, xs, [1.0 if j == i else None for j in range(len(xs))])
        out = overdub(ctx, f, type(x)(args) if isinstance(x, tuple) else args)
        value, column = _split_result(out, ctx, who)
        columns.append(column)
    return value, columns


def value_and_gradient(f, x):
    """``(f(x), ∇f(x))`` for a real-valued function of a list or tuple of reals."""
    value, columns = _partials(f, x, "gradient")
    if isinstance(value, (list, tuple)):
        raise TypeError(
            "gradient: the function returned %d values; gradient needs a single number (use jacobian)"
            % len(value)
        )
    return value, type(x)(columns) if isinstance(x, tuple) else list(columns)


def gradient(f, x):
    """``∇f(x)`` for a real-valued function of a list or tuple of reals (same container type)."""
    return value_and_gradient(f, x)[1]


def jacobian(f, x):
    """The Jacobian of ``f`` at ``x``: a list of rows, ``J[i][j] = d f_i / d x_j``.

    A function returning one number gives a single row.
    """
    value, columns = _partials(f, x, "jacobian")
    if not isinstance(value, (list, tuple)):
        return [list(columns)]
    return [[column[i] for column in columns] for i in range(len(value))]


def hessian(f, x):
    """The Hessian of a real-valued ``f`` at ``x``, by forward over forward mode (a list of rows)."""
    return jacobian(closures.gradient_of(f, gradient), x)


def hvp(f, x, v):
    """The Hessian of ``f`` at ``x`` times ``v``, in one forward-over-forward pass per input."""
    return list(jvp(closures.gradient_of(f, gradient), x, v)[1])
