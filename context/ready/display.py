"""How the ready-made contexts name a callee and show the values of a call."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import re
import reprlib
import weakref
from functools import partial
from inspect import getattr_static
from types import (BuiltinFunctionType, CodeType, FunctionType, GetSetDescriptorType, MemberDescriptorType,
                   MethodType, ModuleType)

_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxarray = 6


# bound methods of native objects other than builtin_function_or_method: made anew at each
# access, so a key made from the object itself would be a new key at every call
_BOUND_NATIVE_METHODS = frozenset({type(re.compile("").match), type("".__str__)}) - {BuiltinFunctionType}


# methods of native types as found in the type (``str.replace``, ``object.__init__``,
# ``dict.fromkeys``): one object per method for the life of the type
_NATIVE_DESCRIPTORS = frozenset({type(str.replace), type(object.__init__), type(dict.__dict__["fromkeys"])})


class IdentityKey:
    """The key of one object while it lives, hashed by identity: a code object (hashing it
    reads all of its bytecode and constants, microseconds at every call), a class or a
    callable object (hashing or comparing it would run its own ``__hash__`` and ``__eq__``,
    user code the program did not call: a mock records them as calls)."""

    __slots__ = ()


_identity_keys = {}  # id(obj) -> (weak reference to obj, its IdentityKey)


def identity_key(obj):
    """The ``IdentityKey`` of ``obj``: the same object while ``obj`` lives (never kept alive by
    it). ``TypeError`` if ``obj`` takes no weak references."""
    entry = _identity_keys.get(id(obj))
    if entry is not None and entry[0]() is obj:
        return entry[1]
    key = IdentityKey()
    ident = id(obj)

    def forget(_, ident=ident, key=key):
        current = _identity_keys.get(ident)
        if current is not None and current[1] is key:
            del _identity_keys[ident]

    _identity_keys[ident] = (weakref.ref(obj, forget), key)
    return key


def callee_key(f):
    """A hashable key that is the same for every call of the same function.

    Functions made from one code object (closures, lambdas in a loop) share a key, a bound
    method counts as its function, and a method of a builtin object as its type's method.
    """
    kind = type(f)
    if kind is FunctionType:
        return identity_key(f.__code__)
    if kind is MethodType:
        return callee_key(f.__func__)
    if kind is BuiltinFunctionType:
        owner = f.__self__
        if owner is None or type(owner) is ModuleType:
            return f
        return (type(owner) if not isinstance(owner, type) else owner, f.__name__)
    if kind in _NATIVE_DESCRIPTORS:  # str.replace itself (what a method call site calls): lives in its type
        return f
    if kind in _BOUND_NATIVE_METHODS:  # obj.__str__, pattern.match: one key per type, not per object
        owner = f.__self__
        return (type(owner) if not isinstance(owner, type) else owner, f.__name__)
    try:
        return identity_key(f)  # a class, a callable object: counted while alive, never kept alive
    except TypeError:
        return type(f)  # one key for all callable objects of a type that has no weak references


def callee_name(f, qualified=True):
    """The name shown for a callee: ``module.qualname`` (or only ``qualname`` when not ``qualified``)."""
    kind = type(f)
    if kind is MethodType:
        f = f.__func__
        kind = type(f)
    if (kind is BuiltinFunctionType or kind in _BOUND_NATIVE_METHODS) and f.__self__ is not None \
            and type(f.__self__) is not ModuleType:
        owner = f.__self__ if isinstance(f.__self__, type) else type(f.__self__)
        return _join(owner.__module__ if qualified else None, "%s.%s" % (owner.__qualname__, f.__name__))
    if kind in _NATIVE_DESCRIPTORS:  # str.replace, re.Match.group as found in the type
        owner = f.__objclass__
        return _join(owner.__module__ if qualified else None, "%s.%s" % (owner.__qualname__, f.__name__))
    if issubclass(kind, type):  # a class: its own name, not what its metaclass's code says
        name, module = _TYPE_QUALNAME(f), _TYPE_MODULE(f)
    elif kind is FunctionType or not kind.__flags__ & _HEAPTYPE:  # (a static type's lookup is native)
        name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
        module = getattr(f, "__module__", None)
    else:
        name = _stored_name(f, "__qualname__") or _stored_name(f, "__name__")
        module = _stored_name(f, "__module__")
    if not isinstance(name, str):
        if kind.__name__ == "partial":
            return "partial(%s)" % callee_name(f.func, qualified)
        return "<%s object>" % kind.__qualname__
    if module is None and kind.__name__ == "ufunc":
        module = "numpy"
    return _join(module if qualified else None, name)


_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__
_TYPE_MODULE = type.__dict__["__module__"].__get__
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (by a class statement or a C extension)
_NATIVE_ATTRIBUTES = (GetSetDescriptorType, MemberDescriptorType)


def _stored_name(obj, name):
    """``obj.name`` if it is a string stored in the object or its class (or made by a native
    getter), without running any of the object's code: naming a callee must not call its
    ``__getattr__`` or a property (a proxy would record the reads, a mock make attributes)."""
    try:
        value = getattr_static(obj, name)
        if type(value) in _NATIVE_ATTRIBUTES:
            value = value.__get__(obj, type(obj))
    except AttributeError:
        return None
    return value if type(value) is str else None


_PUBLIC_MODULE = {"_operator": "operator", "_functools": "functools", "_collections": "collections", "posix": "os"}


def _join(module, name):
    module = _PUBLIC_MODULE.get(module, module)
    if not module or module == "builtins":
        return name
    return "%s.%s" % (module, name)


_PLAIN_SCALARS = frozenset([float, bool, type(None), complex])
_BIG = 10**18


def short_repr(value, limit=80):
    """``repr(value)`` cut to about ``limit`` characters; never raises."""
    kind = type(value)
    if kind is str:  # the common cases first, without reprlib's dispatch
        # only what is shown of a long one (a 30 kB document passed at every call)
        text = repr(value) if limit is None or len(value) <= limit else repr(value[:limit])
    elif (kind is int and -_BIG < value < _BIG) or kind in _PLAIN_SCALARS:
        text = repr(value)
    elif kind in _CONTAINERS and limit is not None:
        text = _container_repr(value, kind, limit, 3)
    elif kind is type:
        text = repr(value) if type(value).__repr__ is type.__repr__ else _long_repr(value)
    else:
        text = _long_repr(value)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 3, 1)] + "..."
    return text


_CONTAINER_ITEMS = 6  # items shown of a container, as reprlib does


def _container_repr(value, kind, limit, level):
    """A tuple, list, set, frozenset or dict, its first items shown short (insertion or iteration
    order, as repr shows them; reprlib sorts sets, which costs more than the call traced)."""
    if level == 0:
        return "..."
    n = len(value)
    if n <= _CONTAINER_ITEMS and kind is not dict and limit >= _QUICK_REPR:
        # a few short atoms ((pos, value) results): repr itself, when it says no more than the items would
        for item in value:
            k = type(item)
            if not ((k is str and len(item) <= _SHORT and item.isascii()) or (k is int and -_BIG < item < _BIG)
                    or k in _PLAIN_SCALARS):
                break
        else:
            text = repr(value)
            if len(text) <= limit:
                return text
    items = []
    shown = 0
    length = 0
    containers = _CONTAINERS
    for item in (value.items() if kind is dict else value):
        if shown == _CONTAINER_ITEMS:
            items.append("...")
            break
        shown += 1
        if kind is dict:
            k, v = item
            text = "%s: %s" % (_item_repr(k, limit, level), _item_repr(v, limit, level))
        elif type(item) in containers:
            text = _container_repr(item, type(item), limit, level - 1)
        else:
            text = short_repr(item, limit)
        items.append(text)
        length += len(text)
        if length > limit:  # already longer than what is shown
            items.append("...")
            break
    body = ", ".join(items)
    if kind is tuple:
        return "(%s,)" % body if n == 1 else "(%s)" % body
    if kind is list:
        return "[%s]" % body
    if kind is dict:
        return "{%s}" % body
    if not n:
        return "%s()" % kind.__name__
    return "{%s}" % body if kind is set else "frozenset({%s})" % body


def _item_repr(item, limit, level):
    kind = type(item)
    if kind in _CONTAINERS:
        return _container_repr(item, kind, limit, level - 1)
    return short_repr(item, limit)


_CONTAINERS = frozenset([tuple, list, set, frozenset, dict])


def _long_repr(value):
    try:
        text = _REPR.repr(value)
    except Exception as exc:  # a half-built object, a broken __repr__: say so, do not stop the run
        text = "<%s object (repr failed: %s)>" % (type(value).__qualname__, type(exc).__name__)
    return text


def format_arguments(args, kwargs, limit=80):
    """``a, b, k=v`` for a call's arguments, each value cut to ``limit`` characters."""
    # short ASCII strings and small ints as they are (most arguments): the test _container_repr makes of
    # its items, written in line here (a function call per argument would cost what it saves)
    if limit is not None and limit >= _QUICK_REPR:
        shown = [repr(a) if (type(a) is str and len(a) <= _SHORT and a.isascii()) or (type(a) is int and -_BIG < a < _BIG)
                 else _argument_repr(a, limit) for a in args]
    else:
        shown = [_argument_repr(a, limit) for a in args]
    if kwargs:
        shown.extend("%s=%s" % (k, _argument_repr(v, limit)) for k, v in kwargs.items())
    return ", ".join(shown)


# Values that code passes again and again (a document, a set of characters) are shown from
# a cache: id(value) -> (value, limit, text). Holding the value keeps its id from being
# reused while it is cached; the cache is emptied when it fills and at the end of each
# top-level traced or printed call (``forget_shown``). Only values that hold no other
# object a program could watch are cached: strings, bytes, and frozensets of strings and
# numbers. A tuple is never held: code sees the extra reference (itertools reuses a result
# tuple only while nothing else holds it) and the objects in it would outlive their last
# use (weak references, ``__del__``).
_SHOWN = {}
_SHOWN_MAX = 512
_CACHED_KINDS = frozenset([str, frozenset, bytes])
_ATOMS = frozenset([str, bytes, int, float, bool, type(None)])


def forget_shown():
    """Empty the cache of argument texts (a top-level call ended)."""
    _SHOWN.clear()


_SHORT = 16  # characters: a string this short is shown from its repr, not from the cache
_QUICK_REPR = 2 + 4 * _SHORT  # the longest repr of such a string if ASCII ("\x00" escapes), and of an int below _BIG


def _argument_repr(value, limit):
    kind = type(value)
    if kind not in _CACHED_KINDS or (kind is str and len(value) <= _SHORT):
        return short_repr(value, limit)
    entry = _SHOWN.get(id(value))
    if entry is not None and entry[0] is value and entry[1] == limit:
        return entry[2]
    text = short_repr(value, limit)
    if kind is frozenset:
        atoms = _ATOMS
        if not all(type(item) in atoms for item in value):
            return text  # holding it would keep the objects in it alive
    if len(_SHOWN) >= _SHOWN_MAX:
        _SHOWN.clear()
    _SHOWN[id(value)] = (value, limit, text)
    return text


def code_of(f):
    """The code object that a call of ``f`` runs first, if it is a Python function (else None)."""
    for _ in range(8):  # a method of a partial of a method ...: a few levels
        kind = type(f)
        if kind is FunctionType:
            return f.__code__
        if kind is MethodType:
            f = f.__func__
        elif kind is partial:
            f = f.func
        elif isinstance(f, type) or kind is BuiltinFunctionType:
            return None
        else:
            code = getattr(getattr(kind, "__call__", None), "__code__", None)
            return code if type(code) is CodeType else None
    return None
