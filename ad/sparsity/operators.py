"""The arithmetic operators of sparsity detection, with a short path to their rule.

Rewritten code calls a handler for each ``a + b``. The generic handlers (``handlers.build``)
lift a buffer to the ``DualArray`` it stands for and let the operator dispatch on the
newest live tag, which finds the context's primitive and runs the rule: about twenty
calls before the rule starts, paid by every operation of the detected function. Here,
when the operands are plain numbers and arrays, or values of one live run of the stock
``SparsityCtx`` computing first-order patterns, the handler applies that primitive's
elementwise rule itself: the same result, the same dependencies. Anything else (another
context's values, undecided values, second-order pairs, a subclass or a rule replaced by
``defsparsity``, other operand types) takes the generic handler.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from context import primitives
from context.resolve import declare_engine_code
from context.tagging import enclosing_call

from . import deps, store

declare_engine_code(__file__)

ndarray = np.ndarray
_registrations = primitives.REGISTRATIONS
_NUMBERS = frozenset({int, float, complex, bool, np.float64, np.float32, np.int64, np.int32, np.complex128,
                      np.bool_})
# each operator, with the function the generic path dispatches for it: for numbers (``Traced``
# operands) the operator itself, for arrays (a ``DualArray`` operand) the NumPy function
_OPERATORS = ((operator.add, operator.add, np.add), (operator.sub, operator.sub, np.subtract),
              (operator.mul, operator.mul, np.multiply), (operator.truediv, operator.truediv, np.true_divide),
              (operator.pow, pow, np.power))


def install(handlers: dict[str, Callable[..., Any]], ctx_class: type, traced: type, undecided: str,
            result: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """``handlers`` with the arithmetic operators given the short path (for ``ctx_class`` exactly,
    whose scalars are of type ``traced``); ``result(ctx, ans, D)`` tags a result."""
    out = dict(handlers)
    for op, scalar_fn, array_fn in _OPERATORS:
        out[op.__name__] = _fast(op, scalar_fn, array_fn, handlers[op.__name__], ctx_class, traced, undecided,
                                 result)
    out["getitem"] = _getitem(handlers["getitem"], ctx_class, undecided, result)
    return out


def _stock(op, ctx_class, attribute):
    """``attribute`` of the rule of ``ctx_class``'s primitive for ``op`` (the elementwise rule's
    zero positions, the subscript rule's mark), or None when the primitive is something else
    (typed entries, a rule of another kind or replaced by ``defsparsity``)."""
    table = primitives.table_for(ctx_class)
    entries = table.get(id(op)) if table else None
    if not entries or entries[0][0] is not None:
        return None
    return getattr(getattr(entries[0][1], "rule", None), attribute, None)


def _getitem(generic, ctx_class, undecided, result):
    known = {}

    def getitem(obj, key):
        """``obj[key]``: a basic slice of an array is a view, whose dependencies the store finds by its
        address (nothing to do); an element of a vector is a number with that element's slots."""
        kind = type(key)
        if type(obj) is not ndarray or not (kind is slice or (kind is int and obj.ndim == 1)):
            return generic(obj, key)
        version = _registrations[0]
        stock = known.get(version)
        if stock is None:
            known.clear()
            stock = known[version] = bool(_stock(operator.getitem, ctx_class, "element_read"))
        if not stock:  # (a subscript rule replaced with defsparsity: it decides)
            return generic(obj, key)
        if kind is slice:
            return obj[key]
        t, D = store.lookup(obj)
        if t is None:
            return obj[key]
        ctx = t.context
        if D is undecided or type(ctx) is not ctx_class:
            return generic(obj, key)
        return result(ctx, obj[key], D[:, key])

    return getitem


def _fast(op, scalar_fn, array_fn, generic, ctx_class, traced, undecided, result):
    known = {}  # primitives version -> zero positions of (scalar_fn, array_fn) (None: no short path)

    def handler(a, b):
        # (both operands are read in line, twice the same steps: this runs for every arithmetic
        # operation of the detected function, and a helper call per operand costs 5-10% of it)
        ka = type(a)
        if ka is ndarray:
            ta, da = store.lookup(a, lazy=True)
            pa = a
        elif ka is traced:
            ta, da, pa = a.tag, a.meta, a.value
        elif ka in _NUMBERS:
            ta = da = None
            pa = a
        else:
            return generic(a, b)
        kb = type(b)
        if b is a:
            tb, db, pb = ta, da, pa
        elif kb is ndarray:
            tb, db = store.lookup(b, lazy=True)
            pb = b
        elif kb is traced:
            tb, db, pb = b.tag, b.meta, b.value
        elif kb in _NUMBERS:
            tb = db = None
            pb = b
        else:
            return generic(a, b)
        t = ta if ta is not None else tb
        if t is None:
            return op(a, b)
        if (tb is not None and tb is not t) or t.finished or da is undecided or db is undecided:
            return generic(a, b)
        ctx = t.context
        if type(ctx) is not ctx_class or ctx.pairs is not None:
            return generic(a, b)
        version = _registrations[0]
        zeros = known.get(version)
        if zeros is None:
            known.clear()
            zeros = known[version] = (_stock(scalar_fn, ctx_class, "zero"), _stock(array_fn, ctx_class, "zero"))
        # the function ``a OP b`` dispatches: the array one if the left operand is an array being
        # differentiated, or the right one is and the left is not a number being differentiated
        zero = zeros[1] if (ka is ndarray and ta is not None) or (ka is not traced and kb is ndarray) else zeros[0]
        if zero is None:
            return generic(a, b)
        runs = t.runs
        ans = op(pa, pb) if not runs or runs[-1].parent is None else enclosing_call(t, op, (pa, pb))
        if da is not None and 0 not in zero:
            parts = [da, db] if db is not None and 1 not in zero else [da]
        elif db is not None and 1 not in zero:
            parts = [db]
        else:
            return ans  # (what the rule returns when no argument with a derivative depends on the input)
        if type(ans) is ndarray:  # an array: its slots a union joined when needed (``deps.Parts``)
            return result(ctx, ans, deps.lazy_union(parts, ans.shape))
        parts = [deps.joined(p) for p in parts]  # (a number: a few slots, joined at once)
        return result(ctx, ans, deps.lined(parts[0], ()) if len(parts) == 1 else deps.union(parts, ()))

    handler.__name__ = handler.__qualname__ = op.__name__
    return handler
