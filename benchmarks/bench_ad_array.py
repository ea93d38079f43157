"""Array forward-mode AD: `ad.jvp` of a chain of 10 elementwise NumPy operations on 1e6 float64 elements as a multiple of the primal (against autograd's forward-mode `make_jvp` and JAX's `jax.jvp`, eager and jitted); and the gradient of a 64-input Rosenbrock sum written as a Python loop over `x[i]`, by `ad.gradient` with `ForwardMode(chunk=k)` for k = 1 to 64 (time, speedup over k = 1, peak traced memory), against autograd's and JAX's reverse-mode `grad`.

The elementwise chain is ``sin(x) * exp(-0.5 * x * x) + tanh(x) / (1 + x * x)``
(10 ufunc and operator calls), written once against a NumPy-like module: the
primal and ``ad.jvp`` run it on ``numpy``, autograd on ``autograd.numpy`` and
JAX on ``jax.numpy``, with one random direction ``v``. The goal is ``ad.jvp``
at most 3x the primal. The Rosenbrock sum ``sum(100 (x[i+1] - x[i]**2)**2 +
(1 - x[i])**2 for i < 63)`` indexes a NumPy array of 64 float64 inputs one
element at a time, so its cost is per scalar operation: ``chunk=k`` runs the
function 64/k times with k tangent directions at once (``chunk=1``: 64 runs
with plain float tangents). Peak memory is ``tracemalloc``'s peak during one
gradient call after a warm-up (NumPy's buffers are traced; JAX's XLA buffers
are not, so JAX has no memory figure). autograd and JAX are the optional
``bench`` extra: rows say "not installed" when either is missing. JAX runs
with ``jax_enable_x64`` on the CPU and waits for its results
(``block_until_ready``); "eager" is op by op, the ``jax.jit`` row is compiled
once before timing. Before timing, every derivative must agree with the
others to 1e-10 (relative to the largest entry), the jvp with central
differences to 1e-6 and the gradients with the analytic Rosenbrock gradient.
``--quick`` uses 2e5 elements and fewer rounds.
"""

import importlib
import tracemalloc

import numpy as np

import ad
from _harness import compare, fmt_time, load_jax, optional, ratio_row, row

N_INPUTS = 64
CHUNKS = (1, 2, 4, 8, 16, 32, 64)


def chain(xp, x):
    """10 elementwise calls: sin, exp, tanh, 4 multiplications, +, / and +."""
    return xp.sin(x) * xp.exp(-0.5 * x * x) + xp.tanh(x) / (1.0 + x * x)


def rosenbrock(x):
    """The chained Rosenbrock sum over ``len(x)`` inputs, one scalar ``x[i]`` at a time."""
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock_gradient(x):
    """The analytic gradient of ``rosenbrock``."""
    t = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[:-1] += -400.0 * x[:-1] * t - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * t
    return g


def agree(what, a, b, rtol):
    """Raise unless arrays ``a`` and ``b`` agree to ``rtol`` relative to max(|b|, 1)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise RuntimeError(f"ad_array: {what}: shapes differ: {a.shape} vs {b.shape}")
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    if not err <= rtol * max(float(np.max(np.abs(b))) if b.size else 0.0, 1.0):
        raise RuntimeError(f"ad_array: {what} disagree: max abs difference {err:.3g} (rtol {rtol:g})")


def peak_bytes(fn):
    """Peak traced memory above the starting level during one call of ``fn``."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()


def fmt_kib(n):
    return f"{n / 1024:.1f} KiB"


def jvp_rows(quick, autograd, jax):
    n = 200_000 if quick else 1_000_000
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(n), rng.standard_normal(n)
    f = lambda y: chain(np, y)

    # --- check every method, then time them
    primal = f(x)
    h = 1e-6
    central = (f(x + h * v) - f(x - h * v)) / (2 * h)
    value, d_ad = ad.jvp(f, x, v)
    agree("primal and ad.jvp value", value, primal, 1e-12)
    agree("ad.jvp and central differences", d_ad, central, 1e-6)

    cases = {"primal": lambda: f(x), "ad": lambda: ad.jvp(f, x, v)}
    if autograd is not None:
        anp = importlib.import_module("autograd.numpy")
        ag_jvp = lambda: autograd.make_jvp(lambda y: chain(anp, y))(x)(v)
        value, d = ag_jvp()
        agree("primal and autograd value", value, primal, 1e-12)
        agree("autograd make_jvp and ad.jvp", d, d_ad, 1e-10)
        cases["autograd"] = ag_jvp
    if jax is not None:
        jnp = jax.numpy
        xj, vj = jnp.asarray(x), jnp.asarray(v)
        fj = lambda y: chain(jnp, y)
        jax_jvp = lambda: jax.block_until_ready(jax.jvp(fj, (xj,), (vj,)))
        jitted = jax.jit(lambda a, b: jax.jvp(fj, (a,), (b,)))
        jax_jit = lambda: jax.block_until_ready(jitted(xj, vj))
        for key, fn in (("jax", jax_jvp), ("jax_jit", jax_jit)):
            value, d = fn()   # also compiles the jitted one
            agree(f"primal and {key} value", value, primal, 1e-12)
            agree(f"{key} jvp and ad.jvp", d, d_ad, 1e-10)
            cases[key] = fn

    t = compare(cases, repeat=3 if quick else 15)
    tp = t["primal"]
    pre = f"chain of 10 elementwise ops, {n:,} float64"
    rows = [
        row(f"{pre}, primal (NumPy)", fmt_time(tp)),
        ratio_row(f"{pre}, ad.jvp", t["ad"], "primal", tp, limit=3),
    ]
    if autograd is None:
        rows.append(row(f"{pre}, autograd make_jvp (forward mode)", "not installed"))
    else:
        rows.append(ratio_row(f"{pre}, autograd make_jvp (forward mode)", t["autograd"], "primal", tp))
    for key, label in (("jax", "JAX eager jax.jvp"), ("jax_jit", "JAX jax.jit(jax.jvp), compiled, not eager")):
        if jax is None:
            rows.append(row(f"{pre}, {label}", "not installed"))
        else:
            rows.append(ratio_row(f"{pre}, {label}", t[key], "primal", tp))
    return rows


def gradient_rows(quick, autograd, jax):
    x = np.random.default_rng(1).uniform(-2.0, 2.0, N_INPUTS)
    exact = rosenbrock_gradient(x)
    primal = rosenbrock(x)
    grads = {k: (lambda k=k: ad.gradient(rosenbrock, x, backend=ad.ForwardMode(chunk=k))) for k in CHUNKS}

    # --- check every method (this also warms them up), then time them
    value, g = ad.value_and_gradient(rosenbrock, x, backend=ad.ForwardMode(chunk=1))
    agree("primal and ad.value_and_gradient value", value, primal, 1e-12)
    agree("ad.gradient chunk=1 and the analytic gradient", g, exact, 1e-10)
    for k in CHUNKS:
        agree(f"ad.gradient chunk={k} and chunk=1", grads[k](), g, 1e-10)
    fast = {"primal": lambda: rosenbrock(x)}
    fast.update(grads)
    if autograd is not None:
        ag_grad = lambda: autograd.grad(rosenbrock)(x)
        agree("autograd grad and ad.gradient", ag_grad(), g, 1e-10)
        fast["autograd"] = ag_grad
    slow = {"primal": fast["primal"]}
    if jax is not None:
        xj = jax.numpy.asarray(x)
        jax_grad = lambda: jax.block_until_ready(jax.grad(rosenbrock)(xj))
        agree("jax.grad and ad.gradient", jax_grad(), g, 1e-10)
        slow["jax"] = jax_grad

    t = compare(fast, repeat=3 if quick else 20)
    s = compare(slow, repeat=1 if quick else 3)
    peaks = {k: peak_bytes(grads[k]) for k in CHUNKS}
    if autograd is not None:
        peaks["autograd"] = peak_bytes(fast["autograd"])

    tp = min(t["primal"], s["primal"])
    pre = f"Rosenbrock, {N_INPUTS} inputs, loop over x[i]"
    rows = [row(f"{pre}, primal", fmt_time(tp))]
    for k in CHUNKS:
        passes = -(-N_INPUTS // k)
        label = f"{pre}, ad.gradient ForwardMode(chunk={k}), {passes} pass{'es' if passes > 1 else ''}"
        r = ratio_row(label, t[k], "primal", tp)
        r["measurement"] += f"; {t[1] / t[k]:.2f}x faster than chunk=1; peak {fmt_kib(peaks[k])}"
        rows.append(r)
    if autograd is None:
        rows.append(row(f"{pre}, autograd grad (reverse mode)", "not installed"))
    else:
        r = ratio_row(f"{pre}, autograd grad (reverse mode)", t["autograd"], "primal", tp)
        r["measurement"] += f"; peak {fmt_kib(peaks['autograd'])}"
        rows.append(r)
    if jax is None:
        rows.append(row(f"{pre}, JAX eager jax.grad (reverse mode)", "not installed"))
    else:
        rows.append(ratio_row(f"{pre}, JAX eager jax.grad (reverse mode)", s["jax"], "primal", tp))
    best = min(CHUNKS, key=lambda k: t[k])
    if autograd is not None:
        rows.append(ratio_row(f"{pre}, ad.gradient chunk={best} (fastest)", t[best],
                              "autograd grad", t["autograd"]))
    return rows


def run(quick):
    autograd = optional("autograd")
    jax = load_jax()
    return jvp_rows(quick, autograd, jax) + gradient_rows(quick, autograd, jax)
