"""``check_grads``: a function's derivatives checked against central differences.

As autograd's ``check_grads`` and JAX's ``jax.test_util.check_grads``: along random
directions, each derivative ``ad`` computes (the first, then the derivative of that,
up to ``order``) is compared with the central difference of the level below it.
Arguments may be real or complex numbers and arrays, and lists, tuples and dicts of
them (pytrees); directions are random in the same space (complex for complex inputs).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import api
from .pytrees import flatten, unflatten

__all__ = ["check_grads", "check_vjp", "numerical_jvp"]


def _differentiable(leaf):
    return isinstance(leaf, (float, complex, np.floating, np.complexfloating)) or (
        isinstance(leaf, np.ndarray) and leaf.dtype.kind in "fc"
    )


def _differentiated(args, argnums, who):
    """``(argnums, leaves, tree, owner)``: the arguments to differentiate (by default each whose
    leaves are all numbers or float/complex arrays), the leaves of ``args``, their tree, and the
    argument each leaf belongs to."""
    if argnums is None:
        argnums = [i for i, a in enumerate(args) if flatten(a)[0] and all(map(_differentiable, flatten(a)[0]))]
    if not argnums:
        raise ValueError("%s: no argument is a real or complex number or array of them" % who)
    leaves, tree = flatten(args)
    owner = [i for i, a in enumerate(args) for _ in flatten(a)[0]]
    return argnums, leaves, tree, owner


def _random_like(leaf, rng):
    shape = np.shape(leaf)
    d = rng.standard_normal(shape)
    if np.iscomplexobj(leaf):
        d = d + 1j * rng.standard_normal(shape)
    return d if shape else d.item()


def _moved(leaves, directions, t):
    return [leaf if d is None else leaf + t * d for leaf, d in zip(leaves, directions)]


def _call(f, tree, leaves):
    return f(*unflatten(tree, leaves))


def numerical_jvp(f: Callable[..., Any], args: Sequence[Any], directions: Sequence[Any], eps: float = 1e-5) -> list:
    """The central difference ``(f(args + eps v) - f(args - eps v)) / (2 eps)``, one array per leaf of
    ``f``'s result; ``directions`` has one entry per leaf of ``args`` (None for a leaf held fixed)."""
    leaves, tree = flatten(tuple(args))
    plus = flatten(_call(f, tree, _moved(leaves, directions, eps)))[0]
    minus = flatten(_call(f, tree, _moved(leaves, directions, -eps)))[0]
    return [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus)]


def _flat_result(f):
    """``f`` with its result (any pytree of numbers and arrays) as one flat array."""

    def flat(*args):
        leaves = flatten(f(*args))[0]
        if len(leaves) == 1:
            return np.reshape(leaves[0], (-1,))
        return np.concatenate([np.reshape(leaf, (-1,)) for leaf in leaves])

    return flat


def _along(f, tree, leaves, directions):
    """``t -> f(args + t v)``: the function ``ad.derivative`` differentiates at 0."""
    return lambda t: _call(f, tree, _moved(leaves, directions, t))


def _next_level(level, tree, directions):
    """``args -> d/dt level(args + t v)`` at ``t = 0``, computed by ``ad``."""

    def derivative_along(*args):
        return api.derivative(_along(level, tree, flatten(args)[0], directions), 0.0)

    return derivative_along


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    order: int = 2,
    argnums: Sequence[int] | None = None,
    eps: float = 1e-5,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
) -> None:
    """Raise ``AssertionError`` unless ``f(*args)``'s derivatives up to ``order`` match central differences.

    ``argnums`` picks the arguments to differentiate (default: each argument whose leaves are
    all real or complex numbers or arrays of them). Level ``k`` is the derivative of level
    ``k - 1`` along a fresh random direction, computed by ``ad.derivative``; it is compared
    with the central difference of level ``k - 1`` as ``np.allclose(rtol, atol)`` does.
    """
    args = tuple(args)
    argnums, leaves, tree, owner = _differentiated(args, argnums, "check_grads")
    rng = np.random.default_rng(seed)
    level = _flat_result(f)
    for k in range(1, order + 1):
        directions = [_random_like(leaf, rng) if i in argnums else None for leaf, i in zip(leaves, owner)]
        expected = numerical_jvp(level, args, directions, eps)
        (expected,) = expected
        got = np.asarray(api.derivative(_along(level, tree, leaves, directions), 0.0))
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True):
            raise AssertionError(
                "check_grads: derivative of order %d of %s (its result's leaves raveled and joined): "
                "ad gives\n%r\ncentral differences give\n%r" % (k, getattr(f, "__qualname__", f), got, expected)
            )
        level = _next_level(level, tree, directions)


def check_vjp(
    f: Callable[..., Any],
    args: Sequence[Any],
    argnums: Sequence[int] | None = None,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    seed: int = 0,
) -> None:
    """Raise ``AssertionError`` unless reverse mode transposes forward mode on ``f(*args)``: the
    dot-product test ``<u, J v> == <J^T u, v>`` for a random direction ``v`` of the differentiated
    arguments and a random cotangent ``u`` of the result (real values; the result a number, an
    array, or a pytree of them). Forward mode's ``J v`` is itself checked by ``check_grads``.
    """
    from .backends import ReverseMode
    from .transforms import grad

    args = tuple(args)
    argnums, leaves, tree, owner = _differentiated(args, argnums, "check_vjp")
    rng = np.random.default_rng(seed)
    directions = [_random_like(leaf, rng) if i in argnums else None for leaf, i in zip(leaves, owner)]
    flat = _flat_result(f)
    jv = np.asarray(api.derivative(_along(flat, tree, leaves, directions), 0.0))
    u = rng.standard_normal(jv.shape)
    left = float(np.sum(u * jv))
    cotangents = grad(lambda *a: np.sum(u * flat(*a)), tuple(argnums), backend=ReverseMode())(*args)
    right = 0.0
    for n, g in zip(argnums, cotangents):
        g_leaves = flatten(g)[0]
        d_leaves = [d for d, i in zip(directions, owner) if i == n]
        right += sum(float(np.sum(np.asarray(gl) * dl)) for gl, dl in zip(g_leaves, d_leaves))
    if not np.isclose(left, right, rtol=rtol, atol=atol):
        raise AssertionError(
            "check_vjp: %s: <u, J v> by forward mode is %r, <J^T u, v> by reverse mode is %r"
            % (getattr(f, "__qualname__", f), left, right)
        )
