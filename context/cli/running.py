"""Running a target as ``python`` runs it: the process set up for it (``sys.argv``, ``sys.path[0]``,
``__main__``), its exit status and traceback, and forks made while it runs (a child reports nothing)."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import contextlib
import importlib
import os
import runpy
import sys
import tempfile
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import IO, Any

from ..api import overdub
from ..base import Context
from .outputs import fds_of
from .progress import Progress
from .targets import Target

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the context package
_IMPORT_MACHINERY = (os.path.dirname(importlib.__file__) + os.sep, runpy.__file__, "<frozen importlib")

_RUN: Run | None = None  # the run under way in this process, if any
_fork_hooks: list[bool] = []  # registered once per process
_sinks: list[IO[bytes]] = []  # a forked child's stand-ins for the output files, kept open


class Run:
    """Bookkeeping of one run: the progress line, and what a forked child must not do."""

    def __init__(self) -> None:
        self.child = False  # this process is a child forked during the run: it reports nothing
        self.progress: Progress | None = None
        self.paths: list[str] = []  # output files the child must not write into
        self.on_fork: list[Callable[[], object]] = []

    def start_progress(self, progress: Progress | None) -> None:
        """Show ``progress`` (if not None) while the target runs."""
        if progress is not None:
            self.progress = progress
            progress.start()

    def stop_progress(self) -> None:
        """Stop and clear the progress line, if any."""
        progress, self.progress = self.progress, None
        if progress is not None:
            progress.stop()
            progress.finish()

    def before_fork(self) -> None:
        if self.progress is not None:
            self.progress.stop()

    def after_fork_in_parent(self) -> None:
        if self.progress is not None and not self.child:
            self.progress.start()

    def after_fork_in_child(self) -> None:
        self.child = True
        if self.progress is not None:  # its thread did not come along
            self.progress._thread = None
            self.progress = None
        for callback in self.on_fork:
            callback()
        fds = [fd for path in self.paths for fd in fds_of(path)]
        if fds:  # what the child writes there, now or when its buffers are flushed at exit, goes nowhere
            sink = tempfile.TemporaryFile()
            for fd in fds:
                os.dup2(sink.fileno(), fd)
            _sinks.append(sink)


def _before_fork() -> None:
    if _RUN is not None:
        _RUN.before_fork()


def _after_fork_in_parent() -> None:
    if _RUN is not None:
        _RUN.after_fork_in_parent()


def _after_fork_in_child() -> None:
    if _RUN is not None:
        _RUN.after_fork_in_child()


def _register_fork_hooks() -> None:
    if not _fork_hooks and hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                            after_in_child=_after_fork_in_child)
        _fork_hooks.append(True)


@contextlib.contextmanager
def current_run() -> Iterator[Run]:
    """A new ``Run``, the one the fork hooks see until the block ends (then the outer one, if any)."""
    global _RUN

    _register_fork_hooks()
    run = Run()
    outer, _RUN = _RUN, run
    try:
        yield run
    finally:
        _RUN = outer


@contextlib.contextmanager
def target_process(target: Target) -> Iterator[None]:
    """The process set up as the target expects it (``sys.argv``, ``sys.path[0]``, ``__main__``), then restored."""
    saved_argv, saved_argv_items = sys.argv, list(sys.argv)
    saved_path = list(sys.path)
    saved_main = sys.modules.get("__main__")
    sys.argv = list(target.argv)
    if target.path0 is not None:
        if sys.path:
            sys.path[0] = target.path0
        else:
            sys.path.append(target.path0)
    if target.main is not None:
        sys.modules["__main__"] = target.main
    try:
        yield
    finally:
        if target.main is not None:
            if saved_main is None:
                sys.modules.pop("__main__", None)
            else:
                sys.modules["__main__"] = saved_main
        sys.path[:] = saved_path
        saved_argv[:] = saved_argv_items
        sys.argv = saved_argv


def own_frames_removed(exc: BaseException) -> TracebackType | None:
    """``exc``'s traceback without its leading entries in the context package (the command line, ``overdub``)
    and in the import machinery that imported the target's module.

    None when the target has no frame of its own in it (a builtin function that raised).
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith((_PACKAGE_DIR,) + _IMPORT_MACHINERY):
        tb = tb.tb_next
    return tb


def show_exception(exc: BaseException) -> None:
    """Print ``exc`` as python prints an uncaught exception, with the target's frames only."""
    exc.__traceback__ = tb = own_frames_removed(exc)
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        import traceback

        traceback.print_exception(type(exc), exc, tb)


def execute(ctx: Context, target: Target, run: Run) -> int:
    """Run the target under ``ctx``; returns its exit status as python gives it, printing its traceback if it raised.

    A function target's result, if not None, is printed (by the parent process only).
    """
    try:
        result: Any = overdub(ctx, target.function, *target.args, **target.kwargs)
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:
        show_exception(exc)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    if target.kind == "function" and result is not None and not run.child:
        print(repr(result))
    return 0
