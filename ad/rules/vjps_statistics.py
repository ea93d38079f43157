"""Reverse-mode rules for ``statistics``' exact means and spreads (``mean``, ``variance``,
``pvariance``, ``stdev``, ``pstdev``): each item's cotangent is the result's times the derivative
along it, as forward mode's rules give it (``statistics_module``). The data may be a list, a tuple,
another iterable or an array being differentiated; ``xbar``/``mu`` carrying a derivative raise
NoRuleError.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import enclosing_call, native_primitive

from ..engine.reverse import Node, ReverseCtx, make_traced
from .statistics_module import PARTIALS, constant_centre
from .vjps_scalars import _items, _Pull
from .vjps_shapes import _mine


def _times(u, w):
    return u * w


def _times_each(u, w):
    return u * np.array(w)


def _primitive(fn, name, partials):
    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, data, *rest, **kwargs):
        t = ctx._tag
        centre = constant_centre(fn, name, rest, kwargs, lambda v: _mine(ctx, v))
        primals, found = _items(ctx, data)
        ans = enclosing_call(t, fn, (primals,) + rest, kwargs)
        if not found:
            return ans
        w = enclosing_call(t, partials, (list(primals), ans, centre))
        parents = tuple((node, _Pull(_times_each, w) if i is None else _Pull(_times, w[i])) for i, node in found)
        return make_traced(ans, t, Node(parents))

    primitive.__qualname__ = primitive.__name__ = "reverse rule of statistics.%s" % fn.__name__
    return primitive


for _fn, (_name, _partials) in PARTIALS.items():
    _primitive(_fn, _name, _partials)
