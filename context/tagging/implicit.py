"""What the interpreter calls implicitly, run under a tagging context where it is Python code:
getters of attribute loads, ``__getitem__`` of subscripts, ``__iter__`` of loops.

Natively, ``obj.name`` runs a property's getter (or a descriptor's ``__get__``), ``obj[k]``
its class's ``__getitem__`` and ``for v in obj`` its ``__iter__`` from inside the
interpreter, where no call site of rewritten code sees them: they would run natively, so
a property or container computing with tagged values (``np.sin(self.x)``,
``math.exp(r)``, a helper function) would meet them in native code, and a generator
``__iter__`` would run its body natively. Rewritten code of a tagging context loads plain
attributes (not the method loads of calls, ``obj.f(...)``) through ``attribute``, and its
subscript and iteration handlers ask ``python_method``; where CPython's lookup finds
Python code, it runs as the call ``getter(obj)`` (``method(obj, key)``, ``method(obj)``)
made under the current context, whose rules its calls then follow as any call's do.
Anything else runs as natively.

Only objects whose type keeps CPython's own attribute lookup (``object.__getattribute__``)
have their getters taken over; with a ``__getattr__`` as well, the lookup is CPython's and the
``__getattr__`` (Python code) runs under the context where it fails, as does a module's own
``__getattr__``: warnings they raise then point at the user's frame, as natively. Classes and
objects with lookups of their own load attributes as natively.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
from functools import cached_property
from types import (BuiltinFunctionType, FunctionType, GetSetDescriptorType, MemberDescriptorType,
                   MethodDescriptorType, ModuleType, WrapperDescriptorType)
from typing import Any

import numpy as np

from ..resolve import is_engine_code, lookup_attribute, lookup_special
from ..state import STATE
from .dispatch import dispatch
from .values import Tagged

_OBJECT_LOOKUP = object.__getattribute__
# the commonest objects, whose getters are all native: their loads need no look
_NATIVE_LOOKUPS = frozenset({np.ndarray, ModuleType, type, float, int, complex, bool, str, np.float64, np.complex128, np.dtype})
_PROPERTY_GET = property.__get__
# class attributes whose ``__get__`` is native (a slot, a method, a C getter): ``_python_getter``'s answer is None
_NATIVE_GETTERS = frozenset({MemberDescriptorType, GetSetDescriptorType, FunctionType, staticmethod, classmethod,
                             WrapperDescriptorType, MethodDescriptorType, BuiltinFunctionType})


def attribute(obj: Any, name: str) -> Any:
    """``obj.name``, with a getter written in Python run under the current context."""
    kind = type(obj)
    if kind is ModuleType:
        if name not in _MODULE_TYPE_NAMES:  # a module's own global (``np.sin``): read from its dict at once
            found = _MODULE_DICT(obj).get(name, _MISSING)
            if found is not _MISSING:
                return found
        return _module_attribute(obj, name)
    if kind in _NATIVE_LOOKUPS or issubclass(kind, Tagged):  # (arrays' and tagged values' getters are native or the engine's)
        return getattr(obj, name)
    found, fallback = lookup_attribute(kind, name)
    if fallback is not None:
        return _with_fallback(obj, name, kind, fallback)
    if found is None or type(found) in _NATIVE_GETTERS:
        return getattr(obj, name)  # an instance attribute, no such attribute, a slot or a method
    getter = _python_getter(found)
    if getter is None or lookup_special(kind, "__getattribute__") is not _OBJECT_LOOKUP:
        return getattr(obj, name)
    if getter is _PROPERTY_GET:
        return STATE.call_ex(found.fget, (obj,), {})
    return STATE.call_ex(getter, (found, obj, kind), {})


_MODULE_DICT = ModuleType.__dict__["__dict__"].__get__
# what a module's type provides (``_PyType_Lookup`` on ModuleType: its class and ``object``, which
# cannot change); any other name a module's dict holds is what ``getattr`` gives
_MODULE_TYPE_NAMES = frozenset(ModuleType.__dict__) | frozenset(object.__dict__)
_MISSING = object()


def _module_attribute(module, name):
    """``module.name``; a module's own ``__getattr__`` (PEP 562), where it is asked, runs under
    the context as a call from the user's frame, so its warnings point there, as natively."""
    if lookup_special(ModuleType, name) is None:
        namespace = _MODULE_DICT(module)
        if name not in namespace:
            fallback = namespace.get("__getattr__")
            if _users_code(fallback):
                return STATE.call_ex(fallback, (name,), {})
    return getattr(module, name)


def _with_fallback(obj, name, kind, fallback):
    """``obj.name`` for a class with ``__getattr__``: CPython's own lookup (getters run natively
    there), then, where it fails, a Python ``__getattr__`` run under the context (its warnings
    point at the user's frame, as natively)."""
    if not _users_code(fallback) or lookup_special(kind, "__getattribute__") is not _OBJECT_LOOKUP:
        return getattr(obj, name)
    try:
        return _OBJECT_LOOKUP(obj, name)
    except AttributeError:
        pass  # (called after the handler, as CPython does: its errors get no context)
    return STATE.call_ex(fallback, (obj, name), {})


def _python_getter(found):
    """``property.__get__`` for a property whose getter is Python code, a descriptor's own
    ``__get__`` where it is Python code and takes precedence over the instance's dict (a data
    descriptor, or ``functools.cached_property``, which reads that dict itself), else None."""
    kind = type(found)
    get = lookup_special(kind, "__get__")
    if get is _PROPERTY_GET:
        return _PROPERTY_GET if _users_code(found.fget) else None
    if not _users_code(get):
        return None
    if kind is cached_property or lookup_special(kind, "__set__") is not None \
            or lookup_special(kind, "__delete__") is not None:
        return get
    return None


def python_method(kind: type, name: str) -> Any:
    """The special method ``name`` that CPython finds for instances of ``kind``, if it is
    Python code outside the engine, else None."""
    method = lookup_special(kind, name)
    return method if _users_code(method) else None


def _users_code(f):
    """Whether ``f`` is a Python function outside the engine."""
    return type(f) is FunctionType and not is_engine_code(f.__code__)


def subscript(obj: Any, key: Any) -> Any:
    """``obj[key]`` for an object that is neither an array nor tagged: its class's Python
    ``__getitem__`` run under the current context; a tagged key given to the rules of the
    newest tag; else as natively."""
    kind = type(obj)
    if kind is not dict:  # (the commonest container: its lookup is native)
        method = python_method(kind, "__getitem__")
        if method is not None:
            return STATE.call_ex(method, (obj, key), {})
    if issubclass(type(key), Tagged):
        return dispatch(operator.getitem, (obj, key))
    return obj[key]


def iterated(x: Any) -> Any:
    """What a loop or an unpacking of ``x`` iterates, with a Python ``__iter__`` and a Python
    ``__next__`` run under the current context; ``x`` itself where neither is Python code."""
    it = x
    method = python_method(type(x), "__iter__")
    if method is not None:
        it = STATE.call_ex(method, (x,), {})
    step = lookup_special(type(it), "__next__")
    if _users_code(step):
        return _stepped(step, it)
    if step is None and it is not x:
        return _Returns(it)  # no iterator: the loop's own iter() raises, as natively, in the user's frame
    return it


def _stepped(step, it):
    """``it``'s items, each from ``step(it)`` (its Python ``__next__``) called under the context."""
    call = STATE.call_ex
    while True:
        try:
            value = call(step, (it,), {})
        except StopIteration:
            return
        yield value


class _Returns:
    """What the ``__iter__`` that ran under the context returned, when it is no iterator: the
    loop's ``iter()`` of this raises CPython's own error where the loop is."""

    __slots__ = ("returned",)

    def __init__(self, returned):
        self.returned = returned

    def __iter__(self):
        return self.returned
