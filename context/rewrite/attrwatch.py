"""Watched attribute stores: a function's code, defaults or names, or a class's ``__init__`` or
``__new__``, changed by rewritten code.

The engine caches a rewritten copy of each function (``context.functions``) and what
calling each class runs (``context.watch.CLASS_VERDICTS``). Rewritten code that assigns
or deletes one of the watched attributes of an object tells the engine right after,
through a function it is given, so a function that replaces its own ``__code__`` runs
the new code at its next call, and a class given an ``__init__`` runs it at its next
instantiation, as natively.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from bytecode import Instr

from . import emit

_STORES = ("STORE_ATTR", "DELETE_ATTR")


def rewrite_attribute_stores(items, watched, changed):
    """After each ``STORE_ATTR``/``DELETE_ATTR`` of a name in ``watched``, call ``changed(obj)``."""
    def is_watched(item):
        return isinstance(item, Instr) and item.name in _STORES and item.arg in watched

    if not any(map(is_watched, items)):
        return items
    out = []
    for item in items:
        if not is_watched(item):
            out.append(item)
            continue
        loc = item.location
        if item.name == "STORE_ATTR":  # [v, o] -> [o, v, o] -> store -> [o]
            out += [emit.I("COPY", 1, loc), emit.I("SWAP", 3, loc), emit.I("SWAP", 2, loc)]
        else:  # [o] -> [o, o] -> delete -> [o]
            out.append(emit.I("COPY", 1, loc))
        out.append(item)
        out += emit.direct_call(changed, 1, loc) + [emit.I("POP_TOP", loc=loc)]
    return out
