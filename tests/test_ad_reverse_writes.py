"""Reverse mode records writes of values being differentiated into arrays: buffers made inside
or outside the function, arrays the run computed, slices, in-place operators, ``out=``,
``where=``, ``np.copyto``; each gradient equals forward mode's (and central differences)."""

import os
import sys

import numpy as np
import pytest

import ad
from ad.engine import buffers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

R = ad.ReverseMode()
X = np.array([0.3, -0.7, 1.1, 0.4])
OUTSIDE = np.zeros(4)


def into_buffer(x):
    buf = np.zeros(4)
    buf[0] = x[0] * 2
    buf[1:] = np.sin(x[1:])
    buf[2] = buf[2] * buf[0]
    return np.sum(buf ** 2)


def augmented_slice(x):
    y = x * 1.0
    y[1:] += y[:-1] * 3
    y[0] = 0.0
    return np.sum(y * x)


def outside_buffer(x):
    b = OUTSIDE
    b[:] = x
    b *= 2
    b[1] = b[0] * b[3]
    return np.sum(b ** 3)


def scalar_loop(x):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = x[i] * x[i - 1]
    return out.sum()


def recurrence(x):
    y = np.empty(len(x))
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = np.tanh(y[i - 1]) + x[i]  # reads what an earlier step wrote
    return y @ y


def copyto_where(x):
    b = np.ones(4)
    np.copyto(b, x * 2, where=np.array([True, False, True, False]))
    return np.sum(b * x)


def ufunc_out(x):
    b = np.empty(4)
    np.multiply(x, x, out=b)
    np.sin(b, out=b)
    return np.sum(b)


def safe_division(x):
    d = np.array([1.0, 0.0, 2.0, 0.0])
    return np.sum(np.divide(x, d, out=np.zeros(4), where=d != 0) ** 2)


def stale_view(x):
    y = np.exp(x)
    z = y[1:]  # made before the write: it sees the write when used
    y[2] = 0.0
    return np.sum(z * x[:3])


def two_dimensional(x):
    A = np.zeros((2, 3))
    A[0, :2] = x[:2]
    A[1] = x[1:]
    A[:, 2] *= A[:, 0]
    A.T[1] += 1.0  # a write through a transposed view
    return np.sum(A @ np.arange(1.0, 4.0) * A[:, 1])


def constant_over_derivative(x):
    b = np.zeros(4)
    b[:] = x
    b[1:3] = 5.0  # those two no longer depend on x
    return np.sum(b * b)


def element_reads(x):
    b = np.zeros(6)
    for i in range(4):
        b[i + 1] = b[i] * 0.5 + x[i]  # reads what the step before wrote
    b[-1] = b[-2] * b[1]  # negative indices
    s = b[::2]  # a strided view
    return np.sum(s * s) + b[np.int64(3)]


def matrix_elements(x):
    A = np.zeros((3, 3))
    for i in range(3):
        A[i, i] = x[i]
        A[i, (i + 1) % 3] = A[i, i] * x[3]
    return np.sum(A @ A) + A[2, 0] + A[0, 1] * A[1, 2] + np.sum(A[1])


def broadcast_read(x):
    b = np.zeros(4)
    b[:] = x
    w = np.broadcast_to(b[:2], (3, 2))  # sees each element three times
    return np.sum(w * b[2]) + np.sum(b[[0, 0, 3]] ** 2)  # a fancy key reads an element twice


def computed_loop(x):
    y = np.exp(x)  # an array computed in the run, then written element by element
    for i in range(1, 4):
        y[i] = y[i - 1] * 0.5 + y[i] * x[0]  # one element written before, one not
    return np.sum(y[1:3] * y[::3]) + y[-1]  # a mixed key: the general path


CASES = [into_buffer, augmented_slice, outside_buffer, scalar_loop, recurrence, copyto_where, ufunc_out,
         safe_division, stale_view, two_dimensional, constant_over_derivative, element_reads, matrix_elements,
         broadcast_read, computed_loop]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradients_of_code_that_writes(f):
    g = ad.gradient(f, X, backend=R)
    np.testing.assert_allclose(g, ad.gradient(f, X), rtol=1e-12, atol=1e-14)
    fd = ad.gradient(f, X, backend=ad.FiniteDifferences())
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_a_loop_over_elements_costs_elements_on_the_way_back(monkeypatch):
    """Each read of one element (of the input or of the buffer) sends back one element, added in place
    into the cotangent of what was read, and each write clears its element in place: no array of
    the input's or the buffer's size per step."""
    from ad.rules import buffer_pullbacks as bp
    from ad.rules import sparse_cotangents as sc

    made = []
    for cls, name in ((sc.MemoryScatter, "dense"), (sc.IndexScatter, "dense"), (bp.Overwritten, "__call__"),
                      (bp.Read, "__call__")):
        original = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *a, _o=original, _n=cls.__name__: made.append(_n) or _o(self, *a))
    x = np.random.default_rng(0).uniform(-1, 1, 200)

    def computed(x):  # the same loop over an array computed in the run
        y = x * 1.0
        for i in range(1, len(x)):
            y[i] = np.tanh(y[i - 1]) + y[i]
        return y @ y

    for f in (recurrence, computed):
        made.clear()
        g = ad.gradient(f, x, backend=R)
        np.testing.assert_allclose(g, ad.gradient(f, x), rtol=1e-12)
        assert len(made) <= 4, (f.__name__, made)  # a few nodes that only reads sent cotangents to (x, the last versions): not 200


def test_a_buffer_made_outside_is_reused_across_calls_and_left_plain():
    first = ad.gradient(outside_buffer, X, backend=R)
    second = ad.gradient(outside_buffer, X, backend=R)
    np.testing.assert_array_equal(first, second)
    assert type(OUTSIDE) is np.ndarray and id(OUTSIDE) not in buffers.REVERSE_VERSIONS
    np.testing.assert_allclose(OUTSIDE[0], 2 * X[0])  # the run's writes are there, as natively


def test_a_returned_buffer_and_the_pullback_called_after_the_run():
    def f(x):
        b = np.zeros(4)
        b[::2] = x[:2] ** 2
        b[1::2] = np.cos(x[2:])
        return b

    J = ad.jacobian(f, X, backend=R)
    np.testing.assert_allclose(J, ad.jacobian(f, X), rtol=1e-14)
    value, pullback = ad.value_and_pullback(f, X, backend=R)
    w = np.array([1.0, -2.0, 0.5, 3.0])
    np.testing.assert_allclose(pullback(w), w @ J, rtol=1e-14)
    np.testing.assert_array_equal(pullback(w), pullback(w))


def test_the_seeds_buffer_examples():
    """The Clayton sampler writing into a buffer made outside, and ``foo!(du, u, (A, tmp))``."""
    from buffers import RANDMAT, STO, claytonsample, foo

    d = ad.derivative(lambda tau: claytonsample(STO, tau, 1.5), 0.3, backend=R)
    np.testing.assert_allclose(d, ad.derivative(lambda tau: claytonsample(STO, tau, 1.5), 0.3), rtol=1e-12)
    fd = ad.derivative(lambda tau: claytonsample(np.empty_like(RANDMAT), tau, 1.5), 0.3, backend=ad.FiniteDifferences())
    np.testing.assert_allclose(d, fd, rtol=1e-6)
    u, du = np.ones((5, 5)), np.ones((5, 5))
    params = (np.ones((5, 5)), np.zeros((5, 5)))
    J = ad.jacobian(lambda x: foo(du, x, params), u, backend=R)
    np.testing.assert_allclose(J.reshape(25, 25), np.eye(25) + np.kron(np.ones((5, 5)), np.eye(5)))


def test_reverse_over_forward_reading_a_written_buffer():
    def f(x):
        b = np.zeros(4)
        b[:] = x * 2
        return ad.derivative(lambda t: np.sum(b * t ** 2), 1.5)  # the inner forward run reads b

    np.testing.assert_allclose(ad.gradient(f, X, backend=R), np.full(4, 6.0))
    np.testing.assert_allclose(ad.gradient(f, X, backend=R), ad.gradient(f, X))


def test_bad_writes():
    def into_int(x):
        b = np.zeros(4, dtype=int)
        b[0] = x[0]
        return np.sum(b)

    with pytest.raises(TypeError, match="dtype int64 would drop its derivative"):
        ad.gradient(into_int, X, backend=R)

    def partial_view_first(x):
        b = np.zeros((4, 4))[:, ::2]  # a non-contiguous view: fine, its root is one block
        b[:, 0] = x
        return np.sum(b)

    np.testing.assert_array_equal(ad.gradient(partial_view_first, X, backend=R), np.ones(4))

    def putmask(x):
        b = np.zeros(4)
        np.putmask(b, x, x)  # the mask itself depends on the input
        return np.sum(b)

    with pytest.raises(ad.NoRuleError, match="numpy.putmask: the mask carries a derivative"):
        ad.gradient(putmask, X, backend=R)


def test_a_function_that_raises_after_writing_leaves_no_versions():
    b = np.zeros(4)

    def f(x):
        b[:] = x
        raise RuntimeError("halfway")

    with pytest.raises(RuntimeError, match="halfway"):
        ad.gradient(f, X, backend=R)
    assert id(b) not in buffers.REVERSE_VERSIONS
    np.testing.assert_array_equal(ad.gradient(lambda x: np.sum(b * x), X, backend=R), X)
