"""Attributes whose change makes what the engine remembers stale, and telling the caches.

A function's code, defaults and names make its rewritten copy stale (see
``context.functions``); a class's ``__init__`` and ``__new__`` decide what calling it,
or a subclass, runs (``CLASS_VERDICTS``, see ``context.resolve.class_verdict``). A leaf
module: rewritten code calls ``attribute_changed`` directly after it assigns or deletes
one of the ``WATCHED`` attributes, and so do ``setattr`` and ``delattr`` called under a
context.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref
from types import FunctionType

from .weakcache import IdentityCache

WATCHED = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__qualname__", "__name__", "__init__", "__new__"})
# class (by id) -> what calling it runs under the direct strategy, see
# ``resolve.class_verdict``: ``instantiate`` (it runs any class as ``type.__call__`` does, so
# it stays right whatever changes), None for a static class, or, for a class made at run
# time that runs no Python code when called, the verdict epoch in which that was found: it
# counts in that epoch only. A new epoch starts when a class's ``__init__`` or ``__new__``
# changes under a context and whenever an outermost run starts (a change made natively
# between runs).
CLASS_VERDICTS = IdentityCache()
VERDICT_EPOCH = [0]


def forget_checked():
    """What the current epoch checked is checked again: every function cache's copies (at
    each function's next call) and what calling a class found to run no Python code runs."""
    for cache in caches():
        cache.values.clear()
    VERDICT_EPOCH[0] += 1


# weak references to every context.functions.FunctionCache (a set of weakref.ref, each removing
# itself when its cache dies: iterating it is a few times cheaper than a WeakSet, at every overdub)
_CACHE_REFS = set()


def add_cache(cache):
    """Count ``cache`` among ``caches()`` while it lives."""
    _CACHE_REFS.add(weakref.ref(cache, _CACHE_REFS.discard))


def caches():
    """Every live function cache."""
    found = []
    for ref in tuple(_CACHE_REFS):
        cache = ref()
        if cache is not None:
            found.append(cache)
    return found


def attribute_changed(obj):
    """``obj`` had a watched attribute assigned or deleted: a function's copies are remade
    at its next call; after a class's change every class is asked again what calling it
    runs (the change reaches its subclasses too)."""
    if type(obj) is FunctionType:
        key = id(obj)
        for cache in caches():
            cache.forget(key)
    elif isinstance(obj, type):
        forget_checked()  # (the function caches' entries hold the classes' answers too)
