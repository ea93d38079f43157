"""Gauss-Newton for nonlinear least squares, with switchable backends (AbstractDifferentiation's
appendix C): fit ``y = a exp(-b t) + c`` to noisy data.

``x_{k+1} = x_k - alpha_k (J^T J)^{-1} J^T r(x_k)`` with a halving line search; ``J`` is
the Jacobian of the residuals, from whichever backend is passed in.
"""

import numpy as np

import ad

T = np.linspace(0.0, 4.0, 40)
TRUE = np.array([2.5, 1.3, 0.5])
Y = TRUE[0] * np.exp(-TRUE[1] * T) + TRUE[2] + 0.01 * np.random.default_rng(3).standard_normal(T.size)


def residuals(x, t=T, y=Y):
    a, b, c = x[0], x[1], x[2]
    return a * np.exp(-b * t) + c - y


def cost(x):
    r = residuals(x)
    return 0.5 * float(r @ r)


def step(x, backend):
    J = ad.jacobian(residuals, x, backend=backend)
    d = -np.linalg.solve(J.T @ J, J.T @ residuals(x))
    alpha = 1.0
    while cost(x + alpha * d) > cost(x) and alpha > 1e-8:  # line search: halve until the cost drops
        alpha /= 2
    return x + alpha * d


def gauss_newton(x, backend, maxiter=20):
    history = [x]
    for _ in range(maxiter):
        x = step(x, backend)
        history.append(x)
    return x, history


def main(out=print):
    x0 = np.array([1.0, 0.5, 0.0])
    results = {}
    for backend in (ad.ForwardMode(), ad.ForwardMode(chunk=1), ad.FiniteDifferences()):
        x, history = gauss_newton(x0, backend)
        results[repr(backend)] = x
        out("%-45s a, b, c = %s   cost %.3e" % (backend, np.array2string(x, precision=6), cost(x)))
    return results


if __name__ == "__main__":
    main()
