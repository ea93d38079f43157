"""A large nonlinear least-squares problem with SciPy's least_squares and ad's sparse Jacobian.

The residuals are the chained Rosenbrock function's (r[2i] = 10 (x[i+1] - x[i]^2),
r[2i+1] = 1 - x[i]), written as a plain Python loop into a preallocated buffer, the way
such code is often written. ad.jacobian_sparsity finds the pattern (at most two entries
per row); ad.Sparse computes the Jacobian in a few forward passes whatever the size.
SciPy's own finite differences with the same jac_sparsity solve it too, for comparison.

Run: python examples/sparse_least_squares.py [unknowns]
"""

import sys
import time

import numpy as np
from scipy.optimize import least_squares

import ad


def residuals(x):
    n = len(x)
    r = np.empty(2 * (n - 1))
    for i in range(n - 1):
        r[2 * i] = 10.0 * (x[i + 1] - x[i] ** 2)
        r[2 * i + 1] = 1.0 - x[i]
    return r


def main(n=200, out=print):
    x0 = np.full(n, -1.2)
    x0[1::2] = 1.0
    start = time.perf_counter()
    pattern = ad.jacobian_sparsity(residuals, x0)
    out("%d unknowns, %d residuals: pattern with %d nonzeros found in %.2f s"
        % (n, pattern.shape[0], pattern.nnz, time.perf_counter() - start))
    sparse = ad.Sparse(ad.ForwardMode(), jacobian_pattern=pattern)
    results = {}
    for name, jac in (("ad sparse Jacobian", lambda x: ad.jacobian(residuals, x, backend=sparse)),
                      ("SciPy finite differences", "2-point")):
        options = {"jac_sparsity": pattern} if isinstance(jac, str) else {}
        start = time.perf_counter()
        sol = least_squares(residuals, x0, jac=jac, method="trf", tr_solver="lsmr", **options)
        results[name] = sol
        out("%-26s %6.2f s, cost %.1e, %3d evaluations of f, %3d Jacobians, |x - 1| %.1e"
            % (name, time.perf_counter() - start, sol.cost, sol.nfev, sol.njev, np.abs(sol.x - 1).max()))
    colours = sparse.plan("jacobian", residuals, x0)[2]
    out("colours (forward passes per Jacobian): %d" % colours)
    return results, pattern, colours


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 200)
