"""Counting calls: `CountCtx` through the engine, with cProfile's C profiler and with `sys.monitoring`, against `cProfile` and a bare `sys.monitoring` counter.

Workloads: `tomllib.loads` of the tomllib benchmark's 30 KB document, and
`json.dumps(indent=2)` of 2,000 small records (pure Python on 3.11 and 3.12; on
3.13 CPython's C encoder handles indent too, so there are almost no calls to
count). Each counter is started and stopped around one call of the workload;
`cProfile` is `Profile().enable()`/`disable()`; `CountCtx(via="profile")` runs
cProfile's C profiler and turns its table into counts; the bare counter is a
`sys.monitoring` CALL callback that increments a dict entry per callable (3.12+).
Goal: `CountCtx` at most 1.5x `cProfile`'s cost.
"""

import cProfile
import json
import sys
import tomllib
from collections import Counter

import context
from _harness import compare, fmt_time, ratio_row, row
from bench_tomllib import document
from context.ready import monitoring

TOOL = 4


def bare_counter(work):
    counts = Counter()

    def on_call(code, offset, callee, arg0):
        counts[id(callee)] += 1

    M = sys.monitoring
    M.use_tool_id(TOOL, "bench")
    M.register_callback(TOOL, M.events.CALL, on_call)
    M.set_events(TOOL, M.events.CALL)
    try:
        work()
    finally:
        M.set_events(TOOL, 0)
        M.register_callback(TOOL, M.events.CALL, None)
        M.free_tool_id(TOOL)
    return counts


def run(quick):
    doc = document()
    records = json.loads(json.dumps([{"id": i, "name": "n%d" % i, "tags": ["a", "b"], "v": i * 1.5, "ok": True}
                                     for i in range(2000)]))
    workloads = {
        "tomllib.loads 30 kB": lambda: tomllib.loads(doc),
        "json.dumps(indent=2), 2,000 records": lambda: json.dumps(records, indent=2),
    }
    rows = []
    for label, work in workloads.items():
        context.overdub(context.CountCtx(), work)  # rewrite once, before timing

        def profiled():
            p = cProfile.Profile()
            p.enable()
            work()
            p.disable()

        cases = {
            "native": work,
            "cProfile": profiled,
            "engine": lambda: context.overdub(context.CountCtx(), work),
            "profile": lambda: context.overdub(context.CountCtx(via="profile"), work),
        }
        if monitoring.available():
            cases["monitoring"] = lambda: context.overdub(context.CountCtx(via="monitoring"), work)
            cases["bare"] = lambda: bare_counter(work)
        t = compare(cases, repeat=3 if quick else 10)
        rows += [
            row(f"{label}, native", fmt_time(t["native"])),
            ratio_row("cProfile", t["cProfile"], "native", t["native"]),
            ratio_row("CountCtx()", t["engine"], "native", t["native"]),
            ratio_row("CountCtx()", t["engine"], "cProfile", t["cProfile"], limit=1.5),
            ratio_row("CountCtx(via='profile')", t["profile"], "native", t["native"]),
            ratio_row("CountCtx(via='profile')", t["profile"], "cProfile", t["cProfile"], limit=1.5),
        ]
        if monitoring.available():
            rows += [
                ratio_row("CountCtx(via='monitoring')", t["monitoring"], "native", t["native"]),
                ratio_row("CountCtx(via='monitoring')", t["monitoring"], "cProfile", t["cProfile"], limit=1.5),
                ratio_row("bare sys.monitoring CALL counter", t["bare"], "native", t["native"]),
            ]
        else:
            rows.append(row("CountCtx(via='monitoring')", "skipped: Python %s has no sys.monitoring (3.12+)"
                            % ".".join(map(str, sys.version_info[:2]))))
    return rows
