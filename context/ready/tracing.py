"""``TraceCtx``: record the nested call tree of a run, render it as text, write it as a Chrome trace.

Each call seen under the context becomes a ``CallRecord`` (callee, arguments, result or
exception, start and end time), attached to the call that made it. ``TraceCtx(file)``
writes the calls to a Chrome trace-event file as they end (see ``chrome.py``) instead
of, or as well as, keeping them in memory; ``TraceCtx.save`` writes a kept tree as a
Chrome trace or as an HTML flame graph (see ``flamegraph.py``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import os
import platform
import sys
import warnings
from collections.abc import Callable
from threading import current_thread, get_native_id
from types import BuiltinFunctionType, MethodType, ModuleType
from typing import Any

from ..base import Context
from ..clock import CLOCK_STATE as _CLOCK, clock_ns
from ..state import STATE as _STATE
from .chrome import ChromeTraceWriter, event_head, event_tail, write_records
from .display import code_of, callee_key, callee_name
from .showing import forget_shown, format_arguments, short_repr
from .filters import CalleeFilter
from .options import OperatorsOption, check_max_depth
from .printing import Patterns
from .tree import outcome_text, render_tree

_run = Context.overdub  # run one call the default way: primitive, recurse or fallback
_fallback = Context.fallback
_new_record = object.__new__
_NOWHERE = []  # children of calls not kept: never appended to
_OPERATOR_MODULES = ("_operator", "operator")


class CallRecord:
    """One recorded call: ``callee(*args, **kwargs)`` gave ``result`` or raised ``exception``.

    ``start_ns`` and ``end_ns`` are ``context.clock.clock_ns()`` readings (``perf_counter_ns``
    without the time the engine spent rewriting code) (``end_ns`` is None
    while the call runs); ``children`` are the calls it made, in order. The record keeps
    references to the arguments and the result, not copies: an object mutated after the
    call shows its later state.
    """

    __slots__ = ("callee", "args", "kwargs", "result", "exception", "start_ns", "end_ns", "children")

    def __init__(self, callee: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.callee = callee
        self.args = args
        self.kwargs = kwargs
        self.result = None
        self.exception = None
        self.start_ns = None
        self.end_ns = None
        self.children = []

    @property
    def name(self) -> str:
        """The callee's qualified name, ``module.qualname``."""
        return callee_name(self.callee)

    @property
    def seconds(self) -> float | None:
        """Wall time of the call in seconds (None while it runs)."""
        if self.end_ns is None:
            return None
        return (self.end_ns - self.start_ns) / 1e9

    @property
    def raised(self) -> bool:
        """Whether the call ended with an exception."""
        return self.exception is not None

    def __repr__(self):
        return "<CallRecord %s, %d children>" % (render_tree([self], max_depth=0, limit=40), len(self.children))


class _Roots(list):
    """``TraceCtx.roots``: a list that notes the thread of the runs its roots come from.

    ``threads`` lists ``(index of the first root, native thread id, thread name)`` each time
    the thread changes. Only roots are appended here, so the calls inside pay nothing.
    """

    __slots__ = ("threads",)

    def __init__(self):
        super().__init__()
        self.threads = []

    def append(self, rec):
        tid = get_native_id()
        threads = self.threads
        if not threads or threads[-1][1] != tid or threads[-1][0] > len(self):
            threads.append((len(self), tid, current_thread().name))
        list.append(self, rec)


_NO_RECEIVER = object()


def receiver_of(f):
    """The object a method is bound to (its ``self``), or ``_NO_RECEIVER``."""
    kind = type(f)
    if kind is MethodType:
        return f.__self__
    if kind is BuiltinFunctionType:
        owner = f.__self__
        return _NO_RECEIVER if owner is None or type(owner) is ModuleType else owner
    if kind.__name__ == "method-wrapper":
        return f.__self__
    return _NO_RECEIVER


def _check_limit(limit):
    if limit is not None and (type(limit) is not int or limit < 4):
        raise ValueError("TraceCtx: limit must be None or an int >= 4 (characters per value shown), got %r" % (limit,))
    return limit


class TraceCtx(OperatorsOption, Context):
    """Records the call tree of everything run under it: callee, arguments, result or exception, wall time.

    ``file``: a path to write a Chrome trace-event JSON file to (Perfetto, ``chrome://tracing``,
    speedscope), one complete event per call, written as the call ends; after every
    top-level run the file is a complete JSON document. ``max_events=N`` (with a file)
    keeps only the last ``N`` calls in the file, written at checkpoints and on close.
    ``keep``: keep the tree in memory as ``roots`` (default: only when there is no ``file``).
    ``max_depth``: calls deeper than this (the top call is depth 0) are not recorded and run
    natively. ``include``/``exclude``: which callees are recorded (see
    ``context.ready.filters.CalleeFilter``); a call not recorded still runs under the context,
    and the recorded calls inside it attach to its nearest recorded ancestor.
    ``operators=True`` records ``a * b`` as a call of ``operator.mul``. ``limit``: characters
    per argument or result shown in the tree and in the file. ``values=False`` writes no
    arguments or results into the file (the type of a raised exception stays): smaller
    files, written faster; the kept tree still holds them. ``receivers=True`` also shows
    the object a method is bound to (``self``) in the trace files, as ``args.self``.
    ``reprs=True`` shows values with the program's own ``__repr__`` methods; by default the
    recording runs none of the program's code (see ``context.ready.showing``): such values are
    shown as ``<module.Class object at 0x...>``, dataclasses, named tuples, enum members and
    containers by what they hold.

    A file that cannot be written (a full disk) does not stop the traced program: the
    file is removed, ``file_error`` holds the ``OSError``, and a ``TraceFileWarning`` says so
    once, at the end of the run.

    Not thread safe: one ``TraceCtx`` must not run in two threads at once.
    """

    def __init__(self, file: str | os.PathLike[str] | None = None, *, keep: bool | None = None,
                 max_depth: int | None = None, include: Patterns = None, exclude: Patterns = None,
                 operators: bool = False, limit: int | None = 80, max_events: int | None = None,
                 receivers: bool = False, values: bool = True, reprs: bool = False) -> None:
        super().__init__(metadata=None)
        self.max_depth = check_max_depth(max_depth, "TraceCtx")
        self.filter = CalleeFilter(include, exclude)
        self.limit = _check_limit(limit)
        if max_events is not None:
            if type(max_events) is not int or max_events < 1:
                raise ValueError("TraceCtx: max_events must be None or an int >= 1 (calls kept in the file), "
                                 "got %r" % (max_events,))
            if file is None:
                raise ValueError("TraceCtx: max_events applies to a trace file: pass a file too")
        self.max_events = max_events
        self.receivers = bool(receivers)
        self.values = bool(values)
        self.reprs = bool(reprs)
        self.keep = (file is None) if keep is None else bool(keep)
        self.roots = _Roots()
        self._calls = 0  # counted on the general path; the lean path counts the kept tree
        self.t0_ns = clock_ns()
        self.tid = get_native_id()
        self._lists = [self.roots]  # per open call, where the calls it makes are recorded
        self._names = {}  # callee_key -> (qualified name, category, file, line)
        self._heads = {}  # callee_key -> (event head, event tail): JSON text for the trace file
        self._shows = None if self.filter.everything else self.filter.shows
        self._max_depth = sys.maxsize if max_depth is None else max_depth
        self._writer = None
        self.file = None
        if file is not None:
            self._writer = ChromeTraceWriter(file, t0_ns=self.t0_ns, other_data=self._other_data(),
                                             max_events=max_events)
            self.file = self._writer.path
            self._writer.close_when_dropped(self)
        self._blocks = []  # per open ``with`` block: calls recorded before it, or None (block form)
        self._plain = self.keep and self._writer is None and self._shows is None and max_depth is None
        # streamed, nothing kept or left out, no receivers: the path of ``_stream``
        self._streamed = (self._writer is not None and not self.keep and self._shows is None and max_depth is None
                          and not self.receivers)

    def __repr__(self):
        where = "" if self.file is None else "%r, " % self.file
        return "%s(%skeep=%r, calls=%d)" % (type(self).__name__, where, self.keep, self.calls)

    def overdub(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if not self._plain:
            try:
                if self._streamed:
                    return self._stream(f, args, kwargs)
                return self._overdub(f, args, kwargs)
            finally:
                f = args = kwargs = None  # (a frame a traceback keeps holds nothing of the program's: design.md)
        # Keep the tree, no file, no filter: the lean path (CallRecord.__init__ inlined; the
        # calls are counted from the tree when asked). The activation is the engine's: its
        # default_run is what Context.overdub would call, without re-packing the arguments.
        lists = self._lists
        rec = _new_record(CallRecord)
        rec.callee = f
        rec.args = args
        rec.kwargs = kwargs
        rec.result = rec.exception = rec.end_ns = None
        lists[-1].append(rec)
        lists.append(children := [])
        rec.children = children
        act = _STATE.act
        if act is None or act.ctx is not self:
            act = None
        clock = _CLOCK  # clock_ns() inlined: a call costs 10% of this path
        rec.start_ns = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
        try:
            if act is not None:
                out = act.default_run(f, args, kwargs)
            else:
                out = _run(self, f, *args, **kwargs)
        except BaseException as exc:
            rec.end_ns = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
            rec.exception = exc
            lists.pop()
            raise
        rec.end_ns = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
        rec.result = out
        lists.pop()
        return out

    @property
    def calls(self) -> int:
        """The number of calls recorded so far."""
        if not self._plain:
            return self._calls
        count, todo = 0, [self.roots]
        while todo:
            children = todo.pop()
            count += len(children)
            todo.extend(rec.children for rec in children if rec.children)
        return count

    def _overdub(self, f, args, kwargs):
        lists = self._lists
        depth = len(lists) - 1
        if depth > self._max_depth:
            return _fallback(self, f, *args, **kwargs)
        writer = self._writer
        if not depth:
            self.tid = get_native_id()
            if writer is not None:
                if writer.closed:
                    if writer.error is None:
                        raise ValueError("TraceCtx: the trace file %s is closed; create a new TraceCtx to trace "
                                         "again" % self.file)
                    writer = None  # it failed, and said so: run on without it
                else:
                    writer.thread(self.tid)
        elif writer is not None and writer._fh is None:  # it failed in this run
            writer = None
        if self._shows is not None and not self._shows(f):
            lists.append(lists[-1])
            try:
                return _run(self, f, *args, **kwargs)
            finally:
                lists.pop()
                if not depth and writer is not None:
                    writer.checkpoint()
        self._calls += 1
        if self.keep:
            rec = CallRecord(f, args, kwargs)
            lists[-1].append(rec)
            lists.append(rec.children)
        else:
            rec = None
            lists.append(_NOWHERE)
        clock = _CLOCK
        start = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
        if rec is not None:
            rec.start_ns = start
        if writer is not None:
            head, tail = self._head(f)
            writer.begin(head, format_arguments(args, kwargs, self.limit, self.reprs) if self.values else None, start,
                         self._receiver_text(f) if self.receivers else None, tail)
        act = _STATE.act
        try:
            if act is not None and act.ctx is self:
                out = act.default_run(f, args, kwargs)  # what Context.overdub does, one frame less
            else:
                out = _run(self, f, *args, **kwargs)
        except BaseException as exc:
            self._finish(rec, depth, "exception", exc)
            raise
        self._finish(rec, depth, "result", out)
        return out

    def _stream(self, f, args, kwargs):
        """What ``_overdub`` does for a streamed trace that keeps no tree, leaves nothing out and
        shows no receivers, below the top call, in one frame: the event's start is taken from
        the writer when the call begins and the event written when it ends."""
        lists = self._lists
        writer = self._writer
        if len(lists) == 1 or writer._fh is None:  # the top call (its setup and checkpoint), or a failed file
            return self._overdub(f, args, kwargs)
        self._calls += 1
        lists.append(_NOWHERE)
        head, tail = self._heads.get(callee_key(f)) or self._head(f)
        clock = _CLOCK
        start = writer.opened((clock[3]() if clock[1] is None else clock[1]) - clock[0])
        ids = writer._ids
        values = self.values
        args_text = format_arguments(args, kwargs, self.limit, self.reprs) if values else None
        act = _STATE.act
        try:
            if act is not None and act.ctx is self:
                out = act.default_run(f, args, kwargs)
            else:
                out = _run(self, f, *args, **kwargs)
        except BaseException as exc:
            end = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
            lists.pop()
            if writer._fh is not None:
                writer.complete(head, start, ids, args_text, "exception",
                                short_repr(exc, self.limit, self.reprs) if values else type(exc).__qualname__, end, None, tail)
            raise
        finally:
            f = args = kwargs = None  # (a frame a traceback keeps holds nothing of the program's: design.md)
        end = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
        lists.pop()
        if writer._fh is not None:
            writer.complete(head, start, ids, args_text, "result", short_repr(out, self.limit, self.reprs) if values else None,
                            end, None, tail)
        return out

    def _finish(self, rec, depth, outcome, value):
        """A call of the general path ended: ``outcome`` is "result" or "exception" (a record's attribute)."""
        clock = _CLOCK
        end = (clock[3]() if clock[1] is None else clock[1]) - clock[0]
        self._lists.pop()
        if rec is not None:
            rec.end_ns = end
            setattr(rec, outcome, value)
        writer = self._writer
        if writer is not None:
            if writer._fh is not None:
                if self.values:
                    writer.end(outcome, short_repr(value, self.limit, self.reprs), end)
                else:
                    writer.end(outcome, type(value).__qualname__ if outcome == "exception" else None, end)
            if not depth:
                writer.checkpoint()
                forget_shown()

    def _describe(self, f):
        """``(qualified name, category, source file, first line)`` of a callee (cached per callee).

        The category is ``"python"`` for code the context runs rewritten, ``"native"`` for the
        rest and ``"operator"`` for operators; the file and line are None but for Python functions.
        """
        key = callee_key(f)
        found = self._names.get(key)
        if found is None:
            if type(f) is BuiltinFunctionType and f.__module__ in _OPERATOR_MODULES:
                cat = "operator"
            else:
                try:
                    cat = "python" if self.canrecurse(f) else "native"
                except Exception:
                    cat = "native"
            code = code_of(f)
            file, line = (None, None) if code is None else (code.co_filename, code.co_firstlineno)
            found = self._names[key] = (callee_name(f), cat, file, line)
        return found

    def _head(self, f):
        """The JSON texts that open and close a callee's events in the trace file (cached per callee)."""
        key = callee_key(f)
        found = self._heads.get(key)
        if found is None:
            name, cat, file, line = self._describe(f)
            found = self._heads[key] = (event_head(name, cat), event_tail(file, line))
        return found

    def _receiver_text(self, f):
        owner = receiver_of(f)
        return None if owner is _NO_RECEIVER else short_repr(owner, self.limit, self.reprs)

    def _other_data(self):
        return {"recorder": "pycassette TraceCtx", "python": platform.python_version(),
                "clock": "perf_counter_ns without the engine's rewriting (context.clock.clock_ns)", "values": ("%s, cut to %s characters" % ("repr" if self.reprs else "repr without the program's __repr__ methods", self.limit)) if self.values else "not recorded"}

    # -- what was recorded ------------------------------------------------------------

    def _kept(self, what):
        if not self.keep:
            raise ValueError("TraceCtx.%s: the call tree was not kept in memory; pass keep=True "
                             "(TraceCtx(file, keep=True) also streams to the file)" % what)

    def render(self, max_depth: int | None = None, limit: int | None = None) -> str:
        """The recorded calls as an indented text tree: ``name(args) -> result  [0.123 ms]``, one line per call.

        ``max_depth`` shows calls down to that depth only (the top calls are depth 0);
        ``limit`` (default: the context's) cuts each value shown to that many characters.
        """
        self._kept("render")
        check_max_depth(max_depth, "TraceCtx.render")
        return render_tree(self.roots, max_depth, self.limit if limit is None else _check_limit(limit), reprs=self.reprs)

    def write_chrome(self, path: str | os.PathLike[str]) -> int:
        """Write the kept call tree to ``path`` as a Chrome trace-event JSON file; returns the number of calls.

        One complete event per call, parents first, with the names of the process and the
        threads; the file is written whole through a temporary file in the same directory, so
        ``path`` is replaced only by a complete file. A call still running ends now.
        """
        self._kept("write_chrome")
        limit = self.limit
        reprs = self.reprs
        receivers = self.receivers

        values = self.values

        def describe(rec):
            head, tail = self._head(rec.callee)
            receiver = self._receiver_text(rec.callee) if receivers else None
            return head, format_arguments(rec.args, rec.kwargs, limit, reprs) if values else None, receiver, tail

        def outcome(rec):
            if rec.exception is not None:
                return "exception", short_repr(rec.exception, limit, reprs) if values else type(rec.exception).__qualname__
            if rec.end_ns is None:
                return "unfinished", outcome_text(rec, limit, reprs) if values else None
            return "result", short_repr(rec.result, limit, reprs) if values else None

        return write_records(path, self.roots, t0_ns=self.t0_ns, describe=describe, outcome=outcome,
                             threads=self.roots.threads, other_data=self._other_data(), tid=self.tid)

    FORMATS = ("chrome", "html")

    def save(self, path: str | os.PathLike[str], format: str | None = None, *, title: str | None = None) -> int:
        """Write the kept call tree to ``path``: ``format="chrome"`` (JSON) or ``"html"`` (a flame graph).

        Without ``format``, a path ending in ``.html`` or ``.htm`` is a flame graph and any
        other a Chrome trace. The HTML file is self-contained (no network access); ``title``
        is its heading. Both are written through a temporary file and renamed into place.
        Returns the number of calls written.
        """
        self._kept("save")
        if format is None:
            format = "html" if os.fspath(path).lower().endswith((".html", ".htm")) else "chrome"
        if format in ("chrome", "json"):
            return self.write_chrome(path)
        if format == "html":
            from .flamegraph import write_flamegraph

            return write_flamegraph(path, self, title=title)
        raise ValueError("TraceCtx.save: format must be one of %s, got %r" % (", ".join(map(repr, self.FORMATS)),
                                                                              format))

    # -- the file -----------------------------------------------------------------------

    @property
    def file_error(self) -> OSError | None:
        """The ``OSError`` that stopped the writing of the trace file, or None."""
        return None if self._writer is None else self._writer.error

    @property
    def dropped_events(self) -> int:
        """Calls that ``max_events`` left out of the file (so far)."""
        return 0 if self._writer is None else self._writer.dropped

    def close(self) -> None:
        """Finish and close the trace file (if any). Closing twice is fine."""
        if self._writer is not None:
            self._writer.close()

    def __enter__(self):
        """``with TraceCtx(...):`` inside code running under a context: the block's calls are
        traced (see ``Context.__enter__``), and the file is closed at its end. Outside any
        context it only closes the file at the end (``with TraceCtx(path) as t: overdub(t, f)``);
        a block there that records no call at all warns, naming the forms that trace."""
        if _STATE.act is not None:
            super().__enter__()
            self._blocks.append(None)
        else:
            self._blocks.append(self.calls)
        return self

    def __exit__(self, *exc_info):
        calls_before = self._blocks.pop() if self._blocks else None
        try:
            if calls_before is None:
                super().__exit__(*exc_info)
        finally:
            self.close()
        if calls_before is not None and self.calls == calls_before and exc_info[0] is None:
            warnings.warn(
                "with TraceCtx(...): nothing was traced; the block runs natively, and CPython cannot "
                "reroute the calls of a running frame. Decorate the function (@tracer def main(): ...), "
                "call context.overdub(tracer, main), or use the command line (pycassette trace ...)",
                RuntimeWarning, stacklevel=2)
        return False


__all__ = ["CallRecord", "TraceCtx"]
