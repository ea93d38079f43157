"""Per-thread dynamic state: which context is active, and its call entry points.

Rewritten code loads ``STATE.enter`` (or ``enter_kw``/``enter_ex``) at every call site
and calls it with the callee and the arguments; it returns what to call. Outside any context these are plain
native calls, so code rewritten earlier (a generator resumed later, say) still runs.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
import threading


def native_call(f, args):
    return f(*args)


def native_call_ex(f, args, kwargs):
    return f(*args, **kwargs)


def native_callee(f):
    return f


def native_enter(f, args):
    return f


def native_enter_kw(f, args, names):
    if names is None:
        names = args[-1]
        args = args[:-1]
    n = len(names)
    return dict(zip(names, args[-n:])), f, args[:-n]


def native_enter_ex(f, args, kwargs):
    return kwargs, f, args


NATIVE_ENTRIES = (native_call, native_call_ex, native_callee, native_enter, native_enter_kw, native_enter_ex,
                  operator.call)


class _State(threading.local):
    """``call*`` run a call and return its result (for the engine's own use).

    ``callee(f)`` returns what to call instead of ``f``, with the call site's own arguments.
    ``run(f, *args, **kwargs)`` runs the call through the context and returns its result.
    ``enter*`` tell rewritten code what to call: ``enter(f, args)`` returns ``g`` to be
    called as ``g(*args)``; ``enter_kw``/``enter_ex`` return ``(kwargs, g, args)``.
    """

    def __init__(self):
        self.act = None
        self.call, self.call_ex, self.callee, self.enter, self.enter_kw, self.enter_ex, self.run = NATIVE_ENTRIES

    def __reduce__(self):
        # Pickled by name, as a module's function is: rewritten code holds this object among
        # its constants, and tools that pickle code (dill, cloudpickle) can then pickle it.
        return "STATE"


STATE = _State()


_NAMES = ("call", "call_ex", "callee", "enter", "enter_kw", "enter_ex", "run")
NATIVE_STATE = dict(zip(_NAMES, NATIVE_ENTRIES), act=None)  # (also a finished activation's)


def state_of(act):
    """What ``STATE`` holds while ``act`` is current (set in one step by ``switch_to``)."""
    return {"call": act.call, "call_ex": act.call_ex, "callee": act.callee, "enter": act.enter,
            "enter_kw": act.enter_kw, "enter_ex": act.enter_ex, "run": act.run, "act": act}


def switch_to(act):
    """Make ``act`` (or no context, for None) current; return what was current.

    The whole state changes in one dict update, a single step that a KeyboardInterrupt
    cannot split.
    """
    namespace = STATE.__dict__
    previous = namespace["act"]
    namespace.update(NATIVE_STATE if act is None else act.state)
    return previous


def call_under(act, f, args, kwargs, recurse=False):
    """``f(*args, **kwargs)`` as a call of ``act``'s context, with ``act`` current for it.

    This is how a nested context runs its native work and primitive bodies under the
    enclosing one, and how a callback handed to native code gets back under its
    context. ``recurse=True`` runs ``f``'s own code rewritten for ``act`` without
    firing its hooks. With ``act`` None or finished, it is a plain call.
    """
    try:
        if act is None or not act.alive:
            return f(*args, **kwargs)
        entry = act.recurse if recurse else act.call_ex
        namespace = STATE.__dict__
        if namespace["act"] is act:
            try:
                return entry(f, args, kwargs)
            finally:
                if namespace["act"] is not act:  # a suspended frame left its ``with ctx:`` block's context current
                    switch_to(act)
        previous = switch_to(act)
        try:
            return entry(f, args, kwargs)
        finally:
            switch_to(previous)
    finally:
        f = args = kwargs = None  # (its frame, kept by a traceback, holds nothing of the program's: design.md)
