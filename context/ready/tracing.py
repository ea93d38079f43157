"""``TraceCtx``: record the nested call tree of a run, render it as text, write it as a Chrome trace.

Each call seen under the context becomes a ``CallRecord`` (callee, arguments, result or
exception, start and end time), attached to the call that made it. ``TraceCtx(file)``
streams the calls to a Chrome trace-event file as they happen (see ``chrome.py``)
instead of, or as well as, keeping them in memory.
"""

import platform
import sys
from threading import get_native_id
from time import perf_counter_ns
from types import BuiltinFunctionType

from ..base import Context
from ..state import STATE as _STATE
from .chrome import ChromeTraceWriter, write_tree
from .display import callee_key, callee_name, format_arguments, short_repr
from .filters import CalleeFilter
from .options import OperatorsOption, check_max_depth
from .tree import outcome_text, render_tree

_run = Context.overdub  # run one call the default way: primitive, recurse or fallback
_fallback = Context.fallback
_new_record = object.__new__
_NOWHERE = []  # children of calls not kept: never appended to
_OPERATOR_MODULES = ("_operator", "operator")


class CallRecord:
    """One recorded call: ``callee(*args, **kwargs)`` gave ``result`` or raised ``exception``.

    ``start_ns`` and ``end_ns`` are ``time.perf_counter_ns()`` readings (``end_ns`` is None
    while the call runs); ``children`` are the calls it made, in order. The record keeps
    references to the arguments and the result, not copies: an object mutated after the
    call shows its later state.
    """

    __slots__ = ("callee", "args", "kwargs", "result", "exception", "start_ns", "end_ns", "children")

    def __init__(self, callee, args, kwargs):
        self.callee = callee
        self.args = args
        self.kwargs = kwargs
        self.result = None
        self.exception = None
        self.start_ns = None
        self.end_ns = None
        self.children = []

    @property
    def name(self):
        """The callee's qualified name, ``module.qualname``."""
        return callee_name(self.callee)

    @property
    def seconds(self):
        """Wall time of the call in seconds (None while it runs)."""
        if self.end_ns is None:
            return None
        return (self.end_ns - self.start_ns) / 1e9

    @property
    def raised(self):
        """Whether the call ended with an exception."""
        return self.exception is not None

    def __repr__(self):
        return "<CallRecord %s, %d children>" % (render_tree([self], max_depth=0, limit=40), len(self.children))


def _check_limit(limit):
    if limit is not None and (type(limit) is not int or limit < 4):
        raise ValueError("TraceCtx: limit must be None or an int >= 4 (characters per value shown), got %r" % (limit,))
    return limit


class TraceCtx(OperatorsOption, Context):
    """Records the call tree of everything run under it: callee, arguments, result or exception, wall time.

    ``file``: a path to stream a Chrome trace-event JSON file to (Perfetto, ``chrome://tracing``,
    speedscope); after every top-level run the file is a complete JSON document.
    ``keep``: keep the tree in memory as ``roots`` (default: only when there is no ``file``).
    ``max_depth``: calls deeper than this (the top call is depth 0) are not recorded and run
    natively. ``include``/``exclude``: which callees are recorded (see
    ``context.ready.filters.CalleeFilter``); a call not recorded still runs under the context,
    and the recorded calls inside it attach to its nearest recorded ancestor.
    ``operators=True`` records ``a * b`` as a call of ``operator.mul``. ``limit``: characters
    per argument or result shown in the tree and in the file.

    Not thread safe: one ``TraceCtx`` must not run in two threads at once.
    """

    def __init__(self, file=None, *, keep=None, max_depth=None, include=None, exclude=None, operators=False, limit=80):
        super().__init__(metadata=None)
        self.max_depth = check_max_depth(max_depth, "TraceCtx")
        self.filter = CalleeFilter(include, exclude)
        self.limit = _check_limit(limit)
        self.keep = (file is None) if keep is None else bool(keep)
        self.roots = []
        self._calls = 0  # counted on the general path; the lean path counts the kept tree
        self.t0_ns = perf_counter_ns()
        self.tid = get_native_id()
        self._lists = [self.roots]  # per open call, where the calls it makes are recorded
        self._names = {}  # callee_key -> (qualified name, category) for the trace file
        self._shows = None if self.filter.everything else self.filter.shows
        self._max_depth = sys.maxsize if max_depth is None else max_depth
        self._writer = None
        self.file = None
        if file is not None:
            other = {"recorder": "pycassette TraceCtx", "python": platform.python_version(),
                     "clock": "time.perf_counter_ns", "values": "repr, cut to %s characters" % limit}
            self._writer = ChromeTraceWriter(file, t0_ns=self.t0_ns, other_data=other)
            self.file = self._writer.path
        self._plain = self.keep and self._writer is None and self._shows is None and max_depth is None

    def __repr__(self):
        where = "" if self.file is None else "%r, " % self.file
        return "%s(%skeep=%r, calls=%d)" % (type(self).__name__, where, self.keep, self.calls)

    def overdub(self, f, /, *args, **kwargs):
        if not self._plain:
            return self._overdub(f, args, kwargs)
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
        rec.start_ns = perf_counter_ns()
        try:
            if act is not None:
                out = act.default_run(f, args, kwargs)
            else:
                out = _run(self, f, *args, **kwargs)
        except BaseException as exc:
            rec.end_ns = perf_counter_ns()
            rec.exception = exc
            lists.pop()
            raise
        rec.end_ns = perf_counter_ns()
        rec.result = out
        lists.pop()
        return out

    @property
    def calls(self):
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
                    raise ValueError("TraceCtx: the trace file %s is closed; create a new TraceCtx to trace again"
                                     % self.file)
                writer.tid = self.tid
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
        start = perf_counter_ns()
        if rec is not None:
            rec.start_ns = start
        if writer is not None:
            writer.begin(*self._describe(f), format_arguments(args, kwargs, self.limit), start)
        try:
            out = _run(self, f, *args, **kwargs)
        except BaseException as exc:
            self._finish(rec, depth, "exception", exc)
            raise
        self._finish(rec, depth, "result", out)
        return out

    def _finish(self, rec, depth, outcome, value):
        """A call of the general path ended: ``outcome`` is "result" or "exception" (a record's attribute)."""
        end = perf_counter_ns()
        self._lists.pop()
        if rec is not None:
            rec.end_ns = end
            setattr(rec, outcome, value)
        writer = self._writer
        if writer is not None:
            writer.end(outcome, short_repr(value, self.limit), end)
            if not depth:
                writer.checkpoint()

    def _describe(self, f):
        """``(qualified name, category)`` of a callee for the trace file (cached per callee)."""
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
            found = self._names[key] = (callee_name(f), cat)
        return found

    # -- what was recorded ------------------------------------------------------------

    def _kept(self, what):
        if not self.keep:
            raise ValueError("TraceCtx.%s: the call tree was not kept in memory; pass keep=True "
                             "(TraceCtx(file, keep=True) also streams to the file)" % what)

    def render(self, max_depth=None, limit=None):
        """The recorded calls as an indented text tree: ``name(args) -> result  [0.123 ms]``, one line per call.

        ``max_depth`` shows calls down to that depth only (the top calls are depth 0);
        ``limit`` (default: the context's) cuts each value shown to that many characters.
        """
        self._kept("render")
        check_max_depth(max_depth, "TraceCtx.render")
        return render_tree(self.roots, max_depth, self.limit if limit is None else _check_limit(limit))

    def write_chrome(self, path):
        """Write the kept call tree to ``path`` as a Chrome trace-event JSON file; returns the number of events."""
        self._kept("write_chrome")
        limit = self.limit

        def describe(rec):
            return self._describe(rec.callee) + (format_arguments(rec.args, rec.kwargs, limit),)

        def outcome(rec):
            if rec.exception is not None:
                return "exception", short_repr(rec.exception, limit)
            if rec.end_ns is None:
                return "unfinished", outcome_text(rec, limit)
            return "result", short_repr(rec.result, limit)

        other = {"recorder": "pycassette TraceCtx", "python": platform.python_version(),
                 "clock": "time.perf_counter_ns", "values": "repr, cut to %s characters" % limit}
        return write_tree(path, self.roots, t0_ns=self.t0_ns, tid=self.tid, describe=describe, outcome=outcome,
                          other_data=other)

    # -- the file -----------------------------------------------------------------------

    def close(self):
        """Finish and close the trace file (if any). Closing twice is fine."""
        if self._writer is not None:
            self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


__all__ = ["CallRecord", "TraceCtx"]
