"""The recursion limit while contexts run.

Off the direct path, each user call under a context goes through a few engine frames
(``FRAMES_PER_CALL`` frames in all). While such a context runs on any thread, the limit
is the user's limit times that, so that recursion that works natively works too;
contexts on the direct path add no frames and leave the limit alone. On 3.11, whose
interpreter recurses on the C stack for calls made through ``CALL_FUNCTION_EX`` and
has no C recursion guard, the limit under a context is also capped (``C_STACK_CAP``
frames per 8 MiB of stack), so runaway recursion ends in RecursionError instead of
overflowing the C stack. Under a context, ``sys.getrecursionlimit`` and
``sys.setrecursionlimit`` read and set the user's limit.

The bookkeeping is idempotent, so that a KeyboardInterrupt arriving anywhere leaves
nothing multiplied for ever: ``_users`` holds the running activations that need a
deeper limit (added and removed by single dict operations), and ``_apply`` derives the
limit from it and from the user's limit each time it runs.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
import threading
from contextlib import contextmanager

from ._support import C_RECURSION_GUARDED

FRAMES_PER_CALL = 4
HOOK_FRAMES = 5  # frames a hook or a native guard may use below the deepest user frame (CountCtx's prehook uses 4)
HELPER_FRAMES = 5  # engine frames a call may add below it (calling a class: instantiate, call_ex; on 3.11 a C call counts too)
C_STACK_CAP = 16000
_C_INT_MAX = 2 ** 31 - 1
_lock = threading.RLock()
_users = {}  # a key per entry of a running activation -> (frames per call, extra frames)
_limits = [None, None]  # the user's limit, the limit set for the contexts (None: not raised)


def _cap():
    if C_RECURSION_GUARDED:
        return None
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    except (ImportError, OSError, ValueError):
        soft = -1
    if soft <= 0:  # unlimited or unknown
        return C_STACK_CAP
    return max(1000, int(C_STACK_CAP * soft / (8 << 20)))


_CAP = _cap()


def _depth():
    frame, depth = _getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def _apply(new_user=None):
    """Set the recursion limit that the running contexts need (or the user's, if none runs).

    ``new_user``: the program sets its limit to this; CPython's own check of the limit
    against the depth then applies to the raised value, and its error propagates. (No
    call is made here before that check, so the handler of ``sys.setrecursionlimit`` is
    as deep at the check as anywhere: a program that finds the lowest limit it can set,
    as CPython's tests do, can set it again.)
    """
    with _lock:
        current = sys.getrecursionlimit()
        user, raised = _limits
        if new_user is not None:
            user = new_user
        elif raised is None or current != raised:
            user = current  # the program set it itself: that is the user's limit now
        if not _users:
            _limits[:] = [user, None]
            if current != user:
                try:
                    sys.setrecursionlimit(user)
                except RecursionError:  # deeper than that right now: lowered at the next chance
                    _limits[:] = [user, current]
            return
        wanted = user
        for factor, extra in tuple(_users.values()):  # one step: other threads add and remove entries
            if user * factor + extra > wanted:
                wanted = user * factor + extra
        if _CAP is not None:
            wanted = max(min(wanted, _CAP), min(user, _depth() + 50))
        wanted = min(wanted, _C_INT_MAX)  # (CPython's limit is a C int: a program may set it near the top)
        if new_user is not None:
            sys.setrecursionlimit(wanted)  # may raise: then nothing changes
            _limits[:] = [user, wanted]
            return
        _limits[:] = [user, wanted]  # recorded first: an interrupt after it is repaired next time
        if current != wanted:
            try:
                sys.setrecursionlimit(wanted)
            except RecursionError:  # deeper than that right now: lowered at the next chance
                _limits[:] = [user, current]


def user_recursion_limit():
    """The recursion limit as the program set it (not the one raised for the contexts)."""
    user, raised = _limits
    current = sys.getrecursionlimit()
    return user if raised is not None and current == raised else current


def set_user_recursion_limit(limit):
    """``sys.setrecursionlimit(limit)`` called under a context: the program's limit becomes
    ``limit``, raised as the running contexts need."""
    if type(limit) is not int or limit < 1:
        return sys.setrecursionlimit(limit)  # CPython's own error, or its own handling
    _apply(limit)
    return None


def _frames_above(frame, entry_frame):
    """The engine's frames from ``frame`` (included) up to ``entry_frame``."""
    n = 0
    while frame is not None and frame is not entry_frame:
        n += 1
        frame = frame.f_back
    return n if frame is not None else 0


def raise_for(act, key, frame=None):
    """Raise the limit while ``act`` runs by the frames its entries add per call, by the
    engine's frames above its top function, by ``HELPER_FRAMES`` for the engine's helpers
    and ``HOOK_FRAMES`` if it has hooks, which run below the deepest user frame: the program
    recurses as deep as natively, a few frames more at most (code that measures the room
    left, as CPython's tests do, finds it; code whose work grows exponentially with depth
    does little more). ``key`` (a new ``object()``, made by the caller before its ``try``)
    is what ``lower_for`` takes when ``act`` stops, in the ``finally``. ``frame``: the
    engine's lowest frame that stays while ``act`` runs (by default the caller's)."""
    factor = getattr(act, "frames_per_call", FRAMES_PER_CALL)
    above = _frames_above(_getframe(1) if frame is None else frame, getattr(act, "entry_frame", None))
    extra = above + HELPER_FRAMES + getattr(act, "hook_frames", HOOK_FRAMES)
    _users[key] = (factor, extra)  # one key per entry: an activation may be entered again while it runs
    _apply()


def lower_for(key):
    """Undo ``raise_for`` (a single dict operation, then ``_apply``: whatever interrupted the run)."""
    _users.pop(key, None)
    _apply()


@contextmanager
def deeper_recursion(act=None):
    """``raise_for(act, ...)`` for the duration of a ``with`` block."""
    key = object()
    try:
        raise_for(act, key, _getframe(2))  # (the frame of the with statement: above this generator's __enter__)
        yield
    finally:
        lower_for(key)


ENGINE_FRAMES = 2000  # room for the engine's own work (rewriting a function) wherever it happens


@contextmanager
def engine_room():
    """Room for the engine's own work, such as rewriting a function at the first call,
    even when the program called it near its recursion limit."""
    key = object()
    try:
        _users[key] = (1, ENGINE_FRAMES)
        _apply()
        yield
    finally:
        _users.pop(key, None)
        _apply()
