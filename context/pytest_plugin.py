"""pytest plugin: ``pytest --context=NAME`` runs every test function's body under a context.

Registered through the ``pytest11`` entry point, so pytest loads it in every run once
pycassette is installed; it does nothing unless ``--context`` is given (``-p no:pycassette``
keeps it out entirely). The engine itself is imported only when the option is used.

``NAME`` is one of ``empty`` (``context.Context()``), ``count`` (``CountCtx()``), ``profile``
(``ProfileCtx()``), ``trace`` (``TraceCtx()``: each test's calls streamed to a Chrome trace
file), ``print`` (``PrintCtx()``: every call printed to the captured stdout), ``tagging`` (an
empty ``TaggingContext`` given a fresh tag with ``enabletagging``), or ``module:Class`` naming
any ``context.Context`` subclass that can be constructed with no arguments. Each test gets a
fresh instance (``--context=trace --context-trace-per=session``: one for the whole session).

Reports: ``trace`` writes one Chrome trace file per test into ``--context-trace-dir`` (default
``.pycassette-traces`` under the rootdir), or one for the session; ``count`` and ``profile``
print the ``--context-top`` (20) functions, added up over all tests, in the terminal summary,
and with ``--context-per-test`` the tests that made the most calls.

Fixtures (and ``setUp``/``tearDown`` of ``unittest`` classes) run natively; only the call
of the test function or method goes through ``context.overdub``. A coroutine test method of
``unittest`` (``IsolatedAsyncioTestCase``) runs each step of its coroutine under the context
(the context as a decorator, see ``context.stepping``). Other ``async def`` tests run
natively: they are driven by an event loop another plugin owns (pytest-asyncio, anyio),
which the plugin leaves alone.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
import hashlib
import inspect
import os
import re
from collections import Counter

import pytest

# context.ready.named.NAMES, without importing it
_BUILTIN = ("count", "empty", "print", "profile", "tagging", "trace")

_KEY = pytest.StashKey()  # config.stash -> _Runner

DEFAULT_TRACE_DIR = ".pycassette-traces"  # under the rootdir
DEFAULT_TOP = 20
_TABLES = ("count", "profile")  # the contexts whose calls are added up into a table


def pytest_addoption(parser):
    group = parser.getgroup("pycassette", "pycassette: run test bodies under a context")
    group.addoption(
        "--context",
        dest="pycassette_context",
        default=None,
        metavar="NAME",
        help="run every test function's body under a pycassette context: %s, or module:Class (a "
        "context.Context subclass constructible with no arguments); a fresh instance per test, "
        "fixtures run natively" % ", ".join(_BUILTIN),
    )
    group.addoption(
        "--context-trace-dir",
        dest="pycassette_trace_dir",
        default=None,
        metavar="DIR",
        help="with --context=trace: the directory of the Chrome trace files, created if needed (default: "
        "%s under the rootdir)" % DEFAULT_TRACE_DIR,
    )
    group.addoption(
        "--context-trace-per",
        dest="pycassette_trace_per",
        default=None,
        choices=("test", "session"),
        help="with --context=trace: one trace file per test, named after its node id (test, the default), or "
        "one file, session.json, for the whole session (session)",
    )
    group.addoption(
        "--context-top",
        dest="pycassette_top",
        default=None,
        type=int,
        metavar="N",
        help="with --context=count or profile: the number of functions shown in the table at the end of the "
        "run, added up over all tests (default %d)" % DEFAULT_TOP,
    )
    group.addoption(
        "--context-per-test",
        dest="pycassette_per_test",
        action="store_true",
        default=None,
        help="with --context=count or profile: also show the N tests that made the most calls, with their "
        "most called functions",
    )


def _load(name):
    """A factory ``make(test_function) -> context instance`` for the option's value, or UsageError."""
    from context.ready.named import UnknownContext, context_factory  # the engine, only now that it is asked for

    try:
        return context_factory(name)
    except UnknownContext as exc:
        raise pytest.UsageError("--context=%s: %s" % (name, exc)) from None


# -- trace files -----------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_MAX_STEM = 120  # characters of a file name before ``.json``, far below any file system's limit


def trace_file_stem(nodeid):
    """A file name (without ``.json``) made from a test's node id, safe on any file system.

    ``tests/test_a.py::TestX::test_y[1-a]`` gives ``tests.test_a.TestX.test_y-1-a``: the path
    without ``.py`` and with dots for slashes, then the class and function, then the
    parameters after a dash; any other character becomes ``_``. A long name is cut and ends
    with a hash of the whole node id.
    """
    path, sep, rest = nodeid.partition("::")
    if path.endswith(".py"):
        path = path[:-3]
    parts = [path.replace("\\", ".").replace("/", ".")] + (rest.split("::") if sep else [])
    stem = ".".join(p for p in parts if p)
    stem = stem.replace("[", "-").replace("]", "")
    stem = _UNSAFE.sub("_", stem).strip("._-") or "test"
    if len(stem) > _MAX_STEM:
        digest = hashlib.sha1(nodeid.encode("utf-8", "replace")).hexdigest()[:8]
        stem = stem[:_MAX_STEM - 9].rstrip("._-") + "-" + digest
    return stem


class _TraceFiles:
    """Where ``--context=trace`` writes: a file per test in ``folder``, or one for the session."""

    def __init__(self, folder, per, worker=None):
        self.folder = folder
        self.per = per
        self.worker = worker  # pytest-xdist's worker id: each worker writes its own session file
        self.used = set()  # file names given out in this run
        self.written = []  # paths of the files written
        self.session = None  # the session's TraceCtx
        self.warnings = []  # what the trace files' writers warned about, shown in the summary

    def path_for(self, nodeid):
        stem = trace_file_stem(nodeid)
        name, n = stem, 1
        while name.lower() in self.used:  # unique, even on a case-insensitive file system
            n += 1
            name = "%s-%d" % (stem, n)
        self.used.add(name.lower())
        return os.path.join(self.folder, name + ".json")

    def context_for(self, nodeid):
        """``(the TraceCtx for this test, whether it is the test's own)``."""
        from context import TraceCtx

        if self.per == "session":
            if self.session is None:
                name = "session.json" if self.worker is None else "session-%s.json" % self.worker
                self.session = TraceCtx(os.path.join(self.folder, name))
                self.session._writer.on_warning = self.warnings.append
                self.written.append(self.session.file)
            return self.session, False
        ctx = TraceCtx(self.path_for(nodeid))
        ctx._writer.on_warning = self.warnings.append  # (in the summary: a test's outcome is not the trace's)
        self.written.append(ctx.file)
        return ctx, True

    def close(self):
        if self.session is not None:
            self.session.close()


def _trace_folder(config, given):
    """The trace directory, made if needed (the default one gets a ``.gitignore``); UsageError if it cannot be."""
    if given is None:
        folder, default = os.path.join(str(config.rootpath), DEFAULT_TRACE_DIR), True
    else:
        folder, default = os.path.join(str(config.invocation_params.dir), os.path.expanduser(given)), False
    folder = os.path.abspath(folder)
    existed = os.path.isdir(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        if default and not existed:  # as pytest does for .pytest_cache: keep the traces out of version control
            with open(os.path.join(folder, ".gitignore"), "w", encoding="utf-8") as fh:
                fh.write("# Created by pycassette's pytest plugin (pytest --context=trace).\n*\n")
    except OSError as exc:
        raise pytest.UsageError("--context-trace-dir: cannot create %s: %s" % (folder, exc.strerror or exc)) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise pytest.UsageError("--context-trace-dir: no permission to create files in %s" % folder)
    return folder


# -- the tables of count and profile ---------------------------------------------------------


class _Table:
    """The calls of every test, added up per function (``count``, ``profile``), and per test if asked."""

    def __init__(self, kind, top, per_test, root=None):
        self.kind = kind
        self.root = root  # the rootdir: file names under it are shown relative to it
        self.top = top
        self.per_test = per_test
        self.counts = Counter()  # count: name -> calls
        self.rows = {}  # profile: name -> [calls, primitive calls, own s, cumulative s, location]
        self.tests = []  # per test, if asked: (calls, nodeid, own s or None, [(name, calls)] most called)

    def add(self, nodeid, ctx):
        if self.kind == "count":
            counts = ctx.counts
            self.counts.update(counts)
            seconds = None
        else:
            counts = {}
            seconds = 0.0
            for name, (nc, cc, own, cum, label) in ctx.profile().items():
                row = self.rows.get(name)
                if row is None:
                    row = self.rows[name] = [0, 0, 0.0, 0.0, _where(label, self.root)]
                row[0] += nc
                row[1] += cc
                row[2] += own
                row[3] += cum
                counts[name] = nc
                seconds += own  # the own times of a run add up to its top call's time
        if self.per_test:
            most = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            self.tests.append((sum(counts.values()), nodeid, seconds, most))

    def _function_lines(self):
        if self.kind == "count":
            rows = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
            total = sum(self.counts.values())
            shown = rows[:self.top]
            width = max([len("calls")] + [len(str(n)) for _, n in shown] + [len(str(total))])
            lines = ["%*s  %s" % (width, "calls", "function")]
            lines += ["%*d  %s" % (width, n, name) for name, n in shown]
            if len(rows) > len(shown):
                hidden = len(rows) - len(shown)
                lines.append("%*s  (%d more function%s)" % (width, "...", hidden, "" if hidden == 1 else "s"))
            lines.append("%*d  calls in total" % (width, total))
            return lines
        rows = sorted(self.rows.items(), key=lambda kv: (-kv[1][2], kv[0]))  # by own time
        total_calls = sum(r[0] for _, r in rows)
        total_own = sum(r[2] for _, r in rows)
        shown = rows[:self.top]
        cells = [("%d/%d" % (nc, cc) if nc != cc else "%d" % nc, "%.3f" % (own * 1e3), "%.3f" % (cum * 1e3),
                  name + ("  (%s)" % where if where else ""))
                 for name, (nc, cc, own, cum, where) in shown]
        heads = ("calls", "own ms", "cum ms", "function")
        widths = [max([len(heads[i])] + [len(c[i]) for c in cells]) for i in range(3)]
        fmt = "%*s  %*s  %*s  %s"
        lines = [fmt % (widths[0], heads[0], widths[1], heads[1], widths[2], heads[2], heads[3])]
        lines += [fmt % (widths[0], c[0], widths[1], c[1], widths[2], c[2], c[3]) for c in cells]
        if len(rows) > len(shown):
            hidden = len(rows) - len(shown)
            lines.append("%*s  (%d more function%s)" % (widths[0], "...", hidden, "" if hidden == 1 else "s"))
        lines.append("%d calls in total, %.3f ms" % (total_calls, total_own * 1e3))
        return lines

    def _test_lines(self):
        tests = sorted(self.tests, key=lambda t: (-t[0], t[1]))
        shown = tests[:self.top]
        width = max([len("calls")] + [len(str(t[0])) for t in shown])
        timed = self.kind == "profile"
        times = ["%.3f" % (t[2] * 1e3) for t in shown] if timed else []
        ms_width = max([len("ms")] + [len(t) for t in times])
        lines = [("%*s  " % (width, "calls")) + ("%*s  " % (ms_width, "ms") if timed else "") + "test  (most called)"]
        for i, (calls, nodeid, seconds, most) in enumerate(shown):
            text = ", ".join("%s %d" % (name, n) for name, n in most)
            line = "%*d  " % (width, calls) + ("%*s  " % (ms_width, times[i]) if timed else "")
            lines.append(line + nodeid + ("  (%s)" % text if text else ""))
        if len(tests) > len(shown):
            hidden = len(tests) - len(shown)
            lines.append("%*s  (%d more test%s)" % (width, "...", hidden, "" if hidden == 1 else "s"))
        return lines

    def write(self, terminalreporter, tests):
        what = "most called functions" if self.kind == "count" else "functions by own time"
        terminalreporter.write_sep("=", "pycassette --context=%s: %s over %d test%s (top %d)"
                                   % (self.kind, what, tests, "" if tests == 1 else "s", self.top))
        for line in self._function_lines():
            terminalreporter.write_line(line)
        if self.per_test:
            terminalreporter.write_sep("-", "pycassette --context=%s: tests with the most calls (top %d)"
                                       % (self.kind, self.top))
            for line in self._test_lines():
                terminalreporter.write_line(line)


def _where(label, root):
    """``file:line`` of a pstats label ``(file, line, name)``, relative to ``root`` when under it; "" for a native."""
    if label[0] == "~":
        return ""
    path = label[0]
    if root and os.path.isabs(path) and path.startswith(root + os.sep):
        path = os.path.relpath(path, root)
    return "%s:%d" % (path, label[1])


# -- running the tests -----------------------------------------------------------------------


class _Runner:
    def __init__(self, name, make, traces=None, table=None):
        self.name = name
        self.make = make
        self.traces = traces  # _TraceFiles for --context=trace
        self.table = table  # _Table for --context=count and profile
        self.tests = 0  # test bodies run under the context
        self.native = 0  # async tests left native
        self.calls = 0  # calls seen by count/profile/trace contexts

    def _context(self, item, original):
        if self.traces is not None:
            return self.traces.context_for(item.nodeid)
        return self.make(original), True

    def _started(self, item, original):
        ctx, own = self._context(item, original)
        self.tests += 1
        return ctx, own, _calls_of(ctx)

    def _ended(self, item, ctx, own, calls_before):
        calls = _calls_of(ctx)
        if calls is not None:
            self.calls += calls - (calls_before or 0)
        if self.table is not None:
            self.table.add(item.nodeid, ctx)
        if own and self.traces is not None:
            ctx.close()

    def wrap(self, item, original):
        from context import overdub

        runner = self

        @functools.wraps(original)
        def under_context(*args, **kwargs):
            __tracebackhide__ = True
            ctx, own, calls_before = runner._started(item, original)
            try:
                return overdub(ctx, original, *args, **kwargs)
            finally:
                runner._ended(item, ctx, own, calls_before)

        return under_context

    def wrap_coroutine(self, item, original):
        """For a coroutine test method of ``unittest`` (``IsolatedAsyncioTestCase``, whose own
        loop drives it): the context as a decorator, each step of the coroutine under it."""
        runner = self

        @functools.wraps(original)
        async def under_context(*args, **kwargs):
            __tracebackhide__ = True
            ctx, own, calls_before = runner._started(item, original)
            try:
                return await ctx(original)(*args, **kwargs)
            finally:
                runner._ended(item, ctx, own, calls_before)

        return under_context


def _calls_of(ctx):
    """The calls a count, profile or trace context has seen so far, else None."""
    calls = getattr(ctx, "total", None)  # CountCtx, ProfileCtx
    if calls is None and type(ctx).__name__ == "TraceCtx":
        calls = getattr(ctx, "calls", None)
    return calls if isinstance(calls, int) else None


def pytest_configure(config):
    name = config.getoption("pycassette_context", None)
    trace_dir = config.getoption("pycassette_trace_dir", None)
    trace_per = config.getoption("pycassette_trace_per", None)
    top = config.getoption("pycassette_top", None)
    per_test = config.getoption("pycassette_per_test", None)
    if not name:
        return  # the other options mean nothing without --context (they may sit in addopts)
    if name != "trace":
        for option, value in (("--context-trace-dir", trace_dir), ("--context-trace-per", trace_per)):
            if value is not None:
                raise pytest.UsageError("%s applies to --context=trace only, not --context=%s" % (option, name))
    if name not in _TABLES:
        for option, value in (("--context-top", top), ("--context-per-test", per_test)):
            if value is not None:
                raise pytest.UsageError("%s applies to --context=count or --context=profile only, not --context=%s"
                                        % (option, name))
    if top is not None and top < 0:
        raise pytest.UsageError("--context-top: expected a whole number >= 0, got %d" % top)
    make = _load(name)
    traces = table = None
    if name == "trace":
        worker = getattr(config, "workerinput", {}).get("workerid")
        traces = _TraceFiles(_trace_folder(config, trace_dir), trace_per or "test", worker)
    elif name in _TABLES:
        table = _Table(name, DEFAULT_TOP if top is None else top, bool(per_test), str(config.rootpath))
    config.stash[_KEY] = _Runner(name, make, traces, table)


def pytest_report_header(config):
    runner = config.stash.get(_KEY, None)
    if runner is not None:
        return "pycassette: test bodies run under --context=%s" % runner.name
    return None


def _function_of(obj):
    """The function a test item calls: unwrapped, and without its method binding."""
    f = inspect.unwrap(obj) if callable(obj) else obj
    return getattr(f, "__func__", f)


def _is_async(obj):
    f = _function_of(obj)
    return inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    runner = item.config.stash.get(_KEY, None)
    # Function items (plain tests, methods of test classes) and unittest TestCaseFunction items
    # both call ``item.obj``: pytest_pyfunc_call for the former, TestCase.run for the latter.
    original = getattr(item, "obj", None) if runner is not None and isinstance(item, pytest.Function) else None
    if original is None or not callable(original):
        return (yield)
    if _is_async(original):
        testcase = _unittest_case(item)
        if testcase is None or not inspect.iscoroutinefunction(_function_of(original)):
            runner.native += 1  # driven by another plugin's event loop
            return (yield)
        # unittest calls the test case's own attribute for a coroutine test (pytest does not
        # put ``item.obj`` there for it): an instance attribute for the run
        item.obj = wrapper = runner.wrap_coroutine(item, original)
        setattr(testcase, item.name, wrapper)
        try:
            return (yield)
        finally:
            item.obj = original
            if testcase.__dict__.get(item.name) is wrapper:
                del testcase.__dict__[item.name]
    item.obj = runner.wrap(item, original)
    try:
        return (yield)
    finally:
        item.obj = original


def _unittest_case(item):
    """The ``unittest.TestCase`` instance that runs ``item``, or None for other items."""
    import unittest

    case = getattr(item, "instance", None)
    return case if isinstance(case, unittest.TestCase) else None


def pytest_sessionfinish(session):
    runner = session.config.stash.get(_KEY, None)
    if runner is not None and runner.traces is not None:
        runner.traces.close()  # before the terminal summary, which reports the files


def pytest_unconfigure(config):
    runner = config.stash.get(_KEY, None)
    if runner is not None and runner.traces is not None:
        runner.traces.close()


def pytest_terminal_summary(terminalreporter, config):
    runner = config.stash.get(_KEY, None)
    if runner is None:
        return
    if runner.table is not None and runner.tests:
        runner.table.write(terminalreporter, runner.tests)
    line = "pycassette: %d test bodies ran under --context=%s" % (runner.tests, runner.name)
    if runner.calls:
        line += " (%d calls seen)" % runner.calls
    if runner.native:
        line += "; %d async tests ran natively" % runner.native
    terminalreporter.write_line(line)
    traces = runner.traces
    if traces is not None and traces.written:
        if traces.per == "session":
            where = "in %s" % traces.written[0]
        else:
            where = "in %d file%s in %s" % (len(traces.written), "" if len(traces.written) == 1 else "s",
                                             traces.folder)
        terminalreporter.write_line("pycassette: Chrome trace %s (open in https://ui.perfetto.dev, "
                                    "chrome://tracing or https://www.speedscope.app)" % where)
        for message in traces.warnings:
            terminalreporter.write_line("pycassette: " + message)
