"""Forward AD's costs beside hand-written code and peers: the fixed cost of `ad.jvp` (the 10-operation elementwise chain at 1,000 and 1,000,000 elements against the primal and a hand-written NumPy jvp), the Hessian of a 100-input function (against autograd's and JAX's eager `hessian`), and the default chunk on a 1,000-input gradient of a loop over `x[i]`.

The chain is ``sin(x) * exp(-0.5 x^2) + tanh(x) / (1 + x^2)``; the hand-written jvp
computes its value and tangent with the derivative written out in NumPy (the best a
user does by hand). Goals: ``ad.jvp`` at most 4x the primal at n = 1,000 (a fixed cost
per call), and at most 1.15x the hand-written jvp at n = 1,000,000. The Hessian is of
``sum(log(1 + exp(A x))) + 0.1 sum(x^4)`` with ``A`` 50 x 100 (a logistic-regression-like
loss): ``ad.hessian`` (forward over forward, one pass of 100 x 100 directions with the
default chunk) against ``autograd.hessian`` (reverse over reverse) and eager
``jax.hessian``; the goal is at most autograd's time. The chunk rows run the gradient of
``sum(x[i] * x[i+1] + sin(x[i]))``, a loop over 1,000 scalars, with the default chunk
(chosen from the input size, see docs/ad.md) and with ``chunk=16``, against autograd's
reverse-mode ``grad``. Every result is checked against the others (or the analytic
answer) before timing. ``--quick`` uses fewer rounds.
"""

import importlib

import numpy as np

import ad
from _harness import compare, fmt_time, load_jax, optional, ratio_row, row


def chain(xp, x):
    return xp.sin(x) * xp.exp(-0.5 * x * x) + xp.tanh(x) / (1.0 + x * x)


def chain_jvp(x, v):
    """The chain's value and tangent, the derivative written out by hand."""
    s, e, t, d = np.sin(x), np.exp(-0.5 * x * x), np.tanh(x), 1.0 + x * x
    value = s * e + t / d
    tangent = (np.cos(x) * e - s * x * e + (1.0 - t * t) / d - t * 2.0 * x / (d * d)) * v
    return value, tangent


def _agree(what, a, b, rtol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or not np.allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(b))))):
        raise RuntimeError(f"ad_cost: {what} disagree")


def jvp_rows(quick):
    rows = []
    for n, repeat in ((1_000, 2000), (1_000_000, 5)):
        rng = np.random.default_rng(n)
        x, v = rng.standard_normal(n), rng.standard_normal(n)
        f = lambda y: chain(np, y)
        value, tangent = ad.jvp(f, x, v)
        hv, ht = chain_jvp(x, v)
        _agree("ad.jvp and the hand-written jvp", tangent, ht, 1e-12)
        _agree("values", value, hv, 1e-12)
        number = max(1, repeat // (10 if quick else 1))
        t = compare({"primal": lambda: f(x), "hand": lambda: chain_jvp(x, v), "ad": lambda: ad.jvp(f, x, v)},
                    repeat=3 if quick else 9, number=number)
        pre = f"chain of 10 elementwise ops, {n:,} float64"
        rows += [
            row(f"{pre}, primal", fmt_time(t["primal"])),
            ratio_row(f"{pre}, hand-written NumPy jvp", t["hand"], "primal", t["primal"]),
            ratio_row(f"{pre}, ad.jvp", t["ad"], "primal", t["primal"], limit=4 if n == 1_000 else None),
            ratio_row(f"{pre}, ad.jvp", t["ad"], "hand-written jvp", t["hand"], limit=1.15 if n > 1_000 else None),
        ]
    return rows


def _loss(xp, A):
    def loss(x):
        return xp.sum(xp.log(1.0 + xp.exp(A @ x))) + 0.1 * xp.sum(x ** 4)

    return loss


def hessian_rows(quick, autograd, jax):
    rng = np.random.default_rng(7)
    A = rng.standard_normal((50, 100)) / 10
    x = rng.standard_normal(100)
    f = _loss(np, A)
    s = 1 / (1 + np.exp(-(A @ x)))
    exact = (A.T * (s * (1 - s))) @ A + np.diag(1.2 * x ** 2)
    H = ad.hessian(f, x)
    _agree("ad.hessian and the analytic Hessian", H, exact, 1e-10)
    cases = {"primal": lambda: f(x), "ad": lambda: ad.hessian(f, x)}
    if autograd is not None:
        anp = importlib.import_module("autograd.numpy")
        ag = lambda: autograd.hessian(_loss(anp, A))(x)
        _agree("autograd.hessian and ad.hessian", ag(), H, 1e-10)
        cases["autograd"] = ag
    if jax is not None:
        jf = _loss(jax.numpy, jax.numpy.asarray(A))
        jx = jax.numpy.asarray(x)
        jh = lambda: jax.block_until_ready(jax.hessian(jf)(jx))
        _agree("jax.hessian and ad.hessian", jh(), H, 1e-10)
        cases["jax"] = jh
    t = compare(cases, repeat=2 if quick else 7)
    pre = "Hessian of a 100-input loss (A is 50 x 100)"
    rows = [row(f"{pre}, primal", fmt_time(t["primal"])),
            ratio_row(f"{pre}, ad.hessian", t["ad"], "primal", t["primal"])]
    if autograd is None:
        rows.append(row(f"{pre}, autograd hessian", "not installed"))
    else:
        rows.append(ratio_row(f"{pre}, autograd hessian", t["autograd"], "primal", t["primal"]))
        rows.append(ratio_row(f"{pre}, ad.hessian", t["ad"], "autograd hessian", t["autograd"], limit=1))
    if jax is None:
        rows.append(row(f"{pre}, JAX eager jax.hessian", "not installed"))
    else:
        rows.append(ratio_row(f"{pre}, JAX eager jax.hessian", t["jax"], "primal", t["primal"]))
        rows.append(ratio_row(f"{pre}, ad.hessian", t["ad"], "JAX eager hessian", t["jax"]))
    return rows


def loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + x[i] * x[i + 1] + np.sin(x[i])
    return s


def chunk_rows(quick, autograd):
    n = 1000
    x = np.random.default_rng(3).uniform(-1, 1, n)
    exact = np.cos(x)  # d/dx[i] of x[i] x[i+1] + sin(x[i]) for i < n - 1
    exact[-1] = 0.0
    exact[:-1] += x[1:]
    exact[1:] += x[:-1]
    cases = {
        "primal": lambda: loop(x),
        "default": lambda: ad.gradient(loop, x, backend=ad.ForwardMode()),  # forward mode's default chunk
        "chunk16": lambda: ad.gradient(loop, x, backend=ad.ForwardMode(chunk=16)),
    }
    g = cases["default"]()
    _agree("ad.gradient (default chunk) and the analytic gradient", g, exact, 1e-12)
    _agree("chunk=16 and the default chunk", cases["chunk16"](), g, 1e-12)
    if autograd is not None:
        cases["autograd"] = lambda: autograd.grad(loop)(x)
        _agree("autograd grad and ad.gradient", cases["autograd"](), g, 1e-12)
    t = compare(cases, repeat=1 if quick else 3)
    pre = f"gradient of a loop over x[i], {n:,} inputs"
    rows = [row(f"{pre}, primal", fmt_time(t["primal"])),
            ratio_row(f"{pre}, ad.gradient chunk=16", t["chunk16"], "primal", t["primal"]),
            ratio_row(f"{pre}, ad.gradient default chunk", t["default"], "primal", t["primal"]),
            ratio_row(f"{pre}, ad.gradient default chunk", t["default"], "chunk=16", t["chunk16"])]
    if autograd is None:
        rows.append(row(f"{pre}, autograd grad (reverse mode)", "not installed"))
    else:
        rows.append(ratio_row(f"{pre}, autograd grad (reverse mode)", t["autograd"], "primal", t["primal"]))
        rows.append(ratio_row(f"{pre}, ad.gradient default chunk", t["default"], "autograd grad", t["autograd"]))
    return rows


def run(quick):
    autograd = optional("autograd")
    jax = load_jax()
    return jvp_rows(quick) + hessian_rows(quick, autograd, jax) + chunk_rows(quick, autograd)
