"""Operators on tagged values: each dunder dispatches the matching ``operator`` function.

Conversions that would hand a live tagged value's primal to native code (``__float__``,
``__int__``, ``__index__``, ``__complex__``) raise instead: inside a context the
tagging primitives for ``float``, ``int`` and friends apply first, so reaching these
means native code is about to drop metadata. A value whose context has finished
counts as its primal and converts normally.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math
import operator
from sys import _getframe

from .dispatch import dispatch
from .values import Tagged, live, primal

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "matmul": operator.matmul, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lshift": operator.lshift, "rshift": operator.rshift, "divmod": divmod,
}
COMPARISONS = {
    "lt": operator.lt, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne, "gt": operator.gt, "ge": operator.ge,
}
UNARY = {
    "neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert,
    "trunc": math.trunc, "floor": math.floor, "ceil": math.ceil,
}


def _binary(fn):
    def method(a, b):
        return dispatch(fn, (a, b))

    return method


def _reflected(fn):
    def method(a, b):
        return dispatch(fn, (b, a))

    return method


def _unary(fn):
    def method(a):
        return dispatch(fn, (a,))

    return method


def _round(a, ndigits=None):
    return dispatch(round, (a,) if ndigits is None else (a, ndigits))


def _pow(a, b, mod=None):
    return dispatch(pow, (a, b) if mod is None else (a, b, mod))


class MetadataLossError(TypeError):
    """Native code tried to convert a live tagged value to a bare number."""


def _conversion(kind):
    def method(a):
        x = live(a)
        if issubclass(type(x), Tagged):
            caller = _getframe(1)  # the Python code whose native call converts (math.sqrt(x) in a special method)
            raise MetadataLossError(
                "%s() of a value tagged by %s, in native code called by %s.%s (a native function, or a "
                "special method or property, which run natively): its metadata would be dropped; give the "
                "function that converts it a rule (for AD: @ad.frule(fn)), or use NumPy's, which follows the "
                "rules wherever it is called"
                % (kind.__name__, type(x.tag.context).__name__, caller.f_globals.get("__name__", "?"),
                   caller.f_code.co_qualname)
            )
        return kind(x)

    method.__name__ = "__%s__" % kind.__name__
    return method


def install(cls):
    """Give ``cls`` the dispatching dunders (each set only where ``cls`` defines none itself)."""

    def put(name, method):
        if name not in cls.__dict__:
            method.__name__ = name
            setattr(cls, name, method)

    put("__pow__", _pow)
    put("__round__", _round)
    for name, fn in BINARY.items():
        put("__%s__" % name, _binary(fn))
        put("__r%s__" % name, _reflected(fn))
    for name, fn in COMPARISONS.items():
        put("__%s__" % name, _binary(fn))
    for name, fn in UNARY.items():
        put("__%s__" % name, _unary(fn))
    for kind in (float, int, complex):
        put("__%s__" % kind.__name__, _conversion(kind))
    put("__index__", _conversion(operator.index))


install(Tagged)
Tagged.__hash__ = lambda self: hash(primal(self))
