"""A clock that stops while the engine works: the time user code takes, without rewriting.

The first call of a function under a context rewrites its code (or loads the rewrite
from the disk cache), which can take longer than the call itself. Tools that time calls
(``TraceCtx``, ``ProfileCtx``) read ``clock_ns()`` so that this work is never charged
to the user's functions. Each thread has its own count, so one thread's rewriting does
not shorten another thread's calls.
"""

from time import perf_counter_ns

from .state import STATE


def clock_ns() -> int:
    """``time.perf_counter_ns()`` minus the time this thread has spent in the engine's own work."""
    return perf_counter_ns() - STATE.engine_ns


def engine_ns() -> int:
    """The time, in nanoseconds, this thread has spent in the engine's own work so far."""
    return STATE.engine_ns


class engine_work:
    """``with engine_work():`` the block's time is the engine's, not the user's (blocks must not nest)."""

    __slots__ = ("start",)

    def __enter__(self):
        self.start = perf_counter_ns()
        return self

    def __exit__(self, *exc_info):
        STATE.engine_ns += perf_counter_ns() - self.start
        return False
