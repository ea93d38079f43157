"""Rewritten copies of Python functions: cached per function, remade when it changes.

A rewritten copy runs the function's code rewritten for a context configuration with
the function's own globals, closure, defaults and names; it shares the function's
``__dict__`` and ``__kwdefaults__``. A cache holds, per function (by ``id``), the copy
and what it was made from (``made``), and a dict ``values`` of the copies checked in
the current epoch, which is what the call path reads: a hit costs no check at all.

* A new epoch starts whenever an outermost context starts, since code that ran
  outside any context may have changed any function: ``values`` is emptied, and the
  first call of a function in the epoch checks its ``__code__``, ``__defaults__``,
  ``__kwdefaults__`` and names against what its copy was made from (``copy_of``).
* Inside a run, rewritten code that assigns or deletes one of those attributes
  (``STORE_ATTR``/``DELETE_ATTR``, or ``setattr``/``delattr`` called under the
  context) drops the function's entries at once (``watch.attribute_changed``). A function
  that replaces its own ``__code__`` during its first call runs its new code, as it
  does natively.

There is one ``values`` dict per cache, emptied in place by a new epoch (a run on
another thread then checks each function once more). It is never replaced: a dead
function's id is soon reused by a new function (each comprehension or lambda made is
one), and a dict that ``forget`` no longer reached would hand the new function the
dead one's copy.

Lifetimes: an entry goes when its function dies. A copy shares the function's globals
and closure, which may lead back to the function itself (a recursive inner function, a
method using ``super()``, a function made by ``exec`` in a namespace of its own); the
cache's strong reference to the copy would then keep the function alive for ever.
Such entries are dropped when an outermost run ends, when the program calls
``gc.collect`` under a context, and, within a long run, when a copy is added after a
full collection ran or once one is due (``_note_collections``): the next full
collection frees the cycle; a function still in use simply gets a new copy. (Not from
a Python ``gc.callbacks`` entry, which could drop them as the collection starts: it
cannot run at the recursion limit, and CPython then prints "Exception ignored" at
every collection there, in any program that imported the engine.)
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import gc
import sys
import weakref
from types import FunctionType

from .rewrite import rewrite_code
from .rewrite.code import code_cache
from .watch import add_cache, forget_checked

_MONITORING = getattr(sys, "monitoring", None)  # 3.12+
_tools = []  # sys.monitoring tool ids in use, as of the epoch's start


def new_epoch():
    """Start a new epoch: every copy is checked again at its function's next call, and every
    class asked again what calling it runs."""
    forget_checked()
    if _MONITORING is not None:
        _tools[:] = [t for t in range(6) if _MONITORING.get_tool(t) is not None]


def watched_by_a_tool(code):
    """Whether a ``sys.monitoring`` tool set local events on ``code`` (a line profiler, a
    debugger's breakpoint): then the function runs as it is, so the tool sees its own code."""
    for tool in _tools:
        if _MONITORING.get_local_events(tool, code):
            return True
    return False


def make_copy(fn, code):
    """A function running ``code`` with ``fn``'s globals, closure, defaults, names and ``__dict__``."""
    rf = FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    rf.__kwdefaults__ = fn.__kwdefaults__  # the same dict: changes made in place are seen
    rf.__qualname__ = fn.__qualname__
    rf.__doc__ = fn.__doc__
    rf.__module__ = fn.__module__
    rf.__dict__ = fn.__dict__  # the same dict, so attributes set later are seen too
    return rf


def _safe_lifetime(fn):
    """Whether a copy of ``fn`` cannot lead back to ``fn``: no closure, a live module's globals."""
    if fn.__closure__ is not None:
        return False
    module = sys.modules.get(fn.__globals__.get("__name__"))
    return module is not None and getattr(module, "__dict__", None) is fn.__globals__


class FunctionCache:
    """Rewritten copies of functions for one rewrite configuration."""

    __slots__ = ("config", "codes", "values", "made", "_refs", "_cyclic", "__weakref__")

    def __init__(self, config):
        self.config = config
        self.codes = code_cache(config)  # keeps the rewritten code for config alive with this cache
        self.values = {}  # id(fn) -> copy, checked in this epoch (emptied in place, never replaced)
        self.made = {}  # id(fn) -> (copy, code, defaults, kwdefaults, qualname, name)
        self._refs = {}
        self._cyclic = set()  # ids of functions whose copy may keep them alive
        add_cache(self)

    def copy_of(self, fn):
        """The current rewritten copy of ``fn`` (checked, made or remade as needed)."""
        key = id(fn)
        made = self.made.get(key)
        if _tools and watched_by_a_tool(fn.__code__):
            self.values.pop(key, None)  # checked again at each call while the tool watches it
            return fn
        if made is not None and made[1] is fn.__code__ and made[2] is fn.__defaults__ \
                and made[3] is fn.__kwdefaults__ and made[4] == fn.__qualname__ and made[5] == fn.__name__:
            rf = made[0]
        else:
            code = fn.__code__
            rf = make_copy(fn, rewrite_code(code, self.config))
            self._remember(fn, (rf, code, fn.__defaults__, fn.__kwdefaults__, fn.__qualname__, fn.__name__))
        self.values[key] = rf
        return rf

    def remember_class(self, cls, call):
        """Make ``call`` (what calling ``cls`` runs) what ``values`` gives for ``cls`` until the
        epoch ends or the cyclic entries are dropped: it holds ``cls``, so it is dropped then, as
        the copies that may keep their function alive are."""
        _note_collections()
        key = id(cls)
        self.values[key] = call
        self._cyclic.add(key)
        _HOLDING.add(self)

    def _remember(self, fn, made):
        _note_collections()
        key = id(fn)
        if key not in self._refs:
            selfref = weakref.ref(self)

            def forget(_, key=key, selfref=selfref):
                cache = selfref()
                if cache is not None:
                    cache.forget(key)
                    cache._refs.pop(key, None)

            self._refs[key] = weakref.ref(fn, forget)
        self.made[key] = made
        if not _safe_lifetime(fn):
            self._cyclic.add(key)
            _HOLDING.add(self)

    def forget(self, key):
        """Drop what is known of the function with this id."""
        self.made.pop(key, None)
        self.values.pop(key, None)
        self._cyclic.discard(key)

    def __len__(self):
        return len(self.made)




_HOLDING = set()  # the caches that may hold cyclic entries (until the next drop)


def drop_cyclic_entries():
    """Forget the copies that may keep their function alive: a full collection that starts
    after this frees the cycles (an outermost run's end, ``gc.collect`` called under a
    context, a new copy made after a full collection)."""
    for cache in tuple(_HOLDING):
        _HOLDING.discard(cache)  # (before reading its entries: one added meanwhile puts the cache back)
        for key in list(cache._cyclic):
            cache.forget(key)


_COLLECTED = {}  # filled as each collection starts and stops (see below); emptied by _note_collections
# The gc callback is dict.__setitem__ (C code, called as (phase, info)): it needs no Python
# frame, so it runs at the recursion limit too, where a Python callback would fail.
gc.callbacks.append(_COLLECTED.__setitem__)
_gc_stats, _gc_count, _gc_threshold = gc.get_stats, gc.get_count, gc.get_threshold
_seen = [0, 0]  # full collections so far, and collections of the middle generation since the last one, as last seen


def _note_collections():
    """After a collection (asked where copies are added, so that entries stay bounded within
    one long run): drop the cyclic entries if a full collection ran since the last look, or
    if the count of middle-generation collections reached its threshold (from then on each
    of them may be a full one), so that the full collection that follows frees their cycles."""
    if not _COLLECTED:
        return
    _COLLECTED.clear()
    full, count = _gc_stats()[2]["collections"], _gc_count()[2]
    last_full, last_count = _seen
    _seen[:] = full, count
    if full != last_full or (count != last_count and count >= _gc_threshold()[2]):
        drop_cyclic_entries()
