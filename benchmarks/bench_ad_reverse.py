"""Reverse-mode AD: `ad.gradient` with `ad.ReverseMode()` against forward mode and autograd's `grad` (and JAX's eager and jitted `grad` when installed), on a vectorised scalar function of n = 100 to 100,000 inputs and on a loop over `x[i]` of n = 10 to 1,000 inputs.

The vectorised function is ``sum(tanh(x) exp(-x^2 / 2)) + sum(x^2) / (1 + sum(x x))``, written
once against a NumPy-like module (NumPy for `ad`, `autograd.numpy`, `jax.numpy`). The loop is
the chained Rosenbrock sum over ``x[i]``, one scalar at a time; and the Lotka-Volterra RK4 loss
of ``bench_ad_scalar`` (plain Python floats and lists) with respect to its 4 parameters. Goal:
reverse mode at most autograd's time, and flat in n as a multiple of the primal on the
vectorised function.
Each round of the goal rows is one call right after a full garbage collection (the harness's
``compare``), which leaves the caches cold; for the vectorised function a row with rounds of
many calls (at least 20 ms, no collection between them) gives the steady state too.
Before timing, every gradient must agree with forward mode's to 1e-10. A Hessian-vector product
of the vectorised function at n = 10,000 (forward over reverse) is timed against the reverse
gradient (goal: at most 3x). The last rows give the
time and peak traced memory of the gradient of a 100,000-step scalar loop with and without
``ad.checkpoint`` over blocks of 1,000 steps (the same gradient, bit for bit). A recurrence written
into a buffer one element at a time (n = 1,000 and 10,000) shows the cost of such loops is
linear in their length, against autograd on the same recurrence appending to a list. ``--quick`` stops
at n = 10,000 and 100, runs fewer rounds and 10,000 steps.
"""

import importlib
import math
import time
import tracemalloc

import numpy as np

import ad
from _harness import compare, fmt_time, load_jax, optional, ratio_row, row
from bench_ad_scalar import loss as lv_loss

R = ad.ReverseMode()


def vectorised(xp, x):
    return xp.sum(xp.tanh(x) * xp.exp(-0.5 * x * x)) + xp.sum(x ** 2) / (1.0 + xp.sum(x * x))


def rosenbrock(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def _agree(what, a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-10, atol=1e-10 * max(1.0, float(np.max(np.abs(b))))):
        raise RuntimeError("ad_reverse: %s disagree" % what)


def _rows(label, f, xp_f, x, quick, autograd, jax, forward=True):
    cases = {"primal": lambda: f(x), "reverse": lambda: ad.gradient(f, x, backend=R)}
    g = cases["reverse"]()
    if forward:
        cases["forward"] = lambda: ad.gradient(f, x, backend=ad.ForwardMode())
        _agree("reverse and forward mode", g, cases["forward"]())
    if autograd is not None:
        af = xp_f(importlib.import_module("autograd.numpy"))
        cases["autograd"] = lambda: autograd.grad(af)(x)
        _agree("autograd and reverse mode", cases["autograd"](), g)
    if jax is not None:
        jf = xp_f(jax.numpy)
        jx = jax.numpy.asarray(x)
        jitted = jax.jit(jax.grad(jf))
        cases["jax"] = lambda: jax.block_until_ready(jax.grad(jf)(jx))
        cases["jax_jit"] = lambda: jax.block_until_ready(jitted(jx))
        for key in ("jax", "jax_jit"):
            _agree(key + " and reverse mode", cases[key](), g)
    t = compare(cases, repeat=3 if quick else 7)
    rows = [row(f"{label}, primal", fmt_time(t["primal"])),
            ratio_row(f"{label}, ad.gradient ReverseMode()", t["reverse"], "primal", t["primal"])]
    if forward:
        rows.append(ratio_row(f"{label}, ad.gradient ForwardMode()", t["forward"], "primal", t["primal"]))
    if autograd is None:
        rows.append(row(f"{label}, autograd grad", "not installed"))
    else:
        rows.append(ratio_row(f"{label}, autograd grad", t["autograd"], "primal", t["primal"]))
        rows.append(ratio_row(f"{label}, ad.gradient ReverseMode()", t["reverse"], "autograd grad", t["autograd"],
                              limit=1))
        if not quick and t["reverse"] < 0.01:  # steady state too: rounds of calls, no collection between them
            number = max(2, int(0.02 / t["reverse"]))
            s = compare({"reverse": cases["reverse"], "autograd": cases["autograd"]}, repeat=5, number=number)
            rows.append(ratio_row(f"{label}, ad.gradient ReverseMode(), rounds of {number} calls", s["reverse"],
                                  "autograd grad in the same rounds", s["autograd"]))
    if jax is None:
        rows.append(row(f"{label}, JAX grad (eager, jit)", "not installed"))
    else:
        rows.append(ratio_row(f"{label}, JAX eager grad", t["jax"], "primal", t["primal"]))
        rows.append(ratio_row(f"{label}, JAX jit(grad), compiled", t["jax_jit"], "primal", t["primal"]))
    return rows


def hvp_rows(quick):
    """A Hessian-vector product, forward over reverse, against the reverse gradient (goal: at most 3x)."""
    n = 10_000
    rng = np.random.default_rng(5)
    x, v = rng.uniform(-1.5, 1.5, n), rng.standard_normal(n)
    f = lambda y: vectorised(np, y)
    both = ad.HigherOrder(ad.ForwardMode(), R)
    small = slice(0, 50)
    _agree("forward-over-reverse hvp and forward-over-forward hvp",
           ad.hvp(f, x[small], v[small], backend=both), ad.hvp(f, x[small], v[small]))
    t = compare({"gradient": lambda: ad.gradient(f, x, backend=R), "hvp": lambda: ad.hvp(f, x, v, backend=both)},
                repeat=3 if quick else 7)
    label = f"vectorised, n = {n:,}"
    return [row(f"{label}, ad.gradient ReverseMode()", fmt_time(t["gradient"])),
            ratio_row(f"{label}, ad.hvp forward over reverse", t["hvp"], "reverse gradient", t["gradient"], limit=3)]


def recurrence_buffer(x):
    """A recurrence written into a buffer one element at a time (autograd and JAX forbid the writes)."""
    y = np.empty(len(x))
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = np.tanh(y[i - 1]) + x[i]
    return y @ y


def recurrence_list(xp, x):
    """The same recurrence, appending to a list (what autograd needs)."""
    y = [x[0]]
    for i in range(1, len(x)):
        y.append(xp.tanh(y[i - 1]) + x[i])
    return sum(v * v for v in y)


def buffer_loop_rows(quick, autograd):
    """An element-by-element loop writing into a buffer: linear in its length in reverse mode."""
    rows = []
    for n in (1_000, 4_000) if quick else (1_000, 10_000):
        x = np.random.default_rng(n).uniform(-1.0, 1.0, n)
        cases = {"primal": lambda: recurrence_buffer(x), "reverse": lambda: ad.gradient(recurrence_buffer, x, backend=R)}
        g = cases["reverse"]()
        _agree("the buffer and list recurrences", g, ad.gradient(lambda y: recurrence_list(np, y), x, backend=R))
        if autograd is not None:
            af = lambda y: recurrence_list(importlib.import_module("autograd.numpy"), y)
            cases["autograd"] = lambda: autograd.grad(af)(x)
            _agree("autograd (list) and reverse mode (buffer)", cases["autograd"](), g)
        t = compare(cases, repeat=1 if n > 4_000 else 3)
        label = f"recurrence written into a buffer, n = {n:,}"
        rows += [row(f"{label}, primal", fmt_time(t["primal"])),
                 ratio_row(f"{label}, ad.gradient ReverseMode()", t["reverse"], "primal", t["primal"])]
        if autograd is not None:
            rows.append(ratio_row(f"{label}, ad.gradient ReverseMode()", t["reverse"],
                                  "autograd grad of the list version", t["autograd"]))
    return rows


def _euler(x, steps):
    for _ in range(steps):
        x = x + 0.001 * math.sin(x) * x
    return x


def checkpoint_rows(quick):
    """Peak memory of the gradient of a long time-stepping loop, with and without ad.checkpoint."""
    steps, block = (10_000, 100) if quick else (100_000, 1_000)
    blocked = ad.checkpoint(lambda x: _euler(x, block))

    def plain(x):
        return _euler(x, steps)

    def checkpointed(x):
        for _ in range(steps // block):
            x = blocked(x)
        return x

    g_plain = ad.gradient(plain, 0.5, backend=R)
    g_ck = ad.gradient(checkpointed, 0.5, backend=R)
    if g_plain != g_ck:
        raise RuntimeError("ad_reverse: checkpointed and plain gradients differ")
    rows = []
    for label, f in ((f"{steps:,}-step loop, ad.gradient ReverseMode()", plain),
                     (f"{steps:,}-step loop, ad.gradient ReverseMode(), ad.checkpoint every {block:,} steps", checkpointed)):
        tracemalloc.start()
        t0 = time.perf_counter()
        ad.gradient(f, 0.5, backend=R)
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append(row(label, f"{fmt_time(elapsed)}; peak {peak / 2**20:.1f} MiB"))
    return rows


def default_rows(quick):
    """Forward against reverse mode where the default gradient switches (``ad.api.REVERSE_FROM``)."""
    from ad.api import REVERSE_FROM

    rows = []
    for n in (8, 16, 32, 64, 256, 1000) + (() if quick else (4000,)):
        x = np.random.default_rng(n).uniform(-1.5, 1.5, n)
        for label, f in (("vectorised", lambda y: vectorised(np, y)), ("loop over x[i]", rosenbrock)):
            slow = n >= 1000
            t = compare({"forward": lambda: ad.gradient(f, x, backend=ad.ForwardMode()),
                         "reverse": lambda: ad.gradient(f, x, backend=R)},
                        repeat=1 if slow else (5 if quick else 15), number=1 if slow else 3)
            picked = "reverse" if n >= REVERSE_FROM else "forward"
            rows.append(ratio_row(f"default mode, {label}, n = {n}: ad.gradient ReverseMode()", t["reverse"],
                                  "ForwardMode()", t["forward"]))
            rows.append(row(f"default mode, {label}, n = {n}: the default picks", picked))
    return rows


def run(quick):
    autograd = optional("autograd")
    jax = load_jax()
    rows = []
    for n in (100, 1_000, 10_000) + (() if quick else (100_000,)):
        x = np.random.default_rng(n).uniform(-1.5, 1.5, n)
        rows += _rows(f"vectorised, n = {n:,}", lambda y: vectorised(np, y),
                      lambda xp: (lambda y: vectorised(xp, y)), x, quick, autograd, jax, forward=n <= 1_000)
    for n in (10, 100) + (() if quick else (1_000,)):
        x = np.random.default_rng(n).uniform(-1.5, 1.5, n)
        rows += _rows(f"loop over x[i], n = {n:,}", rosenbrock, lambda xp: rosenbrock, x, quick, autograd, None)
    rows += _rows("Lotka-Volterra RK4 loss (1,000 steps), its 4 parameters", lv_loss, lambda xp: lv_loss,
                  [1.5, 1.0, 3.0, 1.0], quick, autograd, None)
    return rows + buffer_loop_rows(quick, autograd) + default_rows(quick) + hvp_rows(quick) + checkpoint_rows(quick)
