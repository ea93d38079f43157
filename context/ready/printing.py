"""``PrintCtx``: print each call with its arguments, indented by depth (the talk's logging example)."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys
from collections.abc import Callable, Iterable
from typing import IO, Any, Union

from ..base import Context
from .display import callee_name
from .showing import forget_shown, format_arguments, short_repr
from .filters import CalleeFilter
from .options import OperatorsOption, check_max_depth

# The type of ``include=`` and ``exclude=``: a pattern on the qualified name, a predicate, a list of them, or None
Patterns = Union[str, Callable[[Any], bool], Iterable[Union[str, Callable[[Any], bool]]], None]


class PrintCtx(OperatorsOption, Context):
    """Prints every call made under it as ``name(args)``, indented two spaces per level.

    ``file``: where lines go (default: ``sys.stdout`` at the time of printing) or a callable
    taking one line. ``results=True`` also prints ``-> result`` (or ``-> raised ...``) when a
    call returns. ``max_depth``: calls deeper than this (the top call is depth 0) are not
    shown and run natively. ``include``/``exclude``: see ``context.ready.filters.CalleeFilter``;
    the descendants of a call not shown are still shown, indented under its nearest shown
    ancestor. ``qualified=True`` shows ``module.qualname`` names. ``operators=True`` shows
    operators as calls of ``operator.*``. ``limit``: characters per value shown. ``reprs=True``
    shows values with the program's own ``__repr__`` methods (by default printing runs none of
    the program's code: see ``context.ready.showing``).
    """

    def __init__(self, file: IO[str] | Callable[[str], object] | None = None, *, results: bool = False,
                 max_depth: int | None = None, include: Patterns = None, exclude: Patterns = None,
                 qualified: bool = False, operators: bool = False, limit: int | None = 80,
                 reprs: bool = False) -> None:
        super().__init__(metadata=None)
        self.file = file
        self.results = results
        self.max_depth = check_max_depth(max_depth, "PrintCtx")
        self.filter = CalleeFilter(include, exclude)
        self.qualified = qualified
        self.limit = limit
        self.reprs = bool(reprs)
        self._depth = 0  # depth of the call being run
        self._indent = 0  # shown calls enclosing it
        self._pending = None  # a shown call's line, held back until its result or first shown child

    def _write(self, line):
        out = self.file
        if out is None:
            print(line, file=sys.stdout)
        elif callable(out):
            out(line)
        else:
            print(line, file=out)

    def _flush(self):
        if self._pending is not None:
            self._write(self._pending)
            self._pending = None

    def _finish(self, line, pad, shown_value):
        """Print what a shown call gave: on its own line if children were shown, else after the call."""
        if self._pending is line:
            self._pending = None
            self._write("%s -> %s" % (line, shown_value))
        else:
            self._flush()
            self._write("%s-> %s" % (pad, shown_value))

    def overdub(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        depth = self._depth
        if self.max_depth is not None and depth > self.max_depth:
            return self.fallback(f, *args, **kwargs)
        shown = self.filter.shows(f)
        if shown:
            pad = "  " * self._indent
            line = "%s%s(%s)" % (pad, callee_name(f, self.qualified), format_arguments(args, kwargs, self.limit, self.reprs))
            if self.results:  # held back: a call with no shown children gets its result on the same line
                self._flush()
                self._pending = line
            else:
                self._write(line)
            self._indent += 1
        self._depth = depth + 1
        try:
            out = Context.overdub(self, f, *args, **kwargs)
        except BaseException as exc:
            if shown and self.results:
                self._finish(line, pad, "raised " + short_repr(exc, self.limit, self.reprs))
            raise
        finally:
            self._depth = depth
            if shown:
                self._indent -= 1
            if not depth:
                forget_shown()  # the run's argument texts keep none of its values alive
        if shown and self.results:
            self._finish(line, pad, short_repr(out, self.limit, self.reprs))
        return out
