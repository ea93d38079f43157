"""Function transforms after JAX and autograd: ``grad``, ``value_and_grad``, ``jacfwd``, ``hessian_of``;
and ``gradient``, ``jacobian``, ``hessian``, which evaluate at ``x`` when given one (``ad.api``) and
are the transforms without it.

Each takes ``f`` and returns a function of ``f``'s own arguments. ``argnums`` (an int or a
tuple of ints) picks the arguments to differentiate; each may be a number, an array, or a
pytree of them (nested lists, tuples, named tuples and dicts: ``ad.pytrees``), and the
derivative has the same structure. With ``has_aux=True``, ``f`` returns ``(out, aux)``:
``aux`` is returned beside the derivative, not differentiated (from ``f``'s first run).

Differentiated leaves are real numbers and float (or complex) arrays; an int leaf raises
``TypeError``, as in JAX: differentiate with respect to floats. The arguments are packed
into one flat array, so one forward run per chunk of 16 input directions covers all of
them (a single array or number is passed as it is). Not engine code: an enclosing
derivative differentiates through it, so transforms compose (``jacfwd(grad(f))``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from context.tagging.values import live, primal

from . import api
from .backends import Backend
from .engine import runs
from .engine.dual_array import is_array
from .pytrees import flatten, unflatten

__all__ = ["grad", "gradient", "hessian", "hessian_of", "jacfwd", "jacobian", "value_and_grad"]


def _check_leaf(leaf, who, i):
    if who == "grad" and isinstance(leaf, (complex, np.complexfloating)):
        return  # (a complex number: its gradient follows JAX's convention, see api.value_and_gradient)
    if is_array(leaf):
        if leaf.dtype.kind not in "fc":
            raise TypeError(
                "%s: leaf %d of the differentiated arguments is an array of dtype %s; derivatives are "
                "taken with respect to floats (pass .astype(float))" % (who, i, leaf.dtype)
            )
        return
    if runs.is_tagged(leaf) or (isinstance(leaf, numbers.Real) and not isinstance(leaf, (bool, int, np.integer))):
        return
    raise TypeError(
        "%s: leaf %d of the differentiated arguments is %s %r; derivatives are taken with respect to "
        "real numbers and float arrays (an int must be made a float)" % (who, i, type(leaf).__name__, leaf)
    )


class _Packed:
    """The differentiated arguments of one call, as one flat array (or their only leaf)."""

    def __init__(self, args: tuple, argnums: int | Sequence[int], who: str):
        self.single = isinstance(argnums, int)
        nums = (argnums,) if self.single else tuple(argnums)
        for n in nums:
            if not isinstance(n, int) or not -len(args) <= n < len(args):
                raise ValueError("%s: argnums %r does not name one of the %d arguments" % (who, argnums, len(args)))
        self.nums = tuple(n % len(args) for n in nums)
        self.args = args
        self.leaves, self.tree = flatten(tuple(args[n] for n in self.nums))
        if not self.leaves:
            raise ValueError("%s: the arguments at argnums %r hold no number to differentiate" % (who, argnums))
        for i, leaf in enumerate(self.leaves):
            _check_leaf(leaf, who, i)
        if len(self.leaves) > 1 and any(np.iscomplexobj(leaf) for leaf in self.leaves):
            raise TypeError("%s: a complex leaf is differentiated only alone (its gradient has JAX's convention, "
                            "df/dx - i df/dy); pass it as the only differentiated argument" % who)
        self.shapes = [np.shape(leaf) for leaf in self.leaves]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.offsets = np.cumsum([0] + self.sizes)
        self.only = len(self.leaves) == 1

    def x(self) -> Any:
        """The point: the only leaf, or every leaf raveled into one array."""
        if self.only:
            return self.leaves[0]
        return np.concatenate([np.ravel(leaf) for leaf in self.leaves])

    def call(self, f: Callable[..., Any], x: Any, kwargs: dict) -> Any:
        """``f`` with the differentiated arguments taken from ``x``."""
        if self.only:
            leaves = [x]
        else:
            leaves = [x[a] if not s else x[a:b].reshape(s) for a, b, s in zip(self.offsets, self.offsets[1:], self.shapes)]
        trees = unflatten(self.tree, leaves)
        args = list(self.args)
        for n, t in zip(self.nums, trees):
            args[n] = t
        return f(*args, **kwargs)

    def split(self, a: Any, lead: tuple = ()) -> Any:
        """Array ``a`` of shape ``lead + (n,)`` (``lead + x.shape`` for one leaf) as the arguments' trees,
        each leaf shaped ``lead + leaf.shape``; a number leaf of an empty ``lead`` is a float."""
        if self.only:
            blocks = [a]
        else:
            blocks = [np.reshape(a[..., o:e], lead + s) for o, e, s in zip(self.offsets, self.offsets[1:], self.shapes)]
        blocks = [_like(b, leaf, lead) for b, leaf in zip(blocks, self.leaves)]
        trees = unflatten(self.tree, blocks)
        return trees[0] if self.single else trees


def _like(block, leaf, lead):
    """A derivative block in the leaf's kind: a float for a number leaf, the leaf's dtype for arrays."""
    if runs.is_tagged(block):  # a nested derivative's value: left as it is
        return block
    if not lead and not is_array(leaf):
        return complex(np.asarray(block)) if np.iscomplexobj(leaf) else float(np.asarray(block))
    if is_array(leaf) and is_array(block) and not runs.is_tagged(block) and block.dtype != leaf.dtype:
        if np.result_type(block.dtype, leaf.dtype) == block.dtype and leaf.dtype.kind == block.dtype.kind:
            return block.astype(leaf.dtype)
    return block


class _Aux:
    """``f`` with its ``(out, aux)`` result split: ``aux`` from the first run, kept aside."""

    def __init__(self, f, has_aux, who):
        self.f, self.has_aux, self.who = f, has_aux, who
        self.seen = False
        self.aux = None

    def __call__(self, *args, **kwargs):
        out = self.f(*args, **kwargs)
        if not self.has_aux:
            return out
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("%s: with has_aux=True the function must return a pair (out, aux)" % self.who)
        if not self.seen:
            self.seen, self.aux = True, out[1]
        return out[0]

    def result(self):
        """``aux`` with this derivative's layers removed (an enclosing derivative's stay)."""
        leaves, tree = flatten(self.aux, none_is_leaf=True)
        return unflatten(tree, [live(leaf) for leaf in leaves])


def value_and_grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   backend: Backend | None = None) -> Callable[..., Any]:
    """``args -> (f(*args), grad)``, or ``((out, aux), grad)`` with ``has_aux``; ``f`` returns one real number."""

    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        packed = _Packed(args, argnums, "grad")
        inner = _Aux(f, has_aux, "grad")
        value, g = api.value_and_gradient(lambda x: packed.call(inner, x, kwargs), packed.x(), backend)
        g = packed.split(g)
        return ((value, inner.result()), g) if has_aux else (value, g)

    value_and_grad_f.__qualname__ = "value_and_grad(%s)" % getattr(f, "__qualname__", f)
    return value_and_grad_f


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         backend: Backend | None = None) -> Callable[..., Any]:
    """``args -> ∇f`` with respect to the arguments at ``argnums`` (``(grad, aux)`` with ``has_aux``)."""
    both = value_and_grad(f, argnums, has_aux, backend)

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    grad_f.__qualname__ = "grad(%s)" % getattr(f, "__qualname__", f)
    return grad_f


def _flat_output(out, cell):
    """``f``'s result as one flat array; its tree and leaf shapes go into ``cell`` (first run)."""
    leaves, tree = flatten(out)
    if not cell:
        cell.append((tree, [np.shape(primal(leaf)) for leaf in leaves]))
    if len(leaves) == 1:
        return np.reshape(leaves[0], (-1,))
    return np.concatenate([np.reshape(leaf, (-1,)) for leaf in leaves])


def jacfwd(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           backend: Backend | None = None) -> Callable[..., Any]:
    """``args -> J``: for each leaf of ``f``'s result, the tree of the differentiated arguments with
    blocks of shape ``out_leaf.shape + arg_leaf.shape`` (``(J, aux)`` with ``has_aux``), as JAX's jacfwd."""

    def jacfwd_f(*args: Any, **kwargs: Any) -> Any:
        packed = _Packed(args, argnums, "jacfwd")
        inner = _Aux(f, has_aux, "jacfwd")
        cell: list = []
        J = api.jacobian(lambda x: _flat_output(packed.call(inner, x, kwargs), cell), packed.x(), backend)
        out_tree, out_shapes = cell[0]
        rows = np.cumsum([0] + [int(np.prod(s)) for s in out_shapes])
        x_shape = tuple(packed.shapes[0]) if packed.only else (int(packed.offsets[-1]),)
        J = np.reshape(J, (int(rows[-1]),) + x_shape)
        blocks = [
            packed.split(np.reshape(J[a:b], tuple(s) + x_shape), tuple(s))
            for a, b, s in zip(rows, rows[1:], out_shapes)
        ]
        jac = unflatten(out_tree, blocks)
        return (jac, inner.result()) if has_aux else jac

    jacfwd_f.__qualname__ = "jacfwd(%s)" % getattr(f, "__qualname__", f)
    return jacfwd_f


def hessian_of(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
               backend: Backend | None = None) -> Callable[..., Any]:
    """``args -> H``: ``jacfwd(grad(f))``, blocks ``arg_leaf.shape * 2`` for one array argument."""
    return jacfwd(grad(f, argnums, backend=backend), argnums, backend=backend)


_NO_POINT = object()


def _is_tree(x):
    """Whether ``x`` is a pytree beyond what ``ad.api`` takes (a number, a flat list or tuple, an array)."""
    if type(x) is dict or (isinstance(x, tuple) and hasattr(type(x), "_fields")):
        return True
    return isinstance(x, (list, tuple)) and any(isinstance(e, (list, tuple, dict)) or is_array(e) for e in x)


def gradient(f: Callable[..., Any], x: Any = _NO_POINT, backend: Backend | None = None) -> Any:
    """``∇f(x)`` now, in ``x``'s structure (any pytree), or without ``x`` the function ``grad(f)``."""
    if x is _NO_POINT:
        return grad(f, backend=backend)
    return grad(f, backend=backend)(x) if _is_tree(x) else api.gradient(f, x, backend)


def jacobian(f: Callable[..., Any], x: Any = _NO_POINT, backend: Backend | None = None) -> Any:
    """The Jacobian at ``x`` now (a pytree ``x`` as ``jacfwd``), or without ``x`` the function ``jacfwd(f)``."""
    if x is _NO_POINT:
        return jacfwd(f, backend=backend)
    return jacfwd(f, backend=backend)(x) if _is_tree(x) else api.jacobian(f, x, backend)


def hessian(f: Callable[..., Any], x: Any = _NO_POINT, backend: Backend | None = None) -> Any:
    """The Hessian at ``x`` now (a pytree ``x`` as ``hessian_of``), or without ``x`` the function ``hessian_of(f)``."""
    if x is _NO_POINT:
        return hessian_of(f, backend=backend)
    return hessian_of(f, backend=backend)(x) if _is_tree(x) else api.hessian(f, x, backend)
