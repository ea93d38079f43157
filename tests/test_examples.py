"""Every example in examples/ runs, and the talk's examples give the talk's answers."""

import os
import runpy
import sys

import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
SCRIPTS = sorted(name for name in os.listdir(EXAMPLES) if name.endswith(".py"))


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(EXAMPLES)


# Arguments for scripts whose default size is a demonstration of scale (tens of seconds):
# the same code runs on a smaller problem (the Brusselator's 16 x 16 grid also checks the
# sparse Jacobian against the dense one).
SCRIPT_ARGS = {"sparse_brusselator.py": ["16"], "sparse_least_squares.py": ["100"]}


@pytest.mark.parametrize("script", SCRIPTS)
def test_example_runs_as_a_script(script, capsys, examples_on_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", [script] + SCRIPT_ARGS.get(script, []))
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    assert capsys.readouterr().out.strip()


def _example(name):
    sys.path.insert(0, EXAMPLES)
    try:
        return __import__(name)
    finally:
        sys.path.remove(EXAMPLES)


def test_logging_of_sin_1():
    import math

    lines = []
    native, written = _example("logging_calls").main(lines.append)
    assert lines[0] == "sin(1) -> 0.8414709848078965"
    assert native == math.sin(1) and abs(written - math.sin(1)) <= 2e-16
    assert "  cos_kernel(-0.5707963267948966)" in lines
    adds = [line for line in lines if line.startswith("add(")]
    assert len(adds) == 8 and adds[-1].endswith(", 1.0)")  # Horner's last step, as the talk's log ends with +


def test_count_matches_talk_semantics():
    assert _example("count_calls").main(lambda line: None) == 11


def test_primitives_replace_and_memoise():
    replaced, value, entries = _example("primitives").main(lambda line: None)
    assert replaced == pytest.approx(2 * np.cos(0.3) ** 2)
    assert (value, entries) == (190392490709135, 71)


def test_nested_trace_structure():
    import operator

    trace, roots = _example("nested_trace").main(lambda line: None)
    nested = _example("nested_trace")
    (root,) = roots
    assert root.callee is nested.f and root.result == 18.0
    assert [(c.callee, c.args, c.result) for c in root.children] == [
        (operator.mul, (2.0, 3.0), 6.0), (operator.mul, (3.0, 4.0), 12.0), (operator.add, (6.0, 12.0), 18.0)]
    (top, args), sub = trace[0]
    assert top is nested.f and args == (2.0, 3.0, 4.0)
    assert [(fn, a) for (fn, a), _ in sub] == [
        (operator.mul, (2.0, 3.0)),
        (operator.mul, (3.0, 4.0)),
        (operator.add, (6.0, 12.0)),
    ]


def test_float32_pass():
    native, under, kernel = _example("float32_pass").main(lambda line: None)
    assert type(native) is float and type(under) is np.float32 and under == native
    assert type(kernel) is np.float32


def test_array_examples_give_the_right_answers():
    gn = _example("gauss_newton").main(lambda *_: None)
    fits = list(gn.values())
    assert len(fits) == 3
    for fit in fits:  # every backend converges to the same least-squares fit, near the true parameters
        np.testing.assert_allclose(fit, fits[0], rtol=1e-6)
        np.testing.assert_allclose(fit, [2.5, 1.3, 0.5], atol=0.02)
    x, steps = _example("newton").main(lambda *_: None)
    np.testing.assert_allclose(x, np.ones(6), atol=1e-8)
    assert steps < 100
    d, dense, iterations = _example("hvp_cg").main(lambda *_: None)
    np.testing.assert_allclose(d, dense, atol=1e-9)
    assert iterations <= 20
    d_clayton, fd, J = _example("buffers").main(lambda *_: None)
    np.testing.assert_allclose(d_clayton, fd, rtol=1e-6, atol=1e-9)


def test_gpu_kernel_example_runs_the_kernel_and_reports_its_calls():
    difference, report, dtype32 = _example("gpu_kernel").main(lambda *_: None)
    assert difference < 1e-5
    assert report.on_device == {"numpy.exp": 2, "numpy.tanh": 1, "numpy.where": 2} and report.on_host == {}
    assert dtype32 == np.float32


def test_weird_identity_as_written_in_the_talk_needs_no_primitive():
    module = _example("weird_identity")
    assert not module.FooBarCtx.__dict__.get("_own_primitives")  # no primitive of its own
    value, meta = module.main(lambda line: None)
    assert value == 1.0 and isinstance(value, float) and meta == 2
