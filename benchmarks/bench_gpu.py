"""GPUCtx on CuPy: the talk's `hmlstm_kernel` (NumPy code vectorised with `np.where`) on (4096, 4096) float32 arrays under `GPUCtx` against the same kernel written by hand in CuPy and against NumPy on the host (goal: GPUCtx at least 0.9x the speed of hand-written CuPy, i.e. at most 1.11x its time).

The kernel line has the inputs already on the device and ``keep_on_device=True``,
so that it compares the kernel itself (16 device calls: 2 ``exp``, 1 ``tanh``,
2 ``where`` and 11 operators, each through the context); the second line starts
from host arrays and ends with the result on the host, for both (``GPUCtx`` moves
them itself; the CuPy version calls ``cupy.asarray`` and ``cupy.asnumpy``). Each
case runs 3 times to warm up (CuPy compiles its kernels on first use), then each
timing is bracketed by a device synchronisation; the cases are interleaved and
the median of the rounds is kept. Results are checked against NumPy before timing.
Without CuPy or a CUDA device nothing is timed: the table says why, and rows
recorded earlier on a GPU machine are kept. ``--quick`` runs fewer rounds.
"""

import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from _harness import fmt_time, row
from context import overdub
from context.ready.devices import GPUUnavailableError, cupy_device
from context.ready.gpu import GPUCtx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
from gpu_kernel import hmlstm_kernel, inputs  # noqa: E402  (the example's kernel, timed as it is)

N = 4096
GOAL = 1 / 0.9  # GPUCtx's time at most this multiple of hand-written CuPy's
DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
NAME = "gpu"


def cupy_kernel(cp):
    """The same kernel written directly against CuPy."""

    def kernel(z, zb, c, f, i, g):
        z = z[:, None]
        zb = zb[:, None]
        flush = 1.0 / (1.0 + cp.exp(-i)) * cp.tanh(g)
        update = 1.0 / (1.0 + cp.exp(-f)) * c + flush
        return cp.where(z == 1, flush, cp.where(zb == 0, c, update))

    return kernel


def median_times(cases, sync, rounds, warmup=3):
    """Median seconds per call of each case, synchronising the device around each call."""
    for fn in cases.values():
        for _ in range(warmup):
            fn()
    sync()
    times = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            sync()
            t0 = time.perf_counter()
            fn()
            sync()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def run(quick):
    try:
        device = cupy_device()
    except GPUUnavailableError as exc:
        return not_run(str(exc))
    import cupy as cp

    kernel = cupy_kernel(cp)
    host = inputs(N)
    dev = tuple(cp.asarray(a) for a in host)
    sync = device.synchronize
    expected = hmlstm_kernel(*host)
    on_device = GPUCtx(keep_on_device=True)
    round_trip = GPUCtx()
    for got in (cp.asnumpy(overdub(on_device, hmlstm_kernel, *dev)), overdub(round_trip, hmlstm_kernel, *host),
                cp.asnumpy(kernel(*dev))):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    if on_device.report.on_host or round_trip.report.on_host:
        raise AssertionError("calls ran on the host: %s" % round_trip.report.render())

    rounds = 5 if quick else 20
    kernel_times = median_times({
        "ctx": lambda: overdub(on_device, hmlstm_kernel, *dev),
        "cupy": lambda: kernel(*dev),
    }, sync, rounds)
    transfer_times = median_times({
        "ctx": lambda: overdub(round_trip, hmlstm_kernel, *host),
        "cupy": lambda: cp.asnumpy(kernel(*(cp.asarray(a) for a in host))),
    }, sync, rounds)
    numpy_time = median_times({"numpy": lambda: hmlstm_kernel(*host)}, lambda: None, max(3, rounds // 4), 1)["numpy"]

    what = "hmlstm_kernel, %d x %d float32" % (N, N)
    ratio = kernel_times["ctx"] / kernel_times["cupy"]
    t_ratio = transfer_times["ctx"] / transfer_times["cupy"]
    return [
        row("%s, NumPy on the host" % what, fmt_time(numpy_time)),
        row("%s, hand-written CuPy, inputs on the device" % what, fmt_time(kernel_times["cupy"]),
            kernel_times["cupy"] / numpy_time, "NumPy"),
        row("%s, GPUCtx, inputs on the device (%s)" % (what, device.name), fmt_time(kernel_times["ctx"]),
            ratio, "hand-written CuPy", "<= %.2fx (>= 0.9x speed)" % GOAL, ratio <= GOAL),
        row("%s, hand-written CuPy, host to device and back" % what, fmt_time(transfer_times["cupy"]),
            transfer_times["cupy"] / numpy_time, "NumPy"),
        row("%s, GPUCtx, host to device and back" % what, fmt_time(transfer_times["ctx"]),
            t_ratio, "hand-written CuPy"),
    ]


# ---- without a GPU --------------------------------------------------------------------------

_SECTION = re.compile(r"<!-- bench:%s -->(.*?)<!-- /bench:%s -->" % (NAME, NAME), re.S)
_RATIO = re.compile(r"^([0-9.eE+-]+)x (.*)$")


def _recorded():
    """``(environment line, rows)`` of the section an earlier run wrote, or ``(None, [])``."""
    try:
        match = _SECTION.search(DOC.read_text())
    except OSError:
        return None, []
    if match is None:
        return None, []
    lines = match.group(1).strip().splitlines()
    env = next((line for line in lines if "command:" in line), None)
    rows = []
    for line in lines:
        if not line.startswith("| ") or line.startswith("| benchmark |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 5:
            continue
        if cells[1].startswith("not run"):  # kept from a run before this one: keep its origin
            earlier = re.search(r"recorded earlier \((.*)\)$", cells[1])
            env = earlier.group(1) if earlier else env
            continue
        name, measurement, ratio, goal, met = cells
        found = _RATIO.match(ratio)
        rows.append(row(name, measurement, float(found.group(1)) if found else None,
                        found.group(2) if found else None, goal or None,
                        {"yes": True, "NO": False}.get(met)))
    return env, rows


def not_run(reason):
    """Rows saying that nothing was timed and why, followed by the rows recorded earlier (kept)."""
    env, kept = _recorded()
    print("bench_gpu: not run: %s" % reason, flush=True)
    note = "not run here: %s" % reason
    if kept:
        note += "; the rows below were recorded earlier (%s)" % env
    return [row("hmlstm_kernel under GPUCtx against hand-written CuPy", note)] + kept
