"""How the ready-made contexts name a callee (the values of a call: ``showing``)."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import re
import weakref
from functools import partial
from inspect import getattr_static
from types import (BuiltinFunctionType, CodeType, FunctionType, GetSetDescriptorType, MemberDescriptorType,
                   MethodType, ModuleType)

from ..resolve import HEAPTYPE, is_loaded_module


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
        if owner is None:
            return f
        if type(owner) is ModuleType:  # (a copy of a module, not in sys.modules, may go: not kept alive)
            return f if is_loaded_module(owner) else identity_key(f)
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
    elif kind is FunctionType or not kind.__flags__ & HEAPTYPE:  # (a static type's lookup is native)
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
