"""CountCtx(via="profile"): counting with cProfile's C profiler (_lsprof), on every version, and its fallbacks."""

import cProfile
import json
import os
import statistics
import subprocess
import sys
import tomllib

import pytest

import context
from context.ready import lsprof
from context.ready.counting import CountCtx, ProfiledCountCtx
from tests.test_count_monitoring import TOML, counts, g, work

M = work.__module__  # the shared workload's module, as the counts name its functions


# what the profiler cannot see (calls of classes, of builtin types and of callable native objects)
# or sees differently (a class's __init__, a special method called implicitly, names it gives)
def _documented(name, engine, profiled):
    if profiled is None:
        return name in ("int", "set", "range", "map", "list", "_json.Encoder", "<Encoder object>", "tuple.__new__",
                        "namedtuple_Output.Output.__new__") or name.split(".")[-1][:1].isupper()
    if engine is None:
        return name.endswith(("__init__", "__eq__", "<lambda>")) or " (of a " in name
    return False


CASES = [(tomllib.loads, (TOML,)), (json.dumps, ([{"a": [1, 2.5, None]}],)),
         (statistics.median, ([3, 1, 2],)), (work, ())]


def compare_counts(case):
    """Count ``CASES[case]`` with the engine and with the profiler; check that they agree."""
    fn, args = CASES[case]
    engine, out_e = counts("engine", fn, *args)
    profiled, out_p = counts("profile", fn, *args)
    assert type(profiled) is ProfiledCountCtx and profiled.via == "profile"
    assert out_e == out_p
    for name in set(engine.counts) | set(profiled.counts):
        e, p = engine.counts.get(name), profiled.counts.get(name)
        assert e == p or _documented(name, e, p), (name, e, p)
    assert profiled.counts.get(fn.__module__ + "." + fn.__qualname__) is None  # the top call is not counted


@pytest.mark.parametrize("case", range(len(CASES)))
def test_profile_counts_what_the_engine_counts_but_classes(case):
    """In a fresh process: from 3.12 the profiler sees every thread's calls (see lsprof.py), and
    earlier tests leave threads behind (dask's offload thread, for one)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", "import tests.test_count_profile as t; t.compare_counts(%d)" % case],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_the_bookkeeping_is_not_counted_and_a_block_counts_its_calls():
    ctx = CountCtx(via="profile")
    with ctx:
        work()
    expected = {M + ".g": 5, M + ".Foo.__init__": 1, M + ".work": 1,
                M + ".Foo.__eq__": 1, "list.append": 1, "str.replace": 1, "sorted": 1}
    if sys.version_info < (3, 12):  # comprehensions are functions of their own before 3.12
        expected[M + ".work.<locals>.<listcomp>"] = 1
    assert ctx.counts == expected
    context.overdub(ctx, g, 1)  # runs and blocks add up; the top call is not one of its calls
    assert ctx.counts[M + ".g"] == 5 and ctx.total == sum(expected.values())
    with ctx:
        g(1)
    assert ctx.counts[M + ".g"] == 6


def test_an_active_profiler_is_left_alone_and_the_engine_counts():
    engine, _ = counts("engine", work)
    profile = cProfile.Profile()
    profile.enable()
    try:
        ctx, _ = counts("profile", work)
    finally:
        profile.disable()
    assert ctx.counts == engine.counts  # the user's cProfile kept running; the engine counted
    assert any(getattr(e.code, "co_name", None) == "work" for e in profile.getstats())
    assert sys.getprofile() is None


def test_nested_runs_count_the_engines_way():
    inner = CountCtx(via="profile")
    engine, _ = counts("engine", work)
    context.overdub(context.Context(), lambda: context.overdub(inner, work))
    assert inner.counts == engine.counts


def test_profile_applies_only_where_it_can():
    assert type(CountCtx(int, via="profile")) is CountCtx
    assert type(CountCtx(via="profile", operators=True)) is not ProfiledCountCtx
    with pytest.raises(ValueError, match="via must be 'engine', 'monitoring' or 'profile'"):
        CountCtx(via="fast")


@pytest.mark.parametrize("label, name", [
    ("<built-in method builtins.len>", "len"),
    ("<built-in method math.sin>", "math.sin"),
    ("<built-in method _operator.add>", "operator.add"),
    ("<method 'append' of 'list' objects>", "list.append"),
    ("<method 'match' of 're.Pattern' objects>", "re.Pattern.match"),
    ("<built-in method fromkeys>", "fromkeys"),
    ("<built-in method __new__ of type object at 0x7f3da67615a0>", "__new__ (of a type object)"),
])
def test_native_names(label, name):
    assert lsprof.native_name(label) == name


def test_a_monitoring_count_before_does_not_blind_the_profiler():
    """The monitoring counter disables its events in the engine's code for its own tool ids only:
    the profiler still sees who called what, so the top call stays out of the counts."""
    context.overdub(CountCtx(via="monitoring"), work)
    profiled, _ = counts("profile", work)
    assert M + ".work" not in profiled.counts and profiled.counts[M + ".g"] == 5
