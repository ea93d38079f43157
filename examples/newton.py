"""Newton's method with a Hessian: minimize the chained Rosenbrock function of 6 variables.

Each step solves ``H d = -g`` with ``g`` and ``H`` from ``ad.value_gradient_and_hessian``
(forward over forward mode), with a backtracking line search.
"""

import numpy as np

import ad


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton(f, x, tol=1e-10, maxiter=100):
    for k in range(maxiter):
        value, g, H = ad.value_gradient_and_hessian(f, x)
        if np.linalg.norm(g) < tol:
            return x, k
        d = np.linalg.solve(H, -g)
        if g @ d >= 0:  # not a descent direction: fall back to the gradient
            d = -g
        alpha = 1.0
        while f(x + alpha * d) > value + 1e-4 * alpha * (g @ d) and alpha > 1e-10:
            alpha /= 2
        x = x + alpha * d
    return x, maxiter


def main(out=print):
    x0 = np.linspace(-1.0, 0.5, 6)
    x, steps = newton(rosenbrock, x0)
    out("minimum of the 6-variable Rosenbrock function after %d Newton steps: %s" % (steps, np.array2string(x, precision=8)))
    return x, steps


if __name__ == "__main__":
    main()
