"""Reverse mode (``ad.ReverseMode()``): every rule against forward mode by the dot-product test
(<u, J v> == <J^T u, v>), gradients against forward mode, nesting with forward mode and itself
without confusion, and clear errors where reverse mode has no rule yet."""

import math

import numpy as np
import pytest

import ad
from ad.testing import check_vjp
from tests.test_ad_array_ufuncs import BINARY, UNARY, draw, rng_for

R = ad.ReverseMode()


def vjp_of(f, x, u):
    """``J^T u`` by reverse mode: the gradient of ``<u, f(x)>``."""
    return ad.gradient(lambda y: np.sum(u * f(y)), x, backend=R)


def dot_test(f, x, rng, rtol=1e-10):
    """<u, J v> (forward mode) against <J^T u, v> (reverse mode) for random ``u``, ``v``."""
    v = rng.standard_normal(np.shape(x))
    value, jv = ad.jvp(f, x, v)
    u = rng.standard_normal(np.shape(value))
    left = float(np.sum(u * jv))
    right = float(np.sum(vjp_of(f, x, u) * v))
    assert left == pytest.approx(right, rel=rtol, abs=1e-12), (left, right)


@pytest.mark.parametrize("fn", list(UNARY), ids=lambda fn: fn.__name__)
def test_unary_ufuncs_transpose_their_forward_rule(fn):
    rng = rng_for("reverse " + fn.__name__)
    dot_test(fn, draw(UNARY[fn], rng, (2, 3)), rng)


@pytest.mark.parametrize("fn", list(BINARY), ids=lambda fn: fn.__name__)
def test_binary_ufuncs_transpose_their_forward_rule_in_each_argument_with_broadcasting(fn):
    rng = rng_for("reverse " + fn.__name__)
    dx, dy, valid = BINARY[fn]
    for shape_x, shape_y in (((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 1))):
        for _ in range(200):
            x, y = draw(dx, rng, shape_x), draw(dy, rng, shape_y)
            if valid is None or valid(*np.broadcast_arrays(x, y)):
                break
        dot_test(lambda a: fn(a, y), x, rng)
        dot_test(lambda b: fn(x, b), y, rng)


def lv(p):
    """A small time-stepping loss on plain Python floats (scalar-heavy code)."""
    a, b, c, d = p
    x, y, h = 1.0, 1.0, 0.01
    s = 0.0
    for _ in range(50):
        dx, dy = a * x - b * x * y, c * x * y - d * y
        x, y = x + h * dx, y + h * dy
        s = s + (x - 1.5) ** 2 + math.sin(y)
    return s


A = np.random.default_rng(0).standard_normal((3, 4))


@pytest.mark.parametrize("f, x", [
    (lambda x: np.sum(np.tanh(A @ x)) + np.max(x) * np.mean(x), np.array([0.3, -1.2, 0.7, 2.0])),
    (lambda x: np.sum(np.cumsum(x) ** 2) + np.dot(x, x[::-1]), np.array([0.3, -1.2, 0.7, 2.0])),
    (lambda x: np.sum(np.outer(x, x).T.reshape(-1)[::3]) + np.min(x.reshape(2, 2), axis=1).sum(), np.arange(1.0, 5.0)),
    (lambda x: np.sum(np.array([x[0] * x[1], np.sin(x[2]), 3.0]) * np.stack([x[:3], x[1:]]).sum(axis=0)),
     np.array([0.3, -1.2, 0.7, 2.0])),
    (lambda x: np.sum(np.concatenate([x, x ** 2], axis=0)) + np.sum(np.squeeze(np.expand_dims(x, 0))) ** 2,
     np.array([0.3, -1.2, 0.7])),
    (lambda x: np.mean(np.max(np.transpose(x.reshape(2, 3)), axis=1, keepdims=True)), np.array([1.0, 5.0, 2.0, 4.0, 3.0, 0.0])),
    (lambda x: np.sum(np.where(x > 0, x, 0.1 * x) ** 2) + np.sum(np.abs(x)), np.array([0.3, -1.2, 0.7])),
    (lambda x: sum(x[i] * x[i + 1] for i in range(len(x) - 1)), np.arange(5.0)),
    (lv, [1.1, 0.4, 0.1, 0.4]),
    (lambda v: math.exp(v[0]) * math.atan2(v[1], v[0]) + abs(v[1]) ** 1.5, (0.7, -0.3)),
    (lambda t: t ** 3 * math.sin(t) / (1 + t * t), 1.3),
])
def test_gradients_agree_with_forward_mode(f, x):
    value_r, g_r = ad.value_and_gradient(f, x, backend=R)
    value_f, g_f = ad.value_and_gradient(f, x)
    assert value_r == value_f
    np.testing.assert_allclose(np.asarray(g_r, dtype=float), np.asarray(g_f, dtype=float), rtol=1e-12, atol=1e-12)
    assert type(g_r) is type(g_f)


def test_jacobian_row_by_row_and_vjp():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    f = lambda x: np.tanh(A @ x)
    np.testing.assert_allclose(ad.jacobian(f, x, backend=R), ad.jacobian(f, x), rtol=1e-12)
    w = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(ad.vjp(f, x, w, backend=R)[1], ad.vjp(f, x, w)[1], rtol=1e-12)
    assert ad.jacobian(lambda v: [v[0] * v[1], v[0] + v[1]], [2.0, 3.0], backend=R) == [[3.0, 2.0], [1.0, 1.0]]


def test_hessians_forward_over_reverse():
    rng = np.random.default_rng(7)
    B = rng.standard_normal((5, 8)) / 3
    x = rng.standard_normal(8)
    f = lambda x: np.sum(np.log(1.0 + np.exp(B @ x))) + 0.1 * np.sum(x ** 4)
    np.testing.assert_allclose(ad.hessian(f, x, backend=R), ad.hessian(f, x), rtol=1e-10, atol=1e-12)
    H = ad.hessian(f, x, backend=ad.HigherOrder(ad.ForwardMode(), ad.ReverseMode()))
    np.testing.assert_allclose(H, ad.hessian(f, x), rtol=1e-10, atol=1e-12)


def test_nesting_never_confuses_perturbations_or_sensitivities():
    # Siskind and Pearlmutter's example, every pairing of modes: d/dx [x * d/dy (x + y)] at 1 is 1
    for outer in (ad.ForwardMode(), R):
        for inner in (ad.ForwardMode(), R):
            got = ad.gradient(lambda x: x * ad.gradient(lambda y: x + y, 1.0, backend=inner), 1.0, backend=outer)
            assert got == 1.0, (outer, inner)
    assert ad.gradient(lambda x: ad.D(lambda y: y ** 3 * math.sin(y), x), 2.0, backend=R) == pytest.approx(
        ad.D(lambda x: ad.D(lambda y: y ** 3 * math.sin(y), x), 2.0), rel=1e-14)
    assert ad.gradient(lambda x: ad.gradient(lambda y: y ** 3, x, backend=R), 2.0, backend=R) == 12.0
    # a closure over an outer variable, differentiated twice in reverse mode
    g = lambda a: ad.gradient(lambda x: np.sum(a * x ** 2), np.array([1.0, 2.0]), backend=R)
    np.testing.assert_allclose(ad.jacobian(g, np.array([3.0, 4.0]), backend=R), np.diag([2.0, 4.0]))


def test_results_that_do_not_depend_on_the_input_have_zero_gradients():
    np.testing.assert_array_equal(ad.gradient(lambda x: 3.0, np.ones(3), backend=R), np.zeros(3))
    assert ad.gradient(lambda x: 3.0, 2.0, backend=R) == 0.0


def test_clear_errors_where_reverse_mode_has_no_rule():
    with pytest.raises(ad.NoRuleError, match=r"numpy.bincount has no reverse-mode rule"):
        ad.gradient(lambda x: np.sum(np.bincount([0, 1, 1], weights=x)), np.array([2.0, 1.0, 0.0]), backend=R)
    def doubled(z):  # an elementwise rule of the user's own: derived for reverse mode, not checked on complex values
        return 2.0 * z

    ad.defjvp(doubled, lambda g, ans, z: 2.0 * g)
    with pytest.raises(TypeError, match="doubled got or made a complex value"):
        ad.gradient(lambda x: np.sum(doubled(np.diag(x * 1j + 1))).real, np.ones(2), backend=R)
    hermitian = lambda x: np.sum(np.linalg.eigvalsh(np.diag(x * 1j + 1) + np.outer(x, x) * 1j))  # noqa: E731
    np.testing.assert_allclose(ad.gradient(hermitian, np.array([0.5, 2.0]), backend=R),
                               ad.gradient(hermitian, np.array([0.5, 2.0]), backend=ad.ForwardMode()), atol=1e-12)
    np.testing.assert_allclose(ad.gradient(lambda x: np.sum(np.abs(x * 1j)), np.array([1.0, -2.0]), backend=R),
                               [1.0, -1.0])  # complex values inside: see test_ad_reverse_complex.py
    with pytest.raises(ad.NoRuleError, match="not differentiable in argument 2"):
        ad.gradient(lambda i: np.arange(3.0)[i], 1.0, backend=R)
    with pytest.raises(TypeError, match="use jacobian"):
        ad.gradient(lambda x: x * 2.0, np.ones(2), backend=R)


def test_defvjp_user_rule():
    def softplus(x):
        return np.log1p(np.exp(x))

    ad.defvjp(softplus, lambda u, ans, x: u / (1 + np.exp(-x)))
    x = np.array([-1.0, 0.5])
    np.testing.assert_allclose(ad.gradient(lambda x: np.sum(softplus(x)), x, backend=R), 1 / (1 + np.exp(-x)))
    with pytest.raises(TypeError):
        ad.defvjp(softplus)


def test_integer_results_carry_no_derivative():
    f = lambda x: np.sum(x * x.astype(int)) + np.sum(np.floor(x))
    x = np.array([1.5, 2.5])
    np.testing.assert_array_equal(ad.gradient(f, x, backend=R), ad.gradient(f, x))
    np.testing.assert_array_equal(ad.gradient(f, x, backend=R), [1.0, 2.0])


def _saved_then_written(write):
    def f(x):
        A = np.ones(2)
        y = np.sum(np.sin(A[0:1]) * x[0]) + np.sum(A * x)  # the tape keeps A (and a view of it)
        write(A)
        return y * np.sum(A)
    return f


def _setitem(A):
    A[0] = 5.0


def _iadd(A):
    A += 3.0


def _out(A):
    np.multiply(A, 3.0, out=A)


def _copyto(A):
    np.copyto(A, 7.0)


def _add_at(A):
    np.add.at(A, [0, 0], 1.0)


@pytest.mark.parametrize("write", [_setitem, _iadd, _out, _copyto, _add_at, lambda A: A.fill(2.0),
                                   lambda A: A.sort(), lambda A: np.put(A, [1], 4.0)])
def test_writes_into_arrays_the_tape_saved_leave_the_gradient_right(write):
    f = _saved_then_written(write)
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x), rtol=1e-14)


def test_writing_a_value_being_differentiated_into_an_array_is_recorded():
    def into_buffer(x):
        buf = np.zeros(3)
        buf[0] = x[0] * 2
        return np.sum(buf)

    def augmented(x):
        buf = np.zeros(2)
        buf += x
        return np.sum(buf)

    def overwritten(x):
        y = x * 1.0
        y[0] = 1.0
        return np.sum(y)

    for f in (into_buffer, augmented, overwritten):
        np.testing.assert_array_equal(ad.gradient(f, np.ones(2), backend=R), ad.gradient(f, np.ones(2)))


def test_value_and_pullback_called_again_and_after_the_run():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    f = lambda x: np.tanh(A @ x)
    value, pullback = ad.value_and_pullback(f, x, backend=R)
    np.testing.assert_array_equal(value, f(x))
    for w in (np.array([1.0, -2.0, 0.5]), np.array([0.0, 1.0, 0.0])):
        np.testing.assert_allclose(pullback(w), ad.vjp(f, x, w)[1], rtol=1e-12)
        np.testing.assert_array_equal(pullback(w), pullback(w))
    _, forward_pullback = ad.value_and_pullback(f, x)
    np.testing.assert_allclose(forward_pullback(np.ones(3)), pullback(np.ones(3)), rtol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        pullback(np.ones(2))
    assert ad.value_and_pullback(lambda v: [v[0] * v[1], v[0] + v[1]], [2.0, 3.0], backend=R)[1]([1.0, 1.0]) == [4.0, 3.0]


def test_a_function_that_raises_halfway_leaves_nothing_behind():
    def fails(x):
        np.sin(x)  # recorded on the tape, then the function raises
        raise KeyError("halfway")

    with pytest.raises(KeyError, match="halfway"):
        ad.gradient(fails, np.ones(2), backend=R)
    np.testing.assert_allclose(ad.gradient(lambda x: np.sum(np.sin(x)), np.ones(2), backend=R), np.cos(np.ones(2)))


def _step(x):
    return x + 0.01 * np.sin(x) * np.cos(2 * x)


def _block(x):
    for _ in range(15):
        x = _step(x)
    return x


def _ten(block, x):
    for _ in range(10):
        x = block(x)
    return x


def test_checkpoint_gives_the_same_gradient_and_a_smaller_tape():
    import tracemalloc

    checkpointed = ad.checkpoint(_block)
    plain = lambda x0: np.sum(_ten(_block, x0) ** 2)
    ck = lambda x0: np.sum(_ten(checkpointed, x0) ** 2)
    x0 = np.linspace(0.1, 1.0, 2000)  # arrays large enough that the tape's memory dominates
    np.testing.assert_array_equal(ad.gradient(ck, x0, backend=R), ad.gradient(plain, x0, backend=R))
    np.testing.assert_allclose(ad.gradient(ck, x0), ad.gradient(plain, x0, backend=R), rtol=1e-12)  # forward mode
    peaks = []
    for f in (plain, ck):
        tracemalloc.start()
        ad.gradient(f, x0, backend=R)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] / 2, peaks
    np.testing.assert_allclose(ad.hessian(lambda x: np.sum(checkpointed(x) ** 2), x0[:3], backend=R),
                               ad.hessian(lambda x: np.sum(_block(x) ** 2), x0[:3]), rtol=1e-10)


def test_checkpoint_refuses_what_it_cannot_recompute():
    with pytest.raises(ad.NoRuleError, match="not one of its arguments"):
        ad.gradient(lambda x: np.sum(ad.checkpoint(lambda y: y * x)(2.0 * x)), np.ones(2), backend=R)
    # a closure over a value being differentiated, called with constants only: recorded as usual
    np.testing.assert_array_equal(
        ad.gradient(lambda x: np.sum(ad.checkpoint(lambda y: y * x)(np.ones(2))), np.ones(2), backend=R), np.ones(2))
    with pytest.raises(ad.NoRuleError, match="must return a number or an array"):
        ad.gradient(lambda x: sum(ad.checkpoint(lambda y: [y, y])(x)), 1.0, backend=R)


def test_the_transforms_take_reverse_mode():
    def loss(params, data):
        return np.sum((params["w"] * data + params["b"]) ** 2), {"n": len(data)}

    params = {"w": np.array([1.0, 2.0]), "b": 0.5}
    data = np.array([1.0, -1.0])
    (value, aux), g = ad.value_and_grad(loss, has_aux=True, backend=R)(params, data)
    (value_f, _), g_f = ad.value_and_grad(loss, has_aux=True)(params, data)
    assert value == value_f and aux == {"n": 2}
    np.testing.assert_array_equal(g["w"], g_f["w"])
    assert g["b"] == g_f["b"]
    J = ad.jacfwd(lambda x: {"a": 2 * x, "b": np.sum(x)}, backend=R)(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(J["a"], 2 * np.eye(2))


@pytest.mark.parametrize("f", [
    lambda x: np.sum((np.arange(9.0).reshape(3, 3) * x) @ x),
    lambda x: np.sum(np.stack([x, x * x]) ** 2) + np.sum(np.concatenate([x, np.array([x[0] * x[1]])]) ** 3),
    lambda x: sum(x[i] ** 3 for i in range(3)) + np.sum(np.array([x[0] * x[1], x[2]]) ** 2),
])
def test_forward_over_reverse_hessians_through_the_building_rules(f):
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(ad.hessian(f, x, backend=R), ad.hessian(f, x), rtol=1e-12, atol=1e-12)


def test_rules_by_composition():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((6, 6)) + 6 * np.eye(6)).reshape(2, 3, 6)
    check_vjp(lambda a: np.linalg.tensorinv(a, 2), [a])
    check_vjp(lambda m, b: np.linalg.tensorsolve(m.reshape(6, 2, 3), b), [a.reshape(6, 6), rng.standard_normal(6)])
    x, y = np.array([3.7, -2.2, 0.4]), np.array([1.5, 0.7, -0.3])
    check_vjp(lambda x, y: np.divmod(x, y)[1] + np.divmod(x, y)[0], [x, y])
    check_vjp(lambda x: np.modf(x)[0] * 2 + np.modf(x)[1], [x])
    check_vjp(lambda x: np.frexp(x)[0] * (1 + np.frexp(x)[1]), [x])
    np.testing.assert_array_equal(ad.gradient(lambda x: np.sum(np.frexp(x)[0]), x, backend=R), [0.25, 0.25, 2.0])


@pytest.mark.parametrize("sa, sb", [((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 3), (4, 3, 5)), ((2, 2, 3), (2, 3, 4)),
                                    ((4,), (2, 4, 3)), ((2, 3), (3, 2)), ((3,), (3,)), ((), (2, 3))])
def test_dot_of_any_ranks(sa, sb):
    """np.dot sums a's last axis against b's second-to-last (or only) axis; N-d operands crashed in
    reverse mode (found by autograd's suite run in reverse mode)."""
    rng = np.random.default_rng(1)
    v = rng.standard_normal(int(np.prod(sa)) + int(np.prod(sb)))
    na = int(np.prod(sa))
    f = lambda w: np.sum(np.sin(np.dot(np.reshape(w[:na], sa), np.reshape(w[na:], sb))))  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, v, backend=R), ad.gradient(f, v), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ad.hessian(f, v, backend=ad.HigherOrder(R, R)), ad.hessian(f, v), rtol=1e-10, atol=1e-12)


def test_swapaxes_by_keyword():
    g = lambda x: np.sum(np.swapaxes(x.reshape(2, 3), axis1=0, axis2=1) * np.arange(6.0).reshape(3, 2))  # noqa: E731
    np.testing.assert_array_equal(ad.gradient(g, np.ones(6), backend=R), [0.0, 2.0, 4.0, 1.0, 3.0, 5.0])


@pytest.mark.parametrize("sa, sb", [((3,), (2, 3, 4)), ((2, 4, 3), (3,)), ((3,), (5, 2, 3, 4)), ((2, 1, 4, 3), (3,))])
def test_matmul_of_a_vector_and_a_stack(sa, sb):
    """A vector times a stack of matrices, and a stack times a vector (they had no reverse rule)."""
    rng = np.random.default_rng(2)
    na = int(np.prod(sa))
    v = rng.standard_normal(na + int(np.prod(sb)))
    f = lambda w: np.sum(np.sin(np.matmul(np.reshape(w[:na], sa), np.reshape(w[na:], sb))))  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, v, backend=R), ad.gradient(f, v), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fn", [np.vstack, np.hstack, np.column_stack, np.dstack], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(3, 2), (2, 2, 2), (4,)])
def test_stacking_an_array_stacks_its_slices(fn, shape):
    """np.vstack(a) of one array stacks a's slices along its first axis (it was refused)."""
    n = int(np.prod(shape))
    weights = np.arange(1.0, n + 1).reshape(np.shape(fn(np.zeros(shape))))
    f = lambda w: np.sum(np.sin(fn(np.reshape(w, shape))) * weights)  # noqa: E731
    v = np.random.default_rng(3).standard_normal(n)
    np.testing.assert_allclose(ad.gradient(f, v, backend=R), ad.gradient(f, v), rtol=1e-12, atol=1e-14)
