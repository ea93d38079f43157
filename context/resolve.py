"""Which Python code a callee runs: functions, methods, partials, classes, callable objects.

``resolve`` maps a callee and its arguments to the Python function to run (with the
arguments it receives) or to ``instantiate`` for classes whose ``__new__`` or
``__init__`` is Python code. It returns None for native callees and for the engine's
own code, which always runs natively.
"""

import functools
import os
import re
from types import (
    CodeType,
    BuiltinFunctionType,
    FunctionType,
    MethodDescriptorType,
    MethodType,
    MethodWrapperType,
    WrapperDescriptorType,
)

from .state import STATE
from .weakcache import IdentityCache

ENGINE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_engine_prefixes = [ENGINE_DIR]
ENGINE_PREFIXES = (ENGINE_DIR,)


def declare_engine_code(path):
    """Treat the code in ``path`` (a file, or a directory ending in a separator) as the engine's:
    it always runs natively, and its frames are left out of tracebacks."""
    global ENGINE_PREFIXES
    path = os.path.abspath(path) + (os.sep if path.endswith(os.sep) else "")
    if path not in _engine_prefixes:
        _engine_prefixes.append(path)
        ENGINE_PREFIXES = tuple(_engine_prefixes)


def is_engine_code(code):
    """Whether ``code`` belongs to the engine (see ``declare_engine_code``)."""
    return code.co_filename.startswith(ENGINE_PREFIXES)


def is_engine_callable(f):
    """Whether ``f`` is a function or bound method of the engine's own code (or a partial of one)."""
    while type(f) is functools.partial:
        f = f.func
    code = getattr(getattr(f, "__func__", f), "__code__", None)
    return type(code) is CodeType and is_engine_code(code)


_TYPE_CALL = type.__dict__["__call__"]
_OBJECT_NEW = object.__new__
_OBJECT_INIT = object.__init__


# Callables that never run Python code of their own.
NATIVE_CALLABLE_TYPES = frozenset(
    {BuiltinFunctionType, MethodDescriptorType, WrapperDescriptorType, type(re.compile("").sub)}
)


def _lookup_special(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _is_python_code(obj):
    if isinstance(obj, staticmethod):
        obj = obj.__func__
    return type(obj) is FunctionType


def instantiate(cls, *args, **kwargs):
    """What ``type.__call__`` does, with ``__new__`` and ``__init__`` called through the context."""
    call = STATE.call_ex
    new = cls.__new__
    if new is _OBJECT_NEW:
        if (args or kwargs) and cls.__init__ is _OBJECT_INIT:
            return cls(*args, **kwargs)  # let CPython raise its own error
        obj = _OBJECT_NEW(cls)
    else:
        obj = call(new, (cls,) + args, kwargs)
    if isinstance(obj, cls):
        init = type(obj).__init__
        if init is not _OBJECT_INIT:
            result = call(init, (obj,) + args, kwargs)
            if result is not None:
                raise TypeError("__init__() should return None, not '%s'" % type(result).__name__)
    return obj


def _instantiation(cls, args, kwargs):
    if _is_python_code(_lookup_special(cls, "__new__")) or _is_python_code(_lookup_special(cls, "__init__")):
        return instantiate, (cls,) + args, kwargs
    return None


_class_verdicts = IdentityCache()


def class_verdict(cls):
    """For a class whose metaclass is ``type``: ``instantiate`` if calling it runs Python code, else None."""
    verdict = _class_verdicts.values.get(id(cls), False)
    if verdict is False:
        verdict = instantiate if _instantiation(cls, (), {}) is not None else None
        _class_verdicts.set(cls, verdict)
    return verdict


def resolve(f, args, kwargs):
    """``(function, args, kwargs)`` of the Python code that calling ``f`` runs, or None."""
    for _ in range(32):
        kind = type(f)
        if kind is FunctionType:
            if f.__code__.co_filename.startswith(ENGINE_PREFIXES):  # is_engine_code, inlined
                return None
            return f, args, kwargs
        if kind is MethodType:
            args = (f.__self__,) + args
            f = f.__func__
        elif kind is functools.partial:
            args = f.args + args
            if f.keywords:
                kwargs = {**f.keywords, **kwargs}
            f = f.func
        elif kind is staticmethod:
            f = f.__func__
        elif isinstance(f, type):
            meta_call = _lookup_special(kind, "__call__")
            if meta_call is _TYPE_CALL:
                return _instantiation(f, args, kwargs)
            if type(meta_call) is not FunctionType:
                return None
            args = (f,) + args
            f = meta_call
        elif f is _TYPE_CALL and args and isinstance(args[0], type):
            return _instantiation(args[0], args[1:], kwargs)  # type.__call__(cls, ...)
        elif kind is MethodWrapperType and isinstance(f.__self__, type) and f == _TYPE_CALL.__get__(f.__self__):
            return _instantiation(f.__self__, args, kwargs)  # super().__call__(...) in a metaclass
        else:
            call = _lookup_special(kind, "__call__")
            if type(call) is not FunctionType:
                return None
            args = (f,) + args
            f = call
    return None
