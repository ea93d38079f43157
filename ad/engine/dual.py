"""``Dual``: the tagged value forward-mode AD works with (primal ``value``, tangent ``meta``).

Its operators for ``+ - * /``, negation, constant powers and comparisons are the rules
of ``ad.rules.operators`` written out for speed, with the same operations in the same
order (so the same results to the last bit); every other case (mixed tags, finished
tags, other operand types) goes to the generic dispatch, which uses those rules.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import Tagged, dispatch
from context.tagging.operators import MetadataLossError
from context.tagging.values import live, primal

declare_engine_code(__file__)

_add, _sub, _mul, _truediv, _pow = operator.add, operator.sub, operator.mul, operator.truediv, operator.pow
_neg = operator.neg
_new = object.__new__  # Dual(v, t, m) without the __init__ frame: these operators are the hot path


def _is_complex(x):
    p = primal(x)
    return isinstance(p, (complex, np.complexfloating))


def _scalar_method(fn):
    def method(self, *args: Any, **kwargs: Any) -> Any:
        return dispatch(fn, (self,) + args, kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = "``np.%s`` of this number, differentiated." % fn.__name__
    return method


class ScalarArrayMethods:
    """The array attributes and methods of a NumPy scalar, for a number being differentiated
    whose value may be one (``np.sum(x).sum()``; SciPy calls ``.squeeze()``): each the NumPy
    function of the same name, through the rules. Shared by forward and reverse mode."""

    __slots__ = ()
    ndim = property(lambda self: 0)
    shape = property(lambda self: ())
    size = property(lambda self: 1)


for _fn in (np.squeeze, np.sum, np.mean, np.prod, np.max, np.min, np.ravel, np.reshape, np.round, np.any, np.all):
    setattr(ScalarArrayMethods, _fn.__name__, _scalar_method(_fn))


class FloatMethods:
    """``float``'s methods that read the number, through the rules (``statistics`` calls
    ``as_integer_ratio``). Shared by forward and reverse mode."""

    __slots__ = ()

    def is_integer(self) -> Any:
        return dispatch(float.is_integer, (self,))

    def hex(self) -> Any:
        return dispatch(float.hex, (self,))

    def as_integer_ratio(self) -> Any:
        return dispatch(float.as_integer_ratio, (self,))


class Dual(ScalarArrayMethods, FloatMethods, Tagged):
    """A primal ``value`` with tangent ``meta`` for the context of ``tag``."""

    __slots__ = ()

    @property
    def tangent(self) -> Any:
        return self.meta

    # Text made from a value being differentiated carries no derivative: a number read back
    # from it would be a constant, a silently lost tangent. So numeric formats refuse, and
    # str() shows the dual, not a bare number (as JAX shows a tracer). A value whose run has
    # finished is its number again.
    def __str__(self):
        x = live(self)
        if type(x) is not Dual:
            return str(x)
        return "Dual(%s, tangent=%s)" % (x.value, x.meta)

    def __format__(self, spec):
        x = live(self)
        if type(x) is not Dual:
            return format(x, spec)
        if not spec:
            return str(x)
        raise MetadataLossError(
            "format(x, %r) of a value being differentiated: the text carries no derivative, and a number "
            "read back from it would silently have none; compute with the number itself, or format it "
            "after the derivative is taken" % (spec,)
        )

    # The methods of a float, through the rules (those with none raise NoRuleError naming them).
    @property
    def real(self) -> Any:
        if _is_complex(self):
            return dispatch(np.real, (self,))
        return self

    @property
    def imag(self) -> Any:
        if _is_complex(self):
            return dispatch(np.imag, (self,))
        return 0.0

    def item(self) -> Any:
        return self

    def __copy__(self) -> Dual:
        return self  # numbers are immutable, as copy.copy(1.5) is 1.5

    def __deepcopy__(self, memo: Any) -> Dual:
        return self

    def conjugate(self) -> Any:
        return dispatch(float.conjugate, (self,))

    def __add__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is Dual:
                if b.tag is t:
                    d = _new(Dual)
                    d.value, d.tag, d.meta = a.value + b.value, t, a.meta + b.meta
                    return d
            elif kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = a.value + b, t, a.meta
                return d
        return dispatch(_add, (a, b))

    def __radd__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = b + a.value, t, a.meta
                return d
        return dispatch(_add, (b, a))

    def __sub__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is Dual:
                if b.tag is t:
                    d = _new(Dual)
                    d.value, d.tag, d.meta = a.value - b.value, t, a.meta - b.meta
                    return d
            elif kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = a.value - b, t, a.meta
                return d
        return dispatch(_sub, (a, b))

    def __rsub__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = b - a.value, t, -a.meta
                return d
        return dispatch(_sub, (b, a))

    def __mul__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is Dual:
                if b.tag is t:
                    av, bv = a.value, b.value
                    d = _new(Dual)
                    d.value, d.tag, d.meta = av * bv, t, a.meta * bv + av * b.meta
                    return d
            elif kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = a.value * b, t, a.meta * b
                return d
        return dispatch(_mul, (a, b))

    def __rmul__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = b * a.value, t, b * a.meta
                return d
        return dispatch(_mul, (b, a))

    def __truediv__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is Dual:
                if b.tag is t:
                    bv = b.value
                    out = a.value / bv
                    d = _new(Dual)
                    d.value, d.tag, d.meta = out, t, a.meta / bv + -b.meta * out / bv
                    return d
            elif kind is float or kind is int:
                d = _new(Dual)
                d.value, d.tag, d.meta = a.value / b, t, a.meta / b
                return d
        return dispatch(_truediv, (a, b))

    def __rtruediv__(a, b):
        t = a.tag
        if not t.finished:
            kind = type(b)
            if kind is float or kind is int:
                av = a.value
                out = b / av
                d = _new(Dual)
                d.value, d.tag, d.meta = out, t, -a.meta * out / av
                return d
        return dispatch(_truediv, (b, a))

    def __pow__(a, b, mod=None):
        t = a.tag
        if mod is None and not t.finished:
            kind = type(b)
            if (kind is float or kind is int) and b != 0 and (b >= 1 or a.value != 0):
                av = a.value  # (x ** 0 and 0 ** b for b < 1 go to the rule: constants, IEEE infinities)
                d = _new(Dual)
                d.value, d.tag, d.meta = av ** b, t, a.meta * b * av ** (b - 1)
                return d
        return dispatch(_pow, (a, b) if mod is None else (a, b, mod))

    def __neg__(a):
        t = a.tag
        if not t.finished:
            d = _new(Dual)
            d.value, d.tag, d.meta = -a.value, t, -a.meta
            return d
        return dispatch(_neg, (a,))

    def __lt__(a, b):
        if not a.tag.finished and (type(b) is not Dual or b.tag is a.tag):
            return a.value < (b.value if type(b) is Dual else b)
        return dispatch(operator.lt, (a, b))

    def __le__(a, b):
        if not a.tag.finished and (type(b) is not Dual or b.tag is a.tag):
            return a.value <= (b.value if type(b) is Dual else b)
        return dispatch(operator.le, (a, b))

    def __gt__(a, b):
        if not a.tag.finished and (type(b) is not Dual or b.tag is a.tag):
            return a.value > (b.value if type(b) is Dual else b)
        return dispatch(operator.gt, (a, b))

    def __ge__(a, b):
        if not a.tag.finished and (type(b) is not Dual or b.tag is a.tag):
            return a.value >= (b.value if type(b) is Dual else b)
        return dispatch(operator.ge, (a, b))

    __hash__ = Tagged.__hash__
