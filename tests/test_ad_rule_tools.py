"""The tools for writing and checking rules: ``deflinear``, ``NOT_DIFFERENTIABLE``, ``check_grads``,
pytrees, and rule tables registered when an optional library is imported."""

import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import ad
from ad.pytrees import flatten, unflatten
from ad.testing import check_grads, numerical_jvp



def blur(x, w):
    return np.convolve(x, w, mode="same")


def bilinear(a, b):
    return np.outer(a, b)


ad.deflinear(blur)
ad.deflinear(bilinear, (0, 1))


def test_deflinear_first_and_second_order_and_chunks():
    x, w = np.array([1.0, -2.0, 0.5, 3.0]), np.array([0.25, 0.5, 0.25])
    check_grads(blur, [x, w], order=2, argnums=[0])
    J = ad.jacobian(lambda x: blur(x, w), x)
    assert np.allclose(J, np.stack([blur(e, w) for e in np.eye(4)], axis=-1))
    check_grads(lambda x: blur(x, w), [x + 1j * x[::-1]], order=1)


def test_deflinear_multilinear_is_the_product_rule():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0, 0.5])
    check_grads(bilinear, [a, b], order=2)
    assert np.allclose(ad.derivative(lambda t: bilinear(a * t, b * t), 2.0), 2 * 2.0 * np.outer(a, b))


def test_deflinear_refuses_a_tangent_in_another_argument():
    with pytest.raises(ad.NoRuleError, match=r"blur is linear in argument 1 only; argument 2"):
        ad.jvp(lambda w: blur(np.ones(4), w), np.ones(3), np.ones(3))


def test_check_grads_catches_a_wrong_rule_at_first_and_second_order():
    def off(x):
        return np.sin(x)

    def cosine(x):
        return np.cos(x)

    def sine(x):
        return np.sin(x)

    ad.defjvp(off, lambda g, ans, x: g * np.cos(x) * 1.01)
    ad.defjvp(cosine, lambda g, ans, x: -1.01 * g * np.sin(x))  # wrong: only second derivatives see it
    ad.defjvp(sine, lambda g, ans, x: g * cosine(x))
    with pytest.raises(AssertionError, match="order 1"):
        check_grads(off, [np.array([0.3, 1.0])])
    check_grads(sine, [np.array([0.3, 1.0])], order=1)
    with pytest.raises(AssertionError, match="order 2"):
        check_grads(sine, [np.array([0.3, 1.0])], order=2)


def test_check_grads_on_complex_inputs_pytrees_and_fixed_arguments():
    check_grads(lambda z: np.abs(z) ** 2, [np.array([1.1 + 1.2j, 0.3 - 2j])], order=2)
    check_grads(lambda d: d["a"] * np.sum(d["b"][0]) + d["b"][1] ** 2, [{"a": 2.0, "b": [np.ones(3), 3.0]}], order=3)
    check_grads(lambda x, n: x**n, [1.3, 3])  # n is an int: held fixed
    with pytest.raises(ValueError, match="no argument"):
        check_grads(len, ["abc"])


def test_numerical_jvp_is_a_central_difference():
    (d,) = numerical_jvp(lambda x: x**3, [2.0], [1.0], eps=1e-3)
    assert d == pytest.approx(12.0, abs=1e-5)


Point = namedtuple("Point", "x y")


def test_pytrees_flatten_and_rebuild():
    tree = {"b": [1.0, (2.0, None)], "a": Point(np.ones(2), 3.0)}
    leaves, treedef = flatten(tree)
    assert len(leaves) == 4 and leaves[0] is tree["a"].x  # dict keys in sorted order, as JAX
    rebuilt = unflatten(treedef, [10 * np.asarray(v) for v in leaves])
    assert isinstance(rebuilt["a"], Point) and rebuilt["b"][1][1] is None and rebuilt["b"][0] == 10.0
    assert flatten([None], none_is_leaf=True)[0] == [None]
    with pytest.raises(ValueError):
        unflatten(treedef, leaves + [1.0])


def test_scipy_rules_are_registered_only_when_scipy_is_imported():
    code = (
        "import sys, ad\n"
        "assert 'scipy' not in sys.modules, 'import ad imported SciPy'\n"
        "assert 'ad.rules.scipy_special' not in sys.modules\n"
        "import scipy.special\n"
        "assert 'ad.rules.scipy_special' in sys.modules\n"
    )
    pytest.importorskip("scipy")
    subprocess.run([sys.executable, "-c", code], check=True)
