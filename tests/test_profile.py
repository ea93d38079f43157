"""ProfileCtx: counts and wall times per function and per caller, as cProfile has them, and
pstats files that pstats.Stats loads."""

import cProfile
import io
import json
import marshal
import os
import pstats
import statistics
import time
import tomllib

import pytest

import context
from context import CountCtx
from context.ready.counting import ProfileCtx, pstats_label
from context.ready.display import callee_name

HERE = os.path.abspath(__file__)
if HERE.endswith(".pyc"):
    HERE = HERE[:-1]


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) + leaf(x)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def recursive_program():
    twice = []
    for _ in range(2):  # a loop, not a comprehension: on 3.11 that is a function of its own
        twice.append(fib(3))
    return fib(7), is_even(6), is_odd(5), twice


def slow_leaf():
    time.sleep(0.002)


def slow_program():
    slow_leaf()
    total = 0
    for i in range(3):
        total += leaf(i)
    slow_leaf()
    return total


def fails(x):
    raise ValueError(x)


def catches():
    try:
        fails(1)
    except ValueError:
        return leaf(1)


def label(fn):
    code = fn.__code__
    return (code.co_filename, code.co_firstlineno, code.co_name)


def profiled(fn, *args, **options):
    ctx = ProfileCtx(**options)
    out = context.overdub(ctx, fn, *args)
    return out, ctx


def test_counts_match_count_ctx_plus_the_top_call():
    doc = 'title = "x"\n[server]\nports = [1, 2, 3]\nratio = 0.5\nwhen = 1979-05-27T07:32:00Z\n'
    for fn, args in [(tomllib.loads, (doc,)), (json.dumps, ({"a": [1, 2.5, None]},)),
                     (statistics.mean, ([1, 2, 4],)), (recursive_program, ())]:
        out, prof = profiled(fn, *args)
        count = CountCtx()
        assert context.overdub(count, fn, *args) == out == fn(*args)
        expected = dict(count.counts)
        top_name = callee_name(fn)
        expected[top_name] = expected.get(top_name, 0) + 1
        assert prof.counts == expected, fn
        assert prof.total == count.total + 1


def test_recursion_counts_and_callers_are_cprofiles():
    native = cProfile.Profile()
    native.runcall(recursive_program)
    native.create_stats()
    _, prof = profiled(recursive_program)
    prof.create_stats()
    for fn in (fib, is_even, is_odd):
        cc, nc, tt, ct, callers = prof.stats[label(fn)]
        ncc, nnc, _, _, ncallers = native.stats[label(fn)]
        assert (cc, nc) == (ncc, nnc), fn
        assert {k: v[:2] for k, v in callers.items()} == {k: v[:2] for k, v in ncallers.items()}, fn
    cc, nc, tt, ct, callers = prof.stats[label(fib)]
    assert (nc, cc) == (41 + 2 * 5, 3)  # fib(7) makes 41 calls, fib(3) 5; three of them from outside fib
    # (calls, primitive calls) from fib itself: the pair fib -> fib is primitive when no fib -> fib call runs
    assert callers[label(fib)][:2] == (40 + 2 * 4, 2 + 2 * 2)
    assert callers[label(recursive_program)][:2] == (3, 3)


def test_cumulative_time_is_not_counted_twice_for_recursion():
    _, prof = profiled(recursive_program)
    prof.create_stats()
    top_cc, top_nc, top_tt, top_ct, _ = prof.stats[label(recursive_program)]
    total_own = sum(row[2] for row in prof.stats.values())
    assert top_ct == pytest.approx(total_own, rel=1e-9, abs=1e-12)  # the top call's time is everyone's own time
    for key, (cc, nc, tt, ct, callers) in prof.stats.items():
        assert 0 <= tt <= ct + 1e-12, key  # own <= cumulative
        assert ct <= top_ct + 1e-12, key  # recursion counted once: never more than the whole run
        for caller, (snc, scc, stt, sct) in callers.items():
            assert 0 < scc <= snc <= nc and stt <= tt + 1e-12 and sct <= ct + 1e-12, (key, caller)


def test_own_and_cumulative_times_are_wall_times():
    _, prof = profiled(slow_program)
    prof.reset()  # the first run also rewrote the code: time a second one
    context.overdub(prof, slow_program)
    rows = prof.profile()
    name = __name__ + ".slow_leaf"
    nc, cc, own, cum, lab = rows[name]
    assert (nc, cc) == (2, 2) and lab == label(slow_leaf)
    assert cum >= 0.004 and own <= cum  # two sleeps of 2 ms, inside slow_leaf (in time.sleep, a native)
    sleep = rows["time.sleep"]
    assert sleep[0] == 2 and sleep[2] >= 0.004 and own < sleep[2]
    top = rows[__name__ + ".slow_program"]
    children = cum + rows[__name__ + ".leaf"][3] + rows["range"][3]
    assert top[3] == pytest.approx(top[2] + children, abs=1e-9)  # own = cumulative - the calls it made
    assert top[3] >= cum >= 0.004


def test_dump_stats_loads_in_pstats_and_prints(tmp_path):
    _, prof = profiled(recursive_program)
    path = tmp_path / "out.prof"
    prof.dump_stats(path)
    with open(path, "rb") as fh:
        raw = marshal.load(fh)  # the format cProfile writes: a marshalled dict
    assert isinstance(raw, dict) and all(len(v) == 5 and isinstance(v[4], dict) for v in raw.values())
    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    assert stats.total_calls == prof.total and stats.prim_calls < stats.total_calls
    stats.sort_stats("cumulative").print_stats()
    stats.sort_stats("tottime").print_stats(3)
    stats.print_callers("fib")
    stats.print_callees("recursive_program")
    text = out.getvalue()
    assert "%d function calls (%d primitive calls)" % (prof.total, stats.prim_calls) in text
    assert "(fib)" in text and "(is_even)" in text and "{class 'range'}" in text
    assert "51/3" in text  # fib: calls/primitive calls, as cProfile shows recursion
    counts = {key[2]: nc for key, (cc, nc, tt, ct, callers) in stats.stats.items()}
    assert counts["fib"] == prof.counts[__name__ + ".fib"] == 51
    assert counts["is_even"] == prof.counts[__name__ + ".is_even"]
    merged = pstats.Stats(prof, stream=io.StringIO())  # the context itself, without a file
    merged.add(str(path))
    assert merged.total_calls == 2 * prof.total


def test_labels_of_natives_are_cprofiles():
    assert pstats_label(len) == ("~", 0, "<built-in method builtins.len>")
    assert pstats_label([].append) == ("~", 0, "<method 'append' of 'list' objects>")
    assert pstats_label({}.get) == ("~", 0, "<method 'get' of 'dict' objects>")
    assert pstats_label(int) == ("~", 0, "<class 'int'>")
    assert pstats_label(leaf) == label(leaf)
    assert pstats_label(ProfileCtx().table) == label(ProfileCtx.table)

    def program():
        xs = []
        xs.append(len("ab"))
        return xs

    native = cProfile.Profile()
    native.runcall(program)
    native.create_stats()
    _, prof = profiled(program)
    prof.create_stats()
    natives = {k for k in native.stats if k[0] == "~" and "lsprof" not in k[2]}
    assert natives and natives <= set(prof.stats)


def test_table_sorts_like_pstats():
    _, prof = profiled(recursive_program)
    by_cum = prof.table()
    lines = by_cum.splitlines()
    assert lines[0].split() == ["calls", "own", "ms", "cum", "ms", "function"]
    assert lines[1].split()[-2:] == [__name__ + ".recursive_program", "(%s:%d)" % (HERE, label(recursive_program)[1])]
    assert lines[-1].startswith("%d calls in total, " % prof.total) and lines[-1].endswith(" ms")
    assert any(line.split()[0] == "51/3" and __name__ + ".fib" in line for line in lines)
    by_calls = prof.table(sort="calls", top=2).splitlines()
    assert __name__ + ".fib" in by_calls[1] and "(%d more functions)" % (len(prof.counts) - 2) in by_calls[3]
    own = [float(line.split()[1]) for line in prof.table(sort="tottime").splitlines()[1:-1]]
    assert own == sorted(own, reverse=True)
    names = [line.split()[3] for line in prof.table(sort="name").splitlines()[1:-1]]
    assert names == sorted(names)
    assert prof.table(sort="cumtime") == by_cum and prof.table(0).splitlines()[1].strip().startswith("...")
    with pytest.raises(ValueError, match="sort must be"):
        prof.table(sort="speed")


def test_types_count_and_time_only_matching_calls():
    ctx = ProfileCtx((str, int))
    assert context.overdub(ctx, lambda: list(map(str, range(10)))) == [str(i) for i in range(10)]
    assert ctx.counts == {"str": 10, "range": 1}  # the top call has no arguments: not counted
    ctx.create_stats()
    assert set(ctx.stats) == {("~", 0, "<class 'str'>"), ("~", 0, "<class 'range'>")}
    assert all(callers == {} for *_, callers in ctx.stats.values())  # their callers were not counted
    with pytest.raises(TypeError, match="ProfileCtx: types"):
        ProfileCtx("int")


def test_exceptions_operators_and_reset():
    out, prof = profiled(catches)
    assert out == 2
    assert prof.counts == {__name__ + ".catches": 1, __name__ + ".fails": 1, "ValueError": 1, __name__ + ".leaf": 1}
    assert prof._stack == []  # the raising call was accounted for
    with pytest.raises(ValueError):
        context.overdub(prof, fails, 3)
    assert prof.counts[__name__ + ".fails"] == 2 and prof._stack == []
    prof.reset()
    assert prof.total == 0 and prof.counts == {}
    _, ops = profiled(top, 2, operators=True)
    assert ops.counts["operator.add"] == 3 and ops.counts["operator.mul"] == 1
    assert isinstance(ops, ProfileCtx)
