"""The command line: ``python -m context print|count|trace|profile [OPTIONS] TARGET [ARGS...]``, or ``pycassette ...``.

Runs TARGET under one of the ready-made contexts and reports what it saw. TARGET is

- ``SCRIPT``: a file of Python code, run as ``python SCRIPT ARGS...`` runs it;
- ``DIR`` or ``ZIP``: a directory or zip file holding ``__main__.py``, as ``python DIR ARGS...``;
- ``-m MODULE``: a module run as ``__main__``, as ``python -m MODULE ARGS...``;
- ``MODULE:FUNCTION``: ``FUNCTION(*ARGS, **KW)`` after importing MODULE; ``-k NAME=VALUE``
  (repeatable, before TARGET) gives the keyword arguments.

Everything is checked before the target runs and before any output file is opened: a bad
command line prints one line to standard error and gives exit status 2. Otherwise the
exit status is the target's own. ``main(argv)`` is the entry point; it returns the status.

The modules, one concern each:

- ``options``: the argument parser, the checks of option values, the split at TARGET;
- ``targets``: the four forms of TARGET, checked and loaded as a ``Target``;
- ``mainmodule``: a module's code as a function to run under a context
  (``module_code_function``), in a fresh ``__main__`` module;
- ``running``: running a target as ``python`` does (``sys.argv``, ``sys.path[0]``,
  ``__main__``, exit status, traceback) and forks made during the run;
- ``outputs``: ``-o`` files, checked before anything is opened;
- ``progress``: the progress line on standard error;
- ``commands``: ``print``, ``count``, ``trace`` and ``profile``.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .commands import prepare, run_command
from .errors import ImportFailed, OutputFailed, UsageError
from .mainmodule import module_code_function, new_main_module
from .options import CONSOLE_PROG, PROG, build_parser
from .outputs import STDOUT, check_output
from .progress import Progress, format_progress
from .running import current_run, show_exception, target_process
from .targets import Target, load_target

PROGRESS_INTERVAL = 1.0  # seconds between two progress lines (read at each run)


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """The command line's entry point: runs ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    try:
        ns, output, target = prepare(argv, prog)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except ImportFailed as failed:
        show_exception(failed.args[0])
        return 1
    with current_run() as run:
        try:
            with target_process(target):  # the trace file names the process after sys.argv[0]
                return run_command(ns, output, target, run, prog, PROGRESS_INTERVAL)
        except OutputFailed as failed:
            print("%s: cannot write %s: %s" % (prog, ns.output, failed.args[0].strerror or failed.args[0]),
                  file=sys.stderr)
            return 2


def console() -> NoReturn:
    """The ``pycassette`` console script: ``main()`` with the working directory first on ``sys.path``, as
    ``python -m context`` has it, and the exit status passed on."""
    if sys.path and not getattr(sys.flags, "safe_path", False):
        sys.path[0] = os.getcwd()  # not the directory of the console script
    sys.exit(main(prog=CONSOLE_PROG))


__all__ = [
    "CONSOLE_PROG",
    "PROG",
    "PROGRESS_INTERVAL",
    "STDOUT",
    "Progress",
    "Target",
    "UsageError",
    "build_parser",
    "check_output",
    "console",
    "format_progress",
    "load_target",
    "main",
    "module_code_function",
    "new_main_module",
]
