"""Callables handed to native code keep running under the context.

A table names the native higher-order functions and where their callable arguments
go. Before such a function runs, those arguments are wrapped so that each call back
into them goes through the context (with its hooks). Once the context has finished, a
wrapper just calls the function natively. Users can extend the table with
``register_callback_positions``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import contextvars
import functools
import itertools
import re
import sys
from sys import getprofile as _getprofile
from types import BuiltinMethodType

from .state import call_under
from .tracehooks import unreported
from .weakcache import IdentityCache


class ContextCallback:
    """A callable that calls ``fn`` through the activation ``act`` while it is alive."""

    __slots__ = ("act", "fn")

    def __init__(self, act, fn):
        self.act = act
        self.fn = fn

    def __call__(self, /, *args, **kwargs):
        try:
            if _getprofile() is not None:  # (a native called back by a native: no c_call, as natively)
                return unreported(self.fn, call_under, self.act, self.fn, args, kwargs)
            return call_under(self.act, self.fn, args, kwargs)
        finally:
            self = args = kwargs = None  # (its frame, kept by a traceback, holds nothing: design.md)

    def __repr__(self):
        return "<callback %r under %s>" % (self.fn, type(self.act.ctx).__name__)

    def __reduce__(self):
        # Pickled or copied (a ``map`` object holding it, say), it becomes the function
        # it wraps: a copy made elsewhere runs natively, as the process has no context.
        return _unwrapped, (self.fn,)


def _unwrapped(fn):
    return fn


# id(callee) -> (callee, (positional indices, keyword names, min_args)) for callable arguments
CALLBACK_ARGUMENTS = {}
METHOD_OWNER_TYPES = set()
# (type of the bound object, method name) -> the same, for methods of native objects
CALLBACK_METHOD_ARGUMENTS = {}


def _checked_places(who, positions, keywords, min_args=0):
    """The argument places of a registration, checked now rather than at the first call."""
    try:
        positions, keywords = tuple(positions), tuple(keywords)
    except TypeError:
        raise TypeError("%s: positions and keywords must be iterables (of ints and of str)" % who) from None
    bad = [p for p in positions if type(p) is not int or p < 0]
    if bad:
        raise TypeError("%s: positions must be non-negative ints, got %r" % (who, bad[0]))
    bad = [k for k in keywords if type(k) is not str or not k.isidentifier()]
    if bad:
        raise TypeError("%s: keywords must be argument names (str), got %r" % (who, bad[0]))
    if type(min_args) is not int or min_args < 0:
        raise TypeError("%s: min_args must be a non-negative int, got %r" % (who, min_args))
    if not positions and not keywords:
        raise ValueError("%s: name at least one position or keyword where a callable is passed" % who)
    return positions, keywords, min_args


# id -> the native itself, for lasting natives found plain (see ``entries/kinds.py``);
# emptied whenever the table above changes.
LASTING_PLAIN_NATIVES = {}
# type (by id) -> the names of its methods registered below, its own or its bases' (usually
# none), for the types whose bound natives were asked about (see ``entries/kinds.py``);
# emptied when that table changes.
METHOD_OWNER_NAMES = IdentityCache()


def register_callback_positions(fn, positions=(), keywords=(), min_args=0):
    """Declare that native ``fn`` calls back the arguments at ``positions``/``keywords``.

    ``min_args``: wrap only when at least this many positional arguments are given
    (``iter(f, sentinel)`` calls ``f``; ``iter(xs)`` calls nothing).
    """
    who = "register_callback_positions"
    if not callable(fn):
        raise TypeError("%s: fn must be the callable that calls back, got %s" % (who, type(fn).__name__))
    CALLBACK_ARGUMENTS[id(fn)] = (fn, _checked_places(who, positions, keywords, min_args))
    LASTING_PLAIN_NATIVES.clear()  # a native remembered as plain may be this one
    METHOD_OWNER_NAMES.clear()  # or a bound native of an owner whose names are remembered


def register_callback_method(cls, name, positions=(), keywords=()):
    """Like ``register_callback_positions`` for the method ``name`` of native type ``cls``."""
    who = "register_callback_method"
    if not isinstance(cls, type) or type(name) is not str or not callable(getattr(cls, name, None)):
        raise TypeError("%s: cls must be a type with a method named by name, got %r, %r" % (who, cls, name))
    CALLBACK_METHOD_ARGUMENTS[(cls, name)] = _checked_places(who, positions, keywords)
    METHOD_OWNER_TYPES.add(cls)
    METHOD_OWNER_NAMES.clear()  # an owner remembered may be this one


for _fn, _pos, _kw, *_min in [
    (builtins.map, (0,), ()),
    (builtins.filter, (0,), ()),
    (builtins.sorted, (), ("key",)),
    (builtins.min, (), ("key",)),
    (builtins.max, (), ("key",)),
    (builtins.iter, (0,), (), 2),
    (functools.reduce, (0,), ()),
    (functools.cmp_to_key, (0,), ("mycmp",)),
    (itertools.starmap, (0,), ()),
    (itertools.filterfalse, (0,), ()),
    (itertools.takewhile, (0,), ()),
    (itertools.dropwhile, (0,), ()),
    (itertools.groupby, (1,), ("key",)),
    (itertools.accumulate, (1,), ("func",)),
]:
    register_callback_positions(_fn, _pos, _kw, *_min)

register_callback_method(list, "sort", (), ("key",))
register_callback_method(re.Pattern, "sub", (0,), ("repl",))
register_callback_method(re.Pattern, "subn", (0,), ("repl",))
register_callback_method(contextvars.Context, "run", (0,), ())

# bound methods of native objects (3.12 has a separate type for some of them)
BUILTIN_METHOD_TYPES = frozenset({BuiltinMethodType, type(re.compile("").sub)})


def register_numpy_callbacks():
    """Add NumPy's higher-order natives once NumPy has been imported by the user."""
    frompyfunc = getattr(sys.modules.get("numpy"), "frompyfunc", None)  # whatever sys.modules holds
    if callable(frompyfunc) and id(frompyfunc) not in CALLBACK_ARGUMENTS:
        register_callback_positions(frompyfunc, (0,), ())


def _wrap(act, value):
    if callable(value) and not isinstance(value, ContextCallback):
        return ContextCallback(act, value)
    return value


_MRO = type.__dict__["__mro__"].__get__  # the real MRO, whatever a metaclass makes ``__mro__`` say


def method_places(owner, name):
    """The registered places of method ``name`` of native objects of type ``owner``: those of
    ``owner`` or of the nearest base registered for it (a ``list`` subclass's ``sort``), or None."""
    for cls in _MRO(owner) or (owner,):
        if cls in METHOD_OWNER_TYPES:
            places = CALLBACK_METHOD_ARGUMENTS.get((cls, name))
            if places is not None:
                return places
    return None


def _spec_for(f):
    entry = CALLBACK_ARGUMENTS.get(id(f))
    if entry is not None:
        return entry[1]
    if type(f) in BUILTIN_METHOD_TYPES:
        return method_places(type(f.__self__), f.__name__)
    return None


def _wrapped_copy(act, values, places, copy):
    """A ``copy`` of ``values`` with the callables at ``places`` wrapped, or None if none is."""
    changed = None
    for place in places:
        wrapped = _wrap(act, values[place])
        if wrapped is not values[place]:
            if changed is None:
                changed = copy(values)
            changed[place] = wrapped
    return changed


def wrap_callbacks(act, f, args, kwargs):
    """``(args, kwargs)`` with the callable arguments of native ``f`` wrapped for ``act``."""
    spec = _spec_for(f)
    if spec is None:
        return args, kwargs
    positions, keywords, min_args = spec
    if len(args) < min_args:
        return args, kwargs
    # the same tuple and dict when nothing is wrapped: a caller that sees them unchanged
    # calls ``f`` from the user's frame (``re``'s ``Pattern.sub`` with a string template)
    changed = _wrapped_copy(act, args, (i for i in positions if i < len(args)), list)
    if changed is not None:
        args = tuple(changed)
    if keywords and kwargs:
        changed = _wrapped_copy(act, kwargs, (name for name in keywords if name in kwargs), dict)
        if changed is not None:
            kwargs = changed
    return args, kwargs
