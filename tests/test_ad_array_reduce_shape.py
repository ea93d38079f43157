"""Forward AD of NumPy reductions (``ad.rules.reductions``) and shape functions (``ad.rules.shapes``).

Every rule is checked against central differences on seeded random inputs of several
shapes, axes and ``keepdims``, with a plain tangent and with a chunk of 3 directions
(each direction against its own difference quotient; relative tolerance 1e-5). The value
must be exactly NumPy's. Also: products with zero entries, ties in ``max``/``min``,
writes through views (the tangent must follow), constants in joined sequences, ``split``
returning lists of views, errors for unsupported cases, second derivatives by nesting.
"""

import warnings
import zlib

import numpy as np
import pytest

import ad
import ad.rules.reductions  # noqa: F401  (register the rules)
import ad.rules.shapes  # noqa: F401
from context import overdub
from context.tagging import Tagged, enabletagging, tag

H = 1e-6
RTOL = 1e-5


# ------------------------------------------------------------------ helpers


def run(f, x, v):
    """``f(x)`` under a fresh ForwardCtx with ``x`` tagged by tangent ``v`` (shape x.shape or (k,)+x.shape)."""
    ctx = enabletagging(ad.ForwardCtx(), f)
    return overdub(ctx, f, tag(x, ctx, v))


def parts(out):
    """``[(value, tangent or None)]`` for each array or number in ``out`` (lists and tuples flattened)."""
    if isinstance(out, (list, tuple)):
        return [p for item in out for p in parts(item)]
    if isinstance(out, Tagged):
        return [(out.value, out.meta)]
    return [(out, None)]


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def fd(f, x, v):
    """Central differences of each part of ``f``'s result along ``v``."""
    plus = [np.asarray(p) for p, _ in parts(f(x + H * v))]
    minus = [np.asarray(p) for p, _ in parts(f(x - H * v))]
    return [(a - b) / (2 * H) for a, b in zip(plus, minus)]


def assert_close(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape, "%s: tangent shape %s, expected %s" % (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert not np.isnan(want).any(), "%s: choose a point where the function is differentiable" % what
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-7 * scale, err_msg=what)


def check(f, x, name, k=3):
    """AD of ``f`` at ``x`` against central differences, unchunked and with ``k`` directions."""
    rng = rng_for(name)
    native = [p for p, _ in parts(f(x))]
    for v in (rng.standard_normal(x.shape), rng.standard_normal((k,) + x.shape)):
        chunked = v.ndim > x.ndim
        got = parts(run(f, x, v))
        assert len(got) == len(native), name
        for (value, _), want in zip(got, native):
            np.testing.assert_array_equal(value, want, err_msg="%s: value" % name)
        for j, vj in enumerate(v if chunked else [v]):
            for i, ((value, t), want) in enumerate(zip(got, fd(f, x, vj))):
                what = "%s part %d%s" % (name, i, " direction %d" % j if chunked else "")
                if t is None:  # untagged: the derivative must be zero
                    assert_close(np.zeros_like(want), want, what)
                    continue
                assert np.shape(t) == (np.shape(v)[:1] if chunked else ()) + np.shape(value), what
                assert_close(np.asarray(t)[j] if chunked else t, want, what)


def normal(shape, name):
    return rng_for("x" + name).standard_normal(shape)


def away0(shape, name):
    """Entries with 0.5 <= |x| <= 1.5 and random signs (products stay moderate, no kinks)."""
    rng = rng_for("x" + name)
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


SHAPES = [(5,), (3, 4), (2, 3, 4)]


def axes_for(ndim):
    axes = [None, 0, -1]
    if ndim >= 2:
        axes.append((0, -1))
    if ndim == 3:
        axes.append((2, 1))
    return axes


# -------------------------------------------------------------- reductions

REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.amax, np.min, np.amin, np.var, np.std, np.nansum,
              np.nanmean]
REDUCTION_CASES = [(fn, shape, axis, keepdims) for fn in REDUCTIONS for shape in SHAPES
                   for axis in axes_for(len(shape)) for keepdims in (False, True)]
REDUCTION_CASES += [(fn, shape, axis, True) for fn in REDUCTIONS for shape, axis in [((), None), ((1, 4), 0)]]


@pytest.mark.parametrize(
    "fn,shape,axis,keepdims", REDUCTION_CASES,
    ids=["%s-%s-%s-%s" % (fn.__name__, "x".join(map(str, s)), a, k) for fn, s, a, k in REDUCTION_CASES],
)
def test_reduction_against_central_differences(fn, shape, axis, keepdims):
    name = "%s %s %s %s" % (fn.__name__, shape, axis, keepdims)
    x = (away0 if fn is np.prod else normal)(shape, name)
    check(lambda x: fn(x, axis=axis, keepdims=keepdims), x, name)


def test_amax_and_amin_are_registered_separately():
    assert np.amax is not np.max and np.amin is not np.min  # NumPy 2.x: distinct dispatchers
    own = ad.ForwardCtx._own_primitives
    assert all(id(fn) in own for fn in (np.max, np.amax, np.min, np.amin))


METHOD_CASES = {
    "sum": lambda x: x.sum(0),
    "mean": lambda x: x.mean(axis=(0, 2), keepdims=True),
    "prod": lambda x: x.prod(1),
    "max": lambda x: x.max(axis=-1),
    "min": lambda x: x.min(),
    "var": lambda x: x.var(1, None, None, 1),
    "std": lambda x: x.std(axis=0, ddof=1, keepdims=True),
    "cumsum": lambda x: x.cumsum(),
    "cumprod": lambda x: x.cumprod(1),
    "positional": lambda x: np.sum(x, 1, None, None, True),
}


@pytest.mark.parametrize("name", sorted(METHOD_CASES))
def test_method_and_positional_forms(name):
    check(METHOD_CASES[name], away0((2, 3, 4), name), "method " + name)


OPTION_CASES = {
    "sum where": (lambda x: np.sum(x, axis=1, where=np.array([True, False, True, True])), (3, 4)),
    "sum initial": (lambda x: np.sum(x, axis=0, initial=3.0), (3, 4)),
    "sum complex dtype": (lambda x: np.real(np.sum(x, dtype=complex) * (1 - 2j)), (3, 4)),
    "mean where": (lambda x: np.mean(x, axis=0, where=np.array([[1], [0], [1]], bool)), (3, 4)),
    "prod where": (lambda x: np.prod(x, axis=-1, where=np.array([True, False, True, True])), (3, 4)),
    "prod initial": (lambda x: np.prod(x, axis=(0, 1), initial=2.0, keepdims=True), (3, 4)),
    "max where": (lambda x: np.max(x, axis=1, where=np.array([False, True, True, False]), initial=-10.0),
                  (3, 4)),
    "max initial wins": (lambda x: np.max(x, axis=0, initial=0.25), (3, 4)),
    "min initial": (lambda x: np.min(x, axis=1, initial=0.0), (3, 4)),
    "var ddof": (lambda x: np.var(x, axis=0, ddof=1), (3, 4)),
    "var correction": (lambda x: np.var(x, correction=2), (3, 4)),
    "var where": (lambda x: np.var(x, axis=1, where=np.array([True, True, False, True])), (3, 4)),
    "std ddof": (lambda x: np.std(x, axis=(0, 1), ddof=2, keepdims=True), (2, 3, 4)),
    "std where": (lambda x: np.std(x, axis=0, where=np.array([[1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 1]], bool)),
                  (3, 4)),
    "var complex": (lambda x: np.var(x * (1 + 1j) + 1j * x ** 2, axis=1), (3, 4)),
    "std complex": (lambda x: np.std(x * (1 - 2j) + x ** 3, axis=0), (3, 4)),
    "nansum nan": (lambda x: np.nansum(np.where(np.isnan(NAN_MASK), np.nan, 1.0) * x, axis=0), (3, 4)),
    "nanmean nan": (lambda x: np.nanmean(np.where(np.isnan(NAN_MASK), np.nan, 1.0) * x, axis=1), (3, 4)),
}
NAN_MASK = np.array([[1.0, np.nan, 1.0, 1.0], [1.0, 1.0, 1.0, np.nan], [np.nan, 1.0, 1.0, 1.0]])


@pytest.mark.parametrize("name", sorted(OPTION_CASES))
def test_reduction_options(name):
    f, shape = OPTION_CASES[name]
    check(f, away0(shape, name), name)


def test_integer_dtype_results_are_untagged():
    x = normal((3, 4), "int dtype") * 10
    for f in (lambda x: np.sum(x, dtype=int), lambda x: np.cumsum(x, axis=0, dtype=np.int64),
              lambda x: np.prod(x, axis=1, dtype=int), lambda x: np.linalg.norm(x[0], 0)):
        out = run(f, x, np.ones_like(x))
        assert not isinstance(out, Tagged)
        np.testing.assert_array_equal(out, f(x))


CUM_CASES = [(fn, shape, axis) for fn in (np.cumsum, np.cumprod) for shape in SHAPES + [(9,), (2, 11)]
             for axis in (None, 0, -1)]


@pytest.mark.parametrize("fn,shape,axis", CUM_CASES,
                         ids=["%s-%s-%s" % (fn.__name__, "x".join(map(str, s)), a) for fn, s, a in CUM_CASES])
def test_cumulative_against_central_differences(fn, shape, axis):
    name = "%s %s %s" % (fn.__name__, shape, axis)
    check(lambda x: fn(x, axis=axis), away0(shape, name), name)


ZERO_INPUTS = {
    "one zero": np.array([1.5, -0.5, 0.0, 2.0, 0.75]),
    "two zeros": np.array([0.0, -0.5, 0.0, 2.0, 0.75]),
    "zero first": np.array([0.0, 1.25, -0.5]),
    "all zero": np.zeros(4),
}


@pytest.mark.parametrize("name", sorted(ZERO_INPUTS))
def test_prod_and_cumprod_with_zero_entries(name):
    x = ZERO_INPUTS[name]
    check(np.prod, x, "prod " + name)
    check(np.cumprod, x, "cumprod " + name)
    m = np.stack([x, x[::-1] + 1.0, x * 0.5])
    check(lambda m: np.prod(m, axis=1), m, "prod rows " + name)
    check(lambda m: np.cumprod(m, axis=1), m, "cumprod rows " + name)
    # exact: the derivative of prod along e_i is the product of the others
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = 1.0
        assert run(np.prod, x, e).meta == np.prod(np.delete(x, i))


def test_max_and_min_ties_take_the_first_occurrence():
    v = np.array([10.0, 20.0, 30.0, 40.0])
    x = np.array([1.0, 3.0, 3.0, 2.0])
    assert run(np.max, x, v).meta == 20.0
    assert run(np.amax, x, v).meta == 20.0
    assert run(np.min, -x, v).meta == 20.0
    assert run(lambda x: np.min(x), np.array([2.0, 1.0, 5.0, 1.0]), v).meta == 20.0
    m = np.array([[1.0, 4.0, 7.0], [7.0, 4.0, 2.0]])
    w = np.arange(6.0).reshape(2, 3) + 1.0
    assert run(np.max, m, w).meta == 3.0  # (0, 2) comes before (1, 0) in C order
    np.testing.assert_array_equal(run(lambda m: np.max(m, axis=0), m, w).meta, [4.0, 2.0, 3.0])
    np.testing.assert_array_equal(run(lambda m: np.min(m, axis=0), m, w).meta, [1.0, 2.0, 6.0])
    chunk = np.stack([w, -w, 2 * w])
    np.testing.assert_array_equal(run(lambda m: np.max(m, axis=1), m, chunk).meta,
                                  [[3.0, 4.0], [-3.0, -4.0], [6.0, 8.0]])
    # inf norms: the first largest |x|; same convention as np.maximum at a tie
    assert run(lambda x: np.linalg.norm(x, np.inf), np.array([-3.0, 3.0, 1.0]), v[:3]).meta == -10.0
    assert run(lambda x: np.maximum(x[1], x[2]), x, v).meta == 20.0


# ------------------------------------------------------------------- norms

VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 3, 0.5, -1.5, 0]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf]
NORM_CASES = (
    [("vector %s" % o, (lambda o: lambda x: np.linalg.norm(x, o))(o), (5,)) for o in VECTOR_ORDS]
    + [("vector axis %s" % o, (lambda o: lambda x: np.linalg.norm(x, o, axis=1, keepdims=True))(o), (2, 3, 4))
       for o in VECTOR_ORDS]
    + [("matrix %s" % o, (lambda o: lambda x: np.linalg.norm(x, o))(o), (3, 4)) for o in MATRIX_ORDS]
    + [("matrix axes %s" % o, (lambda o: lambda x: np.linalg.norm(x, o, axis=(2, 0)))(o), (2, 3, 4))
       for o in MATRIX_ORDS]
    + [("matrix keepdims %s" % o, (lambda o: lambda x: np.linalg.norm(x, o, axis=(0, 2), keepdims=True))(o),
        (2, 3, 4)) for o in MATRIX_ORDS]
    + [
        ("all axes", lambda x: np.linalg.norm(x), (2, 3, 4)),
        ("all axes keepdims", lambda x: np.linalg.norm(x, keepdims=True), (2, 3, 4)),
        ("complex", lambda x: np.linalg.norm(x * (1 + 2j) + 1j * x ** 2, axis=0), (3, 4)),
        ("complex 1", lambda x: np.linalg.norm(x * (1 + 2j) + 1j * x ** 2, 1), (4,)),
        ("vector_norm", lambda x: np.linalg.vector_norm(x), (2, 3, 4)),
        ("vector_norm axes", lambda x: np.linalg.vector_norm(x, axis=(0, 2), ord=3, keepdims=True), (2, 3, 4)),
        ("vector_norm inf", lambda x: np.linalg.vector_norm(x, axis=(1, 2), ord=np.inf), (2, 3, 4)),
        ("matrix_norm", lambda x: np.linalg.matrix_norm(x), (2, 3, 4)),
        ("matrix_norm 1", lambda x: np.linalg.matrix_norm(x, ord=1, keepdims=True), (2, 3, 4)),
    ]
)


@pytest.mark.parametrize("name,f,shape", NORM_CASES, ids=[c[0] for c in NORM_CASES])
def test_norm_against_central_differences(name, f, shape):
    check(f, away0(shape, name), "norm " + name)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_norm_of_singular_values(ord):  # the tangent comes from ad/rules/decompositions.py
    x = normal((3, 4), "nuc")
    check(lambda x: np.linalg.norm(x, ord), x, "norm %r" % ord)
    check(lambda x: np.linalg.norm(x, ord, axis=(1, 0)), x, "norm %r axes" % ord)
    check(lambda x: np.linalg.matrix_norm(x, ord=ord), x, "matrix_norm %r" % ord)


def test_norm_at_zero_gives_what_the_formula_gives():
    """0/0: nan, with NumPy's warning (documented in the module docstring); no invented value."""
    x = np.zeros(3)
    with warnings.catch_warnings(record=True), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("always")
        out = run(lambda x: np.linalg.norm(x), x, np.ones(3))
        assert out.value == 0.0 and np.isnan(out.meta)
        out = run(lambda x: np.std(x), np.ones(3), np.array([1.0, 0.0, 0.0]))
        assert out.value == 0.0 and np.isnan(out.meta)
        # along a direction that moves every element alike, std stays 0: its derivative is 0
        assert run(lambda x: np.std(x), np.ones(3), np.ones(3)).meta == 0.0
        assert run(lambda x: np.linalg.norm(x), x, np.zeros(3)).meta == 0.0
    # the 1-norm takes sign(0) = 0, as abs
    assert run(lambda x: np.linalg.norm(x, 1), np.array([0.0, 2.0]), np.array([5.0, 1.0])).meta == 1.0


# ------------------------------------------------------------------ average

AVERAGE_CASES = {
    "plain": lambda x: np.average(x),
    "axis": lambda x: np.average(x, axis=1),
    "keepdims": lambda x: np.average(x, axis=(0, 2), keepdims=True),
    "weights constant": lambda x: np.average(x, axis=None, weights=np.arange(24.0).reshape(2, 3, 4) + 1),
    "weights along axis": lambda x: np.average(x, axis=1, weights=np.array([1.0, 2.0, 0.5])),
    "weights along axes": lambda x: np.average(x, axis=(2, 0), weights=np.arange(8.0).reshape(4, 2) + 1.0),
    "weights tagged": lambda x: np.average(x[0], axis=1, weights=np.exp(x[1, 0])),
    "weights tagged positional": lambda x: np.average(x[0], 0, np.exp(x[1])),
    "only weights tagged": lambda x: np.average(np.arange(12.0).reshape(3, 4), axis=0, weights=np.exp(x[0])),
    "returned": lambda x: np.average(x, axis=1, returned=True),
    "returned weights": lambda x: np.average(x[0], axis=0, weights=np.exp(x[1]), returned=True),
    "returned weights along": lambda x: np.average(x, axis=(0, 2), weights=np.exp(x[:, 0, :]), keepdims=True,
                                                   returned=True),
}


@pytest.mark.parametrize("name", sorted(AVERAGE_CASES))
def test_average_against_central_differences(name):
    check(AVERAGE_CASES[name], normal((2, 3, 4), name), "average " + name)


# --------------------------------------------------------- shape functions

IDX = np.argsort(normal((2, 3, 4), "argsort"), axis=1)
SHAPE_CASES = {
    "reshape": (lambda x: np.reshape(x, (6, 4)), (2, 3, 4)),
    "reshape -1": (lambda x: np.reshape(x, -1), (3, 4)),
    "reshape F": (lambda x: np.reshape(x, (4, -1), order="F"), (2, 3, 4)),
    "reshape A": (lambda x: np.reshape(x.T, (4, 6), order="A"), (2, 3, 4)),
    "reshape copy": (lambda x: np.reshape(x, (12,), copy=True), (3, 4)),
    "reshape 0-d": (lambda x: np.reshape(x, (1, 1)), ()),
    "method reshape": (lambda x: x.reshape(4, 6) * 2, (2, 3, 4)),
    "transpose": (lambda x: np.transpose(x, (1, -1, 0)), (2, 3, 4)),
    "transpose default": (lambda x: np.transpose(x), (2, 3, 4)),
    "permute_dims": (lambda x: np.permute_dims(x, (2, 0, 1)), (2, 3, 4)),
    "T": (lambda x: x.T, (3, 4)),
    "method transpose": (lambda x: x.transpose(1, 0), (3, 4)),
    "ravel": (lambda x: np.ravel(x), (2, 3, 4)),
    "ravel F": (lambda x: np.ravel(x, "F"), (2, 3, 4)),
    "ravel A": (lambda x: np.ravel(x.T, "A"), (2, 3, 4)),
    "ravel K": (lambda x: np.ravel(x.T[::-1], "K"), (2, 3, 4)),
    "ravel K strided": (lambda x: np.ravel(np.transpose(x, (1, 0, 2))[:, :, ::-2], order="K"), (2, 3, 4)),
    "method ravel": (lambda x: x.ravel(), (3, 4)),
    "flatten": (lambda x: x.T.flatten(), (3, 4)),
    "squeeze": (lambda x: np.squeeze(x), (1, 3, 1)),
    "squeeze axis": (lambda x: np.squeeze(x, axis=(0, 2)), (1, 3, 1)),
    "squeeze method": (lambda x: x.squeeze(-1), (1, 3, 1)),
    "expand_dims": (lambda x: np.expand_dims(x, 0), (3, 4)),
    "expand_dims axes": (lambda x: np.expand_dims(x, (0, -1)), (2, 3, 4)),
    "expand_dims 0-d": (lambda x: np.expand_dims(x, 0), ()),
    "broadcast_to": (lambda x: np.broadcast_to(x, (2, 3, 4)) * 1.0, (4,)),
    "broadcast_to inner": (lambda x: np.broadcast_to(x[:, :, None], (5, 2, 3, 2, 4)) * 1.0, (2, 3, 4)),
    "concatenate": (lambda x: np.concatenate([x, x ** 2], axis=1), (3, 4)),
    "concatenate constant": (lambda x: np.concatenate([np.ones((2, 3, 2)), x, x ** 2], axis=-1), (2, 3, 4)),
    "concatenate None": (lambda x: np.concatenate([np.ones(3), x, x[0]], axis=None), (2, 3, 4)),
    "concatenate tuple": (lambda x: np.concatenate((x, np.zeros(2))), (5,)),
    "concat": (lambda x: np.concat([x, x]), (3, 4)),
    "concatenate rows of an array": (lambda x: np.concatenate(x), (2, 3, 4)),
    "stack rows of an array": (lambda x: np.stack(x, axis=-1), (3, 4)),
    "stack": (lambda x: np.stack([x, np.ones((2, 3, 4)), x * 3]), (2, 3, 4)),
    "stack axis": (lambda x: np.stack([x, np.ones((3, 4))], axis=-1), (3, 4)),
    "stack axis 1": (lambda x: np.stack([x ** 2, x], 1), (3, 4)),
    "vstack": (lambda x: np.vstack([x, np.ones(4), x[0]]), (3, 4)),
    "vstack 1-d": (lambda x: np.vstack([x, x ** 2]), (5,)),
    "hstack": (lambda x: np.hstack([x, x ** 2, np.ones((3, 1))]), (3, 4)),
    "hstack 1-d": (lambda x: np.hstack([x, x ** 2, 1.0]), (5,)),
    "dstack": (lambda x: np.dstack([x, x, np.ones((3, 4))]), (3, 4)),
    "dstack 1-d": (lambda x: np.dstack((x, x * 2)), (5,)),
    "column_stack": (lambda x: np.column_stack([x, x ** 2, np.ones(5)]), (5,)),
    "column_stack 2-d": (lambda x: np.column_stack([x, x[:, 0]]), (3, 4)),
    "split": (lambda x: np.split(x, 2, axis=2), (2, 3, 4)),
    "split indices": (lambda x: np.split(x, [1, 3]), (5,)),
    "array_split": (lambda x: np.array_split(x, 3, axis=-1), (2, 3, 4)),
    "flip": (lambda x: np.flip(x), (2, 3, 4)),
    "flip axis": (lambda x: np.flip(x, 1), (2, 3, 4)),
    "flip axes": (lambda x: np.flip(x, (0, -1)), (2, 3, 4)),
    "roll": (lambda x: np.roll(x, 2), (2, 3, 4)),
    "roll axis": (lambda x: np.roll(x, -1, axis=1), (2, 3, 4)),
    "roll axes": (lambda x: np.roll(x, (1, -1), axis=(0, 2)), (2, 3, 4)),
    "moveaxis": (lambda x: np.moveaxis(x, 0, -1), (2, 3, 4)),
    "moveaxis lists": (lambda x: np.moveaxis(x, [0, 1], [-1, -2]), (2, 3, 4)),
    "swapaxes": (lambda x: np.swapaxes(x, 0, -1), (2, 3, 4)),
    "method swapaxes": (lambda x: x.swapaxes(1, 0), (3, 4)),
    "diagonal": (lambda x: np.diagonal(x), (3, 4)),
    "diagonal offset": (lambda x: np.diagonal(x, 1, 1, 2), (2, 3, 4)),
    "diagonal negative": (lambda x: x.diagonal(-1, -1, 0), (2, 3, 4)),
    "real": (lambda x: np.real(x * (1 + 2j) + 1j * x ** 2), (3, 4)),
    "imag": (lambda x: np.imag(x * (1 + 2j) + 1j * x ** 2), (3, 4)),
    "real attribute": (lambda x: (x * (1 - 1j) + x ** 3).real + (x * 2j).imag, (2, 3)),
    "real of real": (lambda x: np.real(x) + np.imag(x), (3, 4)),
    "copy": (lambda x: np.copy(x), (3, 4)),
    "copy F": (lambda x: np.copy(x, order="F"), (2, 3, 4)),
    "method copy": (lambda x: x.copy(), (3,)),
    "asarray": (lambda x: np.asarray(x) * 2, (3, 4)),
    "asarray float": (lambda x: np.asarray(x, dtype=float), (3, 4)),
    "asanyarray": (lambda x: np.asanyarray(x), (3, 4)),
    "ascontiguousarray": (lambda x: np.ascontiguousarray(x.T), (3, 4)),
    "atleast_1d": (lambda x: np.atleast_1d(x), ()),
    "atleast_2d": (lambda x: np.atleast_2d(x), (5,)),
    "atleast_3d": (lambda x: np.atleast_3d(x), (3, 4)),
    "atleast_3d several": (lambda x: np.atleast_3d(x[0], x, 1.0), (3, 4)),
    "atleast_1d same": (lambda x: np.atleast_1d(x) * 1.0, (3, 4)),
    "tile": (lambda x: np.tile(x, 2), (2, 3, 4)),
    "tile more": (lambda x: np.tile(x, (2, 1, 3)), (3, 4)),
    "tile fewer": (lambda x: np.tile(x, (2, 1)), (2, 3, 4)),
    "repeat": (lambda x: np.repeat(x, 2), (2, 3, 4)),
    "repeat axis": (lambda x: np.repeat(x, [1, 0, 2], axis=1), (2, 3, 4)),
    "method repeat": (lambda x: x.repeat(3, axis=-1), (3, 4)),
    "take": (lambda x: np.take(x, [0, 5, 5, 23]), (2, 3, 4)),
    "take axis": (lambda x: np.take(x, [[0, 2], [1, 1]], axis=1), (2, 3, 4)),
    "take wrap": (lambda x: np.take(x, [-1, 7], axis=-1, mode="wrap"), (3, 4)),
    "method take": (lambda x: x.take([2, 0], 0), (3, 4)),
    "take_along_axis": (lambda x: np.take_along_axis(x, IDX, axis=1), (2, 3, 4)),
    "take_along_axis broadcast": (lambda x: np.take_along_axis(x, np.array([[[3], [0], [1]]]), axis=-1),
                                  (2, 3, 4)),
    "take_along_axis None": (lambda x: np.take_along_axis(x, np.array([3, 1, 3]), axis=None), (2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_function_against_central_differences(name):
    f, shape = SHAPE_CASES[name]
    check(f, normal(shape, name), name)


def test_vstack_hstack_dstack_column_stack_have_rules():
    """NumPy's stacking functions are Python code behind array-function dispatchers, which the
    engine runs natively: they need (and have) rules of their own."""
    own = ad.ForwardCtx._own_primitives
    for fn in (np.vstack, np.hstack, np.dstack, np.column_stack, np.atleast_1d, np.atleast_2d, np.atleast_3d):
        assert id(fn) in own
    x = normal((3, 4), "stacks")
    out = run(lambda x: np.vstack([x, x[1]]), x, np.ones((3, 4)))
    np.testing.assert_array_equal(out.meta, np.ones((4, 4)))


# ---------------------------------------------------------- memory and views


def _view_writes_reshape(x):  # x: (3, 4)
    y = x * 1.0
    r = y.reshape(-1)
    r[0] = 5.0 * x[1, 2]
    r[5:7] = x[0, :2] ** 2
    np.ravel(y)[-1] = np.sin(x[2, 0])
    return y


def _view_writes_transpose(x):  # x: (3, 4)
    y = x * 1.0
    t = y.T
    t[0] = 2.0 * x[:, 1] ** 2  # column 0 of y
    np.transpose(y)[3, 1:] = x[0, :2] * x[1, 1]
    return y


def _view_writes_axes(x):  # x: (2, 3, 4)
    y = x * 1.0
    m = np.moveaxis(y, 0, -1)  # (3, 4, 2)
    m[1, 2] = np.sin(x[0, 0, :2])  # y[:, 1, 2]
    e = np.expand_dims(y, 0)  # (1, 2, 3, 4)
    e[0, 1, 0] = x[0, 2] * 3.0  # y[1, 0]
    s = np.squeeze(e, 0)
    s[0, 0, 0] = x[1, 1, 1] ** 3
    np.swapaxes(y, 1, 2)[0, 3] = x[1, 0, :3] ** 2  # y[0, :, 3]
    np.flip(y, 2)[1, 2, 0] = 7.0 * x[0, 1, 1]  # y[1, 2, 3]
    np.reshape(y, (6, 4))[5, :] = np.cos(x[0, 0])  # y[1, 2, :]
    return y


def _view_writes_real(x):  # x: (3, 4)
    z = x * (1 + 2j)
    r = np.real(z)
    r[0] = x[1] ** 2
    z.imag[1, 1:3] = x[2, :2] * 4.0
    return np.real(z) * 3.0 + np.imag(z)


def _view_writes_split(x):  # x: (6,)
    y = x * 1.0
    a, b, c = np.split(y, 3)
    b[:] = a * c
    pieces = np.array_split(y, [1, 4])
    pieces[2][0] = x[0] ** 3
    return y


def _copies_stay_apart(x):  # x: (3, 4)
    y = x * 1.0
    c = np.copy(y)
    c[0] = 7.0 * x[1]
    r = y.T.reshape(-1)  # a copy: y.T is not contiguous
    r[0] = 100.0 * x[0, 0]
    a = np.ascontiguousarray(y.T)
    a[0, 0] = 3.0 * x[2, 2]
    t = np.tile(y, 1)
    t[1, 1] = x[0, 0] ** 2
    k = np.concatenate([y])
    k[2] = 0.0
    d = np.reshape(y, (12,), copy=True)
    d[3] = x[1, 1] ** 2
    return y, c, r, a, t, k, d


def _buffer_views(x):  # x: (5,); a plain buffer holds tangents in shadow memory
    buf = np.zeros((2, 3))
    buf[0] = x[:3] * 2.0
    r = buf.reshape(-1)
    r[4] = x[4] ** 2
    np.transpose(buf)[2, 1] = np.sum(x[:2])
    pieces = np.split(buf, 3, axis=1)
    pieces[0][1, 0] = np.prod(x[1:4])
    return np.concatenate([buf, np.cumsum(buf, axis=1)])


VIEW_CASES = {
    "buffer": (_buffer_views, (5,)),
    "reshape": (_view_writes_reshape, (3, 4)),
    "transpose": (_view_writes_transpose, (3, 4)),
    "axes": (_view_writes_axes, (2, 3, 4)),
    "real": (_view_writes_real, (3, 4)),
    "split": (_view_writes_split, (6,)),
    "copies": (_copies_stay_apart, (3, 4)),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_writes_through_views_reach_the_tangent(name):
    f, shape = VIEW_CASES[name]
    check(f, normal(shape, "view " + name), "view " + name)


def test_views_share_tangent_memory_and_copies_do_not():
    x = normal((3, 4), "memory")
    v = np.ones((3, 4))

    def f(x):
        y = x * 1.0
        return y, y.reshape(-1), y.T, np.copy(y), y.T.reshape(-1), np.squeeze(y[None])

    y, flat, t, c, tflat, sq = run(f, x, v)
    assert np.shares_memory(flat.meta, y.meta) and np.shares_memory(t.meta, y.meta)
    assert np.shares_memory(sq.meta, y.meta)
    assert not np.shares_memory(c.meta, y.meta) and not np.shares_memory(tflat.meta, y.meta)
    assert not np.shares_memory(y.meta, v)


def test_a_copy_of_the_value_gets_a_copy_of_the_tangent_whatever_its_layout():
    """The tangent laid out in Fortran order: ``x.T.reshape(-1)`` copies the value but could view
    the tangent; the result must still get tangent memory of its own (the input's is untouched)."""
    x = normal((3, 4), "layout")
    v = np.asfortranarray(rng_for("layout v").standard_normal((3, 4)))
    saved = v.copy()

    def f(x):
        r = x.T.reshape(-1)
        r[0] = 100.0 * x[0, 1]
        c = np.reshape(x, (2, 6), copy=True)
        c[0, 0] = 0.0
        return r, c

    r, c = run(f, x, v)
    np.testing.assert_array_equal(v, saved)
    assert not np.shares_memory(r.meta, v) and not np.shares_memory(c.meta, v)
    assert r.meta[0] == 100.0 * v[0, 1] and c.meta[0, 0] == 0.0
    np.testing.assert_array_equal(r.meta[1:], v.T.reshape(-1)[1:])


def test_split_returns_a_list_of_views():
    x = normal((6, 2), "split list")
    v = np.ones((3, 6, 2))
    out = run(lambda x: np.split(x, 3), x, v)
    assert type(out) is list and len(out) == 3
    for piece in out:
        assert piece.meta.shape == (3, 2, 2)
        assert np.shares_memory(piece.value, x) and np.shares_memory(piece.meta, v)
    out = run(lambda x: np.array_split(x, 4, axis=1), x, np.ones((6, 2)))
    assert type(out) is list and [p.value.shape for p in out[:2]] == [(6, 1), (6, 1)]
    assert [p.value.shape for p in out[2:]] == [(6, 0), (6, 0)]
    assert [p.meta.shape for p in out] == [(6, 1), (6, 1), (6, 0), (6, 0)]


def test_concatenate_constants_have_exactly_zero_tangent():
    x = normal((2, 3), "concat zero")
    v = rng_for("concat zero v").standard_normal((3, 2, 3))
    out = run(lambda x: np.concatenate([np.full((2, 1), 4.0), x, [[1.0], [2.0]]], axis=1), x, v)
    assert out.meta.shape == (3, 2, 5)
    np.testing.assert_array_equal(out.meta[:, :, 1:4], v)
    assert not out.meta[:, :, 0].any() and not out.meta[:, :, 4].any()


def test_asarray_returns_the_value_being_differentiated_as_it_is():
    x = normal((3, 4), "asarray")
    v = np.ones((3, 4))
    for fn in (np.asarray, np.asanyarray, np.ascontiguousarray):
        out = run(fn, x, v)
        assert out.value is x and out.meta is v
    out = run(lambda x: np.asarray(x, dtype=np.float32), x, v)
    assert out.value.dtype == np.float32 and out.meta.dtype == np.float32
    for dtype in (int, np.int32, bool):
        with pytest.raises(ad.NoRuleError, match=r"np\.asarray\(\.\.\., dtype=%s\)" % np.dtype(dtype)):
            run(lambda x: np.asarray(x, dtype=dtype), x, v)


# ------------------------------------------------------------------ errors


def test_unsupported_arguments_raise_clearly():
    x = normal((3, 4), "errors")
    v = np.ones((3, 4))
    with pytest.raises(ad.NoRuleError, match=r"np\.var\(\.\.\., mean=\.\.\.\)"):
        run(lambda x: np.var(x, mean=np.zeros((1, 1))), x, v)
    with pytest.raises(ad.NoRuleError, match=r"np\.take: .*indices must be a constant"):
        run(lambda x: np.take(np.arange(5.0), x), x, v)
    with pytest.raises(ad.NoRuleError, match=r"np\.take_along_axis: .*indices must be a constant"):
        run(lambda x: np.take_along_axis(np.ones((3, 4)), x, axis=0), x, v)


# --------------------------------------------------------------- nested

NESTED_CASES = {
    "prod": lambda x: np.prod(x),
    "prod axis": lambda x: np.sum(np.prod(x, axis=1)),
    "cumprod": lambda x: np.sum(np.cumprod(x, axis=1) ** 2),
    "max": lambda x: np.sum(np.max(x ** 3, axis=0)),
    "var": lambda x: np.var(x ** 2),
    "std": lambda x: np.sum(np.std(x, axis=1, ddof=1)),
    "norm": lambda x: np.linalg.norm(x),
    "norm 3": lambda x: np.sum(np.linalg.norm(x, 3, axis=0)),
    "average": lambda x: np.sum(np.average(x, axis=1, weights=np.exp(x[0]))),
    "shapes": lambda x: np.sum(np.concatenate([x.T.reshape(-1), np.ones(2)]) ** 3 * np.arange(14.0)),
}


@pytest.mark.parametrize("name", sorted(NESTED_CASES))
def test_second_derivatives_by_nesting(name):
    F = NESTED_CASES[name]
    rng = rng_for("nested " + name)
    x0, v, w = away0((3, 4), "nested " + name), rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    got = ad.derivative(lambda s: ad.derivative(lambda t: F(x0 + t * v + s * w), 0.0), 0.0)
    h = 1e-4

    def g(s, t):
        return F(x0 + t * v + s * w)

    want = (g(h, h) - g(h, -h) - g(-h, h) + g(-h, -h)) / (4 * h * h)
    assert abs(got - want) <= 1e-5 * max(1.0, abs(want))
