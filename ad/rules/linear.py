"""``deflinear``: the rule of a function that is linear in some of its arguments.

Such a function's tangent is the function itself applied to the tangents: for ``fn``
linear in argument ``i`` (the others held fixed), the contribution of that argument is
``fn(..., g_i, ...)``; with several such arguments carrying tangents (``np.convolve(a, v)``
is linear in each), the contributions add up, the product rule of a multilinear map. A
tangent with a chunk axis is taken one direction at a time. This module is a rule
table's helper: its code runs under an enclosing derivative, which differentiates it.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError, frule
from .tangents import lead

_F = TypeVar("_F", bound=Callable[..., Any])


def _stack(parts):
    """The per-direction results stacked on a leading chunk axis (element by element for sequences)."""
    if isinstance(parts[0], (list, tuple)):
        return type(parts[0])(np.stack(items) for items in zip(*parts))
    return np.stack(parts)


def _add(a, b):
    if isinstance(a, (list, tuple)):
        return type(a)(x + y for x, y in zip(a, b))
    return a + b


def linear_term(fn, primals, i, g, kwargs):
    """``fn(*primals, **kwargs)`` with argument ``i`` replaced by its tangent ``g``, per chunk direction."""

    def at(gi):
        args = list(primals)
        args[i] = gi
        return fn(*args, **kwargs)

    if not lead(g, primals[i]):
        return at(g)
    return _stack([at(gi) for gi in g])


def deflinear(fn: _F, argnums: Iterable[int] = (0,)) -> _F:
    """Register the rule of ``fn``, linear in each argument at ``argnums`` (the others constants).

    ``ad.deflinear(np.fft.fft)`` is the whole rule of ``fft``; ``ad.deflinear(np.convolve,
    (0, 1))`` that of ``convolve``, bilinear. A tangent reaching another argument raises
    ``NoRuleError``. Lists and tuples of results (``np.hsplit``) take lists and tuples of tangents.
    """
    argnums = tuple(argnums)

    @frule(fn)
    def rule(primals, tangents, **kwargs):
        for j, g in enumerate(tangents):
            if g is not None and j not in argnums:
                raise NoRuleError(
                    "%s is linear in argument%s %s only; argument %d carries a derivative: make it a constant"
                    % (qualified_name(fn), "s" if len(argnums) > 1 else "",
                       ", ".join(str(a + 1) for a in argnums), j + 1)
                )
        out = fn(*primals, **kwargs)
        tangent = None
        for i in argnums:
            if i < len(tangents) and tangents[i] is not None:
                term = linear_term(fn, primals, i, tangents[i], kwargs)
                tangent = term if tangent is None else _add(tangent, term)
        return out, tangent

    rule.__qualname__ = rule.__name__ = "linear rule of %s" % qualified_name(fn)
    return fn
