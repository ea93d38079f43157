"""Function attributes that make a rewritten copy stale, and telling the caches of a change.

A leaf module: rewritten code calls ``function_changed`` directly after it assigns or
deletes one of the ``WATCHED`` attributes (see ``context.functions``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref
from types import FunctionType

WATCHED = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__qualname__", "__name__"})
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


def function_changed(obj):
    """``obj`` had a watched attribute assigned or deleted: its copies are remade at its next call."""
    if type(obj) is FunctionType:
        key = id(obj)
        for cache in caches():
            cache.forget(key)
