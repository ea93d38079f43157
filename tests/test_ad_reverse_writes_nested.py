"""Writes into arrays under two derivatives at once: Hessians and Hessian-vector products forward
over reverse of code that writes (every case of ``test_ad_reverse_writes``), against forward
over forward and finite differences; what stays refused; and two forward-mode faults of reads
followed by writes, found on the way (each once gave a wrong number)."""

import numpy as np
import pytest

import ad
from ad.engine import buffers
from .test_ad_reverse_writes import CASES, OUTSIDE, X, into_buffer

R = ad.ReverseMode()
FOR = ad.HigherOrder(ad.ForwardMode(), R)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessians_forward_over_reverse_of_code_that_writes(f):
    H = ad.hessian(f, X, backend=R)
    np.testing.assert_allclose(H, ad.hessian(f, X), rtol=1e-12, atol=1e-13)
    fd = ad.hessian(f, X, backend=ad.FiniteDifferences())
    np.testing.assert_allclose(H, fd, rtol=1e-4, atol=1e-4)
    v = np.array([0.5, -1.0, 2.0, 0.25])
    np.testing.assert_allclose(ad.hvp(f, X, v, backend=FOR), H @ v, rtol=1e-12, atol=1e-13)


def test_reads_then_writes_of_the_same_elements():
    """A value read from a buffer, then its element overwritten: the value keeps its own tangent
    (of both derivatives), and the pullbacks that saved the buffer keep what they saw."""

    def f(x):
        b = np.zeros(4)
        b[:] = x ** 2
        b[2] = b[2] * b[0]  # reads, then overwrites one of them
        v = b[1:3]  # a view made before the next write: it sees it
        b[1] = np.sin(b[3])
        return np.sum(v * x[:2]) + b[2] ** 2

    np.testing.assert_allclose(ad.hessian(f, X, backend=R), ad.hessian(f, X), rtol=1e-12, atol=1e-13)


def test_the_seeds_buffer_pattern_forward_over_reverse():
    from buffers import RANDMAT, STO, claytonsample

    d2 = ad.derivative(lambda tau: ad.derivative(lambda s: claytonsample(STO, s, 1.5), tau, backend=R), 0.3)
    fresh = lambda s: claytonsample(np.empty_like(RANDMAT), s, 1.5)
    np.testing.assert_allclose(d2, ad.derivative(lambda tau: ad.derivative(fresh, tau), 0.3), rtol=1e-10)


def test_no_versions_or_shadows_are_left():
    ad.hessian(into_buffer, X, backend=R)
    ad.hessian(CASES[2], X, backend=R)  # writes into a buffer made outside
    assert id(OUTSIDE) not in buffers.REVERSE_VERSIONS
    assert not buffers.live_tags(OUTSIDE) and type(OUTSIDE) is np.ndarray


def _ones_then_products(x):
    b = np.ones(4) * x[1]  # an array computed in the run, written twice in place
    b *= x
    np.multiply(b, x, out=b)
    return np.sum(b * b)


def _read_back_and_overwritten(x):
    b = np.zeros(4)
    b[:] = x
    b[:] = b * x  # read and written in one statement
    c = b[2]
    b[2] = np.sin(x[0])
    return np.sum(b) + c * x[3]


def _outside(x):
    OUTSIDE[:] = x * x
    OUTSIDE[1:] += np.sin(x[:-1])
    return np.sum(OUTSIDE ** 3)


def _masked_copies(x):
    b = np.zeros(4)
    np.copyto(b, x ** 3, where=np.array([True, False, True, True]))
    np.multiply(b, x, out=b)
    return np.sum(b) + b[2] * b[1]


@pytest.mark.parametrize("f", [into_buffer, _ones_then_products, _read_back_and_overwritten, _outside, _masked_copies],
                         ids=lambda f: f.__name__)
def test_reverse_over_reverse_of_code_that_writes(f):
    """Each reverse-mode run keeps its own versions of a buffer (they were refused: one derivative
    at a time); the Hessian is forward mode's, and so are third derivatives nested three times."""
    RR = ad.HigherOrder(R, R)
    np.testing.assert_allclose(ad.hessian(f, X, backend=RR), ad.hessian(f, X), rtol=1e-10, atol=1e-12)
    third = lambda outer, mid, inner: ad.jacobian(  # noqa: E731
        lambda y: ad.jacobian(lambda z: ad.gradient(f, z, backend=inner), y, backend=mid), X, backend=outer)
    F = ad.ForwardMode()
    np.testing.assert_allclose(third(R, R, R), third(F, F, F), rtol=1e-9, atol=1e-11)
    assert id(OUTSIDE) not in buffers.REVERSE_VERSIONS


def test_a_write_in_a_forward_derivative_nested_in_the_recorded_run():
    def f(x):
        b = np.zeros(4)

        def g(t):
            b[:] = x * t ** 2  # both derivatives' values, written inside the inner one
            b[1:] = b[1:] + b[:-1] * x[1:]
            b[2] = b[1] * t
            np.multiply(b, x, out=b)
            np.add.at(b, [0, 0, 3], x[:3] * t)
            return np.sum(b * b)

        return ad.derivative(g, 1.5)

    np.testing.assert_allclose(ad.gradient(f, X, backend=R), ad.gradient(f, X), rtol=1e-12)


def test_in_place_operators_on_views_in_a_forward_derivative_nested_in_the_recorded_run():
    def f(x):
        b = np.zeros(4)

        def g(t):
            b[:] = x * t ** 2
            b[1:] += b[:-1] * x[1:]
            w = b[:3]
            w *= t
            return np.sum(b * b)

        return ad.derivative(g, 1.5)

    np.testing.assert_allclose(ad.gradient(f, X, backend=R), ad.gradient(f, X), rtol=1e-12)


def test_an_inner_derivative_writing_into_an_array_the_outer_run_computed_is_refused():
    """As in forward mode over forward mode: the array cannot take the inner derivative."""
    def f(x):
        c = x * 1.0

        def g(t):
            c[0] = t * x[0]
            return np.sum(c * c)

        return ad.derivative(g, 1.5)

    with pytest.raises(ad.NoRuleError, match="inner derivative into an array of an outer one"):
        ad.gradient(f, X, backend=R)
    with pytest.raises(TypeError, match="inner derivative into an array of an outer one"):
        ad.gradient(f, X)


# Forward mode: a read's tangent is a copy where the value is (found with the cases above).


def test_a_scalar_read_keeps_its_tangent_when_the_element_is_overwritten():
    def f(x):
        b = np.zeros(4)
        b[:] = x ** 2
        v = b[2]  # a copy; with several directions at once its tangent was a view of the buffer's
        b[:] = 0.0
        return v * 2

    np.testing.assert_allclose(ad.gradient(f, X), [0.0, 0.0, 4 * X[2], 0.0])  # chunked directions
    np.testing.assert_allclose(ad.jvp(f, X, np.ones(4))[1], 4 * X[2])


def test_a_constant_written_over_a_view_clears_second_order_tangents_too():
    def f(x):
        b = np.zeros(4)
        b[:] = x ** 2
        v = b[2:3]  # a view: it sees the write below, a constant
        b[2] = 5.0
        return np.sum(v * v)

    assert f(X) == 25.0
    np.testing.assert_array_equal(ad.hessian(f, X), np.zeros((4, 4)))
    np.testing.assert_array_equal(ad.hessian(f, X, backend=R), np.zeros((4, 4)))
