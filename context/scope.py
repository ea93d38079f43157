"""Entering a context: finding or creating its activation and making it current."""

import sys
import threading
from contextlib import contextmanager

from .state import STATE, switch_to


def find_activation(ctx):
    """The live activation of ``ctx`` on this thread's dynamic chain, or None."""
    act = STATE.act
    while act is not None:
        if act.ctx is ctx:
            return act
        act = act.parent
    return None


def new_activation(ctx, entry_frame):
    """An activation for ``ctx``: a child of the current one, or a sibling of the context it was derived from."""
    from .activation import Activation

    origin = getattr(ctx, "_similar_to", None)
    while origin is not None:
        origin_act = find_activation(origin)
        if origin_act is not None:
            return Activation(ctx, origin_act.parent, origin_act.entry_frame)
        origin = getattr(origin, "_similar_to", None)
    return Activation(ctx, STATE.act, entry_frame)


@contextmanager
def entered(ctx):
    """Make ``ctx``'s activation current for the duration (creating it if needed)."""
    act = STATE.act
    if act is not None and act.ctx is ctx:
        yield act
        return
    created = False
    target = find_activation(ctx)
    if target is None:
        target = new_activation(ctx, sys._getframe(2))
        created = True
    previous = switch_to(target)
    try:
        with deeper_recursion():
            yield target
    finally:
        switch_to(previous)
        if created:
            target.finish()


_limit_lock = threading.Lock()
_limit_users = [0, None, None]  # users, saved limit, raised limit
FRAMES_PER_CALL = 4


@contextmanager
def deeper_recursion():
    """Raise the recursion limit while any context runs: each user call costs a few engine frames."""
    with _limit_lock:
        if _limit_users[0] == 0:
            saved = sys.getrecursionlimit()
            raised = saved * FRAMES_PER_CALL
            sys.setrecursionlimit(raised)
            _limit_users[1:] = [saved, raised]
        _limit_users[0] += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users[0] -= 1
            if _limit_users[0] == 0 and sys.getrecursionlimit() == _limit_users[2]:
                sys.setrecursionlimit(_limit_users[1])
