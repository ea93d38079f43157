"""The pytest plugin (``context/pytest_plugin.py``): ``pytest --context=NAME`` runs test bodies under a context."""

import json
import os

import numpy  # noqa: F401 (imported before pytester's in-process runs, which drop the modules
#              they import: NumPy cannot be imported twice in one process)
import pytest

pytest_plugins = ["pytester"]

# Hypothesis's own plugin re-imports hypothesis in every in-process run (pytester restores
# sys.modules after each); the inner runs do not need it.
FAST = ("-p", "no:hypothesispytest", "-p", "no:cacheprovider")

SUITE = '''
import unittest

import pytest

from context.state import STATE


@pytest.fixture
def three():
    assert STATE.act is None, "fixtures run natively"
    return 3


def helper(x):
    return x + 1


def test_function(three):
    assert STATE.act is not None
    assert helper(three) == 4


class TestClass:
    def test_method(self, three):
        assert STATE.act is not None
        assert helper(three) == 4


class TestUnit(unittest.TestCase):
    def setUp(self):
        self.native_setup = STATE.act is None

    def test_unittest(self):
        assert self.native_setup
        assert STATE.act is not None


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(n):
    assert STATE.act is not None
    assert helper(n) == n + 1


def test_fails():
    value = helper(1)
    assert value == 3
'''


@pytest.mark.parametrize("name", ["count", "empty", "trace", "tagging"])
def test_bodies_run_under_the_context(pytester, name):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*FAST, "--context=%s" % name)
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["pycassette: test bodies run under --context=%s" % name,
                                 "pycassette: 6 test bodies ran under --context=%s*" % name])
    # The failure is reported with the user's own source and frames, not the engine's.
    result.stdout.fnmatch_lines([">       assert value == 3", "E       assert 2 == 3", "test_suite.py:*: AssertionError"])
    failure = result.stdout.str().split("FAILURES", 1)[1]
    assert "activation.py" not in failure and "pytest_plugin.py" not in failure


def test_off_unless_asked(pytester):
    pytester.makepyfile(test_native="""
        from context.state import STATE

        def test_native():
            assert STATE.act is None
    """)
    result = pytester.runpytest(*FAST)
    result.assert_outcomes(passed=1)
    assert "pycassette:" not in result.stdout.str()


def test_custom_context_class_sees_the_calls(pytester):
    pytester.syspathinsert()
    pytester.makepyfile(recorder_ctx="""
        import context

        SEEN = []

        class Recorder(context.Context):
            def prehook(self, f, *args, **kwargs):
                SEEN.append(getattr(f, "__name__", None))
    """)
    pytester.makepyfile(test_recorded="""
        import recorder_ctx

        def helper(x):
            return x * 2

        def test_calls_helper():
            assert helper(21) == 42

        def test_seen_afterwards():
            assert "helper" in recorder_ctx.SEEN
    """)
    result = pytester.runpytest(*FAST, "--context=recorder_ctx:Recorder")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("value, message", [
    ("nosuch", "*--context=nosuch: unknown context 'nosuch'; choose one of count, empty, print, profile, tagging, "
               "trace*"),
    ("no_such_module_xyz:Ctx", "*cannot import module 'no_such_module_xyz'*"),
    ("os:sep", "*is not a context.Context subclass*"),
    ("context:CountCtx.nope", "*has no attribute 'CountCtx.nope'*"),
])
def test_bad_names_are_usage_errors(pytester, value, message):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest(*FAST, "--context=%s" % value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_async_tests_stay_native(pytester):
    pytester.makepyfile(test_async="""
        async def test_coroutine():
            pass

        def test_sync():
            pass
    """)
    result = pytester.runpytest(*FAST, "--context=count")
    # Without an async plugin pytest itself fails async tests; they never reach the context.
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*async def functions are not natively supported*",
                                 "pycassette: 1 test bodies ran under --context=count*; 1 async tests ran natively"])


def test_coroutine_methods_of_unittest_run_each_step_under_the_context(pytester):
    pytester.makepyfile(test_unittest_async="""
        import asyncio
        import unittest

        from context.state import STATE

        def helper():
            return STATE.act is not None

        class T(unittest.IsolatedAsyncioTestCase):
            async def test_steps(self):
                self.assertTrue(helper())
                await asyncio.sleep(0)
                self.assertTrue(helper())  # after the await too

            @unittest.expectedFailure
            async def test_marked(self):
                await asyncio.sleep(0)
                self.assertTrue(False)
    """)
    result = pytester.runpytest(*FAST, "--context=count", "--context-per-test")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(["pycassette: 2 test bodies ran under --context=count*"])
    assert "ran natively" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*test_unittest_async.helper*"])


def test_the_plugin_offers_exactly_the_named_contexts():
    from context import pytest_plugin
    from context.ready.named import NAMES, UnknownContext, context_factory

    assert sorted(pytest_plugin._BUILTIN) == sorted(NAMES)
    for name in NAMES:
        assert context_factory(name)(len) is not context_factory(name)(len)  # a fresh context each time
    with pytest.raises(UnknownContext, match="unknown context 'nope'"):
        context_factory("nope")
    with pytest.raises(UnknownContext, match="not a context.Context subclass"):
        context_factory("collections:OrderedDict")


# -- trace files -------------------------------------------------------------------------------

TRACE_NAMES = {  # the file of each test of SUITE, and the test function it runs
    "test_suite.test_function.json": "test_suite.test_function",
    "test_suite.TestClass.test_method.json": "test_suite.TestClass.test_method",
    "test_suite.TestUnit.test_unittest.json": "test_suite.TestUnit.test_unittest",
    "test_suite.test_parametrized-1.json": "test_suite.test_parametrized",
    "test_suite.test_parametrized-2.json": "test_suite.test_parametrized",
    "test_suite.test_fails.json": "test_suite.test_fails",
}


def _calls_in(path):
    """The names of the complete (X) events of a Chrome trace file, checked to be one."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    events = doc["traceEvents"]
    assert [e["name"] for e in events if e["ph"] == "M"] == ["process_name", "thread_name"]
    calls = [e for e in events if e["ph"] == "X"]
    for e in calls:
        assert e["dur"] >= 0 and e["ts"] >= 0 and isinstance(e["args"], dict)
    return [e["name"] for e in calls]


def test_trace_writes_one_file_per_test(pytester):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*FAST, "--context=trace")
    result.assert_outcomes(passed=5, failed=1)
    folder = pytester.path / ".pycassette-traces"
    result.stdout.fnmatch_lines(["pycassette: 6 test bodies ran under --context=trace (* calls seen)",
                                 "pycassette: Chrome trace in 6 files in %s (open in https://ui.perfetto.dev*"
                                 % folder])
    assert sorted(os.listdir(folder)) == sorted([".gitignore", *TRACE_NAMES])  # kept out of version control
    for name, test in TRACE_NAMES.items():
        calls = _calls_in(folder / name)
        assert calls[-1] == test  # the test function is the top call, and ends last
        if "unittest" not in name:
            assert "test_suite.helper" in calls
    # The failing test's file is complete too, with the failure recorded.
    with open(folder / "test_suite.test_fails.json", encoding="utf-8") as fh:
        top = [e for e in json.load(fh)["traceEvents"] if e["ph"] == "X"][-1]
    assert "AssertionError" in top["args"]["exception"]


def test_a_trace_files_warning_is_in_the_summary_not_the_tests_outcome(pytester, monkeypatch):
    # a test that records its warnings, under warnings made errors, with a trace file over the size limit
    from context.ready.chrome import ChromeTraceWriter

    monkeypatch.setattr(ChromeTraceWriter, "warn_bytes", 2_000)
    pytester.makepyfile(test_big="""
        import warnings

        def step(i):
            return i + 1

        def test_many_calls():
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                for i in range(300):
                    step(i)
            assert seen == []
    """)
    result = pytester.runpytest_inprocess(*FAST, "-W", "error", "--context=trace")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pycassette: TraceCtx: the trace file *test_big.test_many_calls.json is over 0 MB*"])


def test_trace_dir_and_one_file_per_session(pytester):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest(*FAST, "--context=trace", "--context-trace-dir", "traces/here",
                                "--context-trace-per=session")
    result.assert_outcomes(passed=5, failed=1)
    folder = pytester.path / "traces" / "here"  # made, parents too, relative to where pytest runs
    result.stdout.fnmatch_lines(["pycassette: Chrome trace in %s (open in *" % (folder / "session.json")])
    assert os.listdir(folder) == ["session.json"]  # no .gitignore in a directory the user chose
    assert not (pytester.path / ".pycassette-traces").exists()
    calls = _calls_in(folder / "session.json")
    for test in set(TRACE_NAMES.values()):
        assert test in calls
    assert calls.count("test_suite.test_parametrized") == 2 and calls.count("test_suite.helper") == 5


def test_trace_file_names():
    from context.pytest_plugin import _TraceFiles, trace_file_stem

    assert trace_file_stem("tests/test_a.py::TestX::test_y[1-a]") == "tests.test_a.TestX.test_y-1-a"
    assert trace_file_stem("test_b.py::test_z[a/b c:d]") == "test_b.test_z-a_b_c_d"
    assert trace_file_stem("../up.py::t") == "up.t"
    assert trace_file_stem("doc.txt::doc.txt") == "doc.txt.doc.txt"
    long = trace_file_stem("t.py::test[%s]" % ("x" * 500))
    assert len(long) <= 120 and long != trace_file_stem("t.py::test[%s]" % ("x" * 501))
    files = _TraceFiles("/traces", "test")
    paths = [files.path_for(n) for n in ("t.py::f[a_b]", "t.py::f[a/b]", "t.py::f[a b]", "t.py::F[A_B]")]
    assert paths == ["/traces/t.f-a_b.json", "/traces/t.f-a_b-2.json", "/traces/t.f-a_b-3.json",
                     "/traces/t.F-A_B-4.json"]  # unique, also where case does not count


# -- count and profile tables ----------------------------------------------------------------------

COUNTED = """
    import pytest

    def helper(x):
        return abs(x)

    def twice(x):
        return helper(x) + helper(-x)

    def test_one():
        assert twice(1) == 2          # twice 1, helper 2, abs 2

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_many(n):
        for i in range(n):            # range 1, twice n, helper 2n, abs 2n
            twice(i)
"""


def test_count_table_in_the_summary(pytester):
    pytester.makepyfile(test_counted=COUNTED)
    result = pytester.runpytest(*FAST, "--context=count")
    result.assert_outcomes(passed=4)
    # Over the four tests: twice 1+6, helper and abs 2+12 each, range 3.
    result.stdout.fnmatch_lines([
        "*= pycassette --context=count: most called functions over 4 tests (top 20) =*",
        "calls  function",
        "   14  abs",
        "   14  test_counted.helper",
        "    7  test_counted.twice",
        "    3  range",
        "   38  calls in total",
        "pycassette: 4 test bodies ran under --context=count (38 calls seen)",
    ])
    assert "tests with the most calls" not in result.stdout.str()


def test_count_top_and_per_test(pytester):
    pytester.makepyfile(test_counted=COUNTED)
    result = pytester.runpytest(*FAST, "--context=count", "--context-top", "2", "--context-per-test")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines([
        "*pycassette --context=count: most called functions over 4 tests (top 2)*",
        "calls  function",
        "   14  abs",
        "   14  test_counted.helper",
        "  ...  (2 more functions)",
        "   38  calls in total",
        "*pycassette --context=count: tests with the most calls (top 2)*",
        "calls  test  (most called)",
        "   16  test_counted.py::test_many[3]  (abs 6, test_counted.helper 6, test_counted.twice 3)",
        "   11  test_counted.py::test_many[2]  (abs 4, test_counted.helper 4, test_counted.twice 2)",
        "  ...  (2 more tests)",
    ])


def test_profile_table_in_the_summary(pytester):
    pytester.makepyfile(test_counted=COUNTED)
    result = pytester.runpytest(*FAST, "--context=profile", "--context-per-test")
    result.assert_outcomes(passed=4)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*= pycassette --context=profile: functions by own time over 4 tests (top 20) =*",
        "calls  own ms  cum ms  function",
        "42 calls in total, * ms",  # ProfileCtx also counts each test's top call: 38 + 4
        "*pycassette --context=profile: tests with the most calls (top 20)*",
        "calls * ms  test  (most called)",
        "   17 * test_counted.py::test_many[[]3[]]  (abs 6, test_counted.helper 6, test_counted.twice 3)",
    ])
    table = out.split("calls  own ms  cum ms  function", 1)[1].split("calls in total", 1)[0]
    rows = {line.split("  ")[-2 if "(" in line else -1].strip(): line.split()[0]
            for line in table.splitlines()[1:-1]}
    assert rows == {"abs": "14", "test_counted.helper": "14", "test_counted.twice": "7", "range": "3",
                    "test_counted.test_many": "3", "test_counted.test_one": "1"}
    assert "test_counted.helper  (test_counted.py:3)" in table  # file:line, relative to the rootdir


@pytest.mark.parametrize("args, message", [
    (["--context=count", "--context-trace-dir=x"], "*--context-trace-dir applies to --context=trace only, not "
                                                   "--context=count*"),
    (["--context=empty", "--context-trace-per=session"], "*--context-trace-per applies to --context=trace only*"),
    (["--context=trace", "--context-top=3"], "*--context-top applies to --context=count or --context=profile only*"),
    (["--context=print", "--context-per-test"], "*--context-per-test applies to --context=count or*"),
    (["--context=count", "--context-top=-1"], "*--context-top: expected a whole number >= 0, got -1*"),
    (["--context=trace", "--context-trace-per=module"], "*argument --context-trace-per: invalid choice: 'module'*"),
])
def test_misplaced_options_are_usage_errors(pytester, args, message):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest(*FAST, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_report_options_without_context_do_nothing(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest(*FAST, "--context-top=3", "--context-trace-dir=x", "--context-per-test")
    result.assert_outcomes(passed=1)  # as when they sit in addopts for the runs that give --context
    assert "pycassette:" not in result.stdout.str() and not (pytester.path / "x").exists()
