"""The stack as the user sees it: which frames run rewritten code, and their visible callers.

A leaf module: rewritten code calls ``visible_f_back`` directly, so the rewriter embeds
it, and nothing here imports the rest of the engine.
"""

import sys
from types import FrameType

from ._support import PY313
from .state import STATE


def is_rewritten(code):
    """True for code objects the rewriter produced (they load the engine's state object)."""
    return any(c is STATE for c in code.co_consts)


_CO_OPTIMIZED = 0x1


def user_frame():
    """The nearest frame running rewritten code (the one that made the current call)."""
    frame = sys._getframe(1)
    while frame is not None and not is_rewritten(frame.f_code):
        frame = frame.f_back
    if frame is None:
        raise RuntimeError("no user frame found: not called from code running under a context")
    return frame


def _outside_frames(act):
    """Ids of the frames that called the outermost ``overdub`` (they count as user frames)."""
    while act.parent is not None:
        act = act.parent
    ids = set()
    frame = act.entry_frame
    while frame is not None:
        ids.add(id(frame))
        frame = frame.f_back
    return ids


def caller_frame(frame, act, outside=None):
    """The user-visible caller of ``frame``: engine and hook frames in between are skipped."""
    if outside is None:
        outside = _outside_frames(act)
    frame = frame.f_back
    while frame is not None and not is_rewritten(frame.f_code) and id(frame) not in outside:
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
    return caller_frame(obj, act)


def frame_locals(frame):
    """What ``locals()`` returns in ``frame``."""
    if PY313 and frame.f_code.co_flags & _CO_OPTIMIZED:
        return dict(frame.f_locals)  # PEP 667: a fresh snapshot in optimized scopes
    return frame.f_locals
