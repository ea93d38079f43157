"""Derivative rules for indexing and writing: ``x[key]``, ``x[key] = v``, ``np.copyto``.

Reading takes the same elements of the tangent (basic, slice, fancy and boolean keys);
reading with basic keys gives views, so a write through them reaches the tangent too.
Writes go through ``ad.engine.mutation.assign``.
"""

import operator

import numpy as np

from context.tagging import Tagged, dispatch, native_primitive
from context.tagging.values import live, primal

from ..engine import buffers, mutation
from ..engine.forward import NoRuleError, ForwardCtx, frule
from .tangents import lead, lead_axes


def _key_tuple(key):
    return key if isinstance(key, tuple) else (key,)


@frule(operator.getitem)
def _getitem(primals, tangents):
    x, key = primals
    g, dkey = tangents
    if dkey is not None:
        raise NoRuleError("an array index carries a derivative: indices must be constants (use int(i))")
    return x[key], g[lead_axes(lead(g, x)) + _key_tuple(key)]


@ForwardCtx.primitive(operator.setitem)
@native_primitive
def _setitem(ctx, obj, key, value):
    if isinstance(key, Tagged):
        raise NoRuleError("an array index carries a derivative: indices must be constants (use int(i))")
    if isinstance(primal(obj), np.ndarray):
        return mutation.assign(obj, key, value)
    obj[key] = value
    return None


@ForwardCtx.primitive(np.copyto)
@native_primitive
def _copyto(ctx, dst, src, casting="same_kind", where=True):
    if where is True:
        mutation.assign(dst, Ellipsis, src)
    else:
        # the elements kept are dst's own, with their tangents: a buffer's come from its shadow
        current = buffers.lift(dst) if type(live(dst)) is np.ndarray else dst
        mutation.assign(dst, Ellipsis, dispatch(np.where, (where, src, current)))
