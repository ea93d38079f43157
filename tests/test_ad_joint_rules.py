"""Forward rules for all arguments at once (``defjvp(..., joint=)``) and the finiteness check of tangents.

A joint rule replaces the sum of the per-argument terms when every argument carries a
tangent, in fewer array operations (the quotient rule in three, ``x * x`` in two). It must
give that sum: checked for every joint rule on real and complex values, with one argument
passed twice; through ``ad.jacobian`` with chunked tangents and broadcasting; and at a
Python number's singular point, where the per-argument rules give the IEEE answer.
``all_finite`` is exact and warns about nothing, for short arrays and long ones.
"""

import warnings

import numpy as np
import pytest

import ad
from ad.engine.forward import JOINT_RULES, JVP_RULES, all_finite


def _per_argument_sum(fn, gs, xs):
    ans = fn(*xs)
    jvps = JVP_RULES[id(fn)][1]
    return sum(j(g, ans, *xs) for j, g in zip(jvps, gs))


@pytest.mark.parametrize("fn", [entry[0] for entry in JOINT_RULES.values()], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", ["real", "complex", "same argument twice"])
def test_joint_rule_is_the_sum_of_the_per_argument_terms(fn, kind):
    rng = np.random.default_rng(3)
    draw = lambda: rng.standard_normal((2, 3)) + (1j * rng.standard_normal((2, 3)) if kind == "complex" else 0)
    x, y, gx, gy = draw(), draw(), draw(), draw()
    if kind == "same argument twice":
        y, gy = x, gx
    joint = JOINT_RULES[id(fn)][1]
    np.testing.assert_allclose(joint(gx, gy, fn(x, y), x, y), _per_argument_sum(fn, (gx, gy), (x, y)), rtol=1e-13)


def test_the_quotient_and_product_rules_have_joint_forms():
    assert {entry[0] for entry in JOINT_RULES.values()} >= {np.multiply, np.true_divide}


@pytest.mark.parametrize("chunk", [1, 3, 64])
@pytest.mark.parametrize("op", ["mul", "div", "square"])
def test_jacobian_with_chunks_and_broadcasting(op, chunk):
    rng = np.random.default_rng(5)
    z = rng.uniform(0.5, 2.0, 2 * 3 + 3)

    def f(z):
        x, y = z[:6].reshape(2, 3), z[6:]  # y broadcasts along x's first axis
        if op == "mul":
            return x * y
        if op == "div":
            return x / y
        return x * x + y * y

    J = ad.jacobian(f, z, backend=ad.ForwardMode(chunk=chunk)).reshape(6, 9)
    x, y = z[:6].reshape(2, 3), z[6:]
    want = np.zeros((2, 3, 9))
    for i in range(2):
        for k in range(3):
            if op == "mul":
                want[i, k, 3 * i + k], want[i, k, 6 + k] = y[k], x[i, k]
            elif op == "div":
                want[i, k, 3 * i + k], want[i, k, 6 + k] = 1 / y[k], -x[i, k] / y[k] ** 2
            else:
                want[i, k, 3 * i + k], want[i, k, 6 + k] = 2 * x[i, k], 2 * y[k]
    np.testing.assert_allclose(J, want.reshape(6, 9), rtol=1e-13)


def test_square_of_a_variable_through_the_joint_product():
    x = np.array([1.0, -2.0, 3.0])
    value, tangent = ad.jvp(lambda v: v * v, x, np.array([1.0, 0.5, -1.0]))
    np.testing.assert_array_equal(value, x * x)
    np.testing.assert_array_equal(tangent, 2 * x * np.array([1.0, 0.5, -1.0]))


def test_quotient_of_python_numbers_at_zero_gives_the_ieee_answer():
    with np.errstate(all="ignore"):
        d = ad.derivative(lambda t: np.true_divide(t, t), 0.0)
    assert np.isnan(d)


def test_quotient_of_arrays_untouched_entries_stay_zero():
    # the entry 0 / 0 is nan, but only the last entry is moved by the direction
    x = np.array([0.0, 1.0, 2.0])
    with np.errstate(all="ignore"):
        _, tangent = ad.jvp(lambda v: v / v, x, np.array([0.0, 0.0, 1.0]))
    np.testing.assert_array_equal(tangent, [0.0, 0.0, 0.0])


@pytest.mark.parametrize("a, expected", [
    (np.array([1.0, 2.0]), True),
    (np.array([1.0, np.nan]), False),
    (np.array([np.inf, 1.0]), False),
    (np.array([1.0, 2.0 + 1j]), True),
    (np.array([1.0, complex(0, np.inf)]), False),
    (np.array([1.0, 2.0], dtype=np.float32), True),
    (np.array([1.0, np.nan], dtype=np.float32), False),
    (np.arange(12.0).reshape(3, 4)[:, ::2], True),  # not contiguous
    (np.array([[1.0, np.nan], [2.0, 3.0]]).T, False),
    (np.zeros(0), True),
    (np.array([1e200, 1.0]), True),  # a sum of squares would overflow
    (np.full(1 << 16, 1e305), True),  # long: summed, and the sum overflows
    (np.r_[np.ones(1 << 16), np.nan], False),
    (np.r_[np.ones(1 << 16), np.inf, -np.inf], False),
    (np.r_[np.ones(1 << 16), complex(1, np.inf)], False),  # long, complex: the imaginary part counts
    (np.ones(1 << 16, dtype=complex), True),
    (np.ones((300, 300))[:, ::2], True),
])
def test_all_finite(a, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from the check itself
        assert all_finite(a) is expected


@pytest.mark.parametrize("n", [3, 1 << 16])
@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()], ids=["forward", "reverse"])
def test_huge_finite_tangents_give_no_warning_the_function_did_not(n, backend):
    # the finiteness check of a tangent near 1e160 once warned "overflow encountered in dot"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, t = ad.jvp(lambda x: np.sin(x) * 1e160, np.zeros(n), np.ones(n))
        g = ad.gradient(lambda x: np.sum(x * 1e160), np.ones(n), backend=backend)
    np.testing.assert_array_equal(t, np.full(n, 1e160))
    np.testing.assert_array_equal(g, np.full(n, 1e160))


def test_huge_finite_values_stay_exact():
    v = np.array([np.nan, np.inf, 1.0, 1e200])
    with np.errstate(all="ignore"):
        g = ad.gradient(lambda v: np.sum(v ** 2), v, backend=ad.ForwardMode(chunk=4))
    np.testing.assert_array_equal(g, [np.nan, np.inf, 2.0, 2e200])


def test_joint_needs_every_argument_differentiable():
    with pytest.raises(TypeError, match="joint="):
        ad.defjvp(np.ldexp, lambda g, ans, x, y: g, ad.ZERO, joint=lambda gx, gy, ans, x, y: gx)
