"""Rewriting: the first-call cost per distinct function, and whether memory stays bounded when 100,000 distinct functions are overdubbed once each and dropped.

Distinct functions are made by cloning a template's code object with a
different constant (`code.replace`), so every clone is a new code object that
the engine has to rewrite (the disk cache of rewritten code is off here: a clone
an earlier run stored would be a disk hit, not a rewrite). Memory is the traced Python heap (`tracemalloc`,
after `gc.collect()`) and the process RSS, relative to a baseline taken after
warm-up; it is bounded if the second half of the run adds at most 16 bytes
per function.
"""

import gc
import os
import time
import tracemalloc
import types

import context
from context.rewrite import diskcache
from _harness import compare, fmt_bytes, fmt_time, ratio_row, row, timed

K = 987_654_321  # the constant that each clone replaces

SOURCE = f'''
def template(x):
    total = 0
    for i in range(3):
        total += abs(x - i)
    items = [x, total, {K}]
    s = "-".join([str(len(items)), str(round(total))])
    d = dict(a=1, b=total)
    try:
        v = int(s.split("-")[0]) + max(items)
    except ValueError:
        v = 0
    return total + v + d["b"]
'''

SMALL = f"def small(x):\n    return abs(x) + {K}\n"


def cloner(source):
    """A function ``make(i)`` returning a new function whose code is distinct for each ``i``."""
    namespace = {}
    exec(compile(source, "<bench_rewrite>", "exec"), namespace)
    (fn,) = (v for v in namespace.values() if isinstance(v, types.FunctionType))
    code, consts = fn.__code__, list(fn.__code__.co_consts)
    slot = consts.index(K)

    def make(i):
        consts[slot] = K + i
        return types.FunctionType(code.replace(co_consts=tuple(consts)), namespace)
    return make


def first_call(quick):
    diskcache.disable()  # rewriting is measured: no clone may come from an earlier run's disk cache
    n = 300 if quick else 2000
    make = cloner(SOURCE)
    ctx = context.Context()
    fns = [make(i) for i in range(1, n + 1)]
    assert context.overdub(ctx, make(0), 2.5) == make(0)(2.5)
    cold = timed(lambda: [context.overdub(ctx, f, 2.5) for f in fns]) / n
    warm_fn = fns[0]
    t = compare({"warm": lambda: context.overdub(ctx, warm_fn, 2.5),
                 "native": lambda: warm_fn(2.5),
                 "compile": lambda: compile(SOURCE, "<bench_rewrite>", "exec")},
                repeat=5, number=20 if quick else 100)
    return [
        row(f"template function, native call ({n} clones)", fmt_time(t["native"])),
        ratio_row("template function, warm call, empty context", t["warm"], "native", t["native"]),
        ratio_row("template function, first call (rewrite + run)", cold, "compile()", t["compile"]),
        ratio_row("rewrite cost (first call - warm call)", cold - t["warm"], "compile()", t["compile"]),
    ]


def rss():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def memory(quick):
    diskcache.disable()  # (and 100,000 clones are not written to the user's cache)
    total = 20_000 if quick else 100_000
    checkpoints = (2_000, 10_000, 20_000) if quick else (10_000, 50_000, 100_000)
    limit = 16  # bytes per function in the second half
    make = cloner(SMALL)
    ctx = context.Context()
    tracemalloc.start()
    try:
        for i in range(1000):  # warm-up: the engine's own one-time allocations
            context.overdub(ctx, make(-i), 1)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0], rss()
        seen, t0 = {}, time.perf_counter()
        for i in range(1, total + 1):
            context.overdub(ctx, make(i), 1)  # the function is dropped right away
            if i in checkpoints:
                gc.collect()
                seen[i] = tracemalloc.get_traced_memory()[0] - base[0], rss() - base[1]
        elapsed = time.perf_counter() - t0
    finally:
        tracemalloc.stop()

    rows = [row(f"memory after {i // 1000}k functions",
                f"traced {fmt_bytes(traced)}, RSS {fmt_bytes(resident)}")
            for i, (traced, resident) in seen.items()]
    mid, end = checkpoints[-2], checkpoints[-1]
    growth = seen[end][0] - seen[mid][0]
    per_fn = growth / (end - mid)
    rows.append(row(f"memory bounded: traced growth {mid // 1000}k -> {end // 1000}k",
                    f"{fmt_bytes(growth)} ({per_fn:.1f} B/function)",
                    goal=f"<= {limit} B/function", met=per_fn <= limit))
    rows.append(row("create + first overdub, under tracemalloc",
                    f"{fmt_time(elapsed / total)} per function"))
    return rows


def run(quick):
    return first_call(quick) + memory(quick)
