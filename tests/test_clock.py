"""The clock that stops while the engine rewrites code."""

import threading
import time

import context
from context import clock
from context.rewrite import code as rewrite_module

PAUSE = 0.05


def _slow_rewrites(monkeypatch):
    original = rewrite_module._rewrite

    def slow(code, config):
        time.sleep(PAUSE)
        return original(code, config)

    monkeypatch.setattr(rewrite_module, "_rewrite", slow)
    monkeypatch.setenv("PYCASSETTE_CACHE", "0")
    from context.rewrite import diskcache

    monkeypatch.setattr(diskcache, "load", lambda code, config: None)
    monkeypatch.setattr(diskcache, "store", lambda code, config, new: None)


def test_rewriting_is_the_engines_time_not_the_users(monkeypatch):
    _slow_rewrites(monkeypatch)

    def fresh(x):  # a new code object: its first call is rewritten
        return sum(i * x for i in range(10))

    engine_before, wall_before, user_before = clock.engine_ns(), time.perf_counter_ns(), clock.clock_ns()
    assert context.overdub(context.Context(), fresh, 2) == 90
    engine = clock.engine_ns() - engine_before
    wall = time.perf_counter_ns() - wall_before
    user = clock.clock_ns() - user_before
    assert engine >= PAUSE * 1e9  # at least the one slow rewrite
    assert abs(user - (wall - engine)) < 1e6  # the clock is wall time minus the engine's (read a moment apart)
    assert user < PAUSE * 1e9  # the user's part excludes the rewrite


def test_the_clock_is_one_timeline_for_all_threads_and_never_goes_back(monkeypatch):
    _slow_rewrites(monkeypatch)
    readings = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            readings.append(clock.clock_ns())

    def fresh_in_thread(x):
        return x + 1

    t = threading.Thread(target=reader)
    t.start()
    try:
        before = clock.engine_ns()
        context.overdub(context.Context(), fresh_in_thread, 1)  # a slow rewrite on this thread
        assert clock.engine_ns() - before >= PAUSE * 1e9  # counted for the process
    finally:
        stop.set()
        t.join()
    assert len(readings) > 10
    assert all(a <= b for a, b in zip(readings, readings[1:]))  # monotonic, across the rewrite


def test_engine_work_blocks_nest_and_overlap():
    from context.clock import engine_work

    before = clock.engine_ns()
    with engine_work():
        with engine_work():
            time.sleep(0.01)
        frozen = clock.clock_ns()
        time.sleep(0.01)
        assert clock.clock_ns() == frozen  # stands still while engine work is open
    spent = clock.engine_ns() - before
    assert 0.02e9 <= spent < 0.2e9  # counted once, not once per block


def test_traces_and_profiles_do_not_charge_rewriting_to_the_users_functions(monkeypatch, tmp_path):
    import json

    _slow_rewrites(monkeypatch)

    def make():
        def leaf(x):
            return x * 2

        def top(x):
            return leaf(x) + leaf(x + 1)

        return top

    tracer = context.TraceCtx(keep=True)
    started = time.perf_counter()
    assert context.overdub(tracer, make(), 1) == 6  # top and leaf are rewritten now: 2 slow rewrites
    assert time.perf_counter() - started >= 2 * PAUSE
    (record,) = tracer.roots
    assert record.seconds < PAUSE  # neither rewrite is in the top call's time

    profiler = context.ProfileCtx()
    context.overdub(profiler, make(), 1)
    cumulative = {name: row[3] for name, row in profiler.profile().items()}
    assert any(name.endswith("top") for name in cumulative)
    assert max(cumulative.values()) < PAUSE  # seconds: no rewrite in any function's time

    path = tmp_path / "t.json"
    with context.TraceCtx(path) as streamed:
        context.overdub(streamed, make(), 1)
    events = [e for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "X"]
    assert events and max(e["dur"] for e in events) < PAUSE * 1e6  # microseconds
