"""The pytest plugin (``context/pytest_plugin.py``): ``pytest --context=NAME`` runs test bodies under a context."""

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
    ("nosuch", "*--context=nosuch: unknown context 'nosuch'; choose one of count, empty, print, tagging, trace*"),
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
