"""The default backend of gradients: forward mode for few inputs, reverse mode from
``ad.api.REVERSE_FROM`` inputs on, and forward mode again where reverse mode refuses what the
function does (it runs a second time then)."""

import numpy as np
import pytest

import ad
from ad.api import REVERSE_FROM, default_gradient_backend


def test_the_default_follows_the_number_of_inputs():
    assert isinstance(default_gradient_backend(REVERSE_FROM - 1), ad.ForwardMode)
    assert isinstance(default_gradient_backend(REVERSE_FROM), ad.ReverseMode)
    for n in (REVERSE_FROM - 1, REVERSE_FROM, 10 * REVERSE_FROM):
        x = np.linspace(0.1, 2.0, n)
        f = lambda y: np.sum(np.sin(y) * y[::-1]) + y[0] * y[-1]  # noqa: E731
        np.testing.assert_allclose(ad.gradient(f, x), ad.gradient(f, x, backend=ad.ForwardMode()), rtol=1e-13)
        np.testing.assert_allclose(ad.gradient(f, x), ad.gradient(f, x, backend=ad.ReverseMode()), rtol=1e-13)


def test_the_default_runs_reverse_mode_once_for_many_inputs():
    calls = []

    def f(y):
        calls.append(1)
        return np.sum(y ** 2)

    ad.gradient(f, np.ones(REVERSE_FROM))
    assert len(calls) == 1  # one recording, one backward pass
    calls.clear()
    ad.gradient(f, np.ones(REVERSE_FROM - 1))
    assert len(calls) == 1  # forward mode: the directions in one run (the default chunk)


def test_where_reverse_mode_refuses_forward_mode_takes_over():
    x = np.linspace(0.1, 1.0, 2 * REVERSE_FROM)
    def doubled(z):  # an elementwise rule of the user's own: its reverse rule is derived, not checked on complex values
        return 2.0 * z

    ad.defjvp(doubled, lambda g, ans, z: 2.0 * g)
    complex_ = lambda y: np.sum(np.abs(doubled(np.outer(y, y[:3]) * (1 + 2j))))  # noqa: E731
    with pytest.raises(TypeError, match="complex values"):
        ad.gradient(complex_, x, backend=ad.ReverseMode())
    np.testing.assert_allclose(ad.gradient(complex_, x), ad.gradient(complex_, x, backend=ad.ForwardMode()), rtol=1e-12)

    calls = []

    def needs_forward(y):
        calls.append(1)
        return complex_(y)

    ad.gradient(needs_forward, x)
    assert len(calls) == 2  # the refused reverse run, then forward mode's


def test_an_error_of_the_function_itself_is_not_retried():
    calls = []

    def broken(y):
        calls.append(1)
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        ad.gradient(broken, np.ones(REVERSE_FROM))
    assert len(calls) == 1


def test_transforms_and_hessians_inside_gradients_use_the_default():
    x = np.linspace(0.1, 1.0, REVERSE_FROM)
    f = lambda y: np.sum(np.exp(y) * y)  # noqa: E731
    np.testing.assert_allclose(ad.grad(f)(x), np.exp(x) * (1 + x), rtol=1e-13)
    inner = lambda y: np.sum(ad.gradient(f, y * 2.0) ** 2)  # noqa: E731  (reverse inside the outer gradient)
    np.testing.assert_allclose(ad.gradient(inner, x), ad.gradient(inner, x, backend=ad.ForwardMode()), rtol=1e-12)
