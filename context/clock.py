"""A clock that stops while the engine works: the time user code takes, without rewriting.

The first call of a function under a context rewrites its code (or loads the rewrite
from the disk cache), which can take longer than the call itself. Tools that time calls
(``TraceCtx``, ``ProfileCtx``) read ``clock_ns()`` so that this work is never charged
to the user's functions.

The clock is one for the process, so that the times of different threads stay on one
timeline (a trace file shows them side by side): it stands still while any thread does
the engine's work, and ``engine_ns()`` is the total of those intervals. It never goes
back. (A thread that runs user code while another rewrites has that time left out too;
rewriting happens once per function, so this is rare and short.)
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import threading
import time

_lock = threading.Lock()
# [engine time so far, start of the current engine interval or None, threads in engine work,
# time.perf_counter_ns]; hot paths that cannot afford a call inline ``clock_ns``:
# (s[3]() if s[1] is None else s[1]) - s[0], with s = CLOCK_STATE.
# The clock function is kept in the list, never as a module attribute: libraries that freeze
# time for tests (freezegun) replace every module attribute that is ``time.perf_counter_ns``
# (and ``time``'s own), and the engine's times must stay real (as cProfile's do).
_state = CLOCK_STATE = [0, None, 0, time.perf_counter_ns]
_MONOTONIC = (time.monotonic,)  # the same, for ``monotonic_s``


def perf_ns() -> int:
    """``time.perf_counter_ns()`` as it was when the engine was imported (never a test's fake)."""
    return _state[3]()


def monotonic_s() -> float:
    """``time.monotonic()`` as it was when the engine was imported."""
    return _MONOTONIC[0]()


def clock_ns() -> int:
    """``time.perf_counter_ns()`` without the time the engine spent on its own work."""
    state = _state
    since = state[1]
    return (state[3]() if since is None else since) - state[0]


def engine_ns() -> int:
    """The time, in nanoseconds, the engine has spent on its own work so far (all threads)."""
    state = _state
    since = state[1]
    return state[0] + (0 if since is None else state[3]() - since)


class engine_work:
    """``with engine_work():`` the block's time is the engine's, not the user's (blocks may
    nest and overlap across threads: the clock stands still while any is open)."""

    __slots__ = ()

    def __enter__(self):
        with _lock:
            if _state[2] == 0:
                _state[1] = _state[3]()
            _state[2] += 1
        return self

    def __exit__(self, *exc_info):
        with _lock:
            _state[2] -= 1
            if _state[2] == 0:
                _state[0] += _state[3]() - _state[1]
                _state[1] = None
        return False
