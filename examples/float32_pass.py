"""The talk's literal translation pass: float literals become 32-bit under the context."""

import numpy as np

import context


def kinetic_energy(mass, velocity):
    return 0.5 * mass * velocity**2


def sigm(x):
    return 1.0 / (1.0 + np.exp(-x))


def hmlstm_kernel(z, zb, c, f, i, g):
    if z == 1.0:  # FLUSH
        return sigm(i) * np.tanh(g)
    if zb == 0.0:  # COPY
        return c
    return sigm(f) * c + sigm(i) * np.tanh(g)  # UPDATE


class Bits32(context.Context):
    """Every float literal in the code it runs is a ``numpy.float32``."""

    passes = (context.passes.float32_literals,)


def main(out=print):
    native = kinetic_energy(2, 3)
    under = context.overdub(Bits32(), kinetic_energy, 2, 3)
    out("kinetic_energy(2, 3) natively:     %r (%s)" % (native, type(native).__name__))
    out("kinetic_energy(2, 3) with the pass: %r (%s)" % (under, type(under).__name__))
    z, zb, c, f, i, g = np.float32([0.5, 0.25, 0.1, 0.2, 0.3, 0.4])
    kernel = context.overdub(Bits32(), hmlstm_kernel, z, zb, c, f, i, g)
    out("hmlstm_kernel on float32 inputs with the pass: %r (%s)" % (kernel, type(kernel).__name__))
    return native, under, kernel


if __name__ == "__main__":
    main()
