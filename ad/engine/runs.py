"""One forward-mode run: a fresh ``ForwardCtx``, tagged inputs, and a result's tangent.

These run natively (engine code) because they look at tags: the API around them is
ordinary code, which an enclosing derivative differentiates.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context import overdub
from context.resolve import declare_engine_code
from context.tagging import Tagged, enabletagging, tag
from context.tagging.tags import Tag

from . import buffers
from .forward import ForwardCtx

declare_engine_code(__file__)


def start(f):
    """A ``ForwardCtx`` with a fresh tag, for one run of ``f`` (``enabletagging`` of a new one,
    without the copy: nothing else holds it)."""
    if not callable(f):
        return enabletagging(ForwardCtx(), f)  # its error names what is wrong
    ctx = ForwardCtx()
    ctx._tag = Tag(ctx)
    return ctx


def seed(ctx, x, tangent):
    """``x`` carrying ``tangent`` for ``ctx``."""
    return tag(x, ctx, tangent)


def run(ctx, f, args):
    """``f(*args)`` under ``ctx``."""
    return overdub(ctx, f, *args)


def is_tagged(x):
    """Whether ``x`` is a tagged value (not a container, not a buffer)."""
    return isinstance(x, Tagged)


def is_function(out):
    """Whether a result is a function (derivatives of function-valued functions are functions)."""
    return callable(out) and not isinstance(out, Tagged) and not isinstance(out, np.ndarray)


def is_object_array(x):
    """Whether ``x`` is a plain ndarray of Python objects."""
    return type(x) is np.ndarray and x.dtype == object


def leaf(out, ctx):
    """``(value, tangent)`` of one result of a run of ``ctx``; the tangent is None where the
    result does not depend on the inputs (any dependence would carry the tag)."""
    t = ctx._tag
    if isinstance(out, Tagged):
        if out.tag is t:
            return out.value, out.meta
        return out, None
    if type(out) is np.ndarray:
        s = buffers.shadow(out, t)
        if s is not None:  # a buffer the run wrote tangents into: copies, the buffer may change later
            return buffers.lift(out, t).copy(), buffers.lift(s).copy()
    return out, None
