"""Tracing: recording the full call tree of `tomllib.loads` on the 30 KB document of the tomllib benchmark with `TraceCtx`, against recorders built on `sys.setprofile` and on `sys.monitoring` (3.12+) that record the same information.

Every recorder keeps, for each call, the callee, the arguments, the result or
exception and the start and end times (`time.perf_counter_ns`), nested as a
call tree of `CallRecord`s. The `sys.setprofile` recorder reads a Python
call's arguments from its frame (the parameters' values at entry); of natives
it sees only builtin functions (not calls of types such as `int(s)`), without
their arguments or result, and it sees that a call raised but not which
exception. The `sys.monitoring` recorder (PY_START, PY_RESUME, PY_RETURN,
PY_YIELD, PY_UNWIND, CALL, C_RETURN, C_RAISE; the resume and yield events keep
generators balanced) reads arguments the same way and gets the exception of a
Python call; of a native call it sees the first argument only, not the result,
and that it raised but not the exception. Before timing, each recorder's tree is checked: one
root, the same number of Python calls of tomllib as a plain `sys.setprofile`
count, and matching results; the native calls each one sees differ and are
reported. The streamed row writes a Chrome trace file (to a temporary
directory) as `TraceCtx(path)` does, reprs included.
"""

import dis
import inspect
import os
import sys
import tempfile
import time
import tomllib
from types import FunctionType, MethodType

import context
from _harness import compare, fmt_time, ratio_row, row
from bench_tomllib import document
from context.ready.tracing import CallRecord, TraceCtx

TOMLLIB_DIR = os.path.dirname(tomllib.__file__) + os.sep
_VARIADIC = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_LEAVING = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE") if n in dis.opmap)
_EMPTY = {}


class Raised(Exception):
    """What the setprofile recorder records for a call that raised: it cannot see the exception."""


RAISED = Raised("an exception (sys.setprofile does not show which)")


def parameter_names(code):
    """The names of ``code``'s parameters, in frame order: positional, keyword-only, *args, **kwargs."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bin(code.co_flags & _VARIADIC).count("1")
    return code.co_varnames[:n]


class SetprofileRecorder:
    """A call-tree recorder on ``sys.setprofile``.

    'call' opens a record (callee: the code object; arguments: the parameters' values
    read from the frame); 'return' closes it with the returned value, or, when the frame
    is left at an instruction that is not a return or a yield, with ``RAISED``: the
    profile function runs with the exception put aside, so it cannot see which one.
    'c_call' opens a record for a native (its arguments are not available), and
    'c_return'/'c_exception' close it (the result and the exception are not available).
    A generator's resumption is a 'call' and its yield a 'return', as setprofile reports them.
    """

    def __init__(self):
        self.roots = []

    def run(self, f, *args):
        lists = [self.roots]
        stack = []
        names_of = {}
        clock = time.perf_counter_ns
        new_record = object.__new__

        def profile(frame, event, arg):
            if event == "call":
                code = frame.f_code
                names = names_of.get(code)
                if names is None:
                    names = names_of[code] = parameter_names(code)
                values = frame.f_locals
                rec = new_record(CallRecord)  # CallRecord.__init__ inlined, as TraceCtx does
                rec.callee = code
                rec.args = tuple([values[n] for n in names])
                rec.kwargs = _EMPTY
                rec.result = rec.exception = rec.end_ns = None
                lists[-1].append(rec)
                lists.append(children := [])
                rec.children = children
                stack.append(rec)
                rec.start_ns = clock()
            elif event == "return":
                end = clock()
                rec = stack.pop()
                lists.pop()
                rec.end_ns = end
                if frame.f_code.co_code[frame.f_lasti] in _LEAVING:
                    rec.result = arg
                else:
                    rec.exception = RAISED
            elif event == "c_call":
                rec = new_record(CallRecord)
                rec.callee = arg
                rec.args = rec.kwargs = rec.result = rec.exception = rec.end_ns = None
                lists[-1].append(rec)
                lists.append(children := [])
                rec.children = children
                stack.append(rec)
                rec.start_ns = clock()
            else:  # c_return, c_exception
                end = clock()
                rec = stack.pop()
                lists.pop()
                rec.end_ns = end
                if event == "c_exception":
                    rec.exception = RAISED

        sys.setprofile(profile)
        try:
            return f(*args)
        finally:
            sys.setprofile(None)
            if self.roots and self.roots[-1].callee is sys.setprofile:
                self.roots.pop()  # the call that switched the recorder off


class MonitoringRecorder:
    """A call-tree recorder on ``sys.monitoring`` (Python 3.12+).

    PY_START/PY_RESUME open a record (callee: the code object; arguments read from the
    frame), PY_RETURN/PY_YIELD close it with the value, PY_UNWIND with the exception.
    CALL of anything but a Python function opens a record for the callable (the first
    argument is the only one the event gives), C_RETURN/C_RAISE close it (the result and
    the exception are not given).
    """

    TOOL = 2  # sys.monitoring.PROFILER_ID

    def __init__(self):
        self.roots = []

    def run(self, f, *args):
        mon = sys.monitoring
        ev = mon.events
        lists = [self.roots]
        stack = []
        names_of = {}
        clock = time.perf_counter_ns
        getframe = sys._getframe
        missing = mon.MISSING
        new_record = object.__new__

        def start(code, offset):
            names = names_of.get(code)
            if names is None:
                names = names_of[code] = parameter_names(code)
            values = getframe(1).f_locals
            rec = new_record(CallRecord)  # CallRecord.__init__ inlined, as TraceCtx does
            rec.callee = code
            rec.args = tuple([values[n] for n in names])
            rec.kwargs = _EMPTY
            rec.result = rec.exception = rec.end_ns = None
            lists[-1].append(rec)
            lists.append(children := [])
            rec.children = children
            stack.append(rec)
            rec.start_ns = clock()

        def leave(code, offset, value):
            end = clock()
            rec = stack.pop()
            lists.pop()
            rec.end_ns = end
            rec.result = value

        def unwind(code, offset, exc):
            end = clock()
            rec = stack.pop()
            lists.pop()
            rec.end_ns = end
            rec.exception = exc

        def call(code, offset, callable, arg0):
            kind = type(callable)
            if kind is FunctionType or (kind is MethodType and type(callable.__func__) is FunctionType):
                return  # PY_START records it
            rec = new_record(CallRecord)
            rec.callee = callable
            rec.args = () if arg0 is missing else (arg0,)
            rec.kwargs = _EMPTY
            rec.result = rec.exception = rec.end_ns = None
            lists[-1].append(rec)
            lists.append(children := [])
            rec.children = children
            stack.append(rec)
            rec.start_ns = clock()

        def c_return(code, offset, callable, arg0):
            end = clock()
            rec = stack.pop()
            lists.pop()
            rec.end_ns = end

        def c_raise(code, offset, callable, arg0):
            end = clock()
            rec = stack.pop()
            lists.pop()
            rec.end_ns = end
            rec.exception = RAISED

        tool = self.TOOL
        mon.use_tool_id(tool, "bench_trace")
        try:
            for event, fn in ((ev.PY_START, start), (ev.PY_RESUME, start), (ev.PY_RETURN, leave),
                              (ev.PY_YIELD, leave), (ev.PY_UNWIND, unwind), (ev.CALL, call),
                              (ev.C_RETURN, c_return), (ev.C_RAISE, c_raise)):
                mon.register_callback(tool, event, fn)
            mon.set_events(tool, ev.PY_START | ev.PY_RESUME | ev.PY_RETURN | ev.PY_YIELD | ev.PY_UNWIND
                           | ev.CALL | ev.C_RETURN | ev.C_RAISE)
            return f(*args)
        finally:
            mon.set_events(tool, 0)
            mon.free_tool_id(tool)
            if self.roots and self.roots[-1].callee is mon.set_events:
                self.roots.pop()  # the call that switched the recorder off


def walk(roots):
    todo = list(roots)
    while todo:
        rec = todo.pop()
        yield rec
        todo.extend(rec.children)


def code_of(callee):
    """The code object a record's callee runs, or None for a native (or a class)."""
    if type(callee) is MethodType:
        callee = callee.__func__
    if type(callee) is FunctionType:
        return callee.__code__
    return callee if inspect.iscode(callee) else None


def census(roots):
    """(Python calls of tomllib, other Python calls, native calls) in a recorded tree."""
    ours = other = native = 0
    for rec in walk(roots):
        code = code_of(rec.callee)
        if code is None:
            native += 1
        elif code.co_filename.startswith(TOMLLIB_DIR):
            ours += 1
        else:
            other += 1
    return ours, other, native


def count_tomllib_calls(f, *args):
    """The reference: Python calls of tomllib's code, counted by a bare ``sys.setprofile`` callback."""
    n = 0

    def profile(frame, event, arg):
        nonlocal n
        if event == "call" and frame.f_code.co_filename.startswith(TOMLLIB_DIR):
            n += 1

    sys.setprofile(profile)
    try:
        f(*args)
    finally:
        sys.setprofile(None)
    return n


def check(name, roots, expected_calls, expected_result):
    assert len(roots) == 1, "%s: %d roots" % (name, len(roots))
    root = roots[0]
    assert code_of(root.callee) is tomllib.loads.__code__, (name, root.callee)
    assert root.result == expected_result, name
    assert root.end_ns >= root.start_ns
    ours, other, native = census(roots)
    assert ours == expected_calls, "%s: %d Python calls of tomllib, expected %d" % (name, ours, expected_calls)
    return ours, other, native


def run(quick):
    doc = document()
    loads = tomllib.loads
    expected = loads(doc)
    expected_calls = count_tomllib_calls(loads, doc)
    context.overdub(TraceCtx(), loads, doc)  # rewrite tomllib's code once, before timing

    def traced():
        ctx = TraceCtx()
        context.overdub(ctx, loads, doc)
        return ctx.roots

    def profiled():
        recorder = SetprofileRecorder()
        recorder.run(loads, doc)
        return recorder.roots

    def monitored():
        recorder = MonitoringRecorder()
        recorder.run(loads, doc)
        return recorder.roots

    folder = tempfile.mkdtemp(prefix="bench_trace_")
    path = os.path.join(folder, "trace.json")

    def streamed():
        with TraceCtx(path) as ctx:
            context.overdub(ctx, loads, doc)
        return ctx

    def streamed_bare():
        with TraceCtx(path, values=False) as ctx:
            context.overdub(ctx, loads, doc)
        return ctx

    try:
        from viztracer import VizTracer
    except ImportError:  # a peer from the bench extra
        VizTracer = None
    viz = {}
    if VizTracer is not None:
        # made when first used, after the other recorders' runs: on 3.11 a VizTracer's
        # presence disturbs a sys.setprofile recorder's events
        tracers = {}
        viz_path = os.path.join(folder, "viz.json")

        def tracer(with_args):
            if with_args not in tracers:
                tracers[with_args] = VizTracer(verbose=0, log_func_args=with_args, log_func_retval=with_args)
            return tracers[with_args]

        def viz_memory(with_args):
            t = tracer(with_args)
            t.start()
            loads(doc)
            t.stop()
            t.clear()

        def viz_file(with_args):
            t = tracer(with_args)
            t.start()
            loads(doc)
            t.stop()
            t.save(viz_path)
            t.clear()

        viz = {"VizTracer": lambda: viz_memory(False), "VizTracer args": lambda: viz_memory(True),
               "VizTracer file": lambda: viz_file(False), "VizTracer args file": lambda: viz_file(True)}

    has_monitoring = hasattr(sys, "monitoring")
    counts = {"TraceCtx": check("TraceCtx", traced(), expected_calls, expected),
              "setprofile": check("setprofile", profiled(), expected_calls, expected)}
    if has_monitoring:
        counts["sys.monitoring"] = check("sys.monitoring", monitored(), expected_calls, expected)
    ctx = streamed()
    assert ctx.calls == sum(counts["TraceCtx"])
    size = os.path.getsize(path)

    cases = {"native": lambda: loads(doc), "TraceCtx": traced, "setprofile": profiled, "streamed": streamed,
             "streamed bare": streamed_bare}
    if has_monitoring:
        cases["sys.monitoring"] = monitored
    try:
        t = compare(cases, repeat=3 if quick else 10)
        # VizTracer with arguments takes seconds per run (it writes a repr of the 30 kB
        # document at every call): fewer rounds
        t.update(compare(viz, repeat=2 if quick else 3))
    finally:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)

    def seen(name):
        ours, other, native = counts[name]
        return "%d calls: %d Python of tomllib, %d other Python, %d native" % (ours + other + native, ours, other, native)

    rows = [
        row(f"loads {len(doc) / 1000:.1f} kB, native", fmt_time(t["native"])),
        row("calls recorded by TraceCtx", seen("TraceCtx")),
        row("calls recorded by the setprofile recorder", seen("setprofile")),
    ]
    if has_monitoring:
        rows.append(row("calls recorded by the sys.monitoring recorder", seen("sys.monitoring")))
    rows += [
        ratio_row("TraceCtx(keep=True)", t["TraceCtx"], "native", t["native"]),
        ratio_row("setprofile recorder", t["setprofile"], "native", t["native"]),
    ]
    if has_monitoring:
        rows.append(ratio_row("sys.monitoring recorder", t["sys.monitoring"], "native", t["native"]))
    else:
        rows.append(row("sys.monitoring recorder", "skipped: Python %s has no sys.monitoring (3.12+)"
                        % ".".join(map(str, sys.version_info[:2]))))
    rows.append(ratio_row("TraceCtx(keep=True)", t["TraceCtx"], "setprofile", t["setprofile"], limit=1.0))
    if has_monitoring:
        rows.append(ratio_row("TraceCtx(keep=True)", t["TraceCtx"], "sys.monitoring", t["sys.monitoring"]))
    rows += [
        ratio_row("TraceCtx(path), streamed to a %.1f MB file" % (size / 1e6), t["streamed"], "native", t["native"]),
        ratio_row("TraceCtx(path), streamed", t["streamed"], "setprofile", t["setprofile"]),
    ]
    if viz:
        rows += [
            ratio_row("VizTracer, in memory, no arguments", t["VizTracer"], "native", t["native"]),
            ratio_row("VizTracer, in memory, arguments and results", t["VizTracer args"], "native", t["native"]),
            ratio_row("VizTracer, saved to a file, no arguments", t["VizTracer file"], "native", t["native"]),
            ratio_row("VizTracer, saved, arguments and results", t["VizTracer args file"], "native", t["native"]),
            ratio_row("TraceCtx(keep=True)", t["TraceCtx"], "VizTracer no arguments", t["VizTracer"], limit=2.0),
            ratio_row("TraceCtx(keep=True)", t["TraceCtx"], "VizTracer with arguments", t["VizTracer args"],
                      limit=1.0),
            ratio_row("TraceCtx(path), streamed", t["streamed"], "VizTracer file, no arguments",
                      t["VizTracer file"], limit=2.0),
            ratio_row("TraceCtx(path), streamed", t["streamed"], "VizTracer file with arguments",
                      t["VizTracer args file"], limit=1.0),
            ratio_row("TraceCtx(path, values=False), streamed", t["streamed bare"], "VizTracer file, no arguments",
                      t["VizTracer file"], limit=2.0),
        ]
    else:
        rows.append(row("VizTracer", "skipped: not installed (pip install '.[bench]')"))
    return rows
