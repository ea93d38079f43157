"""TraceCtx: the recorded call tree, its text rendering, Chrome trace files (kept and streamed), options, bad input."""

import json
import operator
import os
import re
import statistics
import sys
import threading
import tomllib
import tracemalloc

import pytest

import context
from context.ready.tracing import CallRecord, TraceCtx

from .trace_checks import validate_trace


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) + leaf(x=x)


def fails(x):
    raise ValueError("bad %s" % x)


def catches(x):
    try:
        fails(x)
    except ValueError:
        return -1


def f(x, y, z):
    return x * y + y * z


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def squares(n):
    for i in range(n):
        yield leaf(i)


def total(n):
    return sum(squares(n))


def where():
    """True when running natively: under a context the frame runs a rewritten copy of this code."""
    return sys._getframe().f_code is where.__code__


def calls_where():
    return where()


def deep(n):
    return calls_where() if n == 0 else deep(n - 1)


def traced(fn, *args, **options):
    ctx = TraceCtx(**options)
    out = context.overdub(ctx, fn, *args)
    return out, ctx


def shape(records):
    """``[(callee, args, kwargs, result or exception, children...)]`` of a tree, for exact comparisons."""
    return [
        (r.callee, r.args, r.kwargs, ("raised", type(r.exception), str(r.exception)) if r.raised else r.result,
         shape(r.children))
        for r in records
    ]


def walk(records):
    for r in records:
        yield r
        yield from walk(r.children)


TIME = re.compile(r"  \[\d+\.\d{3} ms\]$")


def untimed(text):
    lines = text.split("\n")
    assert all(TIME.search(line) for line in lines), text
    return [TIME.sub("", line) for line in lines]


# -- the recorded tree ---------------------------------------------------------------------


def test_tree_of_a_small_program_exact_callees_arguments_results():
    out, ctx = traced(top, 3)
    assert out == top(3) == 12
    assert shape(ctx.roots) == [
        (top, (3,), {}, 12, [
            (middle, (3,), {}, 8, [(leaf, (3,), {}, 4, [])]),
            (leaf, (), {"x": 3}, 4, []),
        ]),
    ]
    assert ctx.calls == 4
    root = ctx.roots[0]
    assert isinstance(root, CallRecord)
    assert root.name == "%s.top" % __name__
    assert not root.raised and root.exception is None
    assert 0 < root.children[0].seconds <= root.seconds
    assert root.start_ns <= root.children[0].start_ns <= root.children[0].end_ns <= root.children[1].start_ns
    assert root.children[1].end_ns <= root.end_ns
    assert not hasattr(root, "__dict__")  # __slots__


def test_each_run_adds_a_root():
    ctx = TraceCtx()
    assert context.overdub(ctx, leaf, 1) == 2
    assert context.overdub(ctx, middle, 1) == 4
    assert [r.callee for r in ctx.roots] == [leaf, middle]
    assert ctx.calls == 3


def test_exception_caught_inside_is_recorded_and_the_run_goes_on():
    out, ctx = traced(catches, 5)
    assert out == -1
    (root,) = ctx.roots
    assert root.result == -1 and not root.raised
    (call,) = root.children
    assert call.callee is fails and call.args == (5,) and call.raised and call.result is None
    assert type(call.exception) is ValueError and str(call.exception) == "bad 5"
    assert [c.callee for c in call.children] == [ValueError]  # the exception's construction is a call too


def test_exception_escaping_is_recorded_and_reraised_unchanged():
    ctx = TraceCtx()
    with pytest.raises(ValueError, match="bad 1") as info:
        context.overdub(ctx, fails, 1)
    (root,) = ctx.roots
    assert root.raised and root.exception is info.value and root.end_ns is not None
    assert context.overdub(ctx, leaf, 1) == 2  # the context is usable again, at the top level
    assert [r.callee for r in ctx.roots] == [fails, leaf] and ctx.roots[1].children == []


def test_recursion_is_nested():
    out, ctx = traced(fib, 3)
    assert out == 2
    assert shape(ctx.roots) == [
        (fib, (3,), {}, 2, [
            (fib, (2,), {}, 1, [(fib, (1,), {}, 1, []), (fib, (0,), {}, 0, [])]),
            (fib, (1,), {}, 1, []),
        ]),
    ]


def test_generator_body_calls_attach_to_the_call_that_iterates_it():
    out, ctx = traced(total, 3)
    assert out == 1 + 2 + 3
    (root,) = ctx.roots
    gen_call, sum_call = root.children
    assert gen_call.callee is squares and gen_call.args == (3,) and gen_call.children == []
    assert type(gen_call.result).__name__ == "generator"
    assert sum_call.callee is sum and sum_call.result == 6
    assert [(c.callee, c.args, c.result) for c in sum_call.children] == [
        (range, (3,), range(3)), (leaf, (0,), 1), (leaf, (1,), 2), (leaf, (2,), 3),
    ]


def test_results_identical_to_native(tmp_path):
    doc = 'title = "x"\n[server]\nports = [1, 2, 3]\nratio = 0.5\nwhen = 1979-05-27T07:32:00Z\n'
    cases = [
        (tomllib.loads, (doc,)),
        (json.dumps, ({"a": [1, 2.5, None, "é"], "b": {"c": True}},)),
        (statistics.mean, ([1, 2, 4, 7.5],)),
        (statistics.median, ([3, 1, 2],)),
    ]
    for fn, args in cases:
        native = fn(*args)
        out, ctx = traced(fn, *args)
        assert out == native and type(out) is type(native), fn
        assert ctx.roots[0].result is out and ctx.calls > 1
        with TraceCtx(tmp_path / "same.json", limit=20) as streamed:
            assert context.overdub(streamed, fn, *args) == native
        check_events(events_of(tmp_path / "same.json"))


def test_records_keep_references_not_copies():
    def append_to(xs):
        xs.append(1)
        return len(xs)

    xs = []
    _, ctx = traced(append_to, xs)
    assert ctx.roots[0].args[0] is xs


# -- options -------------------------------------------------------------------------------


def test_max_depth_records_down_to_it_and_runs_deeper_calls_natively():
    out, ctx = traced(top, 3, max_depth=0)
    assert out == 12 and shape(ctx.roots) == [(top, (3,), {}, 12, [])] and ctx.calls == 1
    _, ctx = traced(top, 3, max_depth=1)
    assert [c.callee for c in ctx.roots[0].children] == [middle, leaf]
    assert all(c.children == [] for c in ctx.roots[0].children)
    # deeper calls run natively: `where` sees its own, unrewritten code
    assert context.overdub(TraceCtx(), deep, 2) is False
    assert context.overdub(TraceCtx(max_depth=1), deep, 2) is True
    out, ctx = traced(deep, 2, max_depth=3)
    assert out is True  # depth 3 is calls_where: recorded, and where (depth 4) ran natively
    assert [r.callee for r in walk(ctx.roots)] == [deep, deep, deep, calls_where]
    out, ctx = traced(deep, 2, max_depth=4)
    assert out is False and [r.callee for r in walk(ctx.roots)][-1] is where


def test_include_and_exclude_attach_shown_calls_to_the_nearest_shown_ancestor():
    _, ctx = traced(top, 3, exclude="*.middle")
    assert shape(ctx.roots) == [
        (top, (3,), {}, 12, [(leaf, (3,), {}, 4, []), (leaf, (), {"x": 3}, 4, [])]),
    ]
    assert ctx.calls == 3
    _, ctx = traced(top, 3, include=lambda fn: fn is leaf)  # the top call is not shown: leaves become roots
    assert [(r.callee, r.result) for r in ctx.roots] == [(leaf, 4), (leaf, 4)]
    _, ctx = traced(top, 3, include=[__name__ + ".middle", __name__ + ".leaf"], exclude=[lambda fn: fn is leaf])
    assert [r.callee for r in walk(ctx.roots)] == [middle]


def test_operators_option_records_operators_as_calls():
    out, ctx = traced(f, 2, 3, 4, operators=True)
    assert out == 2 * 3 + 3 * 4
    assert type(ctx).__name__ == "TraceCtx" and isinstance(ctx, TraceCtx)
    assert shape(ctx.roots) == [
        (f, (2, 3, 4), {}, 18, [
            (operator.mul, (2, 3), {}, 6, []),
            (operator.mul, (3, 4), {}, 12, []),
            (operator.add, (6, 12), {}, 18, []),
        ]),
    ]
    assert untimed(ctx.render()) == ["f(2, 3, 4) -> 18", "  mul(2, 3) -> 6", "  mul(3, 4) -> 12", "  add(6, 12) -> 18"]
    _, plain = traced(f, 2, 3, 4)
    assert plain.roots[0].children == []


# -- rendering -----------------------------------------------------------------------------


def test_render_exact_text():
    _, ctx = traced(top, 3)
    text = ctx.render()
    assert untimed(text) == [
        "top(3) -> 12",
        "  middle(3) -> 8",
        "    leaf(3) -> 4",
        "  leaf(x=3) -> 4",
    ]
    assert untimed(ctx.render(max_depth=1)) == ["top(3) -> 12", "  middle(3) -> 8", "  leaf(x=3) -> 4"]
    assert untimed(ctx.render(max_depth=0)) == ["top(3) -> 12"]
    ms = float(re.search(r"\[(\d+\.\d{3}) ms\]", text.split("\n")[0]).group(1))
    assert abs(ms - ctx.roots[0].seconds * 1e3) < 0.001


def test_render_exceptions_and_cut_values():
    _, ctx = traced(catches, 5)
    assert untimed(ctx.render()) == [
        "catches(5) -> -1",
        "  fails(5) -> raised ValueError('bad 5')",
        "    ValueError('bad 5') -> ValueError('bad 5')",
    ]
    _, ctx = traced(len, "x" * 500)
    (line,) = untimed(ctx.render(limit=20))
    assert line == "len('xxxxxxxxxxxxxxxx...) -> 500"  # the argument cut to 20 characters
    assert len(untimed(ctx.render())[0]) < 100  # limit=80 by default


def test_render_needs_the_tree(tmp_path):
    with TraceCtx(tmp_path / "t.json") as ctx:
        context.overdub(ctx, leaf, 1)
        with pytest.raises(ValueError, match="keep=True"):
            ctx.render()
        with pytest.raises(ValueError, match="keep=True"):
            ctx.write_chrome(tmp_path / "again.json")
    assert ctx.roots == [] and ctx.calls == 1


def snapshot(tr, path):
    tr.write_chrome(path)
    return tr.render()


def outer(tr, path):
    return snapshot(tr, path)


def test_render_and_write_during_a_run_show_the_calls_still_running(tmp_path):
    path = str(tmp_path / "mid.json")
    for options in ({}, {"max_depth": 5}):  # the lean path and the general one
        tr = TraceCtx(**options)
        lines = context.overdub(tr, outer, tr, path).split("\n")
        assert [line.split("(", 1)[0] for line in lines] == [
            "outer", "  snapshot", "    TraceCtx.write_chrome", "    TraceCtx.render",
        ]
        assert lines[0].endswith(") -> ... (still running)") and lines[3].endswith(") -> ... (still running)")
        assert TIME.search(lines[2]) and lines[2].endswith(") -> 3" + TIME.search(lines[2]).group())  # 3 calls written
        events = calls(events_of(path))  # every call was running: each ends at the time of writing
        assert [e["name"].rsplit(".", 1)[-1] for e in events] == ["outer", "snapshot", "write_chrome"]
        assert all(e["args"]["unfinished"] == "... (still running)" for e in events)


# -- Chrome trace files --------------------------------------------------------------------


def events_of(path):
    with open(path) as fh:
        doc = json.load(fh)
    assert doc["displayTimeUnit"] == "ms" and isinstance(doc["otherData"], dict)
    return doc["traceEvents"]


def calls(events):
    """The call events (``X``), leaving out the metadata events (``M``)."""
    return [ev for ev in events if ev["ph"] == "X"]


def check_events(events):
    """The events form a valid trace whose X events nest per thread; returns ``(name, args)`` of the
    calls in the order they started."""
    validate_trace({"traceEvents": events})
    started = []
    for ev in events:
        assert ev["ph"] in ("X", "M") and ev["pid"] == os.getpid()
        if ev["ph"] == "X":
            assert isinstance(ev["ts"], float) and isinstance(ev["dur"], float)
            assert ev["cat"] in ("python", "native", "operator")
            assert set(ev["args"]) - {"file", "line"} in ({"args", "result"}, {"args", "exception"})
            started.append(ev)
    started.sort(key=lambda ev: ev["ts"])
    return [(ev["name"], ev["args"]["args"]) for ev in started]


def test_write_chrome_of_a_kept_tree(tmp_path):
    _, ctx = traced(catches, 5)
    path = tmp_path / "tree.json"
    assert ctx.write_chrome(path) == 3  # the number of calls: one event each
    events = events_of(path)
    assert check_events(events) == [
        (__name__ + ".catches", "5"), (__name__ + ".fails", "5"), ("ValueError", "'bad 5'"),
    ]
    xs = calls(events)  # a kept tree is written parents first
    assert [{k: v for k, v in ev["args"].items() if k not in ("args", "file", "line")} for ev in xs] == [
        {"result": "-1"}, {"exception": "ValueError('bad 5')"}, {"result": "ValueError('bad 5')"},
    ]
    assert [ev["cat"] for ev in xs] == ["python", "python", "native"]
    assert {ev["tid"] for ev in xs} == {threading.get_native_id()}
    assert abs(xs[0]["dur"] - ctx.roots[0].seconds * 1e6) < 0.01


def test_streamed_file_is_valid_after_each_run_and_after_close(tmp_path):
    path = tmp_path / "stream.json"
    ctx = TraceCtx(str(path))
    assert ctx.keep is False and ctx.file == str(path)
    context.overdub(ctx, top, 3)
    first = events_of(path)  # the file is still open: valid anyway
    assert [name for name, _ in check_events(first)] == [__name__ + n for n in (".top", ".middle", ".leaf", ".leaf")]
    assert check_events(first)[-1] == (__name__ + ".leaf", "x=3")
    context.overdub(ctx, f, 2, 3, 4)
    second = events_of(path)
    assert second[: len(first)] == first and len(second) == len(first) + 1
    assert second[-1]["args"]["result"] == "18"
    ctx.close()
    ctx.close()  # twice is fine
    assert events_of(path) == second
    with pytest.raises(ValueError, match="closed"):
        context.overdub(ctx, leaf, 1)
    assert ctx.roots == [] and ctx.calls == 5


def test_streamed_file_is_valid_after_an_escaping_exception(tmp_path):
    path = tmp_path / "raise.json"
    with TraceCtx(path) as ctx:
        with pytest.raises(ValueError):
            context.overdub(ctx, fails, 7)
        events = events_of(path)
        assert check_events(events) == [(__name__ + ".fails", "7"), ("ValueError", "'bad 7'")]
        assert events[-1]["args"]["exception"] == "ValueError('bad 7')"  # the top call ends last
        context.overdub(ctx, leaf, 1)
    assert len(check_events(events_of(path))) == 3


def test_stream_and_keep_together_with_operators_and_filters(tmp_path):
    path = tmp_path / "both.json"
    with TraceCtx(os.fspath(path), keep=True, operators=True, exclude="operator.add", max_depth=1) as ctx:
        context.overdub(ctx, f, 2, 3, 4)
    assert [r.callee for r in walk(ctx.roots)] == [f, operator.mul, operator.mul]
    events = events_of(path)
    assert [name for name, _ in check_events(events)] == [__name__ + ".f", "operator.mul", "operator.mul"]
    assert [ev["cat"] for ev in calls(events)] == ["operator", "operator", "python"]  # streamed as calls end
    again = tmp_path / "again.json"
    ctx.write_chrome(again)  # the same events and times, parents first

    def by_time(events):
        return sorted(calls(events), key=lambda e: e["ts"])

    assert by_time(events_of(again)) == by_time(events)


def test_streaming_keeps_no_records(tmp_path):
    def loop(n):
        for i in range(n):
            leaf(i)

    def peak(n):
        ctx = TraceCtx(tmp_path / ("loop%d.json" % n))
        context.overdub(ctx, loop, 10)  # rewrite and warm the caches outside the measurement
        tracemalloc.start()
        try:
            context.overdub(ctx, loop, n)
            return tracemalloc.get_traced_memory()[1], ctx
        finally:
            tracemalloc.stop()
            ctx.close()

    small, ctx_small = peak(10_000)
    large, ctx_large = peak(50_000)
    assert ctx_large.roots == [] and ctx_large.calls == (2 + 10) + (2 + 50_000)  # loop, range, the leaves
    assert large - small < 1_000_000, (small, large)  # keeping 40k more records would take several MB
    events = events_of(tmp_path / "loop50000.json")
    assert len(calls(events)) == ctx_large.calls
    check_events(events)


def test_events_carry_the_thread_id(tmp_path):
    path = tmp_path / "thread.json"
    seen = []

    def worker():
        with TraceCtx(path) as ctx:
            context.overdub(ctx, leaf, 1)
        seen.append(threading.get_native_id())

    t = threading.Thread(target=worker, name="tracing-worker")
    t.start()
    t.join()
    events = events_of(path)
    assert {ev["tid"] for ev in calls(events)} == set(seen)
    assert [ev["args"]["name"] for ev in events if ev["name"] == "thread_name"] == ["tracing-worker"]


# -- bad input -----------------------------------------------------------------------------


def test_bad_input(tmp_path):
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_depth"):
            TraceCtx(max_depth=bad)
    with pytest.raises(TypeError, match="include"):
        TraceCtx(include=3)
    with pytest.raises(TypeError, match="exclude"):
        TraceCtx(exclude=[None])
    with pytest.raises(ValueError, match="limit"):
        TraceCtx(limit=0)
    missing = tmp_path / "no" / "such" / "dir" / "t.json"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))) as info:
        TraceCtx(missing)
    assert "does not exist" in str(info.value)
    with pytest.raises(TypeError, match="trace file"):
        TraceCtx(3.5)
    _, ctx = traced(leaf, 1)
    with pytest.raises(ValueError, match="max_depth"):
        ctx.render(max_depth=-2)
