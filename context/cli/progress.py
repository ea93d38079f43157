"""The progress line on standard error: ``pycassette: 1.2 M calls, 3 s``, rewritten in place once a second."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import os
import sys
import threading
import time
from collections.abc import Callable

from ..clock import monotonic_s
from .options import CONSOLE_PROG


def format_progress(calls: int, seconds: float, prog: str = CONSOLE_PROG) -> str:
    """The progress line: ``pycassette: 1.2 M calls, 3 s``."""
    if calls >= 1_000_000:
        count = "%.1f M" % (calls / 1e6)
    elif calls >= 10_000:
        count = "%.1f k" % (calls / 1e3)
    else:
        count = "%d" % calls
    return "%s: %s calls, %d s" % (prog, count, seconds)


class Progress:
    """A progress line on a terminal, rewritten in place (``\\r``) at most once per ``interval`` seconds.

    ``calls()`` gives the number of calls so far, ``write(text)`` shows text and ``clock()``
    reads the time in seconds. ``tick()`` rewrites the line if an interval has passed since
    the last one (the first comes one interval after the start); ``finish()`` clears it.
    ``start()`` runs ``tick`` from a daemon thread until ``stop()``.
    """

    def __init__(self, calls: Callable[[], int], write: Callable[[str], object], *,
                 clock: Callable[[], float] = monotonic_s, interval: float = 1.0,
                 prog: str = CONSOLE_PROG) -> None:
        self.calls = calls
        self.write = write
        self.clock = clock
        self.interval = interval
        self.prog = prog
        self.t0 = clock()
        self.next = self.t0 + interval
        self.width = 0  # of the line shown, 0: none
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def tick(self) -> bool:
        """Rewrite the line if an interval has passed since the last time; whether it did."""
        now = self.clock()
        if now < self.next:
            return False
        self.next = now + self.interval
        line = format_progress(self.calls(), now - self.t0, self.prog)
        self.write("\r" + line.ljust(self.width))
        self.width = max(self.width, len(line))
        return True

    def finish(self) -> None:
        """Clear the line, if one is shown."""
        if self.width:
            self.write("\r" + " " * self.width + "\r")
            self.width = 0

    def _loop(self) -> None:
        wait = min(0.25, self.interval)
        while not self._stop.wait(wait):
            try:
                self.tick()
            except Exception:  # a closed standard error: no more progress
                return

    def start(self) -> None:
        """Tick from a daemon thread until ``stop()``."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="pycassette-progress", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread ``start()`` started, and wait until it is gone."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join()
            if thread.native_id is not None:
                _wait_until_gone(thread.native_id)


def _wait_until_gone(native_id: int, timeout: float = 0.1) -> None:
    """Wait (on Linux, briefly) until the thread ``native_id`` has left the process, not only Python: a fork
    made at once then sees one thread fewer (and Python 3.12+ warns of no thread that is not there)."""
    task = "/proc/self/task/%d" % native_id
    deadline = monotonic_s() + timeout  # the real clock, whatever a frozen-time library did to time's
    while os.path.exists(task) and monotonic_s() < deadline:
        time.sleep(0.0002)


def stderr_writer() -> Callable[[str], None] | None:
    """A function writing text straight to standard error's file descriptor, or None if it has none."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return None

    def write(text: str) -> None:
        os.write(fd, text.encode("utf-8", "replace"))  # unbuffered: no lock shared with the target's writes

    return write


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def progress_for(option: bool | None, default: bool, calls: Callable[[], int], interval: float) -> Progress | None:
    """The progress line a run shows (not started), or None.

    ``option`` is ``--progress`` (True), ``--no-progress`` (False) or neither (None: shown
    when ``default`` holds and standard error is a terminal).
    """
    wanted = option if option is not None else default and stderr_is_terminal()
    write = stderr_writer() if wanted else None
    if write is None:
        return None
    return Progress(calls, write, interval=interval)
