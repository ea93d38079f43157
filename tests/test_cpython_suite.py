"""``tools/cpython_suite.py``: CPython's own tests natively and under a context, crashes and hangs survived."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tools", "cpython_suite.py")

# Each test knows whether the runner put its body under the context: the runner sets the
# test case's ``_callTestMethod`` (or, for a coroutine test, the test method) as an attribute
# of the test instance only then.
FAKE = textwrap.dedent(
    """
    import asyncio
    import os
    import time
    import unittest


    def under_context(test):
        return "_callTestMethod" in vars(test) or test._testMethodName in vars(test)


    class Plain(unittest.TestCase):
        def test_1_ok(self):
            self.assertEqual(sorted([3, 1, 2]), [1, 2, 3])

        def test_2_abort_under_context(self):
            if under_context(self):
                os.abort()

        def test_3_hang_under_context(self):
            if under_context(self):
                time.sleep(120)

        def test_4_ok(self):
            self.assertIn("b", "abc")

        @unittest.skip("skipped in both runs")
        def test_5_skip(self):
            pass

        @unittest.expectedFailure
        def test_6_expected_failure(self):
            self.assertEqual(1, 2)

        def test_7_fails_natively_too(self):
            self.assertEqual(1, 2)

        def test_8_subtest_fails_under_context(self):
            for i in range(3):
                with self.subTest(i=i):
                    self.assertFalse(i == 2 and under_context(self))

        def test_9_reads_its_own_code(self):
            # test_compile's test_32_63_bit_values reads its constants so
            self.assertIn("own constant", self.test_9_reads_its_own_code.__code__.co_consts)


    class Async(unittest.IsolatedAsyncioTestCase):
        async def test_awaits(self):
            await asyncio.sleep(0)
            self.assertEqual(await asyncio.sleep(0, "done"), "done")
    """
)


def run(*argv, timeout=240):
    return subprocess.run([sys.executable, RUNNER, *argv], capture_output=True, text=True, timeout=timeout)


def test_small_cpython_modules_pass_alike_natively_and_under_the_empty_context(tmp_path):
    out = tmp_path / "out.json"
    done = run("--modules", "bisect", "heapq", "--context", "empty", "--json", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["context"] == "empty"
    rows = {row["module"]: row for row in report["modules"]}
    assert set(rows) == {"test.test_bisect", "test.test_heapq"}
    for row in rows.values():
        assert row["status"] == {"native": "done", "ctx": "done"}
        assert row["native_ok"] > 20
        assert row["ctx_ok"] == row["native_ok"]
        assert row["only_ctx"] == []
        assert row["native_time"] > 0 and row["ctx_time"] > 0 and row["ratio"] > 0
    assert "0 tests fail only under the context empty" in done.stdout
    assert "test.test_bisect: %d tests" % rows["test.test_bisect"]["tests"] in done.stdout


def test_crash_hang_subtests_and_missing_modules_are_reported(tmp_path):
    mod_dir = tmp_path / "mods"
    mod_dir.mkdir()
    (mod_dir / "fake_cpython_suite_mod.py").write_text(FAKE)
    out = tmp_path / "out.json"
    done = run("--path", str(mod_dir), "--modules", "fake_cpython_suite_mod", "no_such_module_here",
               "--context", "count", "--timeout", "3", "--json", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(out.read_text())
    fake, missing = report["modules"]
    assert missing["status"]["native"] == "missing"
    assert "test.test_no_such_module_here: not in this interpreter" in done.stdout

    ids = "fake_cpython_suite_mod.Plain.test_"
    assert fake["tests"] == 10
    assert fake["native"] == {"pass": 7, "skip": 1, "xfail": 1, "fail": 1}
    assert fake["native_ok"] == 8 and fake["native_bad"] == 1
    only = {f["id"]: f for f in fake["only_ctx"]}
    assert set(only) == {ids + "2_abort_under_context", ids + "3_hang_under_context",
                         ids + "8_subtest_fails_under_context"}
    assert only[ids + "2_abort_under_context"]["outcome"] == "crash"
    assert "Aborted" in only[ids + "2_abort_under_context"]["msg"]
    assert only[ids + "3_hang_under_context"]["outcome"] == "hang"
    assert "test_3_hang_under_context" in only[ids + "3_hang_under_context"]["where"]  # faulthandler's dump
    assert only[ids + "8_subtest_fails_under_context"]["outcome"] == "fail"
    assert only[ids + "8_subtest_fails_under_context"]["subtest"] == "(i=2)"
    # the tests after the crash and the hang still ran, the async one under the context too
    assert fake["ctx"]["pass"] == 4 and fake["ctx_ok"] == 5
    assert fake["ctx_calls"] > 0
    kinds = [(i["kind"], i["test"]) for i in fake["incidents"]["ctx"]]
    assert kinds == [("crash", ids + "2_abort_under_context"), ("hang", ids + "3_hang_under_context")]
    assert fake["incidents"]["native"] == []
    assert "crash in %s2_abort_under_context" % ids in done.stdout
    assert "3 tests fail only under the context count" in done.stdout


@pytest.mark.parametrize("argv", [
    ["--context", "no_such_context"],
    ["--context", "no_such_module_xyz:Ctx"],
    ["--context", "json:JSONDecoder"],
    ["--fast", "--modules", "json"],
    ["--wide", "--fast"],
    ["--timeout", "0"],
    ["--path", "/no/such/dir"],
    ["--no-such-option"],
])
def test_bad_arguments_exit_with_status_2(argv):
    done = run(*argv, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "error" in done.stderr
