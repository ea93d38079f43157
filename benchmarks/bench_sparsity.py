"""Sparsity: detection against one primal evaluation, sparse Jacobians of the 2-D Brusselator against the dense forward Jacobian, SciPy's grouped finite differences and asdex (JAX), and a `solve_ivp` BDF run with `ad`'s sparse Jacobian against SciPy's finite differences.

Detection (`ad.jacobian_sparsity`, global) runs the function once under the detector
and builds the SciPy pattern; the goal is at most 10x one native evaluation, on the
Brusselator (periodic 5-point Laplacian, two species) and on a vectorised 1-D
finite-difference residual of 10,000 unknowns. The sparse Jacobian rows time one call
of `ad.jacobian(f, x, backend=ad.Sparse(...))` once the pattern and colouring are
cached (what a solver pays per step), `scipy.optimize._numdiff.approx_derivative`
with the same pattern (the grouped differences `least_squares` uses for
`jac_sparsity`), asdex's jitted sparse Jacobian, and the dense forward Jacobian
(`ad.jacobian` with `ForwardMode`). All Jacobians are checked against each other
before timing. The `solve_ivp` rows are `examples/sparse_brusselator.py`. SciPy is
needed; asdex and JAX are optional (installed for benchmarks only). `--quick` uses a
smaller grid and skips the dense Jacobian and the solver runs.
"""

import os
import re
import sys

import numpy as np

import ad
from _harness import compare, fmt_time, load_jax, optional, ratio_row, row

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))


def residual_1d(u):
    h2 = (1.0 / (len(u) + 1)) ** 2
    r = np.empty_like(u)
    r[1:-1] = (u[:-2] - 2 * u[1:-1] + u[2:]) / h2 + np.exp(u[1:-1])
    r[0] = (-2 * u[0] + u[1]) / h2 + np.exp(u[0])
    r[-1] = (u[-2] - 2 * u[-1]) / h2 + np.exp(u[-1])
    return r


def detection_rows(quick):
    from sparse_brusselator import brusselator, initial

    rows = []
    cases = [("Brusselator 64x64 (8,192 unknowns)", lambda u: brusselator(u, 64), initial(64)),
             ("1-D residual, 10,000 unknowns", residual_1d, np.linspace(0, 1, 10_000))]
    if not quick:
        cases.insert(1, ("Brusselator 128x128 (32,768 unknowns)", lambda u: brusselator(u, 128), initial(128)))
    for name, f, x in cases:
        t = compare({"primal": lambda: f(x), "detect": lambda: ad.jacobian_sparsity(f, x)},
                    repeat=5 if quick else 15, number=3)
        nnz = ad.jacobian_sparsity(f, x).nnz
        rows += [row(f"{name}: one native evaluation", fmt_time(t["primal"])),
                 ratio_row(f"{name}: ad.jacobian_sparsity ({nnz:,} nonzeros)", t["detect"], "primal",
                           t["primal"], limit=10)]
    return rows


def _asdex_jacobian(n, u0):
    jax = load_jax()
    asdex = optional("asdex")
    if jax is None or asdex is None:
        return None
    import jax.numpy as jnp

    def f(u):
        x, y = u[: n * n].reshape(n, n), u[n * n:].reshape(n, n)
        h2 = (1.0 / n) ** 2
        lap = lambda z: (jnp.roll(z, 1, 0) + jnp.roll(z, -1, 0) + jnp.roll(z, 1, 1) + jnp.roll(z, -1, 1) - 4 * z) / h2
        reaction = x * x * y
        return jnp.concatenate([(1.0 + reaction - 4.4 * x + 10.0 * lap(x)).ravel(),
                                (3.4 * x - reaction + 10.0 * lap(y)).ravel()])

    coloring = asdex.jacobian_coloring(f, jnp.asarray(u0))
    jitted = jax.jit(asdex.jacobian_from_coloring(f, coloring))
    return lambda u: jitted(jnp.asarray(u)), coloring


def jacobian_rows(quick):
    from scipy.optimize._numdiff import approx_derivative

    from sparse_brusselator import brusselator, initial

    n = 72  # 72 x 72 x 2 = 10,368 unknowns
    u0 = initial(n)
    f = lambda u: brusselator(u, n)
    forward, reverse = ad.Sparse(ad.ForwardMode()), ad.Sparse(ad.ReverseMode())
    J = ad.jacobian(f, u0, backend=forward)
    Jr = ad.jacobian(f, u0, backend=reverse)
    pattern, _, colours = forward.plan("jacobian", f, u0)
    rows_colours = reverse.plan("jacobian", f, u0)[2]
    fd = lambda: approx_derivative(f, u0, method="2-point", sparsity=pattern)
    if abs(J - Jr).max() > 1e-9 * abs(J).max() or abs(J - fd()).max() > 1e-4 * abs(J).max():
        raise RuntimeError("sparsity: the sparse Jacobians disagree")
    cases = {"forward": lambda: ad.jacobian(f, u0, backend=forward),
             "reverse": lambda: ad.jacobian(f, u0, backend=reverse), "fd": fd}
    asdex = _asdex_jacobian(n, u0)
    if asdex is not None:
        compute, coloring = asdex
        got = np.asarray(compute(u0).todense())
        if not np.allclose(got, J.toarray(), rtol=1e-9, atol=1e-9 * abs(J).max()):
            raise RuntimeError("sparsity: asdex's Jacobian disagrees")
        cases["asdex"] = lambda: compute(u0).data.block_until_ready()
    t = compare(cases, repeat=3 if quick else 7)
    pre = f"Brusselator {n}x{n} ({u0.size:,} unknowns, {J.nnz:,} nonzeros)"
    rows = [row(f"{pre}: colours", f"{colours} columns (forward), {rows_colours} rows (reverse)"),
            ratio_row(f"{pre}: ad.Sparse(ForwardMode()), cached plan", t["forward"], "SciPy grouped FD", t["fd"]),
            ratio_row(f"{pre}: ad.Sparse(ReverseMode()), cached plan", t["reverse"], "SciPy grouped FD", t["fd"]),
            row(f"{pre}: SciPy approx_derivative with the pattern", fmt_time(t["fd"]))]
    if "asdex" in cases:
        found = re.search(r"(\d+) colors", str(coloring))
        label = f"{found.group(1)} colours" if found else "coloured"
        rows.append(ratio_row(f"{pre}: asdex, jitted ({label})", t["asdex"], "SciPy grouped FD", t["fd"]))
    else:
        rows.append(row(f"{pre}: asdex", "not installed"))
    if not quick:
        dense = compare({"dense": lambda: ad.jacobian(f, u0)}, repeat=1)["dense"]
        rows.append(ratio_row(f"{pre}: dense ad.jacobian (ForwardMode, {u0.size:,} directions)", dense,
                              "ad.Sparse forward", t["forward"]))
    return rows


def solver_rows(quick):
    if quick:
        return []
    from sparse_brusselator import main

    runs, pattern, colours = main(64, out=lambda line: None)
    (ad_sol, ad_s), (fd_sol, fd_s) = runs["ad sparse Jacobian"], runs["SciPy finite differences"]
    pre = "solve_ivp BDF, Brusselator 64x64, t in [0, 1]"
    return [row(f"{pre}: SciPy finite differences (jac_sparsity)",
                f"{fmt_time(fd_s)}, {fd_sol.nfev} f evaluations, {fd_sol.njev} Jacobians"),
            ratio_row(f"{pre}: ad sparse Jacobian ({colours} colours)", ad_s, "SciPy FD run", fd_s)
            | {"measurement": f"{fmt_time(ad_s)}, {ad_sol.nfev} f evaluations, {ad_sol.njev} Jacobians"}]


def run(quick):
    return detection_rows(quick) + jacobian_rows(quick) + solver_rows(quick)
