"""Counting calls with cProfile's own C profiler (``_lsprof``): the mechanism of ``CountCtx(via="profile")``.

A context that only counts needs to see calls, not to change them, and the profiler that
ships with CPython sees them at cProfile's cost, on every supported version: it is
cProfile. Its per-function counts become ``CountCtx``'s: a Python function is keyed by its
code object (as the engine keys it) and named ``module.qualname``; a native by the name
the profiler gives it (``<built-in method builtins.len>`` is ``len``, ``<method 'append'
of 'list' objects>`` is ``list.append``). What it sees differs from what a context sees,
and the difference is the price of the speed, as for ``sys.monitoring`` (``monitoring.py``):

* special methods the interpreter calls implicitly (``__eq__`` for ``==``, a property's
  getter) are Python functions that start, so they count; under a context they do not;
* calling a class counts its Python ``__init__``/``__new__``, not the class; calls of
  builtin types (``int(x)``) are not seen at all;
* from 3.12 the profiler is built on ``sys.monitoring`` and sees every thread's calls
  while it runs (3.11: the calling thread's only), as cProfile does;
* one profiler at a time in the process (cProfile's own rule): when another is active
  (a cProfile run, another such count), ``enable`` returns False and the caller counts with
  the engine instead.

The profiler records who called whom (as cProfile does by default, at the same cost), so
the calls made by the engine's own code (the run's top call, the bookkeeping around it)
are left out, and the engine's functions themselves.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import gc
import os
import re
import sys
from types import FunctionType
from typing import Any

import _lsprof

from ..resolve import is_engine_code
from .display import identity_key

_METHOD = re.compile(r"<method '([^']+)' of '([^']+)' objects>\Z")
_BUILTIN = re.compile(r"<built-in method ([^>]+)>\Z")
_BOUND = re.compile(r"<built-in method (\S+) of (\S+) object at 0x[0-9a-f]+>\Z")  # a method of an object
_PUBLIC_MODULE = {"_operator": "operator", "_functools": "functools", "_collections": "collections", "posix": "os",
                  "builtins": None}


def native_name(label: str) -> str:
    """The name ``CountCtx`` shows for a native the profiler labels ``label``."""
    m = _METHOD.match(label)
    if m:
        owner = m.group(2)
        return "%s.%s" % (owner[len("builtins."):] if owner.startswith("builtins.") else owner, m.group(1))
    m = _BOUND.match(label)
    if m:  # the profiler names the owner's type only, and the object by its address
        return "%s (of a %s object)" % (m.group(1), m.group(2))
    m = _BUILTIN.match(label)
    if m:
        module, dot, name = m.group(1).rpartition(".")
        module = _PUBLIC_MODULE.get(module, module)
        return "%s.%s" % (module, name) if dot and module else name
    return label


def _modules_by_file():
    found = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            found.setdefault(os.path.abspath(path), name)
    return found


def _modules_of(codes):
    """``{code: module name}`` for code objects in no module's file (``exec``'d code, notebook cells):
    the ``__module__`` of a function made from them, found in one pass over the live objects."""
    wanted = {id(c) for c in codes}
    found = {}
    for obj in gc.get_objects():
        if type(obj) is FunctionType and id(obj.__code__) in wanted:
            found.setdefault(obj.__code__, obj.__module__)
    return found


def _qualified(code, module):
    return code.co_qualname if module in (None, "builtins") else "%s.%s" % (module, code.co_qualname)


def profiler() -> Any:
    """A profiler that counts calls and their callers, not started."""
    return _lsprof.Profiler(subcalls=True, builtins=True)


def enable(profiler: Any) -> bool:
    """Start ``profiler``; False when another profiler is active (the last thing it does: a call
    made after it in a frame that began before it has no caller in the profile)."""
    if sys.getprofile() is not None:  # 3.11: enabling would replace the active profiler
        return False
    try:
        profiler.enable()
    except (ValueError, RuntimeError):  # another profiling tool is active (cProfile, another count)
        return False
    return True


def _engines(code):
    return not isinstance(code, str) and is_engine_code(code)


def stop(profiler: Any, by_key: dict, names: dict) -> int:
    """Stop ``profiler`` and add its counts to ``by_key`` (and names to ``names``); the total added."""
    profiler.disable()
    stats = profiler.getstats()
    engine_made = {}  # callee label or code -> calls made by the engine's own code
    for entry in stats:
        if _engines(entry.code):
            for sub in entry.calls or ():
                engine_made[sub.code] = engine_made.get(sub.code, 0) + sub.callcount
    modules = None
    unplaced = []  # codes of no module's file, named once they are all known
    total = 0
    for entry in stats:
        code = entry.code
        if _engines(code):
            continue
        n = entry.callcount - engine_made.get(code, 0)
        if n <= 0:
            continue
        if isinstance(code, str):
            key = ("native", code)
            if key not in names:
                names[key] = native_name(code)
        else:
            key = identity_key(code)
            if key not in names:
                if modules is None:
                    modules = _modules_by_file()
                module = modules.get(os.path.abspath(code.co_filename))
                if module is None:
                    unplaced.append((key, code))
                names[key] = _qualified(code, module)
        by_key[key] = by_key.get(key, 0) + n
        total += n
    if unplaced:
        found = _modules_of([code for _, code in unplaced])
        for key, code in unplaced:
            names[key] = _qualified(code, found.get(code))
    profiler.clear()
    return total
