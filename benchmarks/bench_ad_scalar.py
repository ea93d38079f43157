"""Scalar forward-mode AD: the derivative of a Lotka-Volterra RK4 loss (plain Python floats and lists) with respect to one parameter, as a multiple of the primal run, by `ad.derivative`, a hand-written dual-number class, autograd's `make_jvp` and JAX's eager `jax.jvp`; and the 4-parameter Hessian by `ad.hessian`, a dual-of-dual class and eager `jax.hessian`.

The loss integrates the Lotka-Volterra equations with classical RK4 (1000
steps, dt = 0.01, parameters [1.5, 1.0, 3.0, 1.0]) and sums the states, in
plain Python: lists, unpacking, indexing, float arithmetic. Every peer runs
this same function, so each row measures how much a derivative of ordinary
scalar code costs. The dual class is the usual operator-overloading one
(``__slots__``, ``__add__``, ``__mul__``, ...); its Hessian runs dual numbers
of dual numbers, 16 passes, as many as ``ad.hessian`` (forward over forward,
one pass per pair of directions). autograd and JAX are the optional ``bench``
extra: rows say "not installed" when either is missing. JAX runs with
``jax_enable_x64`` (float64 like the others) on the CPU, op by op (no
``jit``), and its timings wait for the results (``block_until_ready``);
``jax.hessian`` is slow (40 to 70 s on 2 cores), so it is timed in one call after a
warm-up and skipped with ``--quick``. Before timing, all derivatives must agree
with each other to 1e-10 (relative) and with central differences to 1e-6, or
the benchmark raises. ``--quick`` uses 200 steps and fewer rounds.
"""

import ad
from _harness import compare, fmt_time, load_jax, optional, ratio_row, row, timed

PARAMS = [1.5, 1.0, 3.0, 1.0]  # alpha, beta, gamma, delta
ALPHA = PARAMS[0]


def lotka_volterra(u, p):
    x, y = u
    a, b, c, d = p
    return [a * x - b * x * y, c * x * y - d * y]


def loss(params, steps=1000, dt=0.01):  # params: [alpha, beta, gamma, delta]
    u = [1.0, 1.0]
    total = 0.0
    for _ in range(steps):
        k1 = lotka_volterra(u, params)
        k2 = lotka_volterra([u[0] + dt / 2 * k1[0], u[1] + dt / 2 * k1[1]], params)
        k3 = lotka_volterra([u[0] + dt / 2 * k2[0], u[1] + dt / 2 * k2[1]], params)
        k4 = lotka_volterra([u[0] + dt * k3[0], u[1] + dt * k3[1]], params)
        u = [u[0] + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
             u[1] + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])]
        total += u[0] + u[1]
    return total


class Dual:
    """A hand-written dual number ``v + d*eps``; ``v`` and ``d`` may be Duals themselves."""

    __slots__ = ("v", "d")

    def __init__(self, v, d):
        self.v = v
        self.d = d

    def __add__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v + o.v, self.d + o.d)
        return Dual(self.v + o, self.d)

    __radd__ = __add__

    def __sub__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v - o.v, self.d - o.d)
        return Dual(self.v - o, self.d)

    def __rsub__(self, o):
        return Dual(o - self.v, -self.d)

    def __neg__(self):
        return Dual(-self.v, -self.d)

    def __mul__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v * o.v, self.v * o.d + self.d * o.v)
        return Dual(self.v * o, self.d * o)

    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v / o.v, (self.d * o.v - self.v * o.d) / (o.v * o.v))
        return Dual(self.v / o, self.d / o)


def dual_hessian(f, xs):
    """Hessian of ``f`` at ``xs`` with dual numbers of dual numbers: one pass per (i, j)."""
    n = len(xs)
    H = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            args = [Dual(Dual(x, 1.0 if k == i else 0.0), Dual(1.0 if k == j else 0.0, 0.0))
                    for k, x in enumerate(xs)]
            H[i][j] = f(args).d.d
    return H


def agree(what, a, b, rtol, scale=None):
    """Raise unless ``a`` and ``b`` agree to ``rtol`` relative to ``scale`` (default: |b|)."""
    scale = abs(b) if scale is None else scale
    if not abs(a - b) <= rtol * max(scale, 1.0):
        raise RuntimeError(f"ad_scalar: {what} disagree: {a!r} vs {b!r} (rtol {rtol:g})")


def agree_matrix(what, A, B, rtol):
    scale = max(abs(v) for r in B for v in r)
    for i, (ra, rb) in enumerate(zip(A, B)):
        for j, (a, b) in enumerate(zip(ra, rb)):
            agree(f"{what} [{i}][{j}]", float(a), float(b), rtol, scale)


def run(quick):
    steps = 200 if quick else 1000
    f = lambda a: loss([a, 1.0, 3.0, 1.0], steps)   # the one-parameter function
    lossn = lambda p: loss(p, steps)
    autograd = optional("autograd")
    jax = load_jax()

    # --- derivative with respect to alpha: check every method, then time them
    primal = f(ALPHA)
    h = 1e-5
    central = (f(ALPHA + h) - f(ALPHA - h)) / (2 * h)
    out = f(Dual(ALPHA, 1.0))
    agree("primal and Dual value", out.v, primal, 1e-12)
    d_dual = out.d
    value, d_ad = ad.value_and_derivative(f, ALPHA)
    agree("primal and ad value", value, primal, 1e-12)
    agree("ad.derivative and Dual", d_ad, d_dual, 1e-10)
    agree("ad.derivative and central difference", d_ad, central, 1e-6)

    fast = {
        "primal": lambda: f(ALPHA),
        "dual": lambda: f(Dual(ALPHA, 1.0)).d,
        "ad": lambda: ad.derivative(f, ALPHA),
    }
    slow = {"primal": fast["primal"]}
    if autograd is not None:
        ag_jvp = lambda: autograd.make_jvp(f)(ALPHA)(1.0)
        v, d = ag_jvp()
        agree("primal and autograd value", float(v), primal, 1e-12)
        agree("autograd make_jvp and ad.derivative", float(d), d_ad, 1e-10)
        slow["autograd"] = ag_jvp
    if jax is not None:
        jnp = jax.numpy
        x, v = jnp.float64(ALPHA), jnp.float64(1.0)
        jax_jvp = lambda: jax.block_until_ready(jax.jvp(f, (x,), (v,)))
        v, d = jax_jvp()
        agree("primal and jax value", float(v), primal, 1e-12)
        agree("jax.jvp and ad.derivative", float(d), d_ad, 1e-10)
        slow["jax"] = jax_jvp

    t = compare(fast, repeat=5 if quick else 30)
    s = compare(slow, repeat=2 if quick else 3)

    # --- 4-parameter Hessian
    H_ad = ad.hessian(lossn, PARAMS)
    H_dd = dual_hessian(lossn, PARAMS)
    agree_matrix("ad.hessian and Dual-of-Dual Hessian", H_ad, H_dd, 1e-10)
    grad = lambda p: [f_out.d for f_out in (lossn([Dual(x, float(k == i)) for k, x in enumerate(p)])
                                            for i in range(len(p)))]
    H_cd = [[(a - b) / (2 * h) for a, b in zip(grad([x + h * (k == j) for k, x in enumerate(PARAMS)]),
                                                 grad([x - h * (k == j) for k, x in enumerate(PARAMS)]))]
            for j in range(len(PARAMS))]
    agree_matrix("ad.hessian and central differences of the gradient", H_ad, H_cd, 1e-6)
    hess = compare({"primal": lambda: lossn(PARAMS),
                    "ad": lambda: ad.hessian(lossn, PARAMS),
                    "dual": lambda: dual_hessian(lossn, PARAMS)},
                   repeat=2 if quick else 5)
    t_jax_hessian = None
    if jax is not None and not quick:
        p = jax.numpy.array(PARAMS)
        jax.block_until_ready(jax.hessian(lambda q: loss(q, 10))(p))  # warm-up
        H_jax = []
        t_jax_hessian = timed(lambda: H_jax.append(jax.block_until_ready(jax.hessian(lossn)(p))))
        agree_matrix("jax.hessian and ad.hessian", H_jax[0].tolist(), H_ad, 1e-10)

    tp = min(t["primal"], s["primal"], hess["primal"])  # best round of the primal over all groups
    pre = f"LV RK4 {steps} steps"
    rows = [
        row(f"{pre}, primal loss", fmt_time(tp)),
        ratio_row(f"{pre}, d/dalpha, hand-written Dual class", t["dual"], "primal", tp),
        ratio_row(f"{pre}, d/dalpha, ad.derivative", t["ad"], "primal", tp),
        ratio_row(f"{pre}, d/dalpha, ad.derivative", t["ad"], "Dual class", t["dual"], limit=2),
    ]
    for key, label, mod in (("autograd", "autograd make_jvp", autograd), ("jax", "JAX eager jax.jvp", jax)):
        if mod is None:
            rows.append(row(f"{pre}, d/dalpha, {label}", "not installed"))
        else:
            rows.append(ratio_row(f"{pre}, d/dalpha, {label}", s[key], "primal", tp))
    rows += [
        ratio_row(f"{pre}, 4x4 Hessian, ad.hessian (16 passes)", hess["ad"], "primal", tp),
        ratio_row(f"{pre}, 4x4 Hessian, Dual-of-Dual class (16 passes)", hess["dual"], "primal", tp),
        ratio_row(f"{pre}, 4x4 Hessian, ad.hessian", hess["ad"], "Dual-of-Dual", hess["dual"]),
    ]
    label = f"{pre}, 4x4 Hessian, JAX eager jax.hessian (1 call)"
    if jax is None:
        rows.append(row(label, "not installed"))
    elif t_jax_hessian is None:
        rows.append(row(label, "skipped with --quick"))
    else:
        rows.append(ratio_row(label, t_jax_hessian, "primal", tp))
    return rows
