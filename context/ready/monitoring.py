"""Counting calls with ``sys.monitoring`` (3.12+): the observing mechanism of ``CountCtx(via="monitoring")``.

A context that only counts needs to see calls, not to change them, and CPython's own
event hooks see them at a fraction of the cost of rewriting: a ``CALL`` event per call
instruction, a ``PY_START`` event per Python function that starts. Python callees are
counted when they start (so functions called back from native code, such as a
``sorted`` key, count too), everything else (builtins, classes, callable objects) at its
``CALL``. What this sees differs from what a context sees, and the difference is the
price of the speed:

* special methods that the interpreter calls implicitly (``__eq__`` for ``==``, a
  property's getter, ``__iter__`` of a ``for``) start as Python functions, so they count;
  under a context they run natively and do not;
* a generator function counts when its generator first runs, not when it is called;
* only the thread that started the run counts; the engine's own code never does.

Events are process-wide, so at most ``len(TOOL_IDS)`` such runs can be active at once (on
any threads); ``start_counting`` returns None when no tool id is free, and the caller
falls back to the engine.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
from threading import get_ident
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType

from ..resolve import is_engine_code
from .display import callee_key, callee_name, identity_key

MONITORING = getattr(sys, "monitoring", None)
# the ids this module may take (sys.monitoring reserves 0-2 for debuggers, coverage and
# profilers, 5 for optimizers; 3 and 4 are free for anyone). Not the profiler's, 2: the
# locations this counter disables (the engine's code) would stay disabled for cProfile,
# which then could not see who called what (and CountCtx(via="profile") is cProfile's profiler).
TOOL_IDS = (3, 4)


def available():
    """Whether this interpreter has ``sys.monitoring``."""
    return MONITORING is not None


class Counting:
    """One run's counting: ``by_key`` maps callee keys (as ``callee_key``) to counts, ``names`` to names.

    ``on_call`` and ``on_start`` are the event callbacks: closures over the run's state,
    since an event costs a Python call and every attribute read shows.
    """

    __slots__ = ("tool", "by_key", "names", "top", "on_call", "on_start")

    def __init__(self, tool, by_key, names, skip_top):
        self.tool = tool
        self.by_key = by_key
        self.names = names
        self.top = [skip_top]  # the top function's own start is not one of its calls
        thread = get_ident()
        disable = MONITORING.DISABLE
        seen = {}  # id(code) -> [code, key] for the user code started in this run (kept alive by it)
        top = self.top
        getframe = _getframe

        def on_call(code, offset, callee, arg0):
            kind = type(callee)
            if kind is FunctionType or (kind is MethodType and type(callee.__func__) is FunctionType):
                return None  # counted when it starts
            if get_ident() != thread:
                return None
            if is_engine_code(code):
                return disable  # never again at this instruction (for this tool)
            key = callee if kind is BuiltinFunctionType and type(callee.__self__) is ModuleType else callee_key(callee)
            n = by_key.get(key)
            if n is None:
                names[key] = callee_name(callee)
                by_key[key] = 1
            else:
                by_key[key] = n + 1
            return None

        def on_start(code, offset):
            if get_ident() != thread:
                return None
            entry = seen.get(id(code))
            if entry is not None and entry[0] is code:
                by_key[entry[1]] += 1
                return None
            if is_engine_code(code):
                return disable
            if top[0]:
                top[0] = False
                return None
            key = identity_key(code)
            seen[id(code)] = [code, key]
            module = getframe(1).f_globals.get("__name__")
            names[key] = code.co_qualname if module in (None, "builtins") else "%s.%s" % (module, code.co_qualname)
            by_key[key] = by_key.get(key, 0) + 1
            return None

        self.on_call = on_call
        self.on_start = on_start


def start_counting(by_key, names, skip_top=True):
    """Start counting the calls made on this thread into ``by_key``/``names``; a ``Counting``, or
    None when every tool id this module may use is taken. ``skip_top``: the first function
    to start is the run's own top function, not counted."""
    for tool in TOOL_IDS:
        if MONITORING.get_tool(tool) is None:
            break
    else:
        return None
    MONITORING.use_tool_id(tool, "pycassette")
    counting = Counting(tool, by_key, names, skip_top)
    events = MONITORING.events
    MONITORING.register_callback(tool, events.CALL, counting.on_call)
    MONITORING.register_callback(tool, events.PY_START, counting.on_start)
    MONITORING.set_events(tool, events.CALL | events.PY_START)
    return counting


def stop_counting(counting):
    """Stop ``counting`` and free its tool id."""
    tool = counting.tool
    events = MONITORING.events
    MONITORING.set_events(tool, 0)
    MONITORING.register_callback(tool, events.CALL, None)
    MONITORING.register_callback(tool, events.PY_START, None)
    MONITORING.free_tool_id(tool)
    # (no restart_events(): it would re-enable what other tools disabled; the locations this
    # tool disabled are the engine's, which it would disable again anyway)
