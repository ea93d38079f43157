"""Reverse mode's rules for shape, indexing, joining, building and linear functions
(``ad/rules/vjps_shapes.py``, ``ad/rules/vjps_linear.py``): each against forward mode by the
dot-product test, or against an explicit Jacobian where forward mode has no rule; gradients
and a forward-over-reverse Hessian of composite functions; clear refusals."""

import numpy as np
import pytest

import ad
from ad.testing import check_vjp

R = ad.ReverseMode()
rng = np.random.default_rng(3)
M = rng.standard_normal((3, 4))
T = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(5)
W = rng.standard_normal(3)
IDX = np.array([[0, 2, 2], [1, 0, 0], [2, 1, 0]])

CASES = {
    "moveaxis": (lambda x: np.moveaxis(x, 0, -1), T),
    "moveaxis seq": (lambda x: np.moveaxis(x, [0, 2], [1, 0]), T),
    "rollaxis": (lambda x: np.rollaxis(x, 2, 0), T),
    "rollaxis start": (lambda x: np.rollaxis(x, 0, 3), T),
    "rollaxis neg": (lambda x: np.rollaxis(x, -1, -2), T),
    "flip": (lambda x: np.flip(x, 1), M),
    "flip all": (lambda x: np.flip(x), T),
    "flip list": (lambda x: np.flip(x, [0, 2]), T),
    "flipud": (np.flipud, M),
    "fliplr": (np.fliplr, M),
    "rot90": (np.rot90, M),
    "rot90 k axes": (lambda x: np.rot90(x, 3, axes=(2, 1)), T),
    "roll": (lambda x: np.roll(x, 2), M),
    "roll axis": (lambda x: np.roll(x, -1, axis=1), M),
    "roll tuple": (lambda x: np.roll(x, (1, 2), axis=(0, 2)), T),
    "tile": (lambda x: np.tile(x, (2, 1, 3)), M),
    "tile short reps": (lambda x: np.tile(x, 2), T),
    "tile vector": (lambda x: np.tile(x, (2, 2)), V),
    "repeat": (lambda x: np.repeat(x, 3), M),
    "repeat axis": (lambda x: np.repeat(x, 2, axis=1), M),
    "repeat counts": (lambda x: np.repeat(x, [2, 0, 1], axis=0), M),
    "repeat counts flat": (lambda x: np.repeat(x, [1, 0, 3, 2, 1]), V),
    "take": (lambda x: np.take(x, [0, 3, 3, -1]), M),
    "take axis": (lambda x: np.take(x, IDX, axis=1), M),
    "take wrap": (lambda x: np.take(x, [7, -8, 1], axis=1, mode="wrap"), M),
    "take clip": (lambda x: np.take(x, [9, -3, 1], mode="clip"), V),
    "take_along_axis": (lambda x: np.take_along_axis(x, IDX, axis=1), M),
    "take_along_axis 0": (lambda x: np.take_along_axis(x, IDX[:2, :], axis=0), M[:, :3]),
    "take_along_axis bcast": (lambda x: np.take_along_axis(x, np.array([[1], [0], [3]]), axis=1), M),
    "take_along_axis none": (lambda x: np.take_along_axis(x, np.array([1, 1, 5]), axis=None), M),
    "argsort gather": (lambda x: np.take_along_axis(x, np.argsort(x, axis=0), axis=0), M),
    "broadcast_to": (lambda x: np.broadcast_to(x, (2, 3, 5)), V),
    "broadcast_to unit": (lambda x: np.broadcast_to(x, (2, 3, 4)), M[:1, :]),
    "broadcast_arrays": (lambda x: np.broadcast_arrays(x, M[:, :1], 2.0), M[0]),
    "broadcast_arrays both": (lambda x: sum(np.broadcast_arrays(x[:, None], x[None, :])), V),
    "split": (lambda x: np.split(x, 2, axis=1), M),
    "split points": (lambda x: np.split(x, [1, 4])[2], V),
    "split one used": (lambda x: np.split(x, 3)[1] * 2, M),
    "array_split": (lambda x: np.array_split(x, 3, axis=-1), T),
    "hsplit": (lambda x: np.hsplit(x, [1])[1], M),
    "hsplit vector": (lambda x: np.hsplit(x, 5), V),
    "vsplit": (lambda x: np.vsplit(x, 3), M),
    "dsplit": (lambda x: np.dsplit(x, [1, 3]), T),
    "hstack": (lambda x: np.hstack([x, M, x[:, :1]]), M),
    "hstack vectors": (lambda x: np.hstack((x, W, x[1:3])), V),
    "vstack": (lambda x: np.vstack([x, x[0], x]), M),
    "vstack vectors": (lambda x: np.vstack([x, V]), V),
    "dstack": (lambda x: np.dstack([x, M, x]), M),
    "dstack vectors": (lambda x: np.dstack([x, x]), V),
    "column_stack": (lambda x: np.column_stack([x, V, x]), V),
    "column_stack 2d": (lambda x: np.column_stack([x, x[:, 1]]), M),
    "atleast_3d": (np.atleast_3d, V),
    "atleast_3d matrix": (np.atleast_3d, M),
    "atleast_3d several": (lambda x: np.atleast_3d(x, x[0], M), V),
    "atleast_1d several": (lambda x: np.atleast_1d(x[0], x, 2.0), V),
    "atleast_2d several": (lambda x: np.atleast_2d(x, x[1])[1], V),
    "diag vector": (lambda x: np.diag(x, -2), V),
    "diag matrix": (np.diag, M),
    "diag matrix k": (lambda x: np.diag(x, 1), M),
    "diag matrix -k": (lambda x: np.diag(x.T, -2), M),
    "diag matrix far": (lambda x: np.diag(x, 7), M),
    "tril": (np.tril, M),
    "triu k": (lambda x: np.triu(x, 1), T),
    "tril vector": (lambda x: np.tril(x, -1), V),
    "triu vector": (np.triu, V),
    "pad": (lambda x: np.pad(x, ((1, 0), (2, 3))), M),
    "pad int": (lambda x: np.pad(x, 2, constant_values=1.5), T),
    "pad dict": (lambda x: np.pad(x, {1: (0, 2)}), M),
    "pad edge": (lambda x: np.pad(x, ((2, 1), (1, 3)), mode="edge"), M),
    "pad wrap": (lambda x: np.pad(x, 7, mode="wrap"), V),
    "pad reflect": (lambda x: np.pad(x, ((4, 1), (5, 2)), mode="reflect"), M),
    "pad symmetric": (lambda x: np.pad(x, 3, mode="symmetric"), T),
    "append": (lambda x: np.append(x, x[:2]), M),
    "append axis": (lambda x: np.append(x, x[:, :2], axis=1), M),
    "append constant": (lambda x: np.append([1.0, 2.0], x), V),
    "append axis 0": (lambda x: np.append(M, x, axis=0), M),
    "full_like": (lambda x: np.full_like(M, x[0]) * x[1], V),
    "full_like array": (lambda x: np.full_like(T, x), V[:4]),
    "full": (lambda x: np.full((2, 5), x), V),
    "real": (lambda x: np.real(x) * 2, M),
    "imag": (lambda x: np.imag(x) + x, M),
    "conjugate": (np.conjugate, M),
    "where": (lambda x: np.where(x > 0, x, x ** 2), M),
    "diagflat": (np.diagflat, M[:2]),
    "diagflat k": (lambda x: np.diagflat(x, -1), V),
    "polyder": (np.polyder, V),
    "polyder twice": (lambda x: np.polyder(x, 2), V),
    "polyder short": (lambda x: np.polyder(x[:2], 3) + np.sum(x), V),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rule_transposes_forward_mode(name):
    f, x = CASES[name]
    check_vjp(f, (x,))


def test_numbers_and_scalar_results():
    g = ad.gradient(lambda s: np.sum(np.tile(s, 3) * np.arange(3.0)), 2.0, backend=R)
    assert g == 3.0 and type(g) is float
    g = ad.gradient(lambda s: np.sum(np.hstack([s, 1.0, s]) ** 2), 2.0, backend=R)
    assert g == 8.0 and type(g) is float
    assert ad.gradient(lambda s: np.sum(np.append(V, s) * 3), 2.0, backend=R) == 3.0
    assert ad.gradient(lambda s: np.sum(np.broadcast_to(s, (2, 3))), 2.0, backend=R) == 6.0


def jacobian_of_linear(f, x):
    """The Jacobian of ``f``, linear in ``x``, column by column from unit vectors (no AD)."""
    return np.stack([np.ravel(f(e)) for e in np.eye(np.size(x)).reshape((-1,) + np.shape(x))], axis=1)


def reverse_vjp(f, x, u):
    return ad.gradient(lambda y: np.sum(u * f(y)), x, backend=R)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("fn", [np.convolve, np.correlate], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("n, m", [(6, 3), (3, 6), (4, 4), (2, 5), (5, 2), (1, 3)])
def test_convolve_and_correlate_adjoints(fn, mode, n, m):
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    u = rng.standard_normal(np.shape(fn(a, v, mode)))
    for f, x in ((lambda a: fn(a, v, mode), a), (lambda v: fn(a, v, mode), v)):
        np.testing.assert_allclose(reverse_vjp(f, x, u), jacobian_of_linear(f, x).T @ u, rtol=1e-10, atol=1e-12)
    if n == m:  # bilinear: both arguments the same value
        w = rng.standard_normal(n)
        expected = jacobian_of_linear(lambda a: fn(a, w, mode), w).T @ u + \
            jacobian_of_linear(lambda b: fn(w, b, mode), w).T @ u
        np.testing.assert_allclose(reverse_vjp(lambda x: fn(x, x, mode), w, u), expected, rtol=1e-10)


@pytest.mark.parametrize("fn", [np.fft.fftshift, np.fft.ifftshift], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("axes", [None, 1, (0, 2)])
def test_fftshifts(fn, axes):
    x = rng.standard_normal((3, 4, 5))
    u = rng.standard_normal(x.shape)
    f = lambda y: fn(y, axes=axes)
    expected = (jacobian_of_linear(f, x).T @ u.ravel()).reshape(x.shape)
    np.testing.assert_allclose(reverse_vjp(f, x, u), expected, rtol=1e-12)


def smooth_loss(x):
    y = np.pad(np.reshape(x, (3, 4)), ((1, 1), (0, 2)), mode="edge")
    parts = np.split(y, 2, axis=1)
    z = np.hstack([parts[1], np.flip(parts[0], 0)]) + np.tril(np.tile(x[:6], (5, 1)))
    z = np.rot90(np.roll(z, 1, axis=0)) * np.broadcast_to(np.take(x, [1, 1, 4, 0, 2]), (6, 5))
    return np.sum(np.tanh(np.append(np.diag(z[:5]), np.repeat(x[::2], 2)))) + np.sum(z ** 2)


def test_gradients_of_composites_agree_with_forward_mode():
    x = rng.standard_normal(12)
    np.testing.assert_allclose(ad.gradient(smooth_loss, x, backend=R), ad.gradient(smooth_loss, x), rtol=1e-10)
    f = lambda x: np.sum(np.sin(np.vstack(np.broadcast_arrays(x[:4], x[4:5])) @ np.moveaxis(T, 0, 1)[0, 0]))
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x), rtol=1e-10)
    g = lambda x: np.sum(np.cos(np.take_along_axis(np.dstack([x[:6], x[6:]]), np.array([[[1, 0]]]), axis=2)))
    np.testing.assert_allclose(ad.gradient(g, x, backend=R), ad.gradient(g, x), rtol=1e-10)


def pieces_loss(x):
    a, b = np.broadcast_arrays(x[:4, None], x[4:7])
    c = np.take_along_axis(np.column_stack([x[:6], x[6:]]), np.array([[1], [0]] * 3), axis=1)
    d = np.vstack(np.atleast_2d(x[:3], x[3:6]))
    e = np.array_split(np.dstack([x[:4], x[8:]]), 3, axis=1)[1]
    return (np.sum(np.sin(a * b)) + np.sum(c ** 3) + np.sum(np.exp(d)) + np.sum(e ** 2) * np.sum(np.diagflat(x[:2]))
            + np.sum(np.polyder(x[:5]) ** 2))


@pytest.mark.parametrize("f", [smooth_loss, pieces_loss], ids=lambda f: f.__name__)
def test_hessian_forward_over_reverse(f):
    x = rng.standard_normal(12)
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x), rtol=1e-10)
    np.testing.assert_allclose(ad.hessian(f, x, backend=R), ad.hessian(f, x), rtol=1e-9, atol=1e-12)


def test_convolution_against_forward_mode_where_it_has_a_rule():
    a, v = rng.standard_normal(6), rng.standard_normal(3)
    try:
        ad.jvp(lambda a: np.convolve(a, v), a, v[:1] * np.ones(6))
    except ad.NoRuleError:
        pytest.skip("forward mode has no rule for np.convolve yet (ad/rules/convolution.py)")
    for mode in ("full", "same", "valid"):
        for fn in (np.convolve, np.correlate):
            check_vjp(lambda a, v: fn(a, v, mode), (a, v))
            check_vjp(lambda v, a: fn(v, a, mode), (v, a))


def test_refusals_are_clear():
    x = rng.standard_normal(4)
    for fn in (np.fft.fft, np.fft.rfft, np.fft.fftn, np.fft.irfft, np.fft.rfftn, np.fft.hfft, np.fft.ihfft):
        # every FFT has its reverse rule (the complex-valued checks are in test_ad_reverse_complex.py)
        assert np.allclose(ad.gradient(lambda y: np.sum(fn(y).real), x, backend=R),
                           ad.gradient(lambda y: np.sum(fn(y).real), x, backend=ad.ForwardMode()))
    assert np.allclose(ad.gradient(lambda y: np.sum(y * np.fft.fft(x).real), x, backend=R), np.fft.fft(x).real)
    with pytest.raises(ad.NoRuleError, match="mode 'mean'"):
        ad.gradient(lambda y: np.sum(np.pad(y, 2, mode="mean")), x, backend=R)
    with pytest.raises(ad.NoRuleError, match="reflect_type='odd'"):
        ad.gradient(lambda y: np.sum(np.pad(y, 2, mode="reflect", reflect_type="odd")), x, backend=R)
    with pytest.raises(ad.NoRuleError, match="constant_values"):
        ad.gradient(lambda y: np.sum(np.pad(x, 1, constant_values=y[0])), x, backend=R)
    with pytest.raises(ad.NoRuleError, match="nested lists"):
        ad.gradient(lambda y: np.sum(np.vstack([[y[0], 1.0], y[:2]])), x, backend=R)
    with pytest.raises(ad.NoRuleError, match="not differentiable in argument 2"):
        ad.gradient(lambda y: np.sum(np.take(x, y)), x, backend=R)


@pytest.mark.parametrize("f", [
    lambda u: np.concatenate([[u[0]], u]),
    lambda u: np.concatenate([[u[0] * 2, 1.0], u[1:]]),
    lambda u: np.concatenate([[[u[0]], [u[1]]], [[u[2]], [3.0]]], axis=1),
    lambda u: np.stack([[u[0], u[1]], [u[2], 1.0]], axis=1),
    lambda u: np.stack([[u[0], u[1]], [u[2], 1.0]], axis=0),
    lambda u: np.stack([u, u * 2], axis=1),
], ids=["concatenate nested", "concatenate nested constants", "concatenate 2-level axis 1", "stack nested axis 1",
        "stack nested axis 0", "stack arrays axis 1"])
def test_values_inside_nested_lists_of_a_concatenation_or_stack_get_their_cotangent(f):
    # numbers inside a nested list of np.concatenate used to get no cotangent at all (a wrong zero)
    x = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(ad.jacobian(f, x, backend=ad.ReverseMode()), ad.jacobian(f, x))
