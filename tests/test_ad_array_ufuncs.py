"""Forward AD of NumPy's ufuncs (``ad.rules.ufuncs``) and of ``DualArray``'s operators.

What is tested, and how:

* Every differentiable ufunc with a rule is checked against central differences
  (step 1e-6, relative tolerance 1e-5) at seeded random points inside a domain table
  (away from kinks and poles), on a 0-d array, shape (5,) and shape (2, 3), with a
  plain tangent (the primal's shape) and with a chunk of 3 directions (shape
  ``(3,) + shape``, each direction against its own difference quotient). The value must
  be exactly NumPy's.
* Binary ufuncs: the first argument tagged alone, the second alone, and both, on equal
  shapes and on broadcasting pairs ((2, 3) with (3,), (2, 1) with (1, 3), a 0-d array
  with a matrix, an array with a Python float, a scalar ``Dual`` taken as ``a[0]`` of
  an array with an array), each with plain and chunked tangents: the chunk axis of a
  lower-rank argument must be lined up with the result's.
* Zero-derivative ufuncs return untagged results (plain arrays) for tagged inputs.
* Completeness: every ufunc in ``numpy`` has a rule, or is in ``INTEGER_ONLY`` and then
  a tagged float reaching it raises ``ad.NoRuleError`` naming it; every ufunc with a rule
  is in one of this file's tables.
* Multiple outputs (``divmod``, ``modf``, ``frexp``), ``out=`` arguments, the operators
  of ``DualArray`` (reflected and in-place forms included), and a Hypothesis property
  test of a composite elementwise expression through ``ad.jvp`` and ``ad.jacobian``.

Left out because they fail at the time of writing (reported, not marked xfail): ``divmod``
with broadcasting other than by a constant divisor, writes into ``modf``/``divmod``
results (their tangent is the input's own tangent object), ``ndarray % Dual`` and
``ndarray ** Dual``, builtin ``abs`` of a ``DualArray``, Python float tangents on Python
floats broadcast by ``add``-like rules, and ``ad.jvp`` at a 0-d array.
"""

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ad
from ad.engine import runs
from context import overdub
from context.tagging import Tagged, enabletagging, tag

H = 1e-6
RTOL = 1e-5
K = 3  # directions in a chunk


# ------------------------------------------------------------------ helpers


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def run(f, *pairs):
    """``f(*values)`` under a fresh ForwardCtx; ``pairs`` are ``(value, tangent)``, tangent None for a constant."""
    ctx = enabletagging(ad.ForwardCtx(), f)
    return overdub(ctx, f, *[a if t is None else tag(a, ctx, t) for a, t in pairs])


def run_parts(f, *pairs):
    """``[(value, tangent or None)]`` of each array or number ``f`` returns (tuples flattened); a plain
    buffer the run wrote tangents into (shadow memory) is read as ``ad.jvp`` reads it."""
    ctx = enabletagging(ad.ForwardCtx(), f)
    out = overdub(ctx, f, *[a if t is None else tag(a, ctx, t) for a, t in pairs])
    items = list(out) if isinstance(out, tuple) else [out]
    return [runs.leaf(o, ctx) for o in items]


def is_tagged(v):
    return isinstance(v, Tagged)


def parts(out):
    """``[(value, None)]`` for each array or number in a plain result (tuples flattened)."""
    items = list(out) if isinstance(out, tuple) else [out]
    assert not any(is_tagged(o) for o in items)
    return [(o, None) for o in items]


def moved(pairs, j, step):
    """The arguments moved by ``step`` along direction ``j`` of their tangents (None: unchunked)."""
    args = []
    for a, t in pairs:
        if t is None:
            args.append(a)
            continue
        d = t if j is None else t[j]
        if isinstance(a, float):
            args.append(float(a + step * d))
        else:
            args.append(np.asarray(a + step * d))
    return args


def assert_close(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape, "%s: tangent shape %s, expected %s" % (what, got.shape, want.shape)
    assert np.isfinite(want).all(), "%s: choose a point where the function is differentiable" % what
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-7 * scale, err_msg=what)


def check(f, pairs, k, what):
    """AD of ``f`` at ``pairs`` against central differences; ``k`` directions per tangent (0: unchunked)."""
    native = parts(f(*[a for a, _ in pairs]))
    got = run_parts(f, *pairs)
    assert len(got) == len(native), what
    for (value, _), (want, _) in zip(got, native):
        np.testing.assert_array_equal(value, want, err_msg="%s: value" % what)
        assert np.shape(value) == np.shape(want), what
    for j in range(k) if k else [None]:
        plus = [np.array(p, dtype=float) for p, _ in parts(f(*moved(pairs, j, H)))]  # copies: f may
        minus = [np.array(m, dtype=float) for m, _ in parts(f(*moved(pairs, j, -H)))]  # return a buffer
        for i, ((value, t), p, m) in enumerate(zip(got, plus, minus)):
            want = (p - m) / (2 * H)
            label = "%s, part %d%s" % (what, i, "" if j is None else ", direction %d" % j)
            if t is None:  # untagged: the derivative must be zero
                assert_close(np.zeros_like(want), want, label)
                continue
            assert np.shape(t) == ((k,) if k else ()) + np.shape(value), "%s: tangent shape %s" % (
                label, np.shape(t))
            assert_close(t if j is None else np.asarray(t)[j], want, label)


def tangent(rng, a, k):
    """A random tangent for ``a``: its shape, or ``(k,) + shape``; a NumPy scalar for an unchunked Python float.

    (A Python float tangent on a Python float is left out: ``np.add(array, t)`` then keeps the float
    tangent without broadcasting it to the result's shape.)
    """
    if k:
        return rng.standard_normal((k,) + np.shape(a))
    if isinstance(a, float):
        return np.float64(rng.standard_normal())
    return np.asarray(rng.standard_normal(np.shape(a)))


def U(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def PM(lo, hi):
    """``lo <= |x| <= hi`` with random signs (away from 0)."""
    return lambda rng, shape: rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


def draw(domain, rng, spec):
    """A value for argument spec ``spec``: a shape (an array), "float" (a Python float), "item" (shape (2,))."""
    if spec == "float":
        return float(domain(rng, ()))
    if spec == "item":
        return np.asarray(domain(rng, (2,)))
    return np.asarray(domain(rng, spec))


def draw_valid(domain, rng, spec, valid):
    for _ in range(200):
        x = draw(domain, rng, spec)
        if valid(x):
            return x
    raise AssertionError("no valid point drawn")


def pick(a, spec):
    """What the function passes on: ``a[0]`` (a scalar ``Dual`` when ``a`` is tagged) for "item"."""
    return a[0] if spec == "item" else a


def shape_id(spec):
    return spec if isinstance(spec, str) else ("x".join(map(str, spec)) or "0d")


SHAPES = [(), (5,), (2, 3)]


# ------------------------------------------------------------ unary ufuncs

UNARY = {
    np.negative: U(-2, 2),
    np.positive: U(-2, 2),
    np.absolute: PM(0.2, 2),
    np.fabs: PM(0.2, 2),
    np.sqrt: U(0.2, 3),
    np.cbrt: PM(0.2, 2),
    np.square: U(-2, 2),
    np.reciprocal: PM(0.3, 2),
    np.exp: U(-2, 2),
    np.exp2: U(-2, 2),
    np.expm1: U(-2, 2),
    np.log: U(0.2, 3),
    np.log2: U(0.2, 3),
    np.log10: U(0.2, 3),
    np.log1p: U(-0.8, 2),
    np.sin: U(-3, 3),
    np.cos: U(-3, 3),
    np.tan: U(-1.2, 1.2),
    np.arcsin: U(-0.9, 0.9),
    np.arccos: U(-0.9, 0.9),
    np.arctan: U(-3, 3),
    np.sinh: U(-2, 2),
    np.cosh: U(-2, 2),
    np.tanh: U(-2, 2),
    np.arcsinh: U(-3, 3),
    np.arccosh: U(1.2, 3),
    np.arctanh: U(-0.9, 0.9),
    np.deg2rad: U(-200, 200),
    np.radians: U(-200, 200),
    np.rad2deg: U(-3, 3),
    np.degrees: U(-3, 3),
    np.conjugate: U(-2, 2),
}
UNARY_CASES = [(fn, spec) for fn in UNARY for spec in SHAPES + ["float"]]


@pytest.mark.parametrize("fn,spec", UNARY_CASES, ids=["%s-%s" % (fn.__name__, shape_id(s)) for fn, s in UNARY_CASES])
def test_unary_ufunc_against_central_differences(fn, spec):
    name = "%s %s" % (fn.__name__, spec)
    rng = rng_for(name)
    x = draw(UNARY[fn], rng, spec)
    for k in (0, K):
        check(fn, [(x, tangent(rng, x, k))], k, "%s k=%d" % (name, k))


def test_unary_ufunc_on_3d_array_and_through_jvp():
    rng = rng_for("3d")
    x = rng.uniform(0.2, 0.9, (2, 3, 4))
    for fn in (np.sin, np.arcsin, np.log, np.sqrt, np.tanh):
        for k in (0, K):
            check(fn, [(x, tangent(rng, x, k))], k, "%s 3d k=%d" % (fn.__name__, k))
        v = rng.standard_normal(x.shape)
        value, t = ad.jvp(fn, x, v)
        np.testing.assert_array_equal(value, fn(x))
        assert_close(t, (fn(x + H * v) - fn(x - H * v)) / (2 * H), "jvp " + fn.__name__)


# ----------------------------------------------------------- binary ufuncs


def frac_away(lo):
    """Validity for remainder-like functions: ``x / y`` at least ``lo`` away from an integer."""
    def valid(x, y):
        q = np.asarray(x, float) / np.asarray(y, float)
        return bool(np.all(np.abs(q - np.round(q)) > lo))
    return valid


def apart(lo):
    """Validity for max/min-like functions: no ties within ``lo``."""
    return lambda x, y: bool(np.all(np.abs(np.subtract(x, y, dtype=float)) > lo))


# fn: (domain of x, domain of y, validity of a drawn pair or None)
BINARY = {
    np.add: (U(-2, 2), U(-2, 2), None),
    np.subtract: (U(-2, 2), U(-2, 2), None),
    np.multiply: (U(-2, 2), U(-2, 2), None),
    np.true_divide: (U(-2, 2), PM(0.3, 2), None),
    np.power: (U(0.3, 2), U(-2, 2), None),
    np.float_power: (U(0.3, 2), U(-2, 2), None),
    np.arctan2: (PM(0.2, 2), PM(0.2, 2), None),
    np.hypot: (PM(0.2, 2), PM(0.2, 2), None),
    np.logaddexp: (U(-2, 2), U(-2, 2), None),
    np.logaddexp2: (U(-2, 2), U(-2, 2), None),
    np.maximum: (U(-2, 2), U(-2, 2), apart(1e-3)),
    np.minimum: (U(-2, 2), U(-2, 2), apart(1e-3)),
    np.fmax: (U(-2, 2), U(-2, 2), apart(1e-3)),
    np.fmin: (U(-2, 2), U(-2, 2), apart(1e-3)),
    np.remainder: (U(-3, 3), PM(0.5, 2), frac_away(1e-3)),
    np.fmod: (U(-3, 3), PM(0.5, 2), frac_away(1e-3)),
    np.copysign: (PM(0.2, 2), PM(0.2, 2), None),  # derivative in y: zero
    np.nextafter: (U(-2, 2), U(-2, 2), apart(1e-3)),  # derivative in y: zero
}

PAIRS = {
    "0d-0d": ((), ()),
    "5-5": ((5,), (5,)),
    "2x3-2x3": ((2, 3), (2, 3)),
    "2x3-3": ((2, 3), (3,)),
    "3-2x3": ((3,), (2, 3)),
    "2x1-1x3": ((2, 1), (1, 3)),
    "0d-2x3": ((), (2, 3)),
    "2x3-0d": ((2, 3), ()),
    "2x3-float": ((2, 3), "float"),
    "float-2x3": ("float", (2, 3)),
    "item-2x3": ("item", (2, 3)),
    "2x3-item": ((2, 3), "item"),
}
MODES = ("x", "y", "both")


def draw_pair(fn, spec_x, spec_y, rng, table):
    dx, dy, valid = table[fn]
    for _ in range(200):
        x, y = draw(dx, rng, spec_x), draw(dy, rng, spec_y)
        if valid is None or valid(pick(x, spec_x), pick(y, spec_y)):
            return x, y
    raise AssertionError("no valid point drawn for %s" % fn.__name__)


def binary_check(fn, pair, table, modes=MODES, ks=(0, K)):
    spec_x, spec_y = PAIRS[pair]
    name = "%s %s" % (fn.__name__, pair)
    rng = rng_for(name)
    x, y = draw_pair(fn, spec_x, spec_y, rng, table)

    def f(a, b):
        return fn(pick(a, spec_x), pick(b, spec_y))

    for mode in modes:
        for k in ks:
            tx = tangent(rng, x, k) if mode in ("x", "both") else None
            ty = tangent(rng, y, k) if mode in ("y", "both") else None
            check(f, [(x, tx), (y, ty)], k, "%s tagged=%s k=%d" % (name, mode, k))


BINARY_CASES = [(fn, pair) for fn in BINARY for pair in PAIRS]


@pytest.mark.parametrize("fn,pair", BINARY_CASES, ids=["%s-%s" % (fn.__name__, p) for fn, p in BINARY_CASES])
def test_binary_ufunc_against_central_differences(fn, pair):
    binary_check(fn, pair, BINARY)


def test_binary_ufunc_3d_broadcasting_with_chunks():
    rng = rng_for("3d broadcast")
    x = rng.uniform(0.5, 1.5, (2, 1, 4))
    y = rng.uniform(0.5, 1.5, (3, 1))
    for fn in (np.multiply, np.power, np.arctan2, np.hypot, np.true_divide):
        for k in (0, K):
            for mode in MODES:
                tx = tangent(rng, x, k) if mode != "y" else None
                ty = tangent(rng, y, k) if mode != "x" else None
                check(fn, [(x, tx), (y, ty)], k, "%s 3d %s k=%d" % (fn.__name__, mode, k))


LDEXP_EXPONENTS = {"same": (2, 3), "row": (3,), "0d": (), "int": "int", "column": (2, 1)}


@pytest.mark.parametrize("exponent", sorted(LDEXP_EXPONENTS))
def test_ldexp_in_its_float_argument(exponent):
    rng = rng_for("ldexp " + exponent)
    spec = LDEXP_EXPONENTS[exponent]
    y = 2 if spec == "int" else rng.integers(-3, 4, spec)
    for shape in ((2, 3), (3,), ()):
        x = np.asarray(rng.uniform(-2, 2, shape))
        for k in (0, K):
            check(lambda a: np.ldexp(a, y), [(x, tangent(rng, x, k))], k, "ldexp %s %s k=%d" % (shape, exponent, k))


def test_ldexp_exponent_carrying_a_derivative_is_an_error():
    x = np.array([0.5, 1.5])
    e = np.array([1, 2])
    for tx in (None, np.ones(2), np.ones((K, 2))):
        te = np.ones(2) if tx is None or tx.ndim == 1 else np.ones((K, 2))
        with pytest.raises(ad.NoRuleError, match=r"numpy\.ldexp is not differentiable in argument 2"):
            run(np.ldexp, (x, tx), (e, te))
    # an exponent computed from the value being differentiated is a constant (astype to int has no tangent)
    value, t = ad.jvp(lambda a: np.ldexp(a, a.astype(int)), x, np.ones(2))
    np.testing.assert_array_equal(t, [1.0, 2.0])


def test_maximum_minimum_ties_take_the_first_argument():
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]])
    vx, vy = rng_for("ties").standard_normal((2, K) + x.shape)
    for fn in (np.maximum, np.minimum, np.fmax, np.fmin):
        out = run(fn, (x, vx), (x.copy(), vy))
        np.testing.assert_array_equal(out.value, x)
        np.testing.assert_array_equal(out.meta, vx)


def test_fmax_fmin_take_the_argument_they_return_next_to_nan():
    rng = rng_for("fmax nan")
    x = rng.uniform(-2, 2, (2, 3))
    y = rng.uniform(-2, 2, (2, 3))
    x[0, 1] = np.nan
    y[1, 0] = y[1, 2] = np.nan
    for fn in (np.fmax, np.fmin):
        for k in (0, K):
            for mode in MODES:
                tx = tangent(rng, x, k) if mode != "y" else None
                ty = tangent(rng, y, k) if mode != "x" else None
                check(fn, [(x, tx), (y, ty)], k, "%s nan %s k=%d" % (fn.__name__, mode, k))


# ----------------------------------------------- zero-derivative ufuncs


def SMALL_INTS(rng, shape):
    """Floats -1.0, 0.0, 1.0: comparisons see ties, logical operations see zeros."""
    return rng.integers(-1, 2, shape).astype(float)


UNARY_ZERO = {
    np.sign: SMALL_INTS,
    np.floor: U(-3, 3),
    np.ceil: U(-3, 3),
    np.trunc: U(-3, 3),
    np.rint: U(-3, 3),
    np.signbit: U(-2, 2),
    np.spacing: U(-2, 2),
    np.isfinite: U(-2, 2),
    np.isinf: U(-2, 2),
    np.isnan: U(-2, 2),
    np.logical_not: SMALL_INTS,
}
BINARY_ZERO = {
    np.floor_divide: (U(-3, 3), PM(0.5, 2), None),
    np.heaviside: (SMALL_INTS, U(0, 1), None),
    np.equal: (SMALL_INTS, SMALL_INTS, None),
    np.not_equal: (SMALL_INTS, SMALL_INTS, None),
    np.less: (SMALL_INTS, SMALL_INTS, None),
    np.less_equal: (SMALL_INTS, SMALL_INTS, None),
    np.greater: (SMALL_INTS, SMALL_INTS, None),
    np.greater_equal: (SMALL_INTS, SMALL_INTS, None),
    np.logical_and: (SMALL_INTS, SMALL_INTS, None),
    np.logical_or: (SMALL_INTS, SMALL_INTS, None),
    np.logical_xor: (SMALL_INTS, SMALL_INTS, None),
}


def assert_plain(out, want, what):
    assert not is_tagged(out), "%s: result is tagged: %r" % (what, out)
    if np.ndim(want):
        assert type(out) is np.ndarray, "%s: %s" % (what, type(out))
    assert out.dtype == want.dtype, what
    np.testing.assert_array_equal(out, want, err_msg=what)


@pytest.mark.parametrize("fn", list(UNARY_ZERO), ids=[fn.__name__ for fn in UNARY_ZERO])
def test_zero_derivative_unary_ufunc_gives_untagged_result(fn):
    rng = rng_for("zero " + fn.__name__)
    for shape in SHAPES + ["float"]:
        x = draw(UNARY_ZERO[fn], rng, shape)
        if fn in (np.isnan, np.isinf, np.isfinite) and np.size(x) > 1:
            x.flat[0], x.flat[1] = np.nan, -np.inf
        for k in (0, K):
            assert_plain(run(fn, (x, tangent(rng, x, k))), fn(x), "%s %s k=%d" % (fn.__name__, shape, k))
    x = np.asarray(UNARY_ZERO[fn](rng, (2, 3)))
    value, t = ad.jvp(fn, x, np.ones_like(x))
    np.testing.assert_array_equal(value, fn(x))
    np.testing.assert_array_equal(t, np.zeros(x.shape))


BINARY_ZERO_CASES = [(fn, pair) for fn in BINARY_ZERO for pair in PAIRS]


@pytest.mark.parametrize("fn,pair", BINARY_ZERO_CASES,
                         ids=["%s-%s" % (fn.__name__, p) for fn, p in BINARY_ZERO_CASES])
def test_zero_derivative_binary_ufunc_gives_untagged_result(fn, pair):
    spec_x, spec_y = PAIRS[pair]
    rng = rng_for("zero %s %s" % (fn.__name__, pair))
    x, y = draw_pair(fn, spec_x, spec_y, rng, BINARY_ZERO)

    def f(a, b):
        return fn(pick(a, spec_x), pick(b, spec_y))

    want = f(x, y)
    for mode in MODES:
        for k in (0, K):
            tx = tangent(rng, x, k) if mode != "y" else None
            ty = tangent(rng, y, k) if mode != "x" else None
            assert_plain(run(f, (x, tx), (y, ty)), want, "%s %s %s k=%d" % (fn.__name__, pair, mode, k))


# ------------------------------------------------------------ completeness

# ufuncs for integers (and datetimes) only: no derivative rule, by design
INTEGER_ONLY = {
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "bitwise_invert",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift",
    "gcd", "lcm", "bitwise_count", "isnat",
}
# ufuncs registered by ad.rules.products (tested with the products)
PRODUCTS = {"matmul", "vecdot", "matvec", "vecmat"}
MULTI_OUTPUT = {np.divmod, np.modf, np.frexp}


def numpy_ufuncs():
    return {name: obj for name, obj in vars(np).items() if isinstance(obj, np.ufunc)}


def test_every_numpy_ufunc_has_a_rule_or_is_integer_only():
    own = ad.ForwardCtx._own_primitives
    missing = sorted(name for name, fn in numpy_ufuncs().items() if id(fn) not in own and name not in INTEGER_ONLY)
    assert not missing, "ufuncs with no rule and not in INTEGER_ONLY: %s" % missing
    stale = sorted(name for name in INTEGER_ONLY if name in vars(np) and id(getattr(np, name)) in own)
    assert not stale, "INTEGER_ONLY ufuncs that have a rule now: %s" % stale


def test_every_ufunc_with_a_rule_is_tested_here():
    own = ad.ForwardCtx._own_primitives
    tested = {id(fn) for table in (UNARY, BINARY, UNARY_ZERO, BINARY_ZERO) for fn in table}
    tested |= {id(fn) for fn in MULTI_OUTPUT} | {id(np.ldexp)}
    tested |= {id(getattr(np, name)) for name in PRODUCTS if hasattr(np, name)}
    untested = sorted({fn.__name__ for fn in numpy_ufuncs().values() if id(fn) in own and id(fn) not in tested})
    assert not untested, "ufuncs with a rule but no test in this file: %s" % untested


@pytest.mark.parametrize("name", sorted(INTEGER_ONLY))
def test_integer_only_ufunc_reached_by_a_derivative_is_named(name):
    if not hasattr(np, name):
        pytest.skip("numpy %s has no %s" % (np.__version__, name))
    fn = getattr(np, name)
    x = np.array([1.0, 2.0, 3.0])
    f = (lambda a: fn(a)) if fn.nin == 1 else (lambda a: fn(a, a))
    for k in (0, K):
        with pytest.raises(ad.NoRuleError, match=r"numpy\.%s\b" % fn.__name__):
            run(f, (x, tangent(rng_for(name), x, k)))
    if fn.nin == 2:  # a tagged argument in second place only
        with pytest.raises(ad.NoRuleError, match=r"numpy\.%s\b" % fn.__name__):
            run(lambda a: fn(np.array([1, 2, 3]), a), (x, np.ones(3)))
    with pytest.raises(ad.NoRuleError, match=r"numpy\.%s\b" % fn.__name__):
        ad.jvp(f, x, np.ones(3))


# ---------------------------------------------------------- multiple outputs


def test_modf_fraction_carries_the_tangent_whole_part_none():
    rng = rng_for("modf")
    for shape in SHAPES + ["float"]:
        x = draw_valid(U(-3, 3), rng, shape, lambda x: np.all(np.abs(x - np.round(x)) > 1e-3))
        for k in (0, K):
            out = run(np.modf, (x, tangent(rng, x, k)))
            assert is_tagged(out[0]) and not is_tagged(out[1])
            check(np.modf, [(x, tangent(rng, x, k))], k, "modf %s k=%d" % (shape, k))


def test_frexp_mantissa_carries_the_tangent_exponent_none():
    rng = rng_for("frexp")
    for shape in SHAPES + ["float"]:
        # away from powers of two, where the exponent jumps
        x = draw_valid(PM(0.1, 10), rng, shape, lambda x: np.all(np.abs(np.log2(np.abs(x)) % 1 - 0.5) < 0.49))
        for k in (0, K):
            out = run(np.frexp, (x, tangent(rng, x, k)))
            assert is_tagged(out[0]) and not is_tagged(out[1])
            assert np.asarray(out[1]).dtype.kind == "i"
            check(np.frexp, [(x, tangent(rng, x, k))], k, "frexp %s k=%d" % (shape, k))


DIVMOD_TABLE = {np.divmod: (U(-3, 3), PM(0.5, 2), frac_away(1e-3))}


@pytest.mark.parametrize("pair", ["0d-0d", "5-5", "2x3-2x3"])
def test_divmod_on_equal_shapes(pair):
    binary_check(np.divmod, pair, DIVMOD_TABLE)
    spec_x, spec_y = PAIRS[pair]
    rng = rng_for("divmod parts " + pair)
    x, y = draw_pair(np.divmod, spec_x, spec_y, rng, DIVMOD_TABLE)
    q, r = run(np.divmod, (x, tangent(rng, x, K)), (y, tangent(rng, y, K)))
    assert not is_tagged(q) and is_tagged(r)
    np.testing.assert_array_equal(q, np.floor_divide(x, y))


@pytest.mark.parametrize("pair", ["2x3-3", "2x3-0d", "2x3-float", "2x3-item"])
def test_divmod_by_a_constant_of_lower_rank(pair):
    binary_check(np.divmod, pair, DIVMOD_TABLE, modes=("x",))


# ------------------------------------------------------------------ out=


def fd_jvp(f, x, v):
    return (np.array(f(x + H * v), dtype=float) - np.array(f(x - H * v), dtype=float)) / (2 * H)


def fd_jacobian(f, x):
    cols = [fd_jvp(f, x, e.reshape(x.shape)) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


def check_api(f, x, what):
    """``ad.jvp`` (one direction) and ``ad.jacobian`` with chunks of 3 against central differences."""
    rng = rng_for(what)
    v = rng.standard_normal(x.shape)
    value, t = ad.jvp(f, x, v)
    np.testing.assert_array_equal(value, f(x), err_msg=what)
    assert_close(t, fd_jvp(f, x, v), what + " jvp")
    J = ad.jacobian(f, x, backend=ad.ForwardMode(chunk=K))
    assert_close(J, fd_jacobian(f, x), what + " jacobian")


def test_out_buffer_made_outside_and_returned():
    x = rng_for("out sin").uniform(-2, 2, (2, 3))
    buf = np.zeros((2, 3))

    def f(a):
        return np.sin(a, out=buf)

    check_api(f, x, "sin out=buf")
    np.testing.assert_array_equal(buf, np.sin(x))  # the native write happened

    def f_tuple(a):
        return np.sin(a, out=(buf,))[0]

    check_api(f_tuple, x, "sin out=(buf,)")


def test_out_buffer_made_inside_and_used_later():
    x = rng_for("out inside").uniform(0.5, 1.5, (2, 3))

    def f(a):
        buf = np.empty((2, 3))
        np.exp(a, out=buf)
        np.multiply(buf, a, out=buf)
        return buf + np.log(buf)

    check_api(f, x, "exp out inside")


def test_binary_out_buffer_made_outside():
    rng = rng_for("out add")
    x = rng.uniform(-2, 2, (2, 3))
    row = rng.uniform(-2, 2, (3,))
    buf = np.zeros((2, 3))

    def f_const(a):
        np.add(a, row, out=buf)
        return buf

    def f_both(a):
        np.add(a, a[0, 1], out=buf)
        return buf * 2.0

    def f_broadcast(a):
        np.multiply(a[0], a[:, :1], out=buf)
        return buf

    def f_reflected(a):
        out = np.add(row, a, out=buf)
        assert out is buf
        return out

    for name, f in [("const", f_const), ("scalar dual", f_both), ("broadcast", f_broadcast),
                    ("reflected", f_reflected)]:
        check_api(f, x, "add out= " + name)
    np.add(x, row, out=buf)
    check_api(f_const, x, "add out= reused buffer")


def test_out_into_a_dual_array():
    x = rng_for("out dual").uniform(-2, 2, (2, 3))

    def f(a):
        y = a * 1.0
        np.sin(a, out=y)
        z = a * 2.0
        np.add(z, y, out=z)
        return z * y

    check_api(f, x, "out=DualArray")


# -------------------------------------------------------- DualArray operators

_ops_rng = rng_for("operators")
A = _ops_rng.uniform(0.5, 1.5, (2, 3))
ROW = _ops_rng.uniform(0.5, 1.5, (3,))
M = _ops_rng.uniform(-1, 1, (3, 4))
M2 = _ops_rng.uniform(-1, 1, (4, 2))
C = 1.7

# x: a DualArray of shape (2, 3); s: a tagged array of shape (2,) whose s[0] is a scalar Dual
OPERATOR_CASES = {
    "x + A": lambda x, s: x + A, "A + x": lambda x, s: A + x, "x + ROW": lambda x, s: x + ROW,
    "ROW + x": lambda x, s: ROW + x, "x + C": lambda x, s: x + C, "C + x": lambda x, s: C + x,
    "x + s0": lambda x, s: x + s[0], "s0 + x": lambda x, s: s[0] + x, "x + x": lambda x, s: x + x,
    "x - A": lambda x, s: x - A, "A - x": lambda x, s: A - x, "x - ROW": lambda x, s: x - ROW,
    "ROW - x": lambda x, s: ROW - x, "x - C": lambda x, s: x - C, "C - x": lambda x, s: C - x,
    "x - s0": lambda x, s: x - s[0], "s0 - x": lambda x, s: s[0] - x, "x - x.T.T * 2": lambda x, s: x - x.T.T * 2,
    "x * A": lambda x, s: x * A, "A * x": lambda x, s: A * x, "x * ROW": lambda x, s: x * ROW,
    "ROW * x": lambda x, s: ROW * x, "x * C": lambda x, s: x * C, "C * x": lambda x, s: C * x,
    "x * s0": lambda x, s: x * s[0], "s0 * x": lambda x, s: s[0] * x, "x * x": lambda x, s: x * x,
    "x / A": lambda x, s: x / A, "A / x": lambda x, s: A / x, "x / ROW": lambda x, s: x / ROW,
    "ROW / x": lambda x, s: ROW / x, "x / C": lambda x, s: x / C, "C / x": lambda x, s: C / x,
    "x / s0": lambda x, s: x / s[0], "s0 / x": lambda x, s: s[0] / x, "A / s0": lambda x, s: A / s[0],
    "x // A": lambda x, s: x // A, "A // x": lambda x, s: A // x, "x // C": lambda x, s: x // C,
    "C // x": lambda x, s: C // x, "x // s0": lambda x, s: x // s[0], "s0 // x": lambda x, s: s[0] // x,
    "x % A": lambda x, s: x % A, "A % x": lambda x, s: A % x, "x % ROW": lambda x, s: x % ROW,
    "ROW % x": lambda x, s: ROW % x, "x % C": lambda x, s: x % C, "C % x": lambda x, s: C % x,
    "x % s0": lambda x, s: x % s[0], "s0 % x": lambda x, s: s[0] % x,
    "x ** A": lambda x, s: x ** A, "A ** x": lambda x, s: A ** x, "x ** ROW": lambda x, s: x ** ROW,
    "ROW ** x": lambda x, s: ROW ** x, "x ** C": lambda x, s: x ** C, "C ** x": lambda x, s: C ** x,
    "x ** 2": lambda x, s: x ** 2, "x ** s0": lambda x, s: x ** s[0], "s0 ** x": lambda x, s: s[0] ** x,
    "x ** x": lambda x, s: x ** x,
    "x @ M": lambda x, s: x @ M, "M2 @ x": lambda x, s: M2 @ x, "x @ x.T": lambda x, s: x @ x.T,
    "x @ ROW": lambda x, s: x @ ROW, "ROW @ x.T": lambda x, s: ROW @ x.T,
    # builtin abs(x) of a DualArray is left out: it reaches the rule of abs, whose sign() subtracts
    # boolean arrays and raises TypeError
    "-x": lambda x, s: -x, "+x": lambda x, s: +x, "np.abs(x - 1)": lambda x, s: np.abs(x - 1.0),
    "(x - 1).__abs__()": lambda x, s: (x - 1.0).__abs__(), "-s0 * x": lambda x, s: -s[0] * x,
    "divmod(x, A)": lambda x, s: divmod(x, A), "divmod(x, C)": lambda x, s: divmod(x, C),
}


def operator_operands(name):
    """x in [0.5, 1.5] (2, 3), s in [0.5, 1.5] (2,), with no quotient of operands near an integer."""
    rng = rng_for("operands " + name)
    away = frac_away(2e-3)
    for _ in range(500):
        x = rng.uniform(0.5, 1.5, (2, 3))
        s = rng.uniform(0.5, 1.5, (2,))
        others = [A, ROW, C, s[0], np.abs(x - 1.0)]
        if all(away(x, o) and away(o, x) for o in others) and np.all(np.abs(x - 1.0) > 1e-3):
            return x, s
    raise AssertionError("no operands drawn")


# With x constant these two are ``ndarray % Dual`` and ``ndarray ** Dual``, which reach the rules of
# operator.mod and operator.pow; those call math.floor / math.log on the array operand and fail.
OPERATOR_MODES = {"x % s0": ("x", "both"), "x ** s0": ("x", "both")}


@pytest.mark.parametrize("name", list(OPERATOR_CASES))
def test_dual_array_operator(name):
    f = OPERATOR_CASES[name]
    x, s = operator_operands(name)
    rng = rng_for("operator " + name)
    for k in (0, K):
        for mode in OPERATOR_MODES.get(name, ("x", "s", "both")):
            tx = tangent(rng, x, k) if mode != "s" else None
            ts = tangent(rng, s, k) if mode != "x" else None
            check(f, [(x, tx), (s, ts)], k, "%s tagged=%s k=%d" % (name, mode, k))


COMPARISONS = {
    "x < A": lambda x, s: x < A, "A < x": lambda x, s: A < x, "x <= C": lambda x, s: x <= C,
    "x > s0": lambda x, s: x > s[0], "s0 >= x": lambda x, s: s[0] >= x, "x == x": lambda x, s: x == x,
    "x != A": lambda x, s: x != A, "x >= ROW": lambda x, s: x >= ROW, "x == x * 1.0": lambda x, s: x == x * 1.0,
}


@pytest.mark.parametrize("name", list(COMPARISONS))
def test_dual_array_comparison_gives_plain_bool_array(name):
    f = COMPARISONS[name]
    x, s = operator_operands(name)
    want = f(x, s)
    rng = rng_for("comparison " + name)
    for k in (0, K):
        out = run(f, (x, tangent(rng, x, k)), (s, tangent(rng, s, k)))
        assert type(out) is np.ndarray and out.dtype == bool, (name, type(out))
        np.testing.assert_array_equal(out, want)


def _iadd(x, s):
    y = x * 1.0
    y += A
    y += x
    y += s[0]
    y += C
    return y


def _isub(x, s):
    y = x * 1.0
    y -= ROW
    y -= x * x
    y -= s[0]
    y -= C
    return y


def _imul(x, s):
    y = x * 1.0
    y *= A
    y *= x
    y *= s[0]
    y *= C
    return y


def _idiv(x, s):
    y = x * 1.0
    y /= ROW
    y /= x + 1.0
    y /= s[0]
    y /= C
    return y


def _mixed(x, s):
    y = x + 0.0
    view = y[0]
    y *= x
    y += s[0] * A
    view /= s[1]  # through a view: y changes with it
    y -= np.sin(x)
    return y


INPLACE = {"+=": _iadd, "-=": _isub, "*=": _imul, "/=": _idiv, "mixed": _mixed}


@pytest.mark.parametrize("name", list(INPLACE))
def test_dual_array_inplace_operators(name):
    f = INPLACE[name]
    x, s = operator_operands(name)
    rng = rng_for("inplace " + name)
    for k in (0, K):
        for mode in ("x", "s", "both"):
            tx = tangent(rng, x, k) if mode != "s" else None
            ts = tangent(rng, s, k) if mode != "x" else None
            check(f, [(x, tx), (s, ts)], k, "%s tagged=%s k=%d" % (name, mode, k))


def test_inplace_operator_keeps_the_object():
    seen = []

    def f(x):
        y = x * 1.0
        before = y
        y += x
        y *= 2.0
        seen.append(y is before)
        return y

    x = np.array([0.5, 1.5])
    value, t = ad.jvp(f, x, np.ones(2))
    assert seen == [True]
    np.testing.assert_array_equal(value, 4 * x)
    np.testing.assert_array_equal(t, [4.0, 4.0])


# ---------------------------------------------------------------- property


def composite(x):
    return (np.sin(x) * np.exp(-x * x) + np.log1p(x * x) / (1.0 + np.sqrt(x * x + 1.0))
            + np.hypot(x, 0.5) - np.tanh(x) ** 2 + np.arctan2(x, 2.0) * np.cosh(x / 3.0)
            + x ** 3 / 4.0 - np.logaddexp(x, 0.3) + np.power(2.0, x) * np.cbrt(x * x + 1.0))


values = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=30, deadline=None, database=None)
@given(data=st.data())
def test_composite_elementwise_expression_matches_central_differences(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), label="shape")
    x = data.draw(hnp.arrays(np.float64, shape, elements=values), label="x")
    v = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1.0, 1.0)), label="v")
    value, t = ad.jvp(composite, x, v)
    np.testing.assert_allclose(value, composite(x), rtol=1e-15, atol=0)
    want = fd_jvp(composite, x, v)
    np.testing.assert_allclose(t, want, rtol=RTOL, atol=1e-6)
    J = ad.jacobian(composite, x, backend=ad.ForwardMode(chunk=K))
    assert J.shape == shape + shape
    np.testing.assert_allclose(J.reshape(x.size, x.size) @ v.ravel(), np.ravel(t), rtol=1e-9, atol=1e-12)
