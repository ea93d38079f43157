"""The native guard of tagging contexts: no native call drops metadata silently.

A native that receives a live tagged value goes to the primitive for it of the value's
context, and with none raises an error naming the native. Natives that only store,
move, compare or print values (containers and their methods, ``setattr``, ``len``,
``print``, ``operator``'s functions, which dispatch back to the tagged value's
operators) receive them as they are. An array holding tagged values reaches such
natives as the list of its items, and no other native at all.

While no tagged value of a context that has run can exist (``tags.LIVE_USED`` is empty:
an empty tagging context, or AD with nothing differentiated), every native passes unchecked, so the
engine calls it as it is, from the user's frame: natives that read their caller's
frame (``typing.TypeVar``'s module, ``type(name, bases, ns)``'s ``__module__``, the
file and line of a warning a native emits, ``sys._getframemodulename`` in code they
call back, as ``typing``'s protocol checks do) see what they see natively, and no
frame of the guard's shows in tracebacks. Natives that store values and depend on
their caller's frame pass unchecked even while tagged values exist.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import _abc
import builtins
import collections
import functools
import operator
import typing
import warnings

import numpy as np

from . import arrays
from .dispatch import dispatch, newest_tag, qualified_name
from .errors import TaggingError
from .operators import MetadataLossError
from ..frames import call_with_user_globals, makes_a_class
from .tags import LIVE_USED

# Natives that never read numbers out of their arguments: called as they are.
_UNCHECKED = [
    builtins.print, builtins.repr, builtins.str, builtins.format, builtins.len, builtins.id,
    builtins.hash, builtins.callable, builtins.getattr, builtins.setattr, builtins.delattr,
    builtins.hasattr, builtins.vars, builtins.slice, builtins.super, builtins.issubclass,
    builtins.object, object.__setattr__, object.__getattribute__, object.__delattr__,
    object.__new__, object.__init__, functools.partial, warnings.warn, warnings.warn_explicit,
    # they only store their arguments, and read their caller's frame (its module), or run
    # callbacks that do (``typing``'s protocol checks ask whether abc called them):
    builtins.isinstance, builtins.type, _abc._abc_instancecheck, _abc._abc_subclasscheck,
    _abc._abc_register, _abc._abc_init,
] + [  # natives from 3.12 (Python classes before, which run rewritten and never reach the guard)
    getattr(typing, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple", "TypeAliasType")
    if hasattr(typing, name)
]
# Natives that may receive tagged values (they store, move, iterate or compare them, or
# call their operators); arrays holding tagged values reach them as lists of the items.
_TRANSPARENT = _UNCHECKED + [
    builtins.list, builtins.tuple, builtins.dict, builtins.set, builtins.frozenset,
    builtins.enumerate, builtins.zip, builtins.reversed, builtins.sorted, builtins.min,
    builtins.max, builtins.sum, builtins.any, builtins.all, builtins.map, builtins.filter,
    builtins.iter, builtins.next, builtins.bool, functools.reduce, collections.deque,
    collections.OrderedDict, collections.defaultdict,
] + [fn for name, fn in vars(operator).items() if callable(fn) and not name.startswith("_") and name != "index"]
UNCHECKED = frozenset(id(f) for f in _UNCHECKED)
TRANSPARENT = frozenset(id(f) for f in _TRANSPARENT)
# Methods of these objects may receive tagged values (``str`` methods only format them).
CONTAINERS = frozenset({list, tuple, dict, set, frozenset, collections.deque, collections.OrderedDict,
                        collections.defaultdict, str})


class NativeGuard:
    """Checks what natives called inside a tagging context receive."""

    # Every method takes the call's arguments as a tuple and a dict, and its own parameters
    # positional-only: the user's keywords (``f=``, ``run=``, ``bound=``) never meet them.

    def passes(self, f, /):
        """Whether ``f`` can be called as it is, unchecked: while no tagged value can reach
        a native, every native (see the module's docstring)."""
        return not LIVE_USED or id(f) in UNCHECKED

    def transparent(self, f, owner, /):
        """Whether ``f`` (bound to ``owner``, or None) may receive tagged values as they are."""
        return id(f) in TRANSPARENT or type(owner) in CONTAINERS

    def call(self, f, args, kwargs, run=None, /):
        """``f(*args, **kwargs)`` for a native (``run(*args, **kwargs)`` once checked, ``f`` by default).

        Live tagged arguments go to their context's primitive for ``f``, unless ``f`` is
        transparent to them; arrays holding tagged values reach transparent natives as
        lists of their items, and others not at all.
        """
        tag, args = newest_tag(args)
        if kwargs and tag is None:
            tag = newest_tag(tuple(kwargs.values()))[0]
        owner = getattr(f, "__self__", None)
        transparent = self.transparent(f, owner)
        if tag is not None and not transparent:
            return dispatch(f, args, kwargs)
        if type(owner) is np.ndarray and arrays.holds_tagged(owner):
            raise self._array_error(f)
        if any(type(a) is np.ndarray for a in args):
            args = tuple(self._array_argument(f, a, transparent) for a in args)
        try:
            if len(args) >= 3 and makes_a_class(f, args):  # its __module__ is its caller's: the user's
                return call_with_user_globals(run or f, args, kwargs)
            return (run or f)(*args, **kwargs)
        except MetadataLossError as exc:  # a tagged value inside a list or another container
            name = qualified_name(f)
            raise TaggingError(
                "%s converted a tagged value it received inside a container to a bare number: its "
                "metadata would be dropped; give %s a primitive (for AD: @ad.frule(%s, sequences=...)), or pass the values "
                "one by one" % (name, name, name)
            ) from exc
        finally:
            f = args = kwargs = run = owner = None  # (a frame a traceback keeps holds nothing: see design.md)

    def _array_argument(self, f, a, transparent, /):
        if type(a) is not np.ndarray or not arrays.holds_tagged(a):
            return a
        if transparent:
            return arrays.items(a)
        raise self._array_error(f)

    def _array_error(self, f, /):
        name = qualified_name(f)
        return TypeError(
            "%s received an array holding tagged values: native code would read them as bare "
            "numbers and drop their metadata; read the elements by index, or give %s a primitive"
            % (name, name)
        )


GUARD = NativeGuard()
