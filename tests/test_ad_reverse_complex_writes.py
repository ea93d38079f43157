"""Complex values written into arrays in reverse mode (buffers, views, out=, np.add.at, loops).

A buffer's versions are tape nodes too: a complex buffer's must keep the imaginary parts of
their cotangents, and a read must scatter a complex cotangent into complex memory. Both once
lost them silently: the gradient of ``sum(|b * 3|^2)`` with ``b[0] = 1j y0; b[1:] = (2 + 1j) y[1:]``
was ``[0, -50.4, 79.2]`` where the answer is ``[5.4, -63, 99]``. Each case is checked against
forward mode with the dot-product test of ``test_ad_reverse_complex.py``.
"""

import numpy as np
import pytest

import ad
from .test_ad_reverse_complex import agree

R, F = ad.ReverseMode(), ad.ForwardMode()
OUTSIDE = np.zeros(3, dtype=complex)


def setitem(z):
    b = np.zeros(3, dtype=complex)
    b[0] = z[0, 0]
    b[1:] = z[1, :2] * 2
    return b * 3


def in_place_operators(z):
    b = np.zeros((2, 3), dtype=complex)
    b += z
    b[0] *= z[1]
    return b


def copy_then_write(z):
    b = z.copy()
    b[0, 1] = 5.0
    np.copyto(b[1], z[0] * 2)
    return b


def add_at(z):
    b = np.zeros(4, dtype=complex)
    np.add.at(b, [0, 1, 1], z[0, :3])
    np.subtract.at(b, [3, 3], z[1, :2] * z[0, :2])
    return b * z[1, 0]


def recurrence(z):
    y = np.zeros(6, dtype=complex)
    y[0] = z[0, 0]
    for i in range(1, 6):
        y[i] = y[i - 1] * z.ravel()[i] + 1j
    return y


def buffer_made_outside(z):
    OUTSIDE[:] = z[0] * 2
    OUTSIDE[1] += z[1, 1]
    return OUTSIDE * z[1]


def out_arguments(z):
    b = np.empty((2, 3), dtype=complex)
    np.multiply(z, z, out=b)
    np.exp(b[0], out=b[0])
    return b


def masks_and_fill(z):
    b = z.copy()
    np.putmask(b, np.array([[True, False, True], [False, True, False]]), z[::-1] * 3)
    b[1].fill(2.0)
    return b + z


def views(z):
    b = np.zeros((3, 3), dtype=complex)
    v = b[:2, 1:]
    v[:] = z[:, :2]
    b.T[0] = z[0]
    return b * 2 + b.sum()


@pytest.mark.parametrize("f", [setitem, in_place_operators, copy_then_write, add_at, recurrence, buffer_made_outside,
                               out_arguments, masks_and_fill, views], ids=lambda f: f.__name__)
def test_writes_of_complex_values(f):
    agree(f, 1)


def test_the_gradient_that_lost_its_imaginary_parts():
    x = np.array([0.3, -0.7, 1.1])

    def f(y):
        b = np.zeros(3, dtype=complex)
        b[0] = y[0] * 1j
        b[1:] = y[1:] * (2 + 1j)
        return np.sum(np.abs(b * 3) ** 2)

    np.testing.assert_allclose(ad.gradient(f, x, backend=R), [5.4, -63.0, 99.0], rtol=1e-12)
    np.testing.assert_allclose(ad.gradient(f, x, backend=F), [5.4, -63.0, 99.0], rtol=1e-12)
