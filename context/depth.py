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

import sys
import threading
from contextlib import contextmanager

from ._support import PY311

FRAMES_PER_CALL = 4
C_STACK_CAP = 16000
_lock = threading.RLock()
_users = {}  # a key per entry of a running activation -> its frames per call
_limits = [None, None]  # the user's limit, the limit set for the contexts (None: not raised)


def _cap():
    if not PY311:
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
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def _apply():
    """Set the recursion limit that the running contexts need (or the user's, if none runs)."""
    with _lock:
        factor = max(_users.values(), default=1)
        current = sys.getrecursionlimit()
        user, raised = _limits
        if raised is None or current != raised:
            user = current  # the program set it itself: that is the user's limit now
        wanted = user * factor if _users else user
        if _users and _CAP is not None:
            wanted = max(min(wanted, _CAP), min(user, _depth() + 50))
        if not _users or wanted == user:
            _limits[:] = [user, None]
            if current != user:
                sys.setrecursionlimit(user)
            return
        _limits[:] = [user, wanted]  # recorded first: an interrupt after it is repaired next time
        if current != wanted:
            sys.setrecursionlimit(wanted)


def user_recursion_limit():
    """The recursion limit as the program set it (not the one raised for the contexts)."""
    user, raised = _limits
    current = sys.getrecursionlimit()
    return user if raised is not None and current == raised else current


def set_user_recursion_limit(limit):
    """``sys.setrecursionlimit`` called under a context: the user's limit changes, then is raised."""
    with _lock:
        sys.setrecursionlimit(limit)  # CPython's own checks and errors
        _limits[:] = [limit, None]
        _apply()


@contextmanager
def deeper_recursion(act=None):
    """While ``act`` runs, raise the limit by the frames its entries add per call."""
    factor = getattr(act, "frames_per_call", FRAMES_PER_CALL)
    if factor == 1 and _CAP is None:
        yield
        return
    key = object()  # one per entry: an activation may be entered again while it runs
    try:
        _users[key] = factor
        _apply()
        yield
    finally:
        _users.pop(key, None)
        _apply()
