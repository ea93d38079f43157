"""JAX-style function transforms: ``grad``/``value_and_grad``/``jacfwd``/``hessian_of`` with
``argnums``, ``has_aux`` and pytree arguments, and ``gradient``/``jacobian``/``hessian`` without a point."""

from collections import namedtuple

import numpy as np
import pytest

import ad
from ad.testing import check_grads


def f(x, y):
    return x * x * y + np.sin(y)


def test_grad_argnums_int_and_tuple():
    assert ad.grad(f)(3.0, 2.0) == pytest.approx(12.0)
    assert ad.grad(f, argnums=1)(3.0, 2.0) == pytest.approx(9.0 + np.cos(2.0))
    gx, gy = ad.grad(f, argnums=(0, 1))(3.0, 2.0)
    assert (gx, gy) == (pytest.approx(12.0), pytest.approx(9.0 + np.cos(2.0)))
    assert ad.grad(f, argnums=-1)(3.0, 2.0) == pytest.approx(9.0 + np.cos(2.0))
    assert isinstance(ad.grad(f)(3.0, 2.0), float)


def test_grad_keyword_arguments_are_constants():
    def g(x, scale=1.0):
        return scale * x**3

    assert ad.grad(g)(2.0, scale=2.0) == pytest.approx(24.0)


def test_value_and_grad_and_has_aux_as_jax():
    def loss(params, data):
        r = params["w"] * data + params["b"]
        return np.sum(r**2), {"residual": r, "n": len(data)}

    params = {"w": np.array([1.0, 2.0]), "b": 0.5}
    data = np.array([1.0, -1.0])
    (value, aux), g = ad.value_and_grad(loss, has_aux=True)(params, data)
    assert value == pytest.approx(4.5)
    assert aux["n"] == 2 and type(aux["residual"]) is np.ndarray  # aux is plain, not differentiated
    np.testing.assert_allclose(aux["residual"], [1.5, -1.5])
    np.testing.assert_allclose(g["w"], [3.0, 3.0])
    assert g["b"] == pytest.approx(0.0) and isinstance(g["b"], float)
    g2, aux2 = ad.grad(loss, has_aux=True)(params, data)
    np.testing.assert_allclose(g2["w"], g["w"]) and aux2["n"] == 2
    with pytest.raises(TypeError, match="pair"):
        ad.grad(lambda x: x * x, has_aux=True)(1.0)


Params = namedtuple("Params", "w b")


def test_pytrees_lists_tuples_namedtuples_keep_their_structure():
    def model(p, x):
        return np.sum(np.tanh(p.w @ x + p.b[0]) * p.b[1])

    p = Params(np.array([[1.0, -0.5], [0.3, 0.2]]), [0.1, np.array([2.0, -1.0])])
    x = np.array([0.4, -0.7])
    g = ad.grad(model)(p, x)
    assert isinstance(g, Params) and isinstance(g.b, list) and g.w.shape == (2, 2) and isinstance(g.b[0], float)
    eps = 1e-6
    w2 = p.w.copy()
    w2[0, 1] += eps
    numeric = (model(Params(w2, p.b), x) - model(p, x)) / eps
    assert g.w[0, 1] == pytest.approx(numeric, rel=1e-4)
    check_grads(model, [p, x], order=2)


def test_gradient_of_a_dict_now():
    g = ad.gradient(lambda p: p["a"] ** 2 * np.sum(p["b"]), {"a": 2.0, "b": np.ones(3)})
    assert g["a"] == pytest.approx(12.0)
    np.testing.assert_allclose(g["b"], [4.0, 4.0, 4.0])


def test_jacfwd_structure_follows_jax():
    x = np.array([1.0, 2.0])
    J = ad.jacfwd(lambda x: {"a": 2 * x, "b": np.sum(x)})(x)
    np.testing.assert_allclose(J["a"], 2 * np.eye(2))
    np.testing.assert_allclose(J["b"], [1.0, 1.0])
    Jx, Jy = ad.jacfwd(lambda x, y: x * y, argnums=(0, 1))(x, 3.0)
    np.testing.assert_allclose(Jx, 3 * np.eye(2))
    np.testing.assert_allclose(Jy, x)
    J3 = ad.jacobian(lambda m: m @ m)(np.eye(2))
    assert J3.shape == (2, 2, 2, 2)


def test_hessian_transform_and_nesting():
    H = ad.hessian(lambda x: np.sum(x**3))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(H, np.diag([6.0, 12.0]))
    assert ad.hessian(lambda x: x**4)(2.0) == pytest.approx(48.0)
    assert ad.grad(lambda x: ad.grad(lambda y: y**3 * x)(x))(2.0) == pytest.approx(36.0)
    Hxy = ad.hessian_of(f, argnums=(0, 1))(3.0, 2.0)
    assert Hxy[0][1] == pytest.approx(6.0) and Hxy[1][0] == pytest.approx(6.0)


def test_dtype_of_the_input_is_kept():
    assert ad.grad(lambda x: np.sum(x**2))(np.float32([1, 2])).dtype == np.float32


@pytest.mark.parametrize("bad, message", [
    (3, "int 3"),
    (np.array([1, 2]), "dtype int64"),
    ({"a": "text"}, "str"),
])
def test_non_float_leaves_raise(bad, message):
    with pytest.raises(TypeError, match=message):
        ad.grad(lambda x: 1.0)(bad)


def test_bad_argnums_raise():
    with pytest.raises(ValueError, match="argnums 2"):
        ad.grad(f, argnums=2)(1.0, 2.0)
    with pytest.raises(ValueError, match="no number"):
        ad.grad(lambda d: 1.0)({})


def test_agrees_with_autograd_on_a_two_argument_function():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def h(np_, a, b):
        return np_.sum(np_.sin(a) * b**2)

    a, b = np.array([0.3, 1.1, -0.4]), np.array([1.0, 2.0, 0.5])
    for n in (0, 1):
        ours = ad.grad(lambda a, b: h(np, a, b), argnums=n)(a, b)
        theirs = autograd.grad(lambda a, b: h(anp, a, b), n)(a, b)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
