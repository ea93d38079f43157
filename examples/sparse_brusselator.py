"""Stiff 2-D reaction-diffusion (the Brusselator) with SciPy's BDF solver and ad's sparse Jacobian.

The right-hand side is plain NumPy (a periodic 5-point Laplacian written with np.roll).
ad.jacobian_sparsity finds the Jacobian's pattern by running it once under the detector;
ad.Sparse colours the pattern and computes the Jacobian in one forward pass per colour.
The same problem is solved again with SciPy's own finite differences, given the same
pattern as jac_sparsity, and the two runs are compared.

Run: python examples/sparse_brusselator.py [grid]   (grid 64: 8,192 unknowns)
"""

import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

import ad

A, B, ALPHA = 1.0, 3.4, 10.0


def brusselator(u, n):
    """du/dt for the Brusselator on an n x n periodic grid; u holds both species, raveled."""
    x, y = u[: n * n].reshape(n, n), u[n * n:].reshape(n, n)
    h2 = (1.0 / n) ** 2

    def laplacian(z):
        return (np.roll(z, 1, 0) + np.roll(z, -1, 0) + np.roll(z, 1, 1) + np.roll(z, -1, 1) - 4 * z) / h2

    reaction = x * x * y
    dx = A + reaction - (B + 1) * x + ALPHA * laplacian(x)
    dy = B * x - reaction + ALPHA * laplacian(y)
    return np.concatenate([dx.ravel(), dy.ravel()])


def initial(n):
    grid = np.linspace(0, 1, n, endpoint=False)
    X, Y = np.meshgrid(grid, grid, indexing="ij")
    x0 = 22 * Y * (1 - Y) ** 1.5
    y0 = 27 * X * (1 - X) ** 1.5
    return np.concatenate([x0.ravel(), y0.ravel()])


def main(n=64, t_end=1.0, out=print):
    u0 = initial(n)

    def rhs(u):
        return brusselator(u, n)

    start = time.perf_counter()
    pattern = ad.jacobian_sparsity(rhs, u0)
    detect_s = time.perf_counter() - start
    sparse = ad.Sparse(ad.ForwardMode(), jacobian_pattern=pattern)
    colours = sparse.plan("jacobian", rhs, u0)[2]
    out("%d unknowns; pattern: %d nonzeros (%.1f per row), found in %.3f s; %d colours"
        % (u0.size, pattern.nnz, pattern.nnz / u0.size, detect_s, colours))

    J = ad.jacobian(rhs, u0, backend=sparse)
    dense_check = ad.jacobian(rhs, u0)[:, :200] if n <= 16 else None
    if dense_check is not None:
        assert np.allclose(J.toarray()[:, :200], dense_check)

    runs = {}
    for name, options in (("ad sparse Jacobian", {"jac": lambda t, u: ad.jacobian(rhs, u, backend=sparse)}),
                          ("SciPy finite differences", {"jac_sparsity": pattern})):
        start = time.perf_counter()
        sol = solve_ivp(lambda t, u: rhs(u), (0.0, t_end), u0, method="BDF", rtol=1e-6, atol=1e-8, **options)
        runs[name] = (sol, time.perf_counter() - start)
        out("%-26s %6.2f s, %4d steps, %5d evaluations of f, %3d Jacobians"
            % (name, runs[name][1], sol.t.size - 1, sol.nfev, sol.njev))
    a, b = (runs[k][0].y[:, -1] for k in runs)
    out("largest difference between the two final states: %.2e" % np.max(np.abs(a - b)))
    return runs, pattern, colours


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 64)
