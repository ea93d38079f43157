"""CountCtx(via="monitoring"): counting with sys.monitoring events (3.12+), and its fallbacks."""

import json
import statistics
import sys
import threading
import tomllib

import pytest

import context
from context.ready import monitoring
from context.ready.counting import CountCtx, MonitoredCountCtx

needs_monitoring = pytest.mark.skipif(not monitoring.available(), reason="sys.monitoring is new in 3.12")
TOML = "\n".join('[t%d]\na = %d\nb = "s%d"\nc = [1, 2, 3]\nd = {x = 1, y = "z"}\n' % (i, i, i) for i in range(20))


class Foo:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return True


def g(x):
    return x


def work():
    f = Foo(1)
    same = f == f
    sorted([3, 1], key=g)
    list(map(g, [1]))
    return [g(i) for i in range(2)], same, "a-b".replace("-", "+")


def counts(via, fn, *args):
    ctx = CountCtx(via=via)
    out = context.overdub(ctx, fn, *args)
    return ctx, out


@needs_monitoring
@pytest.mark.parametrize("fn, args", [(tomllib.loads, (TOML,)), (json.dumps, ([{"a": [1, 2.5, None]}],)),
                                      (statistics.median, ([3, 1, 2],)), (work, ())])
def test_monitoring_counts_what_the_engine_counts_plus_implicit_special_methods(fn, args):
    engine, out_e = counts("engine", fn, *args)
    monitored, out_m = counts("monitoring", fn, *args)
    assert type(monitored) is MonitoredCountCtx and monitored.via == "monitoring" and engine.via == "engine"
    assert out_e == out_m
    differ = {name: (engine.counts.get(name), monitored.counts.get(name))
              for name in set(engine.counts) | set(monitored.counts)
              if engine.counts.get(name) != monitored.counts.get(name)}
    allowed = {__name__ + ".Foo.__eq__": (None, 1),  # ``==`` calls it implicitly
               # namedtuple's __new__ is a lambda renamed after creation: sys.monitoring sees its code's name
               "namedtuple_Output.Output.__new__": (1, None), "namedtuple_Output.<lambda>": (None, 1)}
    assert all(allowed.get(name) == pair for name, pair in differ.items()), differ
    assert monitored.total == engine.total + sum(1 for name in differ if name.endswith("__eq__"))


@needs_monitoring
def test_methods_of_native_types_are_told_apart():
    monitored, _ = counts("monitoring", tomllib.loads, TOML)
    for name in ("str.startswith", "re.Match.group", "set.add", "list.append"):
        assert monitored.counts[name] > 0, name


@needs_monitoring
def test_a_with_block_counts_in_code_that_runs_natively():
    ctx = CountCtx(via="monitoring")
    with ctx:
        work()
    assert ctx.counts[__name__ + ".work"] == 1 and ctx.counts[__name__ + ".g"] == 5
    with ctx:  # counts add up over blocks and runs
        g(1)
    context.overdub(ctx, g, 1)
    assert ctx.counts[__name__ + ".g"] == 6


@needs_monitoring
def test_only_the_running_thread_is_counted_and_the_tool_id_is_freed():
    ctx = CountCtx(via="monitoring")
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            g(0)

    t = threading.Thread(target=busy)
    t.start()
    try:
        context.overdub(ctx, work)
    finally:
        stop.set()
        t.join()
    assert ctx.counts[__name__ + ".g"] == 5
    assert all(sys.monitoring.get_tool(tool) is None for tool in monitoring.TOOL_IDS)


@needs_monitoring
def test_nested_runs_and_busy_tool_ids_fall_back_to_the_engine():
    inner = CountCtx(via="monitoring")

    def outer_work():
        return context.overdub(inner, work)

    engine_reference, _ = counts("engine", work)
    context.overdub(context.Context(), outer_work)  # nested: counted by the engine
    assert inner.counts == engine_reference.counts

    taken = [tool for tool in monitoring.TOOL_IDS if sys.monitoring.get_tool(tool) is None]
    for tool in taken:
        sys.monitoring.use_tool_id(tool, "test")
    try:
        ctx = CountCtx(via="monitoring")
        context.overdub(ctx, work)
        assert ctx.counts == engine_reference.counts  # no tool id free: the engine counted
    finally:
        for tool in taken:
            sys.monitoring.free_tool_id(tool)


def test_monitoring_applies_only_where_it_can():
    assert type(CountCtx(int, via="monitoring")) is CountCtx  # argument types: the engine's prehook
    assert type(CountCtx(via="monitoring", operators=True)) is not MonitoredCountCtx
    if not monitoring.available():
        ctx = CountCtx(via="monitoring")
        assert type(ctx) is CountCtx and ctx.via == "engine"
        with pytest.raises(TypeError, match="runs natively"):
            with ctx:
                work()
    with pytest.raises(ValueError, match="via must be 'engine', 'monitoring' or 'profile'"):
        CountCtx(via="fast")
