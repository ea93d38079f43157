"""A Newton-CG step with Hessian-vector products: the Hessian is never formed.

Conjugate gradients solve ``H d = -g`` using only ``H @ v`` from ``ad.lazy_hessian``
(each product one forward-over-forward pass); the result matches solving with the dense
Hessian.
"""

import numpy as np

import ad

N = 20
A = np.random.default_rng(11).standard_normal((N, N)) / np.sqrt(N)


def f(x):
    """A smooth convex function: a log-sum-exp of linear forms plus a quadratic."""
    z = A @ x
    return np.log(np.sum(np.exp(z))) + 0.5 * (x @ x) + np.sum(x ** 4) / 12


def conjugate_gradient(H, b, tol=1e-12, maxiter=100):
    """Solve ``H x = b`` for symmetric positive definite ``H`` given only ``H @ v``."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = r @ r
    for k in range(maxiter):
        Hp = H @ p
        alpha = rr / (p @ Hp)
        x = x + alpha * p
        r = r - alpha * Hp
        rr_new = r @ r
        if np.sqrt(rr_new) < tol:
            return x, k + 1
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x, maxiter


def main(out=print):
    x = np.linspace(-1.0, 1.0, N)
    g = ad.gradient(f, x)
    H = ad.lazy_hessian(f, x)
    d, iterations = conjugate_gradient(H, -g)
    dense = np.linalg.solve(ad.hessian(f, x), -g)
    out("Newton-CG step: %d Hessian-vector products, |d - dense solve| = %.1e" % (iterations, np.max(np.abs(d - dense))))
    out("f before %.6f, after the step %.6f" % (f(x), f(x + d)))
    return d, dense, iterations


if __name__ == "__main__":
    main()
