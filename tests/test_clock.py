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


def test_each_thread_counts_its_own_engine_time(monkeypatch):
    _slow_rewrites(monkeypatch)
    main_before = clock.engine_ns()
    seen = []

    def other():
        def fresh_in_thread(x):
            return x + 1

        before = clock.engine_ns()
        context.overdub(context.Context(), fresh_in_thread, 1)
        seen.append(clock.engine_ns() - before)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen[0] >= PAUSE * 1e9
    assert clock.engine_ns() == main_before  # this thread rewrote nothing meanwhile
