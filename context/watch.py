"""Function attributes that make a rewritten copy stale, and telling the caches of a change.

A leaf module: rewritten code calls ``function_changed`` directly after it assigns or
deletes one of the ``WATCHED`` attributes (see ``context.functions``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref
from types import FunctionType

WATCHED = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__qualname__", "__name__"})
CACHES = weakref.WeakSet()  # every context.functions.FunctionCache


def function_changed(obj):
    """``obj`` had a watched attribute assigned or deleted: its copies are remade at its next call."""
    if type(obj) is FunctionType:
        key = id(obj)
        for cache in list(CACHES):
            cache.forget(key)
