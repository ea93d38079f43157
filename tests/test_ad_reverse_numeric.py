"""Reverse mode's rules for NumPy's numeric helpers, order statistics, nan reductions, number types,
``math``/builtins with whole forward rules, ``select``/``piecewise``/``block`` and writes
(``ad/rules/vjps_numeric.py``, ``vjps_order_statistics.py``, ``vjps_scalars.py``,
``vjps_selection.py``): each against forward mode by the dot-product test, gradients and
forward-over-reverse Hessians of composite functions, conventions at ties and NaNs, and clear
refusals."""

import math
import operator

import numpy as np
import pytest

import ad
from ad.testing import check_vjp

R = ad.ReverseMode()
rng = np.random.default_rng(11)
M = rng.standard_normal((3, 4))
T = rng.standard_normal((2, 3, 4))
V = rng.standard_normal(6)
W = rng.standard_normal(4)
XP = np.array([0.0, 0.5, 1.0, 2.0])
XS = np.array([-0.5, 0.2, 0.5, 1.3, 2.0, 3.0, 0.0])  # outside, inside, at samples, at both ends
TIE = np.array([1.0, 3.0, 1.0, 2.0, 3.0, 0.5])
NANS = np.where(np.arange(12).reshape(3, 4) % 5 == 1, np.nan, 0.0)  # NaN at (0, 1), (1, 2)

CASES = {
    # differences
    "diff": (lambda x: np.diff(x), (M,)),
    "diff n=2 axis=0": (lambda x: np.diff(x, 2, axis=0), (T,)),
    "diff n=0": (lambda x, p: np.diff(x, 0, prepend=p), (V, 0.5)),
    "diff n too big": (lambda x: np.diff(x, 7), (V,)),
    "diff prepend append": (lambda x, p: np.diff(x, prepend=p, append=1.0), (V, 0.5)),
    "diff prepend array": (lambda x, p: np.diff(x, axis=0, prepend=p), (M, W[None])),
    "ediff1d": (lambda x, b: np.ediff1d(x, to_begin=b, to_end=[2.0, 3.0]), (M, W)),
    "ediff1d number": (lambda x, e: np.ediff1d(x, to_end=e), (V, 0.3)),
    "gradient": (np.gradient, (V,)),
    "gradient edge_order=2": (lambda x: np.gradient(x, 0.3, edge_order=2), (V,)),
    "gradient coordinates": (lambda x: np.gradient(x, np.cumsum(np.abs(V) + 0.1), edge_order=2), (V,)),
    "gradient 2-d": (lambda x: np.gradient(x, 0.5, [0.0, 1.0, 3.0, 4.5]), (M,)),
    "gradient axis": (lambda x: np.gradient(x, axis=1, edge_order=2), (M,)),
    "trapezoid": (np.trapezoid, (V,)),
    "trapezoid x": (lambda y, x: np.trapezoid(y, x), (M, W)),
    "trapezoid x axis=0": (lambda y, x: np.trapezoid(y, x, axis=0), (M, W[:3])),
    "trapezoid x 2-d": (lambda y, x: np.trapezoid(y, x), (M, M[::-1] * 2)),
    "trapezoid dx": (lambda y, d: np.trapezoid(y, dx=d), (M, 0.7)),
    "unwrap": (lambda p: np.unwrap(4 * p), (V,)),
    # grids
    "linspace": (lambda a, b: np.linspace(a, b, 5), (0.3, 1.7)),
    "linspace arrays": (lambda a, b: np.linspace(a, b, 4, endpoint=False, axis=1), (W, 2.0)),
    "logspace": (lambda a, b, c: np.logspace(a, b, 5, base=c), (0.3, 1.1, 2.5)),
    "logspace arrays": (lambda a, b, c: np.logspace(a, b, 3, base=c, axis=-1), (0.3 * W, 1.0, np.abs(W) + 1.5)),
    "geomspace": (lambda a, b: np.geomspace(a, b, 5), (0.3, 1.7)),
    "geomspace arrays": (lambda a, b: np.geomspace(a, b, 4, axis=1), (np.abs(W) + 0.1, 2.0)),
    # interpolation, polynomials
    "interp": (lambda x, fp: np.interp(x, XP, fp), (XS, W)),
    "interp left right": (lambda x, fp, lo, hi: np.interp(x, XP, fp, lo, hi), (XS, W, 0.3, -0.4)),
    "interp period": (lambda x, fp: np.interp(x, XP, fp, period=2.5), (XS, W)),
    "interp number": (lambda x, fp: np.interp(x, XP, fp), (0.7, W)),
    "polyval": (np.polyval, (W, V)),
    "polyval number": (np.polyval, (W, 0.7)),
    "polyval 2-d": (np.polyval, (M, W)),
    # order statistics
    "partition": (lambda x: np.partition(x, 2), (M,)),
    "partition ties": (lambda x: np.partition(x + TIE, 3), (np.zeros(6),)),
    "partition axis=None": (lambda x: np.partition(x, [1, 5], axis=None), (M,)),
    "median": (np.median, (M,)),
    "median keepdims": (lambda x: np.median(x, axis=1, keepdims=True), (M,)),
    "median axes": (lambda x: np.median(x, axis=(0, 2)), (T,)),
    "median ties": (lambda x: np.median(x + TIE), (np.zeros(6),)),
    "quantile": (lambda x: np.quantile(x, [0.1, 0.5, 0.93], axis=0), (M,)),
    "quantile keepdims": (lambda x: np.quantile(x, [[0.1], [0.7]], axis=-1, keepdims=True), (T,)),
    "quantile hazen": (lambda x: np.quantile(x, 0.37, method="hazen"), (V,)),
    "quantile nearest": (lambda x: np.quantile(x, 0.37, method="nearest"), (V,)),
    "percentile": (lambda x: np.percentile(x, 30, axis=1), (M,)),
    "nanmedian": (lambda x: np.nanmedian(x + NANS, axis=1), (M,)),
    "nanquantile": (lambda x: np.nanquantile(x + NANS, [0.2, 0.8], axis=0), (M,)),
    "nanpercentile": (lambda x: np.nanpercentile(x + NANS, 40), (M,)),
    # nan reductions
    "nansum": (lambda x: np.nansum(x + NANS, axis=0), (M,)),
    "nansum keepdims": (lambda x: np.nansum(x + NANS, axis=1, keepdims=True), (M,)),
    "nanmean": (lambda x: np.nanmean(x + NANS, axis=1), (M,)),
    "nanmean all": (lambda x: np.nanmean(x + NANS), (M,)),
    "nanvar": (lambda x: np.nanvar(x + NANS, axis=1), (M,)),
    "nanvar ddof": (lambda x: np.nanvar(x + NANS, axis=0, ddof=1, keepdims=True), (M,)),
    "nanstd": (lambda x: np.nanstd(x + NANS), (M,)),
    "nanstd correction": (lambda x: np.nanstd(x + NANS, axis=1, correction=1), (M,)),
    "nanmax": (lambda x: np.nanmax(x + NANS, axis=1), (M,)),
    "nanmin keepdims": (lambda x: np.nanmin(x + NANS, axis=0, keepdims=True), (M,)),
    "nanmax ties": (lambda x: np.nanmax(x + TIE), (np.zeros(6),)),
    "nanmax initial": (lambda x: np.nanmax(x + NANS, axis=1, initial=0.5), (M,)),
    "nanmax axes": (lambda x: np.nanmax(x, axis=(0, 2)), (T,)),
    "nanprod": (lambda x: np.nanprod(x + NANS, axis=1), (M,)),
    "nanprod zeros": (lambda x: np.nanprod(x * np.array([0.0, 1, 0, 1]) + NANS, axis=1), (M,)),
    "nanprod all": (lambda x: np.nanprod(x + NANS), (M,)),
    "nancumsum": (lambda x: np.nancumsum(x + NANS, axis=1), (M,)),
    "nancumsum flat": (lambda x: np.nancumsum(x + NANS), (M,)),
    # number types, conversions
    "nan_to_num": (lambda x: np.nan_to_num(x + np.array([1, np.inf, np.nan, 1, 1, -np.inf])), (V,)),
    "nan_to_num number": (lambda x: np.nan_to_num(x) * 2, (0.3,)),
    "angle": (lambda x: np.angle(x) + x, (V,)),
    "real_if_close": (np.real_if_close, (M,)),
    "float64 of a number": (lambda x: np.float64(x) * 2, (0.4,)),
    "float64 of an array": (lambda x: np.float64(x) * 2, (M,)),
    "longdouble": (lambda x: np.float64(np.longdouble(x) * 3), (0.4,)),
    "asanyarray": (lambda x: np.asanyarray(x) * 2, (M,)),
    "ascontiguousarray": (lambda x: np.ascontiguousarray(x.T), (M,)),
    "ascontiguousarray list": (lambda x: np.ascontiguousarray([x, 2 * x]), (0.4,)),
    # math, builtins, operator
    "hypot": (math.hypot, (0.3, -1.2, 2.0)),
    "hypot unpacked": (lambda v: math.hypot(*v), (W,)),
    "fsum list": (lambda v: math.fsum([v[0], 2.0, v[1] * v[2]]), (W,)),
    "fsum generator": (lambda v: math.fsum(v[i] ** 2 for i in range(3)), (W,)),
    "fsum array": (lambda v: math.fsum(v * 2), (W,)),
    "dist": (lambda a, b: math.dist([a, 1.0], (b, a * b)), (0.3, -1.2)),
    "dist arrays": (math.dist, (W, V[:4])),
    "dist array and list": (lambda v: math.dist(v, [1.0, 2.0, v[0], 0.0]), (W,)),
    "frexp": (lambda a: math.frexp(a)[0] * math.frexp(a)[1], (3.7,)),
    "modf": (lambda a: math.modf(a)[0] + math.modf(a)[1], (3.7,)),
    "divmod": (lambda a, b: divmod(a, b)[1] * 2 + divmod(a, b)[0], (3.7, 1.1)),
    "divmod arrays": (lambda a, b: divmod(a, b)[1], (3 * M, W + 2)),
    "operator.matmul": (operator.matmul, (M, W)),
    "operator.matmul stacks": (operator.matmul, (T, M.T)),
    # select, piecewise, block
    "select": (lambda x, y: np.select([M > 0, M < -0.5], [x, 2 * y], 0.5), (M, W)),
    "select default": (lambda x, d: np.select([M > 0, M > -0.5], [x, 3.0], d), (M, 0.7)),
    "select list choice": (lambda x: np.select([V > 0], [[x[0]] * 6], x[1]), (V,)),
    "piecewise": (lambda x: np.piecewise(x, [x < 0, x > 0.5], [lambda v: v ** 2, np.sin, lambda v: 2 * v]), (V,)),
    "piecewise constant piece": (lambda x: np.piecewise(x, [M < 0], [np.exp, 1.5]), (M,)),
    "piecewise overlap": (lambda x: np.piecewise(x, [x < 1, x > -1], [np.cos, lambda v: v ** 3]), (V,)),
    "piecewise number": (lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]), (0.7,)),
    "piecewise args": (lambda x: np.piecewise(x, [x < 0], [lambda v, a: a * v, 0.0], 3.0), (V,)),
    "block": (lambda x, y: np.block([[x, M], [y[None, :], np.ones((1, 4))]]), (M, W)),
    "block 1-d": (lambda x, y: np.block([x, y, 2.0]), (W, 0.3)),
    "block deep": (lambda x: np.block([[[x[None], x[None]]]]), (M,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reverse_mode_transposes_forward_mode(name):
    f, args = CASES[name]
    check_vjp(f, args, argnums=list(range(len(args))))


def test_float32_transposes_forward_mode_to_single_precision():
    check_vjp(lambda x: np.float32(x) * 2, (M,), rtol=1e-6)


def test_nancumprod_is_cumprod_of_the_input_with_nans_made_one():
    try:
        ad.gradient(lambda x: np.sum(np.cumprod(x)), V, backend=R)
    except ad.NoRuleError:  # np.cumprod's reverse rule is not there yet: nancumprod names it
        with pytest.raises(ad.NoRuleError, match="cumprod"):
            ad.gradient(lambda x: np.sum(np.nancumprod(x)), V, backend=R)
        return
    check_vjp(lambda x: np.nancumprod(x + NANS, axis=1), (M,))


def composite(x):
    y = np.interp(0.9 * x, np.linspace(-2.0, 2.5, 5), x ** 2) + np.polyval(x[:3], x)
    s = np.trapezoid(y ** 2, np.cumsum(np.exp(x))) + np.sum(np.gradient(x ** 2, 0.3, edge_order=2) ** 2)
    s = s + np.nanstd(x * x[0]) + np.nanprod(x) * np.median(x ** 3) + np.quantile(x, 0.3) * np.nanmax(x ** 2)
    s = s + np.sum(np.logspace(x[0], x[1], 4, base=x[3])) + np.sum(np.diff(x ** 3, prepend=x[0] ** 2) ** 2)
    s = s + math.hypot(*x) + math.dist(x[:2], [x[3], 1.0]) * math.fsum(x ** 2) + divmod(3 * x[3], x[4])[1] ** 2
    s = s + np.sum(np.select([x > 0], [x ** 3], x ** 2) * x) + np.sum(np.piecewise(x, [x < 0], [np.sin, np.cos]) * x)
    return s + np.sum(np.block([x ** 2, x[0] * x[1]]) ** 2) + np.sum(np.partition(x, 2)[:3] ** 3)


X0 = np.array([0.3, -1.2, 0.7, 2.0, 1.1])


@pytest.mark.parametrize("f, x", [
    (composite, X0),
    (lambda x: np.sum(np.linspace(x[0], x[1], 7) ** 3) * np.nanmean(x) + np.nanvar(x ** 2), X0),
    (lambda x: np.sum(np.geomspace(x[3], x[4], 4) ** 2) + float(np.float64(x[0] ** 3)) * x[1], X0),
])
def test_gradients_and_hessians_agree_with_forward_mode(f, x):
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ad.hessian(f, x, backend=R), ad.hessian(f, x), rtol=1e-9, atol=1e-10)


def test_lists_holding_values_and_keyword_arguments_carry_derivatives():
    g = ad.grad(lambda p, x: np.polyval([p, 2.0, p * x], x), (0, 1), backend=R)(0.3, 1.2)
    assert g == pytest.approx((1.2 ** 2 + 1.2, 2 * 0.3 * 1.2 + 2.0 + 0.3), rel=1e-12)
    g = ad.grad(lambda a, b: np.sum(np.diff([a, b, a * b], prepend=b)), (0, 1), backend=R)(0.3, 1.2)
    assert g == pytest.approx((1.2, 0.3 - 1.0), rel=1e-12)  # the sum telescopes: a * b - b
    g = ad.grad(lambda a, b: np.sum(np.linspace(start=a, stop=b, num=4) ** 2), (0, 1), backend=R)(0.3, 1.2)
    assert all(type(v) is float for v in g)  # cotangents of Python floats are floats
    assert g == pytest.approx(ad.grad(lambda a, b: np.sum(np.linspace(a, b, 4) ** 2), (0, 1))(0.3, 1.2), rel=1e-12)


def test_conventions_at_ties_samples_and_nans():
    grad = lambda f, x: ad.gradient(f, x, backend=R)  # noqa: E731
    np.testing.assert_array_equal(grad(lambda x: np.nanmax(x), np.array([1.0, 3.0, np.nan, 3.0])), [0, 1, 0, 0])
    np.testing.assert_array_equal(grad(lambda x: np.partition(x, 1)[1], np.array([2.0, 1.0, 1.0])), [0, 0, 1])
    np.testing.assert_array_equal(grad(lambda x: np.nansum(x * 2), np.array([1.0, np.nan])), [2, 0])
    np.testing.assert_array_equal(grad(lambda x: np.nan_to_num(x).sum(), np.array([1.0, np.inf, np.nan])), [1, 0, 0])
    median = grad(lambda x: np.median(x), np.array([1.0, np.nan, 2.0]))
    assert np.isnan(median).any()  # a NaN result: NaN, as forward mode's tangent
    assert grad(lambda x: np.interp(x, XP, np.array([0.0, 1.0, 5.0, 6.0])), 0.5) == pytest.approx(8.0)  # right slope
    np.testing.assert_allclose(grad(lambda x: np.sum(np.median(x, axis=0)), np.array([[1.0, 2.0], [3.0, 0.0]])),
                               [[0.5, 0.5], [0.5, 0.5]])


def _writes_into(fn):
    def f(x):
        z = np.zeros(6)
        fn(z, x)
        return z
    return f


MASKED_WRITES = {
    "putmask": _writes_into(lambda z, x: np.putmask(z, V > 0, x)),
    "putmask, values cycled by position": _writes_into(lambda z, x: np.putmask(z, V > 0, x[:2] ** 2)),
    "putmask into the input": lambda x: np.putmask(x, V > 0, x[::-1] * 3.0) or x * x,
    "place into": lambda x: np.place(x, V > 0, 1.0) or x,
    "place list": _writes_into(lambda z, x: np.place(z, V > 0, [x[0], x[1] * x[2]])),
    "place, values cycled in order": _writes_into(lambda z, x: np.place(z, V > -10, np.sin(x[:4]))),
    "putmask 2-d": lambda x: (lambda b: np.putmask(b, np.eye(2, 3, dtype=bool), x[:2]) or b)(np.outer(x[:2], x[:3])),
}


@pytest.mark.parametrize("name", list(MASKED_WRITES))
def test_masked_writes(name):
    f = MASKED_WRITES[name]
    loss = lambda y: np.sum(f(y * 1.0) * np.arange(1.0, 1 + np.size(f(V * 1.0))).reshape(np.shape(f(V * 1.0))))
    np.testing.assert_allclose(ad.gradient(loss, V, backend=R), ad.gradient(loss, V, backend=ad.ForwardMode()),
                               rtol=1e-12, atol=1e-12)


def test_masked_write_refusals():
    with pytest.raises(ad.NoRuleError, match="mask carries a derivative"):
        ad.gradient(lambda x: np.sum(_writes_into(lambda z, y: np.putmask(z, y, y))(x)), V, backend=R)
    with pytest.raises(ValueError, match="empty values"):
        ad.gradient(lambda x: np.sum(_writes_into(lambda z, y: np.place(z, V > 0, y[:0]))(x)), V, backend=R)


REFUSED = {
    "integer dtype": (lambda x: np.asanyarray(x, dtype=int), M, "would truncate"),
    "nan_to_num in place": (lambda x: np.nan_to_num(x, copy=False), M, "copy=False"),
    "linspace retstep": (lambda x: np.linspace(x, 2.0, 3, retstep=True)[0], 0.4, "retstep"),
    "polyval poly1d": (lambda x: np.polyval(np.poly1d([1.0, 2.0]), x), 0.4, "poly1d"),
    "quantile q": (lambda x: np.quantile(M, x), 0.4, "differentiable in a only"),
    "median out": (lambda x: np.median(x, axis=0, out=np.zeros(4)), M, "out="),
    "nanvar mean": (lambda x: np.nanvar(x, mean=np.zeros((3, 1)), axis=1), M, "mean"),
    "nansum where": (lambda x: np.nansum(x, where=M > 0), M, "where="),
    "gradient spacing": (lambda x: np.gradient(M[0], x), 0.5, "spacings"),
    "unwrap period": (lambda x: np.unwrap(V, period=x), 3.0, "differentiable in p only"),
    "diff n": (lambda x: np.diff(V, n=x), 0.5, "not differentiable in argument 2"),
    "select condition": (lambda x: np.select([x], [x]), V, "conditions must be constants"),
    "piecewise condition": (lambda x: np.piecewise(x, [x], [np.sin]), V, "conditions must be constants"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_clear_refusals(name):
    f, x, message = REFUSED[name]
    with pytest.raises(ad.NoRuleError, match=message):
        ad.gradient(lambda y: np.sum(f(y)), x, backend=R)


def test_complex_scalar_types_of_real_values():
    f = lambda x: np.real(np.complex128(x) * (1 + 2j)) + np.imag(np.complex64(x) * 1j) * 3  # noqa: E731
    assert ad.gradient(f, 0.3, backend=R) == pytest.approx(4.0)


def test_writes_of_constants_are_seen_by_the_tape():
    def f(x):
        c = np.ones(6)
        y = np.sum(c * x)  # the tape keeps c
        np.copyto(c, 5.0)
        np.putmask(c, V > 0, 7.0)
        return y + np.sum(c * x)
    np.testing.assert_allclose(ad.gradient(f, V, backend=R), 1 + np.where(V > 0, 7.0, 5.0))
