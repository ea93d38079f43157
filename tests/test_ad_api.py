"""The AbstractDifferentiation-style API on every backend: inputs of every form, values and
shapes of every result, lazy operators, a backend defined by its pushforward alone, bad input."""

import math

import numpy as np
import pytest

import ad

RNG = np.random.default_rng(2026)


def f_scalar(x):
    """R^n (any shape) -> R."""
    return np.sum(np.sin(x) * x ** 2) + np.prod(x[..., :1] if np.ndim(x) else x)


def f_vector(x):
    """R^(2,3) or R^n -> R^3."""
    flat = np.ravel(x)
    return np.array([np.sum(flat ** 3), np.sum(np.exp(flat[:2])), flat[0] * flat[-1]])


def exact_gradient(x):
    g = np.cos(x) * x ** 2 + 2 * x * np.sin(x)
    first = x[..., :1]
    prod = np.prod(first)
    g[..., :1] += np.where(first != 0, prod / np.where(first != 0, first, 1), 0)
    return g


BACKENDS = {
    "forward": ad.ForwardMode(),
    "forward-chunk1": ad.ForwardMode(chunk=1),
    "forward-chunk4": ad.ForwardMode(chunk=4),
    "finite-differences": ad.FiniteDifferences(),
    "higher-order": ad.HigherOrder(ad.ForwardMode(chunk=2), ad.ForwardMode()),
    "forward-over-fd": ad.HigherOrder(ad.FiniteDifferences(), ad.ForwardMode()),
}


def tolerance(name):
    return dict(rtol=1e-6, atol=1e-6) if "finite" in name else dict(rtol=1e-10, atol=1e-12)


def fd_hessian(f, x, h=1e-4):
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e, d = np.zeros(n), np.zeros(n)
            e[i], d[j] = h, h
            e, d = e.reshape(x.shape), d.reshape(x.shape)
            H[i, j] = (f(x + e + d) - f(x + e - d) - f(x - e + d) + f(x - e - d)) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    return request.param, BACKENDS[request.param]


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_gradient_has_the_input_shape(backend, shape):
    name, b = backend
    x = RNG.uniform(-1, 1, size=shape)
    value, g = ad.value_and_gradient(f_scalar, x, backend=b)
    assert g.shape == shape and isinstance(value, float)
    np.testing.assert_allclose(value, f_scalar(x), rtol=1e-14)
    np.testing.assert_allclose(g, exact_gradient(x), **tolerance(name))
    np.testing.assert_allclose(ad.gradient(f_scalar, x, backend=b), g)


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_jacobian_shape_is_output_shape_then_input_shape(backend, shape):
    name, b = backend
    x = RNG.uniform(-1, 1, size=shape)
    value, J = ad.value_and_jacobian(f_vector, x, backend=b)
    assert J.shape == (3,) + shape
    np.testing.assert_allclose(value, f_vector(x))
    flat = np.ravel(x)
    expected = np.zeros((3, flat.size))
    expected[0] = 3 * flat ** 2
    expected[1, :2] = np.exp(flat[:2])
    expected[2, 0] += flat[-1]
    expected[2, -1] += flat[0]
    np.testing.assert_allclose(J.reshape(3, -1), expected, **tolerance(name))
    np.testing.assert_allclose(ad.jacobian(f_vector, x, backend=b), J)


def test_jvp_vjp_and_lazy_jacobian_agree_with_the_jacobian(backend):
    name, b = backend
    x = RNG.uniform(-1, 1, size=(2, 3))
    v = RNG.standard_normal((2, 3))
    w = RNG.standard_normal(3)
    J = ad.jacobian(f_vector, x, backend=ad.ForwardMode())
    value, Jv = ad.jvp(f_vector, x, v, backend=b)
    np.testing.assert_allclose(Jv, np.tensordot(J, v, axes=2), **tolerance(name))
    value, wJ = ad.vjp(f_vector, x, w, backend=b)
    assert wJ.shape == x.shape
    np.testing.assert_allclose(wJ, np.tensordot(w, J, axes=1), **tolerance(name))
    L = ad.lazy_jacobian(f_vector, x, backend=b)
    np.testing.assert_allclose(L @ v, Jv, rtol=1e-12)
    np.testing.assert_allclose(w @ L, wJ, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(L), J, **tolerance(name))


def test_derivative_of_scalar_function(backend):
    name, b = backend
    value, d = ad.value_and_derivative(lambda t: np.sin(t) * np.exp(t), 0.7, backend=b)
    assert value == pytest.approx(math.sin(0.7) * math.exp(0.7))
    assert d == pytest.approx(math.exp(0.7) * (math.sin(0.7) + math.cos(0.7)), rel=1e-7)
    arr = ad.derivative(lambda t: t * np.arange(3.0), 2.0, backend=b)
    np.testing.assert_allclose(arr, np.arange(3.0), **tolerance(name))


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_hessian_hvp_and_lazy_hessian(backend, shape):
    name, b = backend
    x = RNG.uniform(-1, 1, size=shape)
    expected = fd_hessian(f_scalar, x)
    H = ad.hessian(f_scalar, x, backend=b)
    assert H.shape == shape + shape
    np.testing.assert_allclose(H, expected, rtol=1e-5, atol=1e-5)  # the reference is a finite difference
    v = RNG.standard_normal(shape)
    n = x.size
    Hv = ad.hvp(f_scalar, x, v, backend=b)
    np.testing.assert_allclose(Hv, (H.reshape(n, n) @ v.ravel()).reshape(shape), rtol=1e-5, atol=1e-5)
    L = ad.lazy_hessian(f_scalar, x, backend=b)
    np.testing.assert_allclose(L @ v, Hv, rtol=1e-12)
    np.testing.assert_allclose(v @ L, Hv, rtol=1e-12)
    value, H2 = ad.value_and_hessian(f_scalar, x, backend=b)
    assert value == pytest.approx(f_scalar(x)) and np.allclose(H2, H)
    value, g, H3 = ad.value_gradient_and_hessian(f_scalar, x, backend=b)
    np.testing.assert_allclose(g, exact_gradient(x), **tolerance(name) if "fd" not in name else tolerance("finite"))
    assert np.allclose(H3, H)


def test_hessian_forward_over_forward_is_exact_on_polynomials():
    f = lambda x: np.sum(x ** 3) + x[0] * x[1] * x[2]  # noqa: E731
    x = np.array([1.5, -2.0, 0.5])
    H = ad.hessian(f, x)
    expected = np.diag(6 * x) + np.array([[0, x[2], x[1]], [x[2], 0, x[0]], [x[1], x[0], 0]])
    assert np.array_equal(H, expected)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8, None])
def test_every_chunk_size_gives_the_same_jacobian(chunk):
    x = RNG.uniform(-1, 1, size=7)
    J1 = ad.jacobian(np.sin, x, backend=ad.ForwardMode(chunk=1))
    J = ad.jacobian(np.sin, x, backend=ad.ForwardMode(chunk=chunk))
    assert np.array_equal(J, J1)
    assert np.array_equal(J, np.diag(np.cos(x)))


def test_lists_and_tuples_keep_their_form():
    f = lambda v: v[0] * v[1] + np.sin(v[2])  # noqa: E731
    g = ad.gradient(f, [1.0, 2.0, 3.0])
    assert type(g) is list and g == [2.0, 1.0, math.cos(3.0)]
    g = ad.gradient(f, (1.0, 2.0, 3.0), backend=ad.ForwardMode(chunk=3))
    assert type(g) is tuple and g == (2.0, 1.0, math.cos(3.0))
    J = ad.jacobian(lambda v: [v[0] * v[1], v[1]], [2.0, 3.0], backend=ad.FiniteDifferences())
    assert isinstance(J, list) and np.allclose(J, [[3.0, 2.0], [0.0, 1.0]])


def test_many_list_inputs_are_chunked_and_agree_with_single_passes():
    xs = list(RNG.uniform(0.5, 1.5, size=20))
    f = lambda v: sum(v[i] * v[i + 1] for i in range(len(v) - 1))  # noqa: E731
    g_auto = ad.gradient(f, xs)
    g_one = ad.gradient(f, xs, backend=ad.ForwardMode(chunk=1))
    assert g_auto == g_one


class PushforwardOnly(ad.Backend):
    """A backend with nothing but a pushforward: complex-step differentiation."""

    def pushforward(self, f, x, directions):
        h = 1e-30
        out = []
        for v in directions:
            out.append(np.imag(f(x + 1j * h * v)) / h)
        return f(x), out


def test_a_new_backend_needs_only_a_pushforward():
    b = PushforwardOnly()
    f = lambda x: np.sum(np.exp(x) * x)  # noqa: E731
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(ad.gradient(f, x, backend=b), np.exp(x) * (1 + x), rtol=1e-14)
    np.testing.assert_allclose(ad.jacobian(np.exp, x, backend=b), np.diag(np.exp(x)), rtol=1e-14)
    assert ad.derivative(lambda t: t ** 3, 2.0, backend=b) == pytest.approx(12.0, rel=1e-14)
    np.testing.assert_allclose(ad.jvp(np.exp, x, np.ones(3), backend=b)[1], np.exp(x), rtol=1e-14)
    np.testing.assert_allclose(ad.vjp(np.exp, x, np.ones(3), backend=b)[1], np.exp(x), rtol=1e-14)
    # its Hessian: forward mode over it (complex numbers through forward mode would need complex rules)
    H = ad.hessian(f, x, backend=ad.HigherOrder(ad.FiniteDifferences(), b))
    np.testing.assert_allclose(H, np.diag(np.exp(x) * (2 + x)), rtol=1e-6)


# ---- bad input --------------------------------------------------------------------------


def test_gradient_of_a_non_scalar_output_names_jacobian():
    with pytest.raises(TypeError, match=r"gradient.*3 values.*jacobian"):
        ad.gradient(np.sin, np.ones(3))


def test_integer_arrays_are_refused():
    with pytest.raises(TypeError, match=r"dtype int64.*astype\(float\)"):
        ad.gradient(np.sum, np.arange(3))


def test_shapes_that_do_not_match():
    with pytest.raises(ValueError, match=r"jvp: v has shape \(2,\) but x has shape \(3,\)"):
        ad.jvp(np.sin, np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match=r"vjp: w has shape \(2,\) but f\(x\) has shape \(3,\)"):
        ad.vjp(np.sin, np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="v has shape"):
        ad.lazy_jacobian(np.sin, np.ones(3)) @ np.ones(4)
    with pytest.raises(ValueError, match="v has shape"):
        ad.hvp(np.sum, np.ones((2, 2)), np.ones(4))


def test_a_function_with_no_rule_is_named():
    def f(x):
        return np.bincount([0, 1, 1, 2], weights=x).sum()

    with pytest.raises(ad.NoRuleError, match="bincount"):
        ad.gradient(f, np.ones(4))


def test_bad_backends_and_chunks():
    with pytest.raises(TypeError, match="backend must be"):
        ad.gradient(np.sum, np.ones(3), backend="forward")
    with pytest.raises(ValueError, match="chunk"):
        ad.ForwardMode(chunk=0)
    with pytest.raises(ValueError, match="method"):
        ad.FiniteDifferences(method="backward")
    with pytest.raises(TypeError, match="outer must be a backend"):
        ad.HigherOrder("x", ad.ForwardMode())


def test_derivative_needs_a_number():
    with pytest.raises(TypeError, match="use jacobian"):
        ad.derivative(np.sin, np.ones(3))
