"""The fast part of the real-suite runs, for every CI run.

CPython's own tests (``tools/cpython_suite.py --fast``) and toolz's test suite (shipped
inside its wheel, run through the pytest plugin) must pass under each ready-made kind
of context exactly as they pass natively. The full runs are documented in
docs/real_suites.md.
"""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPYTHON_RUNNER = os.path.join(ROOT, "tools", "cpython_suite.py")
TOOLZ_TESTS = ["toolz.tests.test_itertoolz", "toolz.tests.test_dicttoolz", "toolz.tests.test_functoolz",
               "toolz.tests.test_recipes", "toolz.tests.test_curried"]


# Under TraceCtx, test_json's pure-Python recursion tests take minutes on 3.13 (a known
# slowness listed in docs/real_suites.md): its fast run leaves test_json out.
SELECTION = {"trace": ["--modules", "textwrap", "bisect", "heapq", "operator", "with", "scope"]}


@pytest.mark.parametrize("ctx", ["empty", "count", "trace", "tagging"])
def test_cpython_fast_modules_pass_alike(ctx, tmp_path):
    out = tmp_path / "run.json"
    modules = SELECTION.get(ctx, ["--fast"])
    done = subprocess.run([sys.executable, CPYTHON_RUNNER, *modules, "--context", ctx, "-q", "--json", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    rows = json.loads(out.read_text())["modules"]
    assert len(rows) >= 5
    for row in rows:
        assert row["native_ok"] > 0 and row["ctx_ok"] == row["native_ok"], row["module"]


def _toolz_passed(cwd, *options):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--pyargs", *TOOLZ_TESTS, *options],
                          capture_output=True, text=True, timeout=600, cwd=cwd)
    summary = re.search(r"^(\d+) passed(?:, (\d+) \w+)* in ", done.stdout, re.M)
    assert summary and " failed" not in summary.group(0) and done.returncode == 0, \
        done.stdout[-3000:] + done.stderr[-2000:]
    return int(summary.group(1))


@pytest.mark.parametrize("ctx", ["empty", "count"])
def test_toolz_suite_passes_alike_under_the_plugin(ctx, tmp_path):
    assert _toolz_passed(tmp_path, "--context=" + ctx) == _toolz_passed(tmp_path) > 100
