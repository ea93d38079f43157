"""Forward AD of NumPy's layout and building functions (``ad/rules/layout.py``), against central differences.

Each rule is checked with ``check_grads`` (derivatives of order 1 and 2 along random
directions, complex ones for complex inputs) and with ``ad.jacobian`` (a chunk of
directions at once); views are checked by writing through them; refusals raise
``ad.NoRuleError`` naming the function.
"""

import numpy as np
import pytest

import ad
from ad.testing import check_grads
from tests.ad_rule_checks import fd_jacobian

rng = np.random.default_rng(0)
X = rng.normal(size=(3, 4))
Z = X + 1j * rng.normal(size=(3, 4))
T = rng.normal(size=(2, 3, 4))
V = rng.normal(size=5)
W = V + 1j * rng.normal(size=5)


def joined(f):
    """``f`` with a list or tuple of results raveled and joined (check_grads takes either; the
    finite differences of the jacobian want one array)."""

    def g(x):
        out = f(x)
        if isinstance(out, (list, tuple)):
            return np.concatenate([np.ravel(o) for o in out])
        return out

    return g


def check(f, *inputs):
    """check_grads of order 2 on every input; the jacobian (chunk of directions) on the real ones."""
    for x in inputs:
        check_grads(f, (x,), order=2)
        if not np.iscomplexobj(x):
            np.testing.assert_allclose(ad.jacobian(joined(f), x), fd_jacobian(joined(f), x), rtol=1e-5, atol=1e-6)


def refused(f, x, name):
    with pytest.raises(ad.NoRuleError, match=name):
        ad.jacobian(f, x)


# ---------------------------------------------------------------- flips, rotations, axes, splits

LINEAR = {
    "flipud": (lambda x: np.flipud(x), [X, Z, V]),
    "fliplr": (lambda x: np.fliplr(x), [X, Z, T]),
    "rot90": (lambda x: np.rot90(x), [X, Z]),
    "rot90_k3_axes": (lambda x: np.rot90(x, 3, axes=(2, -3)), [T]),
    "rot90_k-2": (lambda x: np.rot90(x, -2, (1, 0)), [X]),
    "rollaxis": (lambda x: np.rollaxis(x, 2), [T]),
    "rollaxis_start": (lambda x: np.rollaxis(x, -1, -2), [T]),
    "rollaxis_end": (lambda x: np.rollaxis(x, 0, 3), [T]),
    "hsplit": (lambda x: np.hsplit(x, 2), [X, Z]),
    "hsplit_1d": (lambda x: np.hsplit(x, [1, 3]), [V, W]),
    "vsplit": (lambda x: np.vsplit(x, [1]), [X, T]),
    "dsplit": (lambda x: np.dsplit(x, [1, 3]), [T]),
    "tril": (lambda x: np.tril(x, -1), [X, Z, T, V]),
    "triu": (lambda x: np.triu(x, 1), [X, Z, T, V]),
    "diag_vector": (lambda x: np.diag(x, 1), [V, W]),
    "diag_matrix": (lambda x: np.diag(x, k=-1), [X, Z]),
    "diagflat": (lambda x: np.diagflat(x, k=-2), [X, V, W]),
}


@pytest.mark.parametrize("name", list(LINEAR))
def test_linear_layout(name):
    f, inputs = LINEAR[name]
    check(f, *inputs)


def through(view):
    """A function writing through ``view(y)`` of an array ``y`` it returns: right only if the
    view's tangent is the same view of ``y``'s tangent."""

    def f(x):
        y = x * 1.0
        v = view(y)
        v[0] = v[0] * 3.0 + x[0, 0] ** 2
        return y

    return f


@pytest.mark.parametrize(
    "view",
    [np.flipud, np.fliplr, np.rot90, lambda y: np.rollaxis(y, 1), lambda y: np.hsplit(y, 2)[1],
     lambda y: np.vsplit(y, [1])[1], lambda y: np.broadcast_arrays(y, np.ones(4))[0]],
    ids=["flipud", "fliplr", "rot90", "rollaxis", "hsplit", "vsplit", "broadcast_arrays"],
)
def test_views_write_through(view):
    check(through(view), X)


def test_diag_of_matrix_is_read_only_view():
    def f(x):
        d = np.diag(x)
        assert not d.flags.writeable
        return d

    check(f, X)


# ---------------------------------------------------------------- broadcast_arrays


def test_broadcast_arrays():
    check(lambda x: np.broadcast_arrays(x, np.ones((2, 1, 4)), 3.0), X, Z)
    # a scalar of the array and a list holding one of its elements: all carry tangents
    check(lambda x: np.broadcast_arrays(x[0], x, [x[1, 0], 1.0, 2.0, 3.0]), X)


def test_broadcast_arrays_constants_have_no_tangent():
    def f(x):
        a, b = np.broadcast_arrays(x, np.ones((2, 4)))
        return b  # a constant

    assert np.all(ad.jacobian(lambda x: f(x) + x[0], V[:4])[:, :, 1:] == 0)
    check(lambda x: sum(np.broadcast_arrays(x[:, None], x[None, :])), V)


# ---------------------------------------------------------------- pad


PADS = {
    "constant": (lambda x: np.pad(x, ((1, 2), (0, 3)), constant_values=((1.0, 2.0), (3.0, 4.0))), [X, Z]),
    "edge": (lambda x: np.pad(x, 2, "edge"), [X, Z]),
    "reflect": (lambda x: np.pad(x, (3, 5), "reflect"), [X]),
    "reflect_odd": (lambda x: np.pad(x, (3, 5), "reflect", reflect_type="odd"), [X, Z]),
    "symmetric": (lambda x: np.pad(x, (3, 5), "symmetric"), [X, V]),
    "wrap": (lambda x: np.pad(x, 7, "wrap"), [X]),
    "dict_width": (lambda x: np.pad(x, {-1: (1, 2)}, "edge"), [X, Z]),
    "column_width": (lambda x: np.pad(x, [[1], [2]], "symmetric"), [X]),
    "mean": (lambda x: np.pad(x, 2, "mean", stat_length=2), [X, Z]),
    "mean_all": (lambda x: np.pad(x, [[1, 0], [2, 1]], "mean"), [X]),
    "linear_ramp": (lambda x: np.pad(x, 2, "linear_ramp", end_values=(5.0, -1.0)), [X, Z]),
    "maximum": (lambda x: np.pad(x, 2, "maximum", stat_length=3), [X]),
    "minimum": (lambda x: np.pad(x, 2, "minimum"), [X]),
    "median": (lambda x: np.pad(x, 2, "median", stat_length=3), [X]),
}


@pytest.mark.parametrize("mode", list(PADS))
def test_pad(mode):
    f, inputs = PADS[mode]
    check(f, *inputs)


def test_pad_constant_values_do_not_enter_tangent():
    J = ad.jacobian(lambda x: np.pad(x, 1, constant_values=7.0), V)
    assert np.all(J[[0, -1]] == 0) and np.array_equal(J[1:-1], np.eye(5))


def test_pad_empty_gives_padding_tangent_zero():
    J = ad.jacobian(lambda x: np.pad(x, 1, "empty"), X)
    assert np.all(J[0] == 0) and np.all(J[:, 0] == 0)
    np.testing.assert_array_equal(J[1:-1, 1:-1], np.eye(12).reshape(3, 4, 3, 4))


def test_pad_function_mode():
    def edge_twice(vector, width, axis, kwargs):
        a, b = width
        vector[:a] = 2 * vector[a]
        if b:
            vector[-b:] = vector[-b - 1] ** 2

    check(lambda x: np.pad(x, 2, edge_twice), X)


@pytest.mark.parametrize(
    "f",
    [lambda x: np.pad(x, 1, constant_values=x[0, 0]),
     lambda x: np.pad(x, 1, constant_values=(x[0, 0], 1.0)),
     lambda x: np.pad(x, 1, "linear_ramp", end_values=[x[0, 0], 1.0]),
     lambda x: np.pad(np.ones(3), 1, constant_values=x[0, 0])],
    ids=["constant_values", "constant_values_tuple", "end_values", "constant_array"],
)
def test_pad_refuses_varying_options(f):
    refused(f, X, "numpy.pad")


# ---------------------------------------------------------------- append, block, r_, c_


def test_append():
    check(lambda x: np.append(x, [1.0, 2.0]), X, Z)
    check(lambda x: np.append(x, x[:1] * 2, axis=0), X, Z)
    check(lambda x: np.append([x[0, 0], 1.0], x), X)  # a list holding a value being differentiated
    check(lambda x: np.append(x, [x[0, 0], 1.0]), X)


def test_block():
    check(lambda x: np.block([[x, np.ones((3, 1))], [x[:1] * 2, 5.0]]), X, Z)
    check(lambda x: np.block([[[x[:, :2]], [x[:, 2:]]]]), X)
    check(lambda x: np.block(x), V)


def test_r_and_c_():
    check(lambda x: np.r_[x[0], 1.0, x[1], 0:3], X)
    check(lambda x: np.r_[x[0]], X)
    check(lambda x: np.r_["0,2", x[0], x[1]], X, Z)
    check(lambda x: np.c_[x[0], x[1], np.ones(4)], X, Z)


def test_python_getitem_runs_under_the_derivative():
    class Pick:
        def __getitem__(self, key):
            return np.stack([np.asarray(k) for k in key]) * 2.0

    check(lambda x: Pick()[x[0], x[1]], X)


# ---------------------------------------------------------------- select, piecewise


def test_select():
    check(lambda x: np.select([x > 0, x < -0.5], [x ** 2, 3.0], default=x), X)
    check(lambda x: np.select([x > 0], [np.sin(x)]), X, V)
    check(lambda x: np.select([np.ones((2,) + x.shape, bool)], [x[0, 0]], default=x), X)
    check(lambda x: np.select((x.real > 0,), (x * 2,), 1.5 * x), Z)


def test_select_first_true_condition_wins():
    J = ad.jacobian(lambda x: np.select([x > -10, x > 0], [2 * x, 3 * x]), V)
    np.testing.assert_array_equal(J, 2 * np.eye(5))


def test_piecewise():
    f = lambda x: np.piecewise(x, [x > 0, x < -1], [lambda v: v ** 2, np.sin, lambda v: 3 * v])
    check(f, X, V)
    check(lambda x: np.piecewise(x, [x > 0], [np.exp, 1.0]), X)
    check(lambda x: np.piecewise(x, [x.real > 0], [lambda v, a: a * v ** 2, 0.5], 3.0), W)


def test_piecewise_closure_and_extra_argument():
    def f(a):
        return np.piecewise(V, [V > 0], [lambda v, s: s * v ** 2, lambda v, s: np.sin(s * v)], a)

    check_grads(f, (1.3,), order=2)
    check_grads(lambda a: np.piecewise(V, [V > 0], [lambda v: a * v, lambda v: v / a]), (1.3,), order=2)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "f, name",
    [(lambda x: np.rollaxis(x, x[0, 0]), "rollaxis"),
     (lambda x: np.rot90(x, x[0, 0]), "rot90"),
     (lambda x: np.tril(x, x[0, 0]), "tril"),
     (lambda x: np.diag(x, x[0, 0]), "diag"),
     (lambda x: np.hsplit(x, x[0, 0]), "hsplit"),
     (lambda x: np.select([x], [x]), "select"),
     (lambda x: np.append(x, x, axis=x[0, 0]), "append")],
    ids=["rollaxis", "rot90", "tril", "diag", "hsplit", "select", "append"],
)
def test_constant_arguments_refuse_derivatives(f, name):
    refused(f, X, name)
