"""The command line's own exceptions: a bad command line, an output file that failed, a target that raised on import."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class OutputFailed(Exception):
    """The output file, checked before, could not be opened after all (it changed since): exit status 2.

    ``args[0]`` is the ``OSError``.
    """


class ImportFailed(Exception):
    """The target's module raised while being imported (not an ImportError): its traceback, exit status 1.

    ``args[0]`` is the exception.
    """
