"""Derivatives after AbstractDifferentiation: ``derivative``, ``gradient``, ``jacobian``,
``hessian``, ``jvp``, ``vjp``, ``hvp``, their ``value_and_*`` forms and lazy operators.

Inputs are a real number, a list or tuple of them, or a float array of any shape; a
gradient has the input's form and shape. Every function takes ``backend=`` (default
``ForwardMode()``; for gradients, ``ReverseMode()`` from ``REVERSE_FROM`` inputs on); each
backend provides one pushforward and everything here follows from it. Forward mode runs ``f`` once per chunk of directions under a fresh
``ForwardCtx`` (a new tag per run), so nested derivatives never confuse their
perturbations: a derivative taken inside another is more code the outer one
differentiates (this module is not engine code for that reason).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import closures, outputs
from .backends import Backend, ForwardMode, ReverseMode, check_backend
from .inputs import Input
from .engine import runs
from .engine.forward import NoRuleError
from .engine.traced import ComplexValuesError
from .outputs import Output


def _first(backend, who):
    return check_backend(backend, who).first_order()


def value_and_derivative(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), f'(x))`` for a function of one real number.

    ``f`` may return a number, an array, a list or tuple of numbers (derivatives
    elementwise), or (forward mode) a function: the derivative of a function-valued
    ``f`` is the function ``lambda *a: derivative(lambda x: f(x)(*a), x)``.
    """
    inp = Input(x, "derivative")
    if inp.kind != "scalar":
        raise TypeError(
            "derivative: x must be a real number, got %s; use jacobian (or gradient) for %s inputs"
            % (type(x).__name__, inp.kind)
        )
    b = _first(backend, "derivative")
    if isinstance(b, ForwardMode):
        ctx = runs.start(f)
        out = runs.run(ctx, f, (inp.seeded(ctx, np.array(1.0)),))
        if runs.is_function(out):
            return out, _derivative_of_function(f, inp.value, backend)
        output = Output(out, ctx, 0, "derivative")
        return output.value, output.like(output.tangent)
    output, tangents = b.run(f, inp, np.ones((1,)), "derivative")
    return output.value, output.like(tangents[0])


def _derivative_of_function(f, x, backend):
    """The derivative of a function-valued ``f`` at ``x``: a function, taken anew at each call."""

    def derivative_of_result(*args, **kwargs):
        return derivative(functools.partial(closures.apply_result, f, args=args, kwargs=kwargs), x, backend)

    derivative_of_result.__qualname__ = "derivative of %s at %r" % (getattr(f, "__qualname__", f), x)
    return derivative_of_result


def derivative(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> Any:
    """``f'(x)`` for a function of one real number (see ``value_and_derivative``)."""
    return value_and_derivative(f, x, backend)[1]


D = derivative


def jvp(f: Callable[..., Any], x: Any, v: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), J v)``: the directional derivative of ``f`` at ``x`` along ``v`` (shaped like ``x``)."""
    inp = Input(x, "jvp")
    direction = inp.directions(v)
    output, tangents = _first(backend, "jvp").run(f, inp, direction[None], "jvp")
    return output.value, output.like(tangents[0])


def _jacobian(f, inp, backend, who):
    """``(output, J)``: J has shape ``output.shape + inp.shape``."""
    b = _first(backend, who)
    if isinstance(b, ReverseMode):  # rows by backward passes, not columns by runs
        return b.jacobian(f, inp, who)
    output, tangents = b.run(f, inp, inp.basis(), who)
    J = np.moveaxis(tangents, 0, -1) if tangents.ndim > 1 else tangents
    return output, J.reshape(tuple(output.shape) + tuple(inp.shape))


def _rows(J, inp, output):
    """A Jacobian for list and tuple inputs: a list of rows (one per output element)."""
    flat = J.reshape((-1, inp.size)) if output.shape else J.reshape((1, inp.size))
    return [[outputs.number(e) for e in row] for row in flat]


def value_and_jacobian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), J)`` with ``J[i..., j...] = d f[i...] / d x[j...]`` (shape ``f(x).shape + x.shape``).

    For a list or tuple ``x`` the Jacobian is a list of rows, one per output element (a
    function returning one number gives a single row).
    With ``backend=ad.Sparse(...)``, ``J`` is a SciPy sparse matrix ``f(x).size`` by ``x.size``.
    """
    if getattr(backend, "sparse", False):
        return backend.value_and_jacobian(f, x)
    inp = Input(x, "jacobian")
    output, J = _jacobian(f, inp, backend, "jacobian")
    if inp.kind in ("list", "tuple"):
        return output.value, _rows(J, inp, output)
    return output.value, J if inp.kind == "array" or output.shape else output.like(J)


def jacobian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> Any:
    """The Jacobian of ``f`` at ``x`` (see ``value_and_jacobian``)."""
    return value_and_jacobian(f, x, backend)[1]


REVERSE_FROM = 32  # inputs: from here the default gradient is reverse mode's (docs/ad.md: "Which mode")


def default_gradient_backend(size: int) -> Backend:
    """The backend a gradient of ``size`` inputs uses by default: one backward pass (reverse
    mode) from ``REVERSE_FROM`` inputs on, else forward mode (fewer inputs than that cost
    forward mode less than recording a tape)."""
    return ReverseMode() if size >= REVERSE_FROM else ForwardMode()


def value_and_gradient(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), ∇f(x))`` for a real-valued ``f``; the gradient has ``x``'s form and shape.

    By default (``backend=None``) reverse mode for ``REVERSE_FROM`` inputs or more, forward
    mode for fewer (``default_gradient_backend``). Where the default reverse mode refuses
    what ``f`` does (an operation with no reverse-mode rule, complex values), forward mode
    computes the gradient instead: ``f`` then runs a second time."""
    inp = Input(x, "gradient", complex_scalar=True)
    if inp.complex:
        return _complex_gradient(f, inp, backend)
    if backend is None and inp.size >= REVERSE_FROM:
        try:
            output, J = _jacobian(f, inp, ReverseMode(), "gradient")
        except (NoRuleError, ComplexValuesError):
            output, J = _jacobian(f, inp, ForwardMode(), "gradient")
    else:
        output, J = _jacobian(f, inp, backend, "gradient")
    if output.shape:
        raise TypeError(
            "gradient: the function returned %d values (shape %s); gradient needs a single number "
            "(use jacobian)" % (int(np.prod(output.shape)), tuple(output.shape))
        )
    return output.value, inp.like(J)


def _complex_gradient(f, inp, backend):
    """``(f(z), df/dx - i df/dy)`` for a real ``f`` of a complex array or number ``z = x + iy``, as JAX's ``grad``
    gives it (the conjugate of the direction of steepest ascent; ``2 conj(z)`` for ``|z|^2``):
    forward mode pushes the real and the imaginary unit directions; reverse mode's cotangent of
    the input is that gradient itself, with the pairing ``Re(sum(u * t))``."""
    who = "gradient"
    if backend is None:
        backend = ReverseMode() if inp.size >= REVERSE_FROM else ForwardMode()
        if isinstance(backend, ReverseMode):
            try:
                return _complex_gradient(f, inp, backend)
            except (NoRuleError, ComplexValuesError):
                backend = ForwardMode()
    if isinstance(backend, ReverseMode):
        output, g = backend.complex_gradient(f, inp, who)
    elif isinstance(backend, ForwardMode):
        output, along_x = backend.run(f, inp, inp.basis(), who)
        _, along_y = backend.run(f, inp, inp.basis(1j), who)
        if np.iscomplexobj(output.value):
            raise ComplexValuesError(_COMPLEX_RESULT)
        g = np.reshape(along_x - 1j * along_y, inp.shape)
        if inp.kind == "scalar":
            g = complex(g)
    else:
        raise TypeError("gradient: a complex input takes backend=ad.ForwardMode() or ad.ReverseMode(), not %r"
                        % (backend,))
    if output.shape:
        raise TypeError("gradient: the function returned %d values (shape %s); gradient needs a single number "
                        "(use jacobian)" % (int(np.prod(output.shape)), tuple(output.shape)))
    return output.value, g


_COMPLEX_RESULT = ("gradient: the function returned a complex value; the gradient of a complex input is "
                   "defined for a real result (take its real part or its abs)")


def gradient(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> Any:
    """``∇f(x)`` for a real-valued ``f``, in ``x``'s form (list, tuple, array of ``x``'s shape)."""
    return value_and_gradient(f, x, backend)[1]


def vjp(f: Callable[..., Any], x: Any, w: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), wᵀ J)``: the vector-Jacobian product, shaped like ``x`` (``w`` shaped like ``f(x)``).

    Forward-mode backends build the Jacobian for it (one run per chunk of inputs).
    """
    inp = Input(x, "vjp")
    output, J = _jacobian(f, inp, backend, "vjp")
    w = _cotangent(w, output.shape, "vjp")
    return output.value, inp.like(np.tensordot(w, J, axes=w.ndim))


def value_and_pullback(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> tuple[Any, Callable]:
    """``(f(x), pullback)``: ``pullback(w)`` is the vector-Jacobian product ``wᵀ J`` shaped like ``x``
    (``w`` shaped like ``f(x)``), as AbstractDifferentiation's ``value_and_pullback_function``.

    With ``ad.ReverseMode()``, ``f`` runs once and each call of ``pullback`` is one backward pass
    (it may be called again, also after the run); with forward-mode backends the Jacobian is
    built once and each call multiplies by it.
    """
    inp = Input(x, "pullback")
    b = _first(backend, "pullback")
    if isinstance(b, ReverseMode):
        output, pull = b.pullback(f, inp, "pullback")
    else:
        output, J = _jacobian(f, inp, backend, "pullback")
        flat_J = np.reshape(J, (-1, inp.size))

        def pull(w):
            return np.reshape(w, (-1,)) @ flat_J

    def pullback(w: Any) -> Any:
        w = _cotangent(w, output.shape, "pullback")
        return inp.like(np.reshape(pull(w), tuple(inp.shape)))

    return output.value, pullback


def _cotangent(w, shape, who):
    if isinstance(w, (list, tuple)) or np.ndim(w) or shape:
        w = np.asarray(w, dtype=float) if not isinstance(w, np.ndarray) else w
    else:
        w = np.asarray(float(w)) if not runs.is_tagged(w) else w
    if np.shape(w) != tuple(shape):
        raise ValueError("%s: w has shape %s but f(x) has shape %s; they must match" % (who, np.shape(w), tuple(shape)))
    return w


def _value(f, x, who):
    out = f(x)
    if isinstance(out, (list, tuple)) or runs.is_tagged(out) or isinstance(out, np.ndarray):
        return out
    return float(out)


def hessian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> Any:
    """The Hessian of a real-valued ``f`` at ``x``: the Jacobian of its gradient (forward over
    forward by default; ``ad.HigherOrder(outer, inner)`` picks each). Shape ``x.shape * 2``;
    a list of rows for list and tuple inputs; a SciPy sparse matrix with ``backend=ad.Sparse(...)``."""
    if getattr(backend, "sparse", False):
        return backend.hessian(f, x)
    outer, inner = check_backend(backend, "hessian").second_order()
    return jacobian(closures.gradient_of(f, gradient, inner), x, outer)


def value_and_hessian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> tuple[Any, Any]:
    """``(f(x), hessian(f, x))``."""
    return _value(f, x, "hessian"), hessian(f, x, backend)


def value_gradient_and_hessian(f: Callable[..., Any], x: Any,
                               backend: Backend | None = None) -> tuple[Any, Any, Any]:
    """``(f(x), ∇f(x), hessian(f, x))``."""
    outer, inner = check_backend(backend, "hessian").second_order()
    value, grad = value_and_gradient(f, x, inner)
    return value, grad, hessian(f, x, backend)


def hvp(f: Callable[..., Any], x: Any, v: Any, backend: Backend | None = None) -> Any:
    """The Hessian of ``f`` at ``x`` times ``v``: a directional derivative of the gradient."""
    outer, inner = check_backend(backend, "hvp").second_order()
    return jvp(closures.gradient_of(f, gradient, inner), x, v, outer)[1]
