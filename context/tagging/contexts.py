"""``TaggingContext``: what a context needs to carry tagged values, and ``enabletagging``."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import copy
import operator
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..base import Context
from ..frames import call_with_user_globals
from . import arrays
from .implicit import attribute, iterated, subscript
from .dispatch import dispatch, enclosing_call, qualified_name
from .errors import TaggingError
from .guard import GUARD
from .tags import Tag
from .values import Tagged, primal

_F = TypeVar("_F", bound=Callable[..., Any])
_C = TypeVar("_C", bound=Context)


class TaggingContext(Context):
    """Base of contexts that tag values (``enabletagging`` derives one from any context class).

    Subscripts and iteration go through ``getitem``, ``setitem`` and ``iterable`` (tagged
    values survive NumPy arrays), natives are guarded (no metadata is dropped silently), and ``isinstance``, ``type``, ``float``,
    ``int``, ``complex`` and comparisons see through tags. What a function does to values
    tagged by the context is its primitive for that function: ``@Ctx.primitive(fn)``;
    a function with none sees them untagged (``untag_for_natives``).
    """

    native_guard = GUARD
    tagged_type = Tagged
    _tag = None
    # What a function with no primitive for this context does with its tagged values:
    # True (Cassette's behaviour), it receives them untagged and its result is untagged;
    # False, ``no_rule_error`` is raised (AD contexts: never a silent zero tangent).
    untag_for_natives = True

    @classmethod
    def no_rule_error(cls, fn: Callable[..., Any], ctx: Context) -> Exception:
        """The error for ``fn`` meeting a value tagged by ``ctx`` with no primitive."""
        name = qualified_name(fn)
        return TaggingError(
            "%s has no primitive for values tagged by %s: native code would drop their metadata; "
            "add one with @%s.primitive(%s)" % (name, cls.__name__, cls.__name__, name)
        )


def native_primitive(impl: _F) -> _F:
    """Mark ``impl`` as a primitive that runs natively even in a nested context.

    Such a primitive handles its own context's layer and runs the rest with ``enclosing_call``.
    """
    impl.native_primitive = True
    return impl


def own_layer(ctx, x):
    """``(value, meta, True)`` if ``x`` carries ``ctx``'s tag, else ``(x, None, False)``."""
    if issubclass(type(x), Tagged) and x.tag is ctx._tag:
        return x.value, x.meta, True
    return x, None, False


# ---- what every tagging context does --------------------------------------------------

class _ByType(type):
    """Metaclass of argument types that match by ``type(x)`` alone.

    ``isinstance(x, Tagged)`` reads ``x.__class__`` when ``type(x)`` is no subclass of
    ``Tagged``, through the class's own ``__getattribute__`` if it has one: a call that
    native code would not make. These types match without reading anything from ``x``.
    """

    def __instancecheck__(cls, x):
        return issubclass(type(x), cls.matches)


class TaggedArg(metaclass=_ByType):
    """As a primitive's argument type: a ``Tagged`` value, told by its type alone.

    A primitive limited to it is found only for tagged arguments; any other call is the
    native's own, called as it is (``@Ctx.primitive(float, argtypes=(TaggedArg,))``).
    """

    matches = Tagged


class NdarrayArg(metaclass=_ByType):
    """As a primitive's argument type: a NumPy array, told by its type alone."""

    matches = np.ndarray


# isinstance and type see the primal of a tagged value; on anything else they are the
# natives themselves, called from the user's frame with the original arguments.
@TaggingContext.primitive(isinstance, argtypes=(TaggedArg, object))
@native_primitive
def _isinstance(ctx, x, classes):
    return isinstance(primal(x), classes)


@TaggingContext.primitive(type, argtypes=(TaggedArg,))
@native_primitive
def _type(ctx, x):
    return type(primal(x))


@TaggingContext.primitive(type, argtypes=(object, object, object))
@native_primitive
def _type_new(ctx, name, bases, namespace, **kwargs):
    # Natively, the new class's ``__module__`` (unless the namespace has one) is the
    # ``__name__`` of the calling frame's globals: the user's, not this module's.
    return call_with_user_globals(type, (name, bases, namespace), kwargs)


def getitem(obj, key):
    """``obj[key]`` in rewritten code of a tagging context."""
    kind = type(obj)
    if (kind is list or kind is tuple) and type(key) is int:
        return obj[key]
    if issubclass(kind, Tagged):
        return dispatch(operator.getitem, (obj, key))
    if kind is np.ndarray:
        return arrays.read(obj, key) if not issubclass(type(key), Tagged) else dispatch(operator.getitem, (obj, key))
    return subscript(obj, key)


def setitem(obj, key, value):
    """``obj[key] = value`` in rewritten code of a tagging context."""
    if issubclass(type(key), Tagged) or issubclass(type(obj), Tagged):
        return dispatch(operator.setitem, (obj, key, value))
    if type(obj) is np.ndarray and obj.dtype != object:
        return arrays.write(obj, key, value)
    obj[key] = value


def iterable(x):
    """What rewritten code of a tagging context iterates or unpacks instead of ``x``."""
    kind = type(x)
    if kind is np.ndarray:
        return arrays.items(x) if arrays.holds_tagged(x) else x
    if kind is tuple or kind is list:
        return x
    return iterated(x)


TaggingContext.implicit_handlers = {"getitem": getitem, "setitem": setitem, "iterable": iterable, "getattr": attribute}


@TaggingContext.primitive(operator.getitem)
@native_primitive
def _getitem(ctx, obj, key):
    if issubclass(type(key), Tagged) or issubclass(type(obj), Tagged):
        raise type(ctx).no_rule_error(operator.getitem, ctx)
    return getitem(obj, key)


@TaggingContext.primitive(operator.setitem)
@native_primitive
def _setitem(ctx, obj, key, value):
    if issubclass(type(key), Tagged) or issubclass(type(obj), Tagged):
        raise type(ctx).no_rule_error(operator.setitem, ctx)
    return setitem(obj, key, value)


@TaggingContext.primitive(iter, argtypes=(NdarrayArg,))
@native_primitive
def _iter(ctx, a):
    return iter(iterable(a))


def _conversion(kind):
    @native_primitive
    def convert(ctx, x):
        value, meta, mine = own_layer(ctx, x)
        out = enclosing_call(ctx._tag, kind, (value,))
        return type(x)(out, x.tag, meta) if mine else out

    return convert


for _kind in (float, int, complex):
    TaggingContext.primitive(_kind, argtypes=(TaggedArg,))(_conversion(_kind))


def _comparison(op):
    @native_primitive
    def compare(ctx, a, b):
        a = own_layer(ctx, a)[0]
        b = own_layer(ctx, b)[0]
        return enclosing_call(ctx._tag, op, (a, b))

    return compare


for _op in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge):
    _compare = _comparison(_op)
    TaggingContext.primitive(_op, argtypes=(object, TaggedArg))(_compare)
    TaggingContext.primitive(_op, argtypes=(TaggedArg, object))(_compare)

_tagging_classes = {}


def tagging_class(cls):
    """``cls`` itself if it tags values, else a subclass of it and ``TaggingContext`` (cached)."""
    if issubclass(cls, TaggingContext):
        return cls
    derived = _tagging_classes.get(cls)
    if derived is None:
        bases = (TaggingContext,) if cls is Context else (cls, TaggingContext)
        derived = type(cls.__name__, bases, {"__module__": cls.__module__})
        derived.__qualname__ = cls.__qualname__
        _tagging_classes[cls] = derived
    return derived


def enabletagging(ctx: _C, f: Callable[..., Any]) -> _C:
    """A copy of ``ctx`` with a fresh tag, for running ``f`` with tagged values.

    The tag is unique to this call (never derived from ``f``'s code), so runs of the same
    function, nested or not, never mistake each other's values. The copy's class is
    ``type(ctx)`` itself when it derives from ``TaggingContext``, else a subclass of both.
    """
    if not isinstance(ctx, Context):
        raise TypeError("enabletagging: 'ctx' must be a context.Context instance, got %s" % type(ctx).__name__)
    if not callable(f):
        raise TypeError("enabletagging: 'f' must be callable, got %s" % type(f).__name__)
    new = copy.copy(ctx)
    new.__class__ = tagging_class(type(ctx))
    new._tag = Tag(new)
    new.__dict__.pop("_similar_to", None)
    return new
