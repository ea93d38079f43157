"""Forward AD through code that writes into arrays: buffers made inside or outside the function,
``x[i] = t``, ``x[:] = a``, ``x += t``, ``np.copyto``, ``out=``, views, and the seed's examples."""

import numpy as np
import pytest

import ad

RNG = np.random.default_rng(42)


def fd_jacobian(f, x, h=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        cols.append((np.array(f(x + e), dtype=float) - np.array(f(x - e), dtype=float)) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def check(f, x, chunks=(1, 2, None)):
    expected = fd_jacobian(f, x)
    for chunk in chunks:
        J = ad.jacobian(f, x, backend=ad.ForwardMode(chunk=chunk))
        np.testing.assert_allclose(J, expected, rtol=1e-6, atol=1e-8, err_msg="chunk=%r" % chunk)


X = RNG.uniform(0.5, 1.5, size=4)


def test_scalar_writes_into_buffer_made_inside():
    def f(x):
        out = np.zeros(4)
        for i in range(4):
            out[i] = x[i] ** 2 * x[(i + 1) % 4]
        return out

    check(f, X)


OUTSIDE = np.zeros(4)


def test_scalar_writes_into_buffer_made_outside_and_reused():
    def f(x):
        for i in range(4):
            OUTSIDE[i] = np.sin(x[i]) * x[0]
        return OUTSIDE

    check(f, X)
    # the buffer holds plain primal numbers afterwards
    assert type(OUTSIDE) is np.ndarray and np.allclose(OUTSIDE, np.sin(X) * X[0])


def test_slice_assignment_of_an_array():
    def f(x):
        buf = np.empty(6)
        buf[:4] = x * 3.0
        buf[4:] = 1.0
        buf[1:3] = np.exp(x[1:3])
        return buf

    check(f, X)


def test_constant_write_zeroes_the_tangent_there():
    def f(x):
        buf = np.zeros(4)
        buf[:] = x * x
        buf[2] = 7.0
        return buf

    J = ad.jacobian(f, X)
    assert np.all(J[2] == 0.0)
    check(f, X)


def test_inplace_operators_on_a_plain_buffer():
    def f(x):
        acc = np.zeros(4)
        acc += x
        acc *= x
        acc -= 2.0 * x[0]
        acc /= 1.0 + x[3]
        acc **= 2
        return acc

    check(f, X)


def test_inplace_operator_on_an_element():
    def f(x):
        acc = np.zeros(2)
        for i in range(4):
            acc[i % 2] += x[i] * x[i]
        return acc

    check(f, X)


def test_copyto_and_out_arguments():
    def f(x):
        tmp = np.empty(4)
        np.multiply(x, x, out=tmp)
        res = np.empty(4)
        np.sin(tmp, out=res)
        np.add(res, tmp, out=res)
        final = np.zeros(4)
        np.copyto(final, res)
        return final

    check(f, X)


def test_arithmetic_on_a_buffer_holding_tangents():
    """A buffer written with tangents keeps them through operators, methods and natives."""

    def f(x):
        buf = np.zeros(4)
        buf[:] = x
        y = buf * 2.0 + 1.0
        z = -buf
        return np.concatenate([y, z, [buf.sum(), np.sum(buf ** 2)]]) if False else np.array(
            [y[0], z[1], float(buf[2]) * 3.0, (buf @ buf)]
        )

    check(f, X)


def test_views_of_a_buffer_share_its_tangents():
    def f(x):
        buf = np.zeros((2, 2))
        flat = buf.reshape(4)  # a view
        flat[:] = x ** 3
        col = buf[:, 1]
        col *= 2.0
        return buf.T.reshape(4)

    check(f, X)


def test_iterating_and_unpacking_a_buffer():
    def f(x):
        buf = np.empty(4)
        buf[:] = x * x
        a, b, c, d = buf
        total = 0.0
        for v in buf:
            total = total + v
        return np.array([a * b, c - d, total])

    check(f, X)


def test_write_into_a_dual_array_in_place():
    def f(x):
        y = x * 1.0
        y[0] = x[1] * x[2]
        y[1:3] += x[3]
        y *= 2.0
        return y

    check(f, X)


def test_buffer_is_not_changed_into_something_else():
    seen = []

    def f(x):
        buf = np.zeros(4)
        buf[0] = x[0]
        seen.append(type(buf))
        return buf

    ad.jacobian(f, X)
    assert seen == [np.ndarray]


def test_integer_buffer_refuses_a_tangent():
    def f(x):
        buf = np.zeros(4, dtype=int)
        buf[0] = x[0]
        return buf

    with pytest.raises(TypeError, match="dtype int64.*float"):
        ad.jacobian(f, X)


def test_buffer_outside_the_derivative_is_plain_afterwards():
    buf = np.zeros(3)

    def f(t):
        buf[:] = t * np.arange(3.0)
        return buf.sum()

    assert ad.derivative(f, 2.0) == pytest.approx(3.0)
    assert np.all(buf == 2.0 * np.arange(3.0))
    assert float(buf.sum()) == 6.0  # no tag left behind


def test_nested_derivative_with_a_buffer():
    def f(x):
        buf = np.zeros(2)
        buf[0] = x * x
        buf[1] = x * buf[0]
        return buf[1]  # x^3

    assert ad.derivative(lambda s: ad.derivative(f, s), 2.0) == pytest.approx(12.0)


def test_claytonsample_buffer_made_outside(examples_module):
    mod = examples_module("buffers")
    d, fd, J = mod.main(lambda *_: None)
    np.testing.assert_allclose(d, fd, rtol=1e-6, atol=1e-9)
    assert np.all(d[:, 0] == 0.0) and np.all(d[:, 2] == 0.0) and np.all(d[:, 1] != 0.0)
    np.testing.assert_allclose(J.reshape(25, 25), np.eye(25) + np.kron(np.ones((5, 5)), np.eye(5)))


@pytest.fixture
def examples_module():
    import os
    import sys

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")

    def load(name):
        sys.path.insert(0, path)
        try:
            return __import__(name)
        finally:
            sys.path.remove(path)

    return load
