"""Which Python code a callee runs: functions, methods, partials, classes, callable objects.

``resolve`` maps a callee and its arguments to the Python function to run (with the
arguments it receives) or to ``instantiate`` for classes whose ``__new__`` or
``__init__`` is Python code. It returns None for native callees and for the engine's
own code, which always runs natively.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
import os
import re
import sys
from types import (
    CodeType,
    BuiltinFunctionType,
    FunctionType,
    MethodDescriptorType,
    MethodType,
    MethodWrapperType,
    ModuleType,
    WrapperDescriptorType,
)

from .state import STATE
from .watch import CLASS_VERDICTS, VERDICT_EPOCH

HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (a static one, made in C, cannot change)
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


_MODULE_DICT = ModuleType.__dict__["__dict__"].__get__  # (a module's ``__getattr__`` is the program's)


def is_loaded_module(module):
    """Whether ``module`` is the one ``sys.modules`` holds under its name (a copy imported afresh,
    as ``test.support.import_fresh_module`` makes, is not: it may go, with its functions)."""
    return sys.modules.get(_MODULE_DICT(module).get("__name__")) is module


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


_MRO = type.__dict__["__mro__"].__get__  # the real MRO and class dicts, whatever a
_DICT = type.__dict__["__dict__"].__get__  # metaclass makes ``__mro__`` or ``__dict__`` say


def lookup_special(cls, name, default=None):
    """What CPython's ``_PyType_Lookup`` finds: ``name`` in the class dicts along the MRO."""
    mro = _MRO(cls)
    if mro is None:  # a type CPython has not readied yet (3.11's code line iterator): a lookup readies it
        getattr(cls, "__pycassette_no_such_attribute__", None)
        mro = _MRO(cls) or ()
    for klass in mro:
        namespace = _DICT(klass)
        if name in namespace:
            return namespace[name]
    return default


def lookup_attribute(cls, name):
    """``(lookup_special(cls, name), lookup_special(cls, "__getattr__"))`` in one walk of the MRO
    (an attribute load asks both; for an instance attribute both walk every class)."""
    mro = _MRO(cls)
    if mro is None:
        return lookup_special(cls, name), lookup_special(cls, "__getattr__")
    found = fallback = None
    seen = seen_fallback = False
    for klass in mro:
        namespace = _DICT(klass)
        if not seen and name in namespace:
            found = namespace[name]
            seen = True
        if not seen_fallback and "__getattr__" in namespace:
            fallback = namespace["__getattr__"]
            seen_fallback = True
        if seen and seen_fallback:
            break
    return found, fallback


def _is_python_code(obj):
    if isinstance(obj, staticmethod):
        obj = obj.__func__
    return type(obj) is FunctionType


def instantiate(cls, /, *args, **kwargs):
    """What ``type.__call__`` does, with ``__new__`` and ``__init__`` called through the context.

    As CPython's ``type_call`` with the slots of classes defined in Python: a ``__new__``
    in Python is read as an attribute of the class and called with it; a native one
    (``object``'s, a builtin base's) is called directly, so it raises its own errors
    for excess arguments. ``__init__`` runs if the result is an instance of the class by
    a real subclass test; it is looked up on the result's type along its MRO, and bound
    as a descriptor unless it is a plain function.
    """
    new = lookup_special(cls, "__new__")
    if type(new) is BuiltinFunctionType:
        obj = new(cls, *args, **kwargs)
    else:
        obj = STATE.call_ex(cls.__new__, (cls,) + args, kwargs)
    kind = type(obj)
    if kind is not cls and cls not in (_MRO(kind) or ()):  # (``PyObject_TypeCheck``: no ``__instancecheck__``)
        return obj
    init = lookup_special(kind, "__init__")
    if type(init) is FunctionType:
        result = STATE.call_ex(init, (obj,) + args, kwargs)
    elif type(init) is WrapperDescriptorType:  # object's or a builtin base's: no Python code
        result = init(obj, *args, **kwargs)
    else:
        get = getattr(type(init), "__get__", None)
        result = STATE.call_ex(get(init, obj, kind) if get is not None else init, args, kwargs)
    if result is not None:
        raise TypeError("__init__() should return None, not '%s'" % type(result).__name__)
    return obj


def _instantiation(cls, args, kwargs):
    if _is_python_code(lookup_special(cls, "__new__")) or _is_python_code(lookup_special(cls, "__init__")):
        return instantiate, (cls,) + args, kwargs
    return None


def class_verdict(cls):
    """For a class whose metaclass is ``type``: ``instantiate`` if calling it runs Python code, else
    None. ``CLASS_VERDICTS`` keeps ``instantiate`` and, for a static class (which nothing can
    change), None; a class made at run time found to run no Python code is asked again in
    each verdict epoch (it may get an ``__init__``, see ``context.watch``): its entry is that
    epoch, an int, so that the entry adds no object for the collector to count."""
    key = id(cls)
    entry = CLASS_VERDICTS.values.get(key, False)
    if entry is instantiate:
        return entry
    if entry is None or (entry is not False and entry == VERDICT_EPOCH[0]):  # (False == 0: tested first)
        return None
    verdict = instantiate if _instantiation(cls, (), {}) is not None else None
    value = VERDICT_EPOCH[0] if verdict is None and cls.__flags__ & HEAPTYPE else verdict
    if entry is False:
        CLASS_VERDICTS.set(cls, value)
    else:
        CLASS_VERDICTS.values[key] = value
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
            meta_call = lookup_special(kind, "__call__")
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
            call = lookup_special(kind, "__call__")
            if type(call) is not FunctionType:
                return None
            args = (f,) + args
            f = call
    return None
