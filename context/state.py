"""Per-thread dynamic state: which context is active, and its call entry points.

Rewritten code loads ``STATE.call`` (or ``call_kw``/``call_ex``) at every call site
and calls it with the callee and the arguments. Outside any context these are plain
native calls, so code rewritten earlier (a generator resumed later, say) still runs.
"""

import threading


def native_call(f, args):
    return f(*args)


def native_call_kw(f, args, names):
    n = len(names)
    return f(*args[:-n], **dict(zip(names, args[-n:])))


def native_call_ex(f, args, kwargs):
    return f(*args, **kwargs)


class _State(threading.local):
    def __init__(self):
        self.act = None
        self.call = native_call
        self.call_kw = native_call_kw
        self.call_ex = native_call_ex


STATE = _State()


def current_activation():
    """The activation running on this thread, or None."""
    return STATE.act


def switch_to(act):
    """Make ``act`` (or no context, for None) current; return what was current."""
    state = STATE
    previous = state.act
    state.act = act
    if act is None:
        state.call, state.call_kw, state.call_ex = native_call, native_call_kw, native_call_ex
    else:
        state.call, state.call_kw, state.call_ex = act.call, act.call_kw, act.call_ex
    return previous
