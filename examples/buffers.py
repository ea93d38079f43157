"""Differentiating code that writes into preallocated buffers, with no cache type.

Two ports from the DifferentiationInterface discussion of PreallocationTools: in Julia
a buffer made outside the function must be wrapped in a ``DiffCache`` so that dual
numbers fit in it. Here the same code differentiates as written, in forward mode (the
tangents of what is written into a plain float buffer are kept beside it, in shadow
memory) and in reverse mode (each write is recorded as a new version of the buffer).
"""

import numpy as np

import ad

RANDMAT = np.random.default_rng(7).uniform(0.1, 0.9, size=(5, 3))
STO = np.empty_like(RANDMAT)  # a buffer made outside the function, reused by every call


def claytonsample(sto, tau, alpha, randmat=RANDMAT):
    """Samples of a Clayton copula written into ``sto`` (the seed's Julia code, 0-based)."""
    sto[:] = randmat
    if tau == 0:
        return sto
    for i in range(sto.shape[0]):
        v = sto[i, 1]
        u = sto[i, 0]
        sto[i, 0] = (1 - u ** (-tau) + u ** (-tau) * v ** (-(tau / (1 + tau)))) ** (-1 / tau) * alpha
        sto[i, 1] = (1 - u ** (-tau) + u ** (-tau) * v ** (-(tau / (1 + tau)))) ** (-1 / tau)
    return sto


def foo(du, u, params):
    """``du = u + A @ u`` through a temporary: ``mul!(tmp, A, u)`` is ``np.matmul(A, u, out=tmp)``."""
    A, tmp = params
    np.matmul(A, u, out=tmp)
    du[:] = u + tmp
    return du


def main(out=print):
    d_clayton = ad.derivative(lambda tau: claytonsample(STO, tau, 0.0), 0.3)
    out("d claytonsample / d tau at 0.3 (column 0 is 0 with alpha = 0):\n%s" % np.array2string(d_clayton + 0.0, precision=5))
    fd = ad.derivative(lambda tau: claytonsample(np.empty_like(RANDMAT), tau, 0.0), 0.3,
                       backend=ad.FiniteDifferences())
    out("largest difference from finite differences: %.1e" % np.max(np.abs(d_clayton - fd)))
    d_reverse = ad.derivative(lambda tau: claytonsample(STO, tau, 0.0), 0.3, backend=ad.ReverseMode())
    out("reverse mode, largest difference from forward mode: %.1e" % np.max(np.abs(d_reverse - d_clayton)))

    u = np.ones((5, 5))
    du = np.ones((5, 5))
    params = (np.ones((5, 5)), np.zeros((5, 5)))  # the temporary is a plain array
    J = ad.jacobian(lambda x: foo(du, x, params), u)
    out("jacobian of foo! with respect to u: shape %s, J = I + kron(A, I)? %s"
        % (J.shape, np.allclose(J.reshape(25, 25), np.eye(25) + np.kron(np.ones((5, 5)), np.eye(5)))))
    J_reverse = ad.jacobian(lambda x: foo(du, x, params), u, backend=ad.ReverseMode())
    out("the same in reverse mode (one backward pass per row)? %s" % np.array_equal(J_reverse, J))
    return d_clayton, fd, J


if __name__ == "__main__":
    main()
