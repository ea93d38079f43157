"""NumPy's override protocols on tagged values: NumPy called from native code follows the rules.

Inside a context every call is seen, so NumPy functions reach the context's primitives.
Code that runs natively does not: a special method of the user's class that the
interpreter calls itself (``Vec.__add__`` behind ``u + v``, ``__abs__`` behind ``abs(u)``),
a property loaded as a method, a function wrapped by ``functools.lru_cache``, a
callback that native code stores and calls later. There a tagged value reaches NumPy
directly, and NumPy asks the value (``__array_ufunc__`` for ufuncs and their methods,
``__array_function__`` for the functions of NumPy's API): the answer is the call made
as it would be inside the context, by the rules of the newest live tag among the
arguments (those inside lists, tuples and keyword arguments too), as ``dispatch`` makes
it. A function the context has no primitive for then gets the context's policy
(AD: an error naming it; ``untag_for_natives``: the values without that layer).

NumPy's arrays and scalars used to defer their binary operators to the tagged value
(``__array_ufunc__ = None``): ``array + x`` became ``x.__radd__(array)``, the rule of
``operator.add``. With the protocol NumPy calls ``np.add(array, x)`` instead, which
comes here; a ufunc called with two arguments and nothing else (how NumPy spells an
operator) goes to the ``operator`` function as before, so contexts that define
operators' primitives see the same calls.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
import sys
from typing import Any

from .. import primitives
from .dispatch import enclosing_call
from .values import Tagged, live

# NumPy's ufuncs behind the binary operators of its arrays and scalars, by name
_OPERATOR_UFUNCS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
    "true_divide": operator.truediv, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "power": operator.pow, "matmul": operator.matmul, "bitwise_and": operator.and_, "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor, "left_shift": operator.lshift, "right_shift": operator.rshift, "divmod": divmod,
    "less": operator.lt, "less_equal": operator.le, "equal": operator.eq, "not_equal": operator.ne,
    "greater": operator.gt, "greater_equal": operator.ge,
}


def _as_operator(ufunc):
    """The ``operator`` function NumPy's binary operator ``ufunc`` stands for, or None."""
    op = _OPERATOR_UFUNCS.get(getattr(ufunc, "__name__", None))
    if op is None or getattr(sys.modules.get("numpy"), ufunc.__name__, None) is not ufunc:
        return None
    return op


def _newest(values, best):
    """The newest live tag among ``values`` and the lists, tuples and dicts in them, or ``best``."""
    for v in values:
        kind = type(v)
        if issubclass(kind, Tagged):
            t = v.tag
            if t.finished:
                v = live(v)
                if not issubclass(type(v), Tagged):
                    continue
                t = v.tag
            if best is None or t.serial > best.serial:
                best = t
        elif kind is list or kind is tuple:
            best = _newest(v, best)
        elif kind is dict:
            best = _newest(v.values(), best)
    return best


def _peeled(v, tag):
    """``v`` with ``tag``'s layer and finished layers removed, inside lists, tuples and dicts too."""
    kind = type(v)
    if issubclass(kind, Tagged):
        v = live(v)
        if issubclass(type(v), Tagged) and v.tag is tag:
            return v.value
        return v
    if kind is list or kind is tuple:
        return kind(_peeled(x, tag) for x in v)
    if kind is dict:
        return {k: _peeled(x, tag) for k, x in v.items()}
    return v


def protocol_call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn(*args, **kwargs)``, reached by NumPy's protocol, by the rules of the newest live tag."""
    tag = _newest(kwargs.values(), _newest(args, None))
    if tag is None:  # only finished layers: the values count as what they carry
        return fn(*_peeled(args, None), **_peeled(kwargs, None))
    ctx = tag.context
    table = primitives.table_for(type(ctx))
    impl = None
    if table is not None:
        impl, args = primitives.find(table, fn, args)
    if impl is None:
        if not type(ctx).untag_for_natives:
            raise type(ctx).no_rule_error(fn, ctx)
        return enclosing_call(tag, fn, _peeled(args, tag), _peeled(kwargs, tag))
    act = tag.activation
    if act is not None and act.alive:
        if getattr(impl, "native_primitive", False):
            return impl(act.ctx, *args, **kwargs)
        return act.run_primitive(impl, args, kwargs)
    return impl(ctx, *args, **kwargs)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__":
        if not kwargs and len(inputs) == 2:
            op = _as_operator(ufunc)
            if op is not None:
                return protocol_call(op, inputs, kwargs)
        return protocol_call(ufunc, inputs, kwargs)
    return protocol_call(getattr(ufunc, method), inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    return protocol_call(func, args, kwargs)


Tagged.__array_ufunc__ = _array_ufunc
Tagged.__array_function__ = _array_function
