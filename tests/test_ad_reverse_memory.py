"""What reverse mode's tape keeps, and cotangents summed in place: arrays a rule does not read are
not kept alive, and sums made in place never touch an array anything else holds."""

import gc
import tracemalloc

import numpy as np

import ad
from ad.rules.pullbacks import _parameters_read

X = np.linspace(-1.0, 1.2, 50)


def test_the_tape_keeps_only_the_arrays_rules_read():
    x = np.linspace(-1.0, 1.2, 100_000)
    block = x.nbytes

    def f(x):
        c = x * 2.0  # read by nothing on the way back: exp's rule reads its result
        p = np.tanh(x) ** 2  # summed: np.sum's rule reads its argument's shape only
        return np.sum(np.exp(c)) + np.sum(p)

    ad.value_and_pullback(f, x, ad.ReverseMode())  # (warm: rules and rewritten code made)
    gc.collect()
    tracemalloc.start()
    try:
        value, pull = ad.value_and_pullback(f, x, ad.ReverseMode())
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # kept: exp's result and tanh's (their rules read them), and the input's copy; not c, nor p
    assert held < 3.5 * block, held / block
    t = np.tanh(x)
    expected = 2 * np.exp(2 * x) + 2 * t * (1 - t * t)
    np.testing.assert_allclose(pull(1.0), expected, rtol=1e-12)
    np.testing.assert_allclose(pull(1.0), expected, rtol=1e-12)  # a second backward pass: the same


def test_cotangents_summed_in_place_leave_arrays_held_elsewhere_alone():
    def f(x):
        p = np.sin(x)
        q = np.cos(x)
        t = np.sum(p * 3.0)  # p's later cotangent: taken after a's, which p and q share
        a = p + q  # add's pullback hands its cotangent on unchanged: p and q get the same array first
        return np.sum(a * a) + t + np.sum(x ** 3) + np.sum(a[::-1] * x)

    got = ad.gradient(f, X, ad.ReverseMode())
    np.testing.assert_allclose(got, ad.gradient(f, X, ad.ForwardMode()), rtol=1e-12)
    np.testing.assert_allclose(ad.gradient(f, X, ad.ReverseMode()), got, rtol=0)  # and again: nothing kept changed


def test_which_parameters_a_rule_reads():
    assert _parameters_read(lambda g, ans, x: g * ans) == (True, False)
    assert _parameters_read(lambda g, ans, x, y: x * g) == (False, True, False)

    def closure(g, ans, x):
        return (lambda: g * x)()  # read inside an inner function

    assert _parameters_read(closure) == (False, True)
    assert _parameters_read(lambda g, *rest: g) is None  # cannot tell
    assert _parameters_read(np.negative) is None
