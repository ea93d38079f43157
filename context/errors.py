"""Exceptions raised by the engine."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)


class RewriteError(Exception):
    """The rewriter met bytecode it does not understand.

    The message names the function and the instruction. A context can opt such a
    function out of rewriting by returning False from ``canrecurse`` for it; it then
    runs natively (its inner calls are not seen by the context).
    """
