"""PrintCtx and CountCtx: what they show and count, their options, and bad input."""

import io
import json
import math
import statistics

import pytest

import context
from context import CountCtx, PrintCtx


def f(x, y, z):
    return x * y + y * z


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) + leaf(x)


def fails(x):
    raise ValueError("bad %s" % x)


def catches(x):
    try:
        fails(x)
    except ValueError:
        return -1


def printed(fn, *args, **options):
    lines = []
    out = context.overdub(PrintCtx(lines.append, **options), fn, *args)
    return out, lines


def test_print_shows_calls_indented_by_depth():
    out, lines = printed(top, 3)
    assert out == top(3)
    assert lines == ["top(3)", "  middle(3)", "    leaf(3)", "  leaf(3)"]


def test_print_results_on_the_line_of_a_leaf_call_and_after_children():
    _, lines = printed(top, 3, results=True)
    assert lines == [
        "top(3)",
        "  middle(3)",
        "    leaf(3) -> 4",
        "  -> 8",
        "  leaf(3) -> 4",
        "-> 12",
    ]


def test_print_exceptions_caught_and_escaping():
    _, lines = printed(catches, 5, results=True)
    assert lines == [
        "catches(5)",
        "  fails(5)",
        "    ValueError('bad 5') -> ValueError('bad 5')",
        "  -> raised ValueError('bad 5')",
        "-> -1",
    ]
    lines = []
    with pytest.raises(ValueError, match="bad 1"):
        context.overdub(PrintCtx(lines.append, results=True), fails, 1)
    assert lines[-1] == "-> raised ValueError('bad 1')"
    # the depth is restored after an exception: a second run starts at the left margin again
    context.overdub(PrintCtx(lines.append), leaf, 1)
    assert lines[-1] == "leaf(1)"


def test_print_operators_option_shows_the_talks_nested_calls():
    out, lines = printed(f, 2, 3, 4, operators=True, results=True)
    assert out == 18
    assert lines == ["f(2, 3, 4)", "  mul(2, 3) -> 6", "  mul(3, 4) -> 12", "  add(6, 12) -> 18", "-> 18"]
    assert type(PrintCtx(operators=True)).intercept_operators and not PrintCtx.intercept_operators
    assert isinstance(PrintCtx(operators=True), PrintCtx)


def test_print_max_depth_runs_deeper_calls_without_showing_them():
    _, lines = printed(top, 3, max_depth=1)
    assert lines == ["top(3)", "  middle(3)", "  leaf(3)"]
    _, lines = printed(top, 3, max_depth=0)
    assert lines == ["top(3)"]


def test_print_include_and_exclude():
    _, lines = printed(top, 3, include="*leaf")
    assert lines == ["leaf(3)", "leaf(3)"]
    _, lines = printed(top, 3, exclude=["*.middle"])
    assert lines == ["top(3)", "  leaf(3)", "  leaf(3)"]
    _, lines = printed(top, 3, include=lambda fn: fn is leaf or fn is top)
    assert lines == ["top(3)", "  leaf(3)", "  leaf(3)"]
    _, lines = printed(statistics.mean, [1, 2, 4], include="statistics")
    assert lines[0] == "mean([1, 2, 4])" and all("(" in line for line in lines)
    assert not any(line.strip().startswith(("type(", "dict.get(")) for line in lines)


def test_print_qualified_names_and_file_objects():
    buffer = io.StringIO()
    context.overdub(PrintCtx(buffer, qualified=True), top, 1)
    assert buffer.getvalue().splitlines()[:2] == [__name__ + ".top(1)", "  " + __name__ + ".middle(1)"]


def test_print_writes_to_stdout_by_default(capsys):
    context.overdub(PrintCtx(), math.sin, 1)
    assert capsys.readouterr().out == "sin(1)\n"


def test_print_long_values_are_cut_and_broken_reprs_do_not_stop_the_run():
    class Broken:
        def __repr__(self):
            raise RuntimeError("no repr")

    def g(a, b):
        return len(a)

    out, lines = printed(g, "x" * 500, Broken(), limit=30, reprs=True)
    assert out == 500
    assert "x" * 30 not in lines[0] and "..." in lines[0] and "<Broken instance at " in lines[0]
    out, lines = printed(g, "x" * 500, Broken(), limit=None)  # by default its __repr__ is not called
    assert "Broken object at 0x" in lines[0] and "x" * 500 in lines[0]


def test_print_is_transparent():
    for fn, args in [(statistics.median, ([3, 1, 2],)), (json.dumps, ({"a": [1, 2.5]},)), (sorted, ([3, 1, 2],))]:
        assert context.overdub(PrintCtx(lambda line: None), fn, *args) == fn(*args)


def test_print_bad_input():
    with pytest.raises(ValueError, match="max_depth"):
        PrintCtx(max_depth=-1)
    with pytest.raises(ValueError, match="max_depth"):
        PrintCtx(max_depth="2")
    with pytest.raises(TypeError, match="include"):
        PrintCtx(include=3)


def test_count_the_talks_example():
    ctx = CountCtx((str, int))
    assert context.overdub(ctx, lambda: list(map(str, range(10)))) == [str(i) for i in range(10)]
    assert ctx.total == 11
    assert ctx.counts == {"str": 10, "range": 1}


def test_count_every_call_per_function_and_table():
    ctx = CountCtx()
    context.overdub(ctx, top, 3)
    assert ctx.total == 3  # the top call fires no hooks; middle and two leaf calls do
    assert ctx.counts == {__name__ + ".leaf": 2, __name__ + ".middle": 1}
    assert ctx.table() == "2  %s.leaf\n1  %s.middle\n3  calls in total" % (__name__, __name__)
    assert ctx.table(top=1) == "2  %s.leaf\n...  (1 more function)\n3  calls in total" % __name__
    context.overdub(ctx, top, 3)  # counts add up over runs
    assert ctx.total == 6
    ctx.reset()
    assert ctx.total == 0 and ctx.counts == {}


def test_count_types_apply_to_every_argument_and_need_one():
    def g():
        math.hypot(3, 4)  # ints: counted
        math.hypot(3.0, 4)  # a float: not counted
        dict(a=1)  # a keyword argument counts as an argument
        dict()  # no argument: not counted

    ctx = CountCtx(int)
    context.overdub(ctx, g)
    assert ctx.counts == {"math.hypot": 1, "dict": 1}


def test_count_methods_and_closures_share_a_key():
    class A:
        def m(self):
            return 1

    def g():
        fs = [lambda: 1 for _ in range(3)]
        return [fn() for fn in fs] + [A().m(), A().m(), [].copy(), [1].copy()]

    ctx = CountCtx()
    context.overdub(ctx, g)
    counts = ctx.counts
    assert [n for name, n in counts.items() if name.endswith("<lambda>")] == [3]
    assert counts[__name__ + "." + A.m.__qualname__] == 2
    assert counts["list.copy"] == 2


def test_count_operators_option():
    ctx = CountCtx(operators=True)
    context.overdub(ctx, f, 2, 3, 4)
    assert ctx.counts == {"operator.mul": 2, "operator.add": 1}


def test_count_bad_types():
    for bad in ["int", (int, "str"), (), 3]:
        with pytest.raises(TypeError, match="CountCtx: types"):
            CountCtx(bad)


def test_count_only_counts_on_the_prehook_fast_path():
    # timing calls needs an overdub (ProfileCtx, tests/test_profile.py); counting must not pay for it
    assert "overdub" not in CountCtx.__dict__ and "prehook" in CountCtx.__dict__
    from context.ready.counting import ProfileCtx

    ctx, prof = CountCtx(), ProfileCtx()
    context.overdub(ctx, top, 3)
    context.overdub(prof, top, 3)
    assert prof.counts == dict(ctx.counts, **{__name__ + ".top": 1})  # ProfileCtx counts the top call too
