"""Output files: checked before anything is opened (``check_output``), opened when the run starts.

``-o -`` is standard output; the null device is recognized, whatever its name; trace
files, flame graphs and ``pstats`` files must be regular files (the first is rewritten in
place as the run goes, the others are written whole through a temporary file).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import os
import stat
from typing import IO, TextIO

from .errors import OutputFailed, UsageError

STDOUT = "-"


def check_output(prog: str, path: str, *, seekable: bool = False, whole: str | None = None) -> str:
    """Where an ``-o`` file goes, checked without opening or truncating it.

    Returns ``"-"`` for standard output, ``os.devnull`` for the null device, else the
    absolute path. ``seekable``: the file is rewritten in place (a trace file), so it must be
    a regular file (or the null device). ``whole`` (a description such as ``"the flame
    graph"``): the file is written whole through a temporary file in its directory and
    renamed over ``path``, so it must be a regular file (or the null device) in a directory
    one can create files in, and not a symbolic link (the rename would replace the link,
    ``/dev/stdout`` say, rather than the file it points to). Raises ``UsageError`` naming
    what is wrong.
    """
    if path == STDOUT:
        if seekable:
            raise UsageError("%s: the trace file cannot be standard output (-o -): it is rewritten in place as the "
                             "run goes; give a file path" % prog)
        if whole is not None:
            raise UsageError("%s: %s cannot go to standard output (-o -); give a file path" % (prog, whole))
        return STDOUT
    full = os.path.abspath(path)
    if whole is not None and os.path.islink(full):  # os.replace would replace the link itself (/dev/stdout, say)
        raise UsageError("%s: cannot write %s to %s: it is a symbolic link, and %s is written to a temporary file "
                         "renamed over it, which would replace the link; give the path of the file itself"
                         % (prog, whole, path, whole))
    try:
        info = os.stat(full)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError("%s: cannot write %s: %s" % (prog, path, exc.strerror or exc)) from None
    folder = os.path.dirname(full)
    if info is None:
        if not os.path.isdir(folder):
            raise UsageError("%s: cannot write %s: the directory %s does not exist; create it or give another path"
                             % (prog, path, folder))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UsageError("%s: cannot write %s: no permission to create files in %s" % (prog, path, folder))
        return full
    if stat.S_ISDIR(info.st_mode):
        raise UsageError("%s: cannot write %s: it is a directory; give a file path" % (prog, path))
    null = os.stat(os.devnull)
    if (info.st_dev, info.st_ino) == (null.st_dev, null.st_ino):
        return os.devnull
    if not stat.S_ISREG(info.st_mode):
        if seekable:
            raise UsageError("%s: cannot write the trace file to %s: it is not a regular file (a pipe or a "
                             "device), and the trace file is rewritten in place as the run goes; give a file path"
                             % (prog, path))
        if whole is not None:
            raise UsageError("%s: cannot write %s to %s: it is not a regular file (a pipe or a device), and %s is "
                             "written to a temporary file renamed over it; give a file path"
                             % (prog, whole, path, whole))
        if not os.access(full, os.W_OK):
            raise UsageError("%s: cannot write %s: permission denied" % (prog, path))
        return full
    try:  # opened for appending and closed at once: the file is not changed
        os.close(os.open(full, os.O_WRONLY | os.O_APPEND))
    except OSError as exc:
        raise UsageError("%s: cannot write %s: %s" % (prog, path, exc.strerror or exc)) from None
    if whole is not None and not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError("%s: cannot write %s: no permission to create files in %s (%s is written to a temporary "
                         "file there, then renamed over it)" % (prog, path, folder, whole))
    return full


def open_output(path: str) -> TextIO:
    """Open the checked output file ``path`` for writing text; ``OutputFailed`` if it cannot be, after all."""
    try:
        return open(path, "w", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise OutputFailed(exc) from None


def fds_of(path: str) -> list[int]:
    """The file descriptors (above 2) open on the regular file ``path``."""
    try:
        info = os.stat(path)
    except OSError:
        return []
    if not stat.S_ISREG(info.st_mode):
        return []
    try:
        candidates: list[int] | range = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        candidates = range(3, 1024)
    found = []
    for fd in candidates:
        if fd <= 2:
            continue
        try:
            other = os.fstat(fd)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            found.append(fd)
    return found


class Lines:
    """Where ``PrintCtx`` writes its lines: a stream, counted (for progress), silent in a forked child."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.lines = 0
        self.on = True

    def __call__(self, line: str) -> None:
        if self.on:
            self.stream.write(line + "\n")
            self.lines += 1
