"""The stack as the user sees it: which frames run rewritten code, and their visible callers.

Rewritten code calls ``visible_f_back`` directly, so the rewriter embeds it: this
module imports only leaf modules of the engine.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
from types import FrameType

from ._support import LOCALS_SNAPSHOT
from .resolve import is_engine_code
from .state import STATE
from .tracebacks import context_method_codes


def is_rewritten(code):
    """True for code objects the rewriter produced (they load the engine's state object)."""
    return any(c is STATE for c in code.co_consts)


_CO_OPTIMIZED = 0x1


def user_frame():
    """The nearest frame running rewritten code (the one that made the current call)."""
    frame = _getframe(1)
    while frame is not None and not is_rewritten(frame.f_code):
        frame = frame.f_back
    if frame is None:
        raise RuntimeError("no user frame found: not called from code running under a context")
    return frame


def hidden_codes(act):
    """Ids of the code of the running contexts' hook methods: their frames are the
    contexts', not the user's. (``act`` is the current activation; the chain is read
    from ``STATE``.)"""
    return context_method_codes()


def _hidden(code, hidden):
    return is_engine_code(code) or id(code) in hidden


def caller_frame(frame, act, hidden=None):
    """The user-visible caller of ``frame``: the engine's frames and the contexts' hook
    methods in between are skipped. Every other frame is the user's, rewritten or not
    (code that runs natively, a frame that has finished)."""
    if hidden is None:
        hidden = hidden_codes(act)
    frame = frame.f_back
    while frame is not None and _hidden(frame.f_code, hidden):
        frame = frame.f_back
    return frame


def visible_f_back(obj):
    """``obj.f_back`` as rewritten code reads it: a frame's caller as the user sees it."""
    back = obj.f_back
    if back is None or type(obj) is not FrameType or is_rewritten(back.f_code):
        return back
    act = STATE.act
    if act is None:
        return back  # code that outlived its context
    if not is_engine_code(back.f_code) and id(back.f_code) not in hidden_codes(act):
        return back
    return caller_frame(obj, act)


def frame_locals(frame):
    """What ``locals()`` returns in ``frame``."""
    if LOCALS_SNAPSHOT and frame.f_code.co_flags & _CO_OPTIMIZED:
        return dict(frame.f_locals)  # PEP 667: a fresh snapshot in optimized scopes
    return frame.f_locals
