"""pytest plugin: ``pytest --context=NAME`` runs every test function's body under a context.

Registered through the ``pytest11`` entry point, so pytest loads it in every run once
pycassette is installed; it does nothing unless ``--context`` is given (``-p no:pycassette``
keeps it out entirely). The engine itself is imported only when the option is used.

``NAME`` is one of ``empty`` (``context.Context()``), ``count`` (``CountCtx()``), ``trace``
(``TraceCtx()``: the call tree of each test, in memory), ``print`` (``PrintCtx()``: every
call printed to the captured stdout), ``tagging`` (an empty ``TaggingContext`` given a
fresh tag with ``enabletagging``), or ``module:Class`` naming any ``context.Context``
subclass that can be constructed with no arguments. Each test gets a fresh instance.

Fixtures (and ``setUp``/``tearDown`` of ``unittest`` classes) run natively; only the call
of the test function or method goes through ``context.overdub``. ``async def`` tests run
natively: they are driven by an event loop another plugin owns (pytest-asyncio, anyio),
and running that loop under a context would measure the loop, not the test.
"""

import functools
import inspect

import pytest

_BUILTIN = ("count", "empty", "print", "tagging", "trace")  # context.ready.named.NAMES, without importing it

_KEY = pytest.StashKey()  # config.stash -> _Runner


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


def _load(name):
    """A factory ``make(test_function) -> context instance`` for the option's value, or UsageError."""
    from context.ready.named import UnknownContext, context_factory  # the engine, only now that it is asked for

    try:
        return context_factory(name)
    except UnknownContext as exc:
        raise pytest.UsageError("--context=%s: %s" % (name, exc)) from None


class _Runner:
    def __init__(self, name, make):
        self.name = name
        self.make = make
        self.tests = 0  # test bodies run under the context
        self.native = 0  # async tests left native
        self.calls = 0  # calls seen by count/trace contexts

    def wrap(self, item, original):
        from context import overdub

        runner = self

        @functools.wraps(original)
        def under_context(*args, **kwargs):
            __tracebackhide__ = True
            ctx = runner.make(original)
            runner.tests += 1
            try:
                return overdub(ctx, original, *args, **kwargs)
            finally:
                calls = getattr(ctx, "total", None)  # CountCtx
                if calls is None and type(ctx).__name__ == "TraceCtx":
                    calls = getattr(ctx, "calls", None)
                if isinstance(calls, int):
                    runner.calls += calls

        return under_context


def pytest_configure(config):
    name = config.getoption("pycassette_context", None)
    if not name:
        return
    config.stash[_KEY] = _Runner(name, _load(name))


def pytest_report_header(config):
    runner = config.stash.get(_KEY, None)
    if runner is not None:
        return "pycassette: test bodies run under --context=%s" % runner.name
    return None


def _is_async(obj):
    f = inspect.unwrap(obj) if callable(obj) else obj
    f = getattr(f, "__func__", f)
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
        runner.native += 1
        return (yield)
    item.obj = runner.wrap(item, original)
    try:
        return (yield)
    finally:
        item.obj = original


def pytest_terminal_summary(terminalreporter, config):
    runner = config.stash.get(_KEY, None)
    if runner is None:
        return
    line = "pycassette: %d test bodies ran under --context=%s" % (runner.tests, runner.name)
    if runner.calls:
        line += " (%d calls seen)" % runner.calls
    if runner.native:
        line += "; %d async tests ran natively" % runner.native
    terminalreporter.write_line(line)
