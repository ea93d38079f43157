"""Scalar forward-mode AD (package ``ad``).

What is tested, and how exactly:

* The nested-derivative examples from the literature (Siskind & Pearlmutter,
  Cassette.jl, ForwardDiff issue 443, Manzyuk et al. 2019) compare with ``==``.
* Third derivatives of ``sin`` by triple nesting equal ``-cos(x)`` exactly.
  Hessians by forward over forward equal hand-derived Hessians: exactly for
  polynomials at dyadic points (every intermediate is exact in binary floating
  point), and to 1e-12 relative where the hand formula rounds in another order
  (``exp``, ``sin``).
* Every function registered on ``ad.ForwardCtx`` (the rule tables) is checked
  against a central difference in each differentiable argument at seeded random
  points inside a domain table (relative tolerance 1e-6, see ``assert_close_fd``),
  and a completeness test makes a rule added later without an entry here fail.
  Zero-derivative functions must give untagged results and derivative 0.0.
* The fused operators of ``ad.Dual`` must give exactly (``==``) the primal and
  tangent of the table rule reached through ``context.tagging.dispatch``.
* API, conventions, errors, user rules and code shapes.

No test asserts timings (Hypothesis runs with ``deadline=None``, no database).
"""

import dataclasses
import functools
import math
import operator as op
import random
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ad
from context import overdub, primitives
from context.tagging import Tagged, TaggingError, dispatch, enabletagging, tag

D = ad.D

HYPOTHESIS = settings(deadline=None, database=None, derandomize=True, max_examples=150)


# ----------------------------------------------------------------- helpers


def run_tagged(f, x, tangent=1.0):
    """``f(x)`` under a fresh ForwardCtx with ``x`` tagged as is (no float conversion: ints stay ints)."""
    ctx = enabletagging(ad.ForwardCtx(), f)
    return overdub(ctx, f, tag(x, ctx, tangent))


def is_tagged(v):
    """Checked natively (outside any context), where ``isinstance`` sees the real type."""
    return isinstance(v, Tagged)


@pytest.fixture
def restore_rules():
    """Undo rules a test registers on ad.ForwardCtx, so the table stays as the package made it."""
    own = ad.ForwardCtx._own_primitives
    saved = {key: (fn, list(entries)) for key, (fn, entries) in own.items()}
    yield
    own.clear()
    own.update(saved)
    primitives._version[0] += 1  # table caches are keyed by this counter


# ============================================================ literature examples


def test_siskind_pearlmutter_perturbation_confusion():
    assert D(lambda x: x * D(lambda y: x + y, 1), 1) == 1


def test_cassette_nested_examples():
    assert D(lambda x: x * D(lambda y: x * y, 3), 5) == 10
    assert D(lambda x: x * D(lambda y: x * y, 1), 2) == 4
    assert D(lambda x: x * D(lambda y: 5 * x * y, 3), 2) == 20


def test_inner_derivative_independent_of_outer_variable():
    assert D(lambda x: x * D(lambda y: x, 0), 0) == 0


def test_forwarddiff_issue_443():
    def outer(x):
        box = [x]

        def f(y):
            box[0] = box[0] * y
            return box[0]

        D(f, 1)
        return D(f, 1)

    result = D(outer, 1)
    assert result == 1
    assert type(result) is float


@pytest.mark.parametrize("x", [0.0, 0.3, 1.0, 2.5, -1.2, 7.75, -3.0])
def test_third_derivative_of_sin_by_triple_nesting(x):
    third = D(lambda a: D(lambda b: D(math.sin, b), a), x)
    assert third == -math.cos(x)
    assert type(third) is float


def test_third_derivative_of_sin_at_random_points():
    rnd = random.Random(443)
    for _ in range(20):
        x = rnd.uniform(-10, 10)
        assert D(lambda a: D(lambda b: D(math.sin, b), a), x) == -math.cos(x)


def test_manzyuk_amazing_bug():
    shift = lambda o: lambda g: lambda a: g(a + o)  # noqa: E731
    fhat = D(shift, 3)
    assert fhat(math.exp)(5) == math.exp(8)
    assert fhat(fhat(math.exp))(5) == math.exp(11)


def test_function_valued_derivative_is_derivative_of_application():
    f = lambda x: lambda y: x * x * y + math.sin(x)  # noqa: E731
    for x, y in [(3.0, 2.0), (0.5, -1.25)]:
        assert D(f, x)(y) == D(lambda t: f(t)(y), x)
        assert D(f, x)(y) == 2 * x * y + math.cos(x)


# ================================================================== Hessians


def hand_hessian_poly(v):
    """f = x^2 y + 3 x y^3 - 2 y^2 (exact at dyadic points)."""
    x, y = v
    return [[2 * y, 2 * x + 9 * y * y], [2 * x + 9 * y * y, 18 * x * y - 4]]


def hand_hessian_rosenbrock(v):
    x, y = v
    return [[2 - 400 * (y - x * x) + 800 * x * x, -400 * x], [-400 * x, 200]]


def hand_hessian_quadratic(v):
    # f = v^T A v with A = [[1, 2, 0], [-1, 3, 4], [5, 0, -2]]: H = A + A^T
    return [[2, 1, 5], [1, 6, 4], [5, 4, -4]]


QUAD_A = [[1, 2, 0], [-1, 3, 4], [5, 0, -2]]

EXACT_HESSIANS = [
    ("poly", lambda v: v[0] * v[0] * v[1] + 3 * v[0] * v[1] ** 3 - 2 * v[1] ** 2, hand_hessian_poly,
     [[1.5, 0.5], [-2.0, 0.25], [0.75, -1.5]]),
    ("rosenbrock", lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2, hand_hessian_rosenbrock,
     [[1.5, 0.5], [-1.25, 2.0], [1.0, 1.0]]),
    ("quadratic", lambda v: sum(v[i] * QUAD_A[i][j] * v[j] for i in range(3) for j in range(3)),
     hand_hessian_quadratic, [[1.0, 2.0, 3.0], [-0.5, 0.25, 4.0]]),
]


@pytest.mark.parametrize("name,f,hand,points", EXACT_HESSIANS, ids=[c[0] for c in EXACT_HESSIANS])
def test_hessian_exact_polynomials(name, f, hand, points):
    """Polynomials with small integer coefficients at dyadic points: every step is exact, so ==."""
    for p in points:
        h = ad.hessian(f, p)
        assert h == [[float(e) for e in row] for row in hand(p)], (name, p, h)
        assert all(type(e) is float for row in h for e in row)


def hand_hessian_exp_xy(v):
    x, y = v
    e = math.exp(x * y)
    return [[y * y * e, (1 + x * y) * e], [(1 + x * y) * e, x * x * e]]


def hand_hessian_mixed(v):
    # f = sin(x) * y + x^2 * exp(y)
    x, y = v
    return [[-math.sin(x) * y + 2 * math.exp(y), math.cos(x) + 2 * x * math.exp(y)],
            [math.cos(x) + 2 * x * math.exp(y), x * x * math.exp(y)]]


def hand_hessian_log_ratio(v):
    # f = log(x) / y
    x, y = v
    return [[-1 / (x * x * y), -1 / (x * y * y)], [-1 / (x * y * y), 2 * math.log(x) / y ** 3]]


TRANSCENDENTAL_HESSIANS = [
    ("exp_xy", lambda v: math.exp(v[0] * v[1]), hand_hessian_exp_xy),
    ("mixed", lambda v: math.sin(v[0]) * v[1] + v[0] ** 2 * math.exp(v[1]), hand_hessian_mixed),
    ("log_ratio", lambda v: math.log(v[0]) / v[1], hand_hessian_log_ratio),
]


@pytest.mark.parametrize("name,f,hand", TRANSCENDENTAL_HESSIANS, ids=[c[0] for c in TRANSCENDENTAL_HESSIANS])
def test_hessian_transcendental(name, f, hand):
    """Relative 1e-12: the hand formula rounds in another order than the propagated tangents."""
    rnd = random.Random(zlib.crc32(name.encode()))
    for _ in range(5):
        p = [rnd.uniform(0.3, 2.0), rnd.uniform(0.3, 2.0)]
        h = ad.hessian(f, p)
        want = hand(p)
        for i in range(2):
            for j in range(2):
                assert math.isclose(h[i][j], want[i][j], rel_tol=1e-12, abs_tol=1e-300), (name, p, i, j, h, want)
        assert h[0][1] == pytest.approx(h[1][0], rel=1e-12)


def test_hessian_by_explicit_nesting_matches_api():
    f = lambda x, y: x ** 3 * y + y * y  # noqa: E731
    x0, y0 = 1.5, -0.5
    dxx = D(lambda a: D(lambda b: f(b, y0), a), x0)
    dxy = D(lambda b: D(lambda a: f(a, b), x0), y0)
    assert ad.hessian(lambda v: f(v[0], v[1]), [x0, y0]) == [[dxx, dxy], [dxy, 2.0]]
    assert dxx == 6 * x0 * y0 and dxy == 3 * x0 * x0


# ========================================================= rule tables vs central differences


def U(lo, hi):
    return lambda rnd: rnd.uniform(lo, hi)


def away0(lo, hi):
    """|x| in [lo, hi], either sign."""
    return lambda rnd: rnd.choice((-1.0, 1.0)) * rnd.uniform(lo, hi)


def args_of(*samplers):
    return lambda rnd: [s(rnd) for s in samplers]


def floor_mod_args(rnd):
    """(x, y) with x / y at least 0.1 from an integer: mod / divmod / floor(x / y) are smooth there."""
    y = rnd.choice((-1.0, 1.0)) * rnd.uniform(0.5, 3.0)
    q = rnd.randint(-4, 4) + rnd.uniform(0.1, 0.9)
    return [q * y, y]


def remainder_args(rnd):
    """(x, y) with x / y at least 0.1 from a half-integer (where round(x / y) jumps)."""
    y = rnd.choice((-1.0, 1.0)) * rnd.uniform(0.5, 3.0)
    q = rnd.randint(-4, 4) + rnd.uniform(-0.4, 0.4)
    return [q * y, y]


def atan2_args(rnd):
    """(y, x) with |y| >= 0.2 (off the branch cut on the negative x axis) and away from the origin."""
    return [rnd.choice((-1.0, 1.0)) * rnd.uniform(0.2, 3.0), rnd.uniform(-3.0, 3.0)]


def frexp_arg(rnd):
    """Mantissa in [0.55, 0.95]: away from the powers of two where the exponent jumps."""
    return [rnd.choice((-1.0, 1.0)) * rnd.uniform(0.55, 0.95) * 2.0 ** rnd.randint(-6, 6)]


def non_integer(rnd):
    return [rnd.randint(-5, 5) + rnd.uniform(0.1, 0.9)]


def dist_args(rnd):
    p = [rnd.uniform(-3, 3), rnd.uniform(-3, 3)]
    q = [p[0] + away0(0.5, 2.0)(rnd), p[1] + away0(0.5, 2.0)(rnd)]
    return p + q


def ldexp_args(rnd):
    return [rnd.uniform(-3, 3), rnd.randint(-6, 6)]  # the exponent is an int: not differentiable


class Rule:
    """One entry of the domain table.

    ``sample(rnd)`` gives a flat list of primal arguments inside the domain;
    ``call(fn, args)`` applies ``fn`` (default ``fn(*args)``); ``pick`` selects the
    differentiable output; ``diff`` are the argument positions with a derivative
    (compared with central differences), ``zero`` those with derivative ZERO;
    ``untagged`` selects outputs that never carry a tangent.
    """

    def __init__(self, name, fn, sample, diff, zero=(), call=None, pick=None, untagged=None):
        self.name, self.fn, self.sample = name, fn, sample
        self.diff, self.zero = tuple(diff), tuple(zero)
        self.call = call or (lambda fn, a: fn(*a))
        self.pick = pick or (lambda r: r)
        self.untagged = untagged

    def f(self, args, i):
        """The scalar function of argument ``i`` at ``args``."""
        def g(t):
            a = list(args)
            a[i] = t
            return self.pick(self.call(self.fn, a))
        return g


def binary(name, fn, sample):
    return Rule(name, fn, sample, diff=(0, 1))


def unary(name, fn, sample):
    return Rule(name, fn, args_of(sample), diff=(0,))


ANY = U(-5.0, 5.0)
POS_BASE_POW = args_of(U(0.2, 3.0), U(-2.5, 2.5))

DIFF_RULES = [
    # ---- operator
    binary("operator.add", op.add, args_of(ANY, ANY)),
    binary("operator.iadd", op.iadd, args_of(ANY, ANY)),
    binary("operator.sub", op.sub, args_of(ANY, ANY)),
    binary("operator.isub", op.isub, args_of(ANY, ANY)),
    binary("operator.mul", op.mul, args_of(ANY, ANY)),
    binary("operator.imul", op.imul, args_of(ANY, ANY)),
    binary("operator.truediv", op.truediv, args_of(ANY, away0(0.3, 5.0))),
    binary("operator.itruediv", op.itruediv, args_of(ANY, away0(0.3, 5.0))),
    binary("operator.pow", op.pow, POS_BASE_POW),
    binary("operator.ipow", op.ipow, POS_BASE_POW),
    binary("operator.mod", op.mod, floor_mod_args),
    binary("operator.imod", op.imod, floor_mod_args),
    unary("operator.neg", op.neg, ANY),
    unary("operator.pos", op.pos, ANY),
    unary("operator.abs", op.abs, away0(0.1, 5.0)),
    # ---- math
    unary("math.sin", math.sin, ANY),
    unary("math.cos", math.cos, ANY),
    unary("math.tan", math.tan, U(-1.3, 1.3)),
    unary("math.asin", math.asin, U(-0.9, 0.9)),
    unary("math.acos", math.acos, U(-0.9, 0.9)),
    unary("math.atan", math.atan, ANY),
    binary("math.atan2", math.atan2, atan2_args),
    unary("math.sinh", math.sinh, U(-3.0, 3.0)),
    unary("math.cosh", math.cosh, U(-3.0, 3.0)),
    unary("math.tanh", math.tanh, U(-3.0, 3.0)),
    unary("math.asinh", math.asinh, ANY),
    unary("math.acosh", math.acosh, U(1.1, 6.0)),
    unary("math.atanh", math.atanh, U(-0.9, 0.9)),
    unary("math.exp", math.exp, U(-3.0, 3.0)),
    unary("math.exp2", math.exp2, U(-3.0, 3.0)),
    unary("math.expm1", math.expm1, U(-3.0, 3.0)),
    unary("math.log/1", math.log, U(0.1, 10.0)),
    Rule("math.log/2", math.log, args_of(U(0.1, 10.0), lambda r: r.choice((r.uniform(0.2, 0.8), r.uniform(1.5, 8.0)))),
         diff=(0, 1)),
    unary("math.log2", math.log2, U(0.1, 10.0)),
    unary("math.log10", math.log10, U(0.1, 10.0)),
    unary("math.log1p", math.log1p, U(-0.9, 5.0)),
    unary("math.sqrt", math.sqrt, U(0.1, 10.0)),
    unary("math.cbrt", math.cbrt, away0(0.1, 10.0)) if hasattr(math, "cbrt") else None,
    binary("math.pow", math.pow, POS_BASE_POW),
    unary("math.erf", math.erf, U(-2.0, 2.0)),
    unary("math.erfc", math.erfc, U(-2.0, 2.0)),
    unary("math.gamma", math.gamma, U(0.6, 5.0)),
    unary("math.gamma/negative", math.gamma, lambda r: -r.randint(1, 3) + r.uniform(0.2, 0.8)),
    unary("math.lgamma", math.lgamma, U(0.6, 8.0)),
    unary("math.lgamma/negative", math.lgamma, lambda r: -r.randint(1, 3) + r.uniform(0.2, 0.8)),
    unary("math.fabs", math.fabs, away0(0.1, 5.0)),
    Rule("math.copysign", math.copysign, args_of(away0(0.1, 5.0), away0(0.1, 5.0)), diff=(0,), zero=(1,)),
    unary("math.degrees", math.degrees, ANY),
    unary("math.radians", math.radians, ANY),
    binary("math.fmod", math.fmod, floor_mod_args),
    binary("math.remainder", math.remainder, remainder_args),
    Rule("math.ldexp", math.ldexp, ldexp_args, diff=(0,)),
    Rule("math.nextafter", math.nextafter, args_of(U(-5.0, 5.0), lambda r: r.choice((-100.0, 100.0))),
         diff=(0,), zero=(1,)),
    Rule("math.hypot/1", math.hypot, args_of(away0(0.1, 5.0)), diff=(0,)),
    Rule("math.hypot/2", math.hypot, args_of(away0(0.2, 5.0), ANY), diff=(0, 1)),
    Rule("math.hypot/3", math.hypot, args_of(away0(0.2, 5.0), ANY, ANY), diff=(0, 1, 2)),
    Rule("math.frexp", math.frexp, frexp_arg, diff=(0,), pick=lambda r: r[0], untagged=lambda r: r[1]),
    Rule("math.modf", math.modf, non_integer, diff=(0,), pick=lambda r: r[0], untagged=lambda r: r[1]),
    Rule("math.fsum", math.fsum, args_of(ANY, ANY, ANY), diff=(0, 1, 2), call=lambda fn, a: fn([a[0], a[1], a[2]])),
    Rule("math.dist", math.dist, dist_args, diff=(0, 1, 2, 3), call=lambda fn, a: fn([a[0], a[1]], (a[2], a[3]))),
    # ---- builtins
    unary("abs", abs, away0(0.1, 5.0)),
    binary("pow", pow, POS_BASE_POW),
    Rule("divmod", divmod, floor_mod_args, diff=(0, 1), pick=lambda r: r[1], untagged=lambda r: r[0]),
]
DIFF_RULES = [r for r in DIFF_RULES if r is not None]

# Piecewise constant: untagged results, derivative 0.0 in every argument.
ZERO_RULES = [
    Rule("math.floor", math.floor, non_integer, diff=(), zero=(0,)),
    Rule("math.ceil", math.ceil, non_integer, diff=(), zero=(0,)),
    Rule("math.trunc", math.trunc, non_integer, diff=(), zero=(0,)),
    Rule("math.isfinite", math.isfinite, args_of(ANY), diff=(), zero=(0,)),
    Rule("math.isinf", math.isinf, args_of(ANY), diff=(), zero=(0,)),
    Rule("math.isnan", math.isnan, args_of(ANY), diff=(), zero=(0,)),
    Rule("math.isclose", math.isclose, args_of(ANY, ANY), diff=(), zero=(0, 1)),
    Rule("math.ulp", math.ulp, args_of(away0(0.1, 5.0)), diff=(), zero=(0,)),
    Rule("round", round, non_integer, diff=(), zero=(0,)),
    Rule("round/ndigits", round, non_integer, diff=(), zero=(0,), call=lambda fn, a: fn(a[0], 2)),
    Rule("int", int, non_integer, diff=(), zero=(0,)),
    Rule("float.is_integer", float.is_integer, args_of(ANY), diff=(), zero=(0,)),
    unary("float.conjugate", float.conjugate, ANY),
    Rule("operator.floordiv", op.floordiv, floor_mod_args, diff=(), zero=(0, 1)),
    Rule("operator.ifloordiv", op.ifloordiv, floor_mod_args, diff=(), zero=(0, 1)),
    Rule("operator.truth", op.truth, args_of(ANY), diff=(), zero=(0,)),
    Rule("operator.not_", op.not_, args_of(ANY), diff=(), zero=(0,)),
]

# Registered as not differentiable at all (jvp None): tested in test_non_differentiable_arguments.
NONDIFF_FUNCTIONS = [op.index]

POINTS_PER_RULE = 6


def points(rule):
    rnd = random.Random(zlib.crc32(rule.name.encode()))
    return [rule.sample(rnd) for _ in range(POINTS_PER_RULE)]


def central_difference(g, a):
    h = 1e-6 * max(1.0, abs(a))
    ap, am = a + h, a - h
    return (g(ap) - g(am)) / (ap - am)


def assert_close_fd(ad_value, fd_value, primal, what):
    """Relative 1e-6; the absolute floor covers derivatives near zero (rounding noise of the
    difference quotient is about 1e-16 |f| / h = 1e-10 |f|)."""
    tol = 1e-6 * max(abs(ad_value), abs(fd_value)) + 1e-8 * max(1.0, abs(primal))
    assert abs(ad_value - fd_value) <= tol, "%s: AD %r, central difference %r" % (what, ad_value, fd_value)


DIFF_CASES = [(r, i) for r in DIFF_RULES for i in r.diff]


@pytest.mark.parametrize("rule,i", DIFF_CASES, ids=["%s[%d]" % (r.name, i) for r, i in DIFF_CASES])
def test_rule_against_central_difference(rule, i):
    for args in points(rule):
        g = rule.f(args, i)
        seen = []

        def traced(t):
            out = rule.call(rule.fn, [t if j == i else a for j, a in enumerate(args)])
            seen.append(out)
            return rule.pick(out)

        value, deriv = ad.value_and_derivative(traced, args[i])
        what = "%s d/darg%d at %r" % (rule.name, i, args)
        assert type(deriv) is float, what
        assert value == g(args[i]), what  # the primal is computed exactly as natively
        assert_close_fd(deriv, central_difference(g, args[i]), value, what)
        if rule.untagged is not None:
            part = rule.untagged(seen[0])
            assert not is_tagged(part), what
            assert part == rule.untagged(rule.call(rule.fn, args)), what


JVP_RULES = [r for r in DIFF_RULES if len(r.diff) > 1]


@pytest.mark.parametrize("rule", JVP_RULES, ids=[r.name for r in JVP_RULES])
def test_rule_all_arguments_at_once_against_central_difference(rule):
    """Every differentiable argument carries a tangent: the contributions must add up."""
    rnd = random.Random(zlib.crc32(rule.name.encode()) + 1)
    for args in points(rule):
        v = [rnd.uniform(-1, 1) if j in rule.diff else 0.0 for j in range(len(args))]

        def along(s):
            return rule.pick(rule.call(rule.fn, [a + s * vj if j in rule.diff else a
                                                 for j, (a, vj) in enumerate(zip(args, v))]))

        value, deriv = ad.value_and_derivative(along, 0.0)
        h = 1e-6 * max(1.0, max(abs(a) for a in args))
        fd = (along(h) - along(-h)) / (2 * h)
        assert_close_fd(deriv, fd, value, "%s along %r at %r" % (rule.name, v, args))


ZERO_CASES = [(r, i) for r in DIFF_RULES + ZERO_RULES for i in r.zero]


@pytest.mark.parametrize("rule,i", ZERO_CASES, ids=["%s[%d]" % (r.name, i) for r, i in ZERO_CASES])
def test_zero_derivative_rules_return_untagged(rule, i):
    for args in points(rule):
        seen = []

        def f(t):
            out = rule.call(rule.fn, [t if j == i else a for j, a in enumerate(args)])
            seen.append(out)
            return float(rule.pick(out))

        value, deriv = ad.value_and_derivative(f, args[i])
        what = "%s d/darg%d at %r" % (rule.name, i, args)
        assert not is_tagged(seen[0]), what
        assert seen[0] == rule.call(rule.fn, args), what
        assert type(seen[0]) is type(rule.call(rule.fn, args)), what
        assert deriv == 0.0 and type(deriv) is float, what
        assert value == float(rule.pick(rule.call(rule.fn, args))), what


def test_zero_derivative_functions_directly():
    assert D(math.floor, 2.5) == 0.0
    assert D(math.ceil, -2.5) == 0.0
    assert D(round, 2.25) == 0.0
    assert D(int, 2.75) == 0.0
    assert D(lambda x: x // 0.7, 2.0) == 0.0
    assert D(lambda x: 3.5 // x, 2.0) == 0.0
    assert D(lambda x: float(math.isfinite(x)), 1.0) == 0.0
    assert D(lambda x: x * math.floor(x), 2.5) == 2.0  # d/dx x * 2 at 2.5


ARRAY_OPERATORS = (op.getitem, op.setitem, op.matmul, np.ndarray.astype)  # tested in the array tests


def test_completeness_every_registered_rule_is_tested():
    """A scalar rule added to the tables without an entry in this file's domain table fails here.

    (Rules for NumPy functions are checked by the array tests.)"""
    registered = {key: fn for key, (fn, entries) in ad.ForwardCtx._own_primitives.items()
                  if getattr(fn, "__module__", None) in ("math", "_operator", "operator", "builtins", None)
                  and not isinstance(fn, np.ufunc) and fn not in ARRAY_OPERATORS
                  and getattr(fn, "__objclass__", None) not in (np.ufunc, np.ndarray, np.generic)}
    # (methods of NumPy's types: np.ufunc.at in test_ad_accumulate, __copy__/__deepcopy__ in test_ad_wrong_answers)
    tested = {}
    for rule in DIFF_RULES + ZERO_RULES:
        tested[id(rule.fn)] = rule.fn
    for fn in NONDIFF_FUNCTIONS:
        tested[id(fn)] = fn
    untested = sorted(repr(fn) + " " + getattr(fn, "__module__", "?") for k, fn in registered.items()
                      if k not in tested)
    unregistered = sorted(repr(fn) for k, fn in tested.items() if k not in registered)
    assert not untested, "rules without a test: %s" % untested
    assert not unregistered, "tested but not registered: %s" % unregistered


def test_rule_modules_register_what_the_notes_list():
    """The rule tables cover the documented functions (catches a rule dropped from a table)."""
    documented = [op.add, op.sub, op.mul, op.truediv, op.pow, op.mod, op.iadd, op.isub, op.imul, op.itruediv,
                  op.ipow, op.imod, op.neg, op.pos, op.abs, op.floordiv, op.truth, op.not_,
                  math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.atan2, math.sinh, math.cosh,
                  math.tanh, math.asinh, math.acosh, math.atanh, math.exp, math.exp2, math.expm1, math.log,
                  math.log2, math.log10, math.log1p, math.sqrt, math.pow, math.hypot, math.erf, math.erfc,
                  math.gamma, math.lgamma, math.fabs, math.copysign, math.degrees, math.radians, math.fmod,
                  math.remainder, math.ldexp, math.nextafter, math.fsum, math.dist, math.frexp, math.modf,
                  math.floor, math.ceil, math.trunc, math.isfinite, math.isinf, math.isnan, math.isclose,
                  math.ulp, abs, pow, round, int, divmod, float.is_integer, float.conjugate]
    if hasattr(math, "cbrt"):
        documented.append(math.cbrt)
    own = ad.ForwardCtx._own_primitives
    missing = [fn for fn in documented if id(fn) not in own]
    assert not missing


def test_non_differentiable_arguments():
    """Arguments registered with None raise NoRuleError when they carry a tangent (ints tagged by hand)."""
    with pytest.raises(ad.NoRuleError, match=r"math\.ldexp.*argument 2"):
        run_tagged(lambda i: math.ldexp(1.5, i), 3)
    with pytest.raises(ad.NoRuleError, match=r"operator\.index"):
        run_tagged(op.index, 3)
    with pytest.raises(ad.NoRuleError, match=r"pow.*argument 3"):
        run_tagged(lambda m: pow(2, 3, m), 5)
    # the differentiable argument of ldexp still works, with an int exponent
    assert D(lambda x: math.ldexp(x, 3), 1.25) == 8.0


# ================================================ fused Dual operators == table rules


def fused_vs_table(x0, k, build):
    """Run ``build(u)`` with ``u`` a Dual of primal x0 * k and tangent k; return the pairs it recorded."""
    pairs = []

    def f(x):
        u = x * k
        for fused, table in build(u):
            pairs.append((fused(), table()))
        return x

    D(f, x0)
    return pairs


def assert_same_dual(fused, table, what):
    assert is_tagged(fused) and is_tagged(table), what
    assert type(fused) is ad.Dual and type(table) is ad.Dual, what
    assert fused.tag is table.tag, what
    assert type(fused.value) is type(table.value), what
    assert fused.value == table.value, "%s: primal fused %r, table %r" % (what, fused.value, table.value)
    assert fused.tangent == table.tangent, "%s: tangent fused %r, table %r" % (what, fused.tangent, table.tangent)
    assert type(fused.tangent) is type(table.tangent), what


# (symbol, table function, the operator as written in code)
ARITH = [
    ("+", op.add, lambda a, b: a + b),
    ("-", op.sub, lambda a, b: a - b),
    ("*", op.mul, lambda a, b: a * b),
    ("/", op.truediv, lambda a, b: a / b),
]

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
nonzero = finite.filter(lambda v: abs(v) > 1e-3)
small_int = st.integers(min_value=-20, max_value=20).filter(lambda n: n != 0)


@HYPOTHESIS
@given(x0=nonzero, k=nonzero, c=nonzero, n=small_int)
def test_fused_arithmetic_with_constants_equals_table(x0, k, c, n):
    def build(u):
        out = []
        for sym, fn, written in ARITH:
            for const in (c, n):
                out.append((lambda fn=fn, const=const, w=written: w(u, const),
                            lambda fn=fn, const=const: dispatch(fn, (u, const))))
                out.append((lambda fn=fn, const=const, w=written: w(const, u),
                            lambda fn=fn, const=const: dispatch(fn, (const, u))))
        out.append((lambda: -u, lambda: dispatch(op.neg, (u,))))
        return out

    pairs = fused_vs_table(x0, k, build)
    assert len(pairs) == 17
    for idx, (fused, table) in enumerate(pairs):
        assert_same_dual(fused, table, "case %d, x0=%r k=%r c=%r n=%r" % (idx, x0, k, c, n))


def test_fused_arithmetic_with_constants_written_out():
    """The same as above without eval: the operators as they appear in code."""
    for x0, k, c, n in [(1.5, 3.0, 0.7, 3), (-2.25, 0.1, -7.5, -2), (0.3, -1.7, 2.9, 5)]:
        def build(u):
            return [
                (lambda: u + c, lambda: dispatch(op.add, (u, c))), (lambda: c + u, lambda: dispatch(op.add, (c, u))),
                (lambda: u + n, lambda: dispatch(op.add, (u, n))), (lambda: n + u, lambda: dispatch(op.add, (n, u))),
                (lambda: u - c, lambda: dispatch(op.sub, (u, c))), (lambda: c - u, lambda: dispatch(op.sub, (c, u))),
                (lambda: u - n, lambda: dispatch(op.sub, (u, n))), (lambda: n - u, lambda: dispatch(op.sub, (n, u))),
                (lambda: u * c, lambda: dispatch(op.mul, (u, c))), (lambda: c * u, lambda: dispatch(op.mul, (c, u))),
                (lambda: u * n, lambda: dispatch(op.mul, (u, n))), (lambda: n * u, lambda: dispatch(op.mul, (n, u))),
                (lambda: u / c, lambda: dispatch(op.truediv, (u, c))),
                (lambda: c / u, lambda: dispatch(op.truediv, (c, u))),
                (lambda: u / n, lambda: dispatch(op.truediv, (u, n))),
                (lambda: n / u, lambda: dispatch(op.truediv, (n, u))),
                (lambda: -u, lambda: dispatch(op.neg, (u,))),
            ]

        for idx, (fused, table) in enumerate(fused_vs_table(x0, k, build)):
            assert_same_dual(fused, table, "case %d at %r" % (idx, (x0, k, c, n)))


@HYPOTHESIS
@given(x0=nonzero, k=nonzero, a=nonzero, b=nonzero)
def test_fused_arithmetic_between_duals_equals_table(x0, k, a, b):
    """Both operands carry the same tag (u = x k, w = a x + b)."""
    def build(u):
        w = a * (u / k) + b  # built with fused operators; the tag is u's
        return [(lambda written=written: written(u, w), lambda fn=fn: dispatch(fn, (u, w)))
                for sym, fn, written in ARITH if not (sym == "/" and w.value == 0)]

    for idx, (fused, table) in enumerate(fused_vs_table(x0, k, build)):
        assert_same_dual(fused, table, "case %d, x0=%r k=%r a=%r b=%r" % (idx, x0, k, a, b))


def test_fused_division_between_duals_equals_table_example():
    """A fixed instance of the property above (found by it): u / w with tangents 3 and cos(x)."""
    for x0 in (0.3765, 1.2, 2.7):
        pairs = fused_vs_table(x0, 3.0, lambda u: [(lambda: u / math.sin(u / 3.0),
                                                    lambda: dispatch(op.truediv, (u, math.sin(u / 3.0))))])
        (fused, table), = pairs
        assert_same_dual(fused, table, "u / sin(x) at x=%r" % x0)


POWERS = [2, 3, 1, 0, -1, -2, 5, 2.0, 3.0, 0.5, -1.5, 2.5, 1.0, 0.0]


@HYPOTHESIS
@given(x0=st.floats(min_value=0.01, max_value=50.0), k=nonzero)
def test_fused_constant_powers_equal_table(x0, k):
    """Positive base (so float powers stay real); the tangent k is not 1."""
    def build(u):
        return [(lambda p=p: u ** p, lambda p=p: dispatch(op.pow, (u, p))) for p in POWERS]

    for (fused, table), p in zip(fused_vs_table(x0 / k, k, build), POWERS):
        assert_same_dual(fused, table, "u ** %r at u=%r tangent %r" % (p, x0, k))


def test_fused_constant_powers_with_unit_and_other_tangents():
    for x0 in (0.5, 1.5, 2.05930102635146, 3.7):
        for k in (1.0, 1.732340106813079, -0.3):
            def build(u):
                return [(lambda p=p: u ** p, lambda p=p: dispatch(op.pow, (u, p))) for p in POWERS]

            for (fused, table), p in zip(fused_vs_table(x0 / k, k, build), POWERS):
                assert_same_dual(fused, table, "u ** %r at x0=%r, tangent %r" % (p, x0, k))


def test_fused_integer_powers_of_negative_base_equal_table():
    for x0 in (-0.5, -1.5, -3.25):
        def build(u):
            return [(lambda p=p: u ** p, lambda p=p: dispatch(op.pow, (u, p))) for p in (2, 3, -1, -2, 2.0, 3.0)]

        for (fused, table), p in zip(fused_vs_table(x0, 1.0, build), (2, 3, -1, -2, 2.0, 3.0)):
            assert_same_dual(fused, table, "u ** %r at %r" % (p, x0))


CMPS = [
    ("<", op.lt, lambda a, b: a < b),
    ("<=", op.le, lambda a, b: a <= b),
    (">", op.gt, lambda a, b: a > b),
    (">=", op.ge, lambda a, b: a >= b),
    ("==", op.eq, lambda a, b: a == b),
    ("!=", op.ne, lambda a, b: a != b),
]


@HYPOTHESIS
@given(x0=finite, c=st.one_of(finite, st.integers(-1000, 1000)), same=st.booleans())
def test_fused_comparisons_equal_table_and_primal(x0, c, same):
    c = x0 if same else c  # ties matter for <= and >=
    results = []

    def f(x):
        w = x * 1.0 + 0.0
        for sym, fn, written in CMPS:
            results.append((sym, written(x, c), dispatch(fn, (x, c)), fn(x0, c)))
            results.append((sym + "r", written(c, x), dispatch(fn, (c, x)), fn(c, x0)))
            results.append((sym + "d", written(x, w), dispatch(fn, (x, w)), fn(x0, x0)))
        return x

    D(f, x0)
    assert len(results) == 18
    for sym, fused, table, plain in results:
        assert type(fused) is bool and type(table) is bool, sym
        assert fused == table == plain, (sym, x0, c, fused, table, plain)


def test_d_of_operator_expressions_equals_hand_derivatives():
    """Exact: each hand formula is the rule's own arithmetic (seed tangent 1)."""
    x = 1.75
    assert D(lambda t: t + 2, x) == 1.0
    assert D(lambda t: 2.5 - t, x) == -1.0
    assert D(lambda t: t * 3, x) == 3.0
    assert D(lambda t: 3 / t, x) == -(3 / x) * 1.0 / x
    assert D(lambda t: t / 4, x) == 0.25
    assert D(lambda t: -t, x) == -1.0
    assert D(lambda t: t ** 3, x) == 3 * x ** 2
    assert D(lambda t: t ** 2, x) == 2 * x
    assert D(lambda t: t ** 0.5, x) == 0.5 * x ** -0.5
    assert D(lambda t: 2 ** t, x) == math.log(2) * 2 ** x
    assert D(lambda t: t ** t, x) == x * x ** (x - 1) + math.log(x) * x ** x
    assert D(lambda t: t * t, x) == 2 * x
    assert D(lambda t: t / t, x) == 0.0


def test_nested_mixed_tags_use_table_rules():
    """Operands with different live tags go through dispatch; the results are still exact."""
    # d/dx [x * d/dy (x*y + y*y)]_{y=2} = d/dx [x * (x + 4)] = 2x + 4
    assert D(lambda x: x * D(lambda y: x * y + y * y, 2.0), 3.0) == 10.0
    # d/dx [d/dy (x / y)]_{y=2} = d/dx (-x / 4) = -0.25
    assert D(lambda x: D(lambda y: x / y, 2.0), 3.0) == -0.25
    # d/dx [d/dy y ** x]_{y=1} = d/dx x = 1
    assert D(lambda x: D(lambda y: y ** x, 1.0), 2.5) == 1.0


# ============================================================== conventions


def test_abs_and_fabs_at_zero():
    assert D(abs, 0.0) == 0.0
    assert D(math.fabs, 0.0) == 0.0
    assert D(lambda x: abs(x), 0.0) == 0.0
    assert D(abs, -2.0) == -1.0 and D(abs, 2.0) == 1.0
    assert D(math.fabs, -2.0) == -1.0


def test_max_and_min_at_a_tie_take_the_first_argument():
    assert D(lambda x: max(x, 2 * x - 1), 1.0) == 1.0
    assert D(lambda x: max(2 * x - 1, x), 1.0) == 2.0
    assert D(lambda x: min(x, 2 * x - 1), 1.0) == 1.0
    assert D(lambda x: min(2 * x - 1, x), 1.0) == 2.0
    assert D(lambda x: max([3 * x - 2, x, 2 * x - 1]), 1.0) == 3.0
    assert D(lambda x: min([x, 3 * x - 2]), 1.0) == 1.0
    # away from ties the larger / smaller one
    assert D(lambda x: max(x, 2 * x - 1), 2.0) == 2.0
    assert D(lambda x: min(x, 2 * x - 1), 2.0) == 1.0


def test_infinite_derivatives_follow_ieee_arithmetic_as_for_arrays():
    assert D(math.sqrt, 0.0) == math.inf
    assert D(math.acos, 1.0) == -math.inf
    assert math.isnan(D(lambda x: math.atan2(x, 0.0), 0.0))
    with pytest.raises(ValueError):
        D(math.log, 0.0)  # math.log(0.0) itself raises, as natively


# ====================================================================== API


def test_derivative_of_list_and_tuple_valued_functions():
    val, der = ad.value_and_derivative(lambda x: [x, x * x, 3.0], 2.0)
    assert val == [2.0, 4.0, 3.0] and der == [1.0, 4.0, 0.0]
    assert type(der) is list and all(type(d) is float for d in der)
    val, der = ad.value_and_derivative(lambda x: (math.sin(x), x ** 3), 0.5)
    assert type(val) is tuple and type(der) is tuple
    assert val == (math.sin(0.5), 0.125) and der == (math.cos(0.5), 0.75)


def test_constant_function_gives_zero():
    assert D(lambda x: 5.0, 1.0) == 0.0
    val, der = ad.value_and_derivative(lambda x: 7, 1.0)
    assert val == 7.0 and type(val) is float and der == 0.0 and type(der) is float
    assert D(lambda x: [1.0, x], 2.0) == [0.0, 1.0]


def test_int_input_accepted_float_output():
    val, der = ad.value_and_derivative(lambda x: x * x, 3)
    assert val == 9.0 and der == 6.0
    assert type(val) is float and type(der) is float
    assert type(D(lambda x: x, 3)) is float


@pytest.mark.parametrize("bad", [True, False, "1.0", None, 1j, [1.0]])
def test_non_real_input_raises_type_error_naming_x(bad):
    with pytest.raises(TypeError, match=r"\bx\b"):
        D(lambda x: x, bad)


def test_jvp_scalar():
    val, t = ad.jvp(lambda x: x * x * x, 2.0, 0.5)
    assert val == 8.0 and t == 6.0
    assert type(val) is float and type(t) is float


def test_jvp_lists_and_tuples():
    f = lambda v: v[0] * v[1] + math.sin(v[2])  # noqa: E731
    x, v = [2.0, 3.0, 0.5], [1.0, -2.0, 4.0]
    val, t = ad.jvp(f, x, v)
    assert val == f(x)
    assert t == 3.0 * 1.0 + 2.0 * -2.0 + math.cos(0.5) * 4.0
    val, t = ad.jvp(lambda v: [v[0] * v[1], v[0] - v[1]], (2.0, 3.0), (1.0, 1.0))
    assert val == [6.0, -1.0] and t == [5.0, 0.0]


def test_jvp_length_mismatch():
    with pytest.raises(ValueError):
        ad.jvp(lambda v: v[0], [1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        ad.jvp(lambda v: v[0], (1.0,), (1.0, 2.0))


def test_gradient_keeps_container_type():
    f = lambda v: v[0] * v[0] * v[1] + 3 * v[1]  # noqa: E731
    g = ad.gradient(f, [2.0, 5.0])
    assert type(g) is list and g == [20.0, 7.0]
    g = ad.gradient(f, (2.0, 5.0))
    assert type(g) is tuple and g == (20.0, 7.0)
    val, g = ad.value_and_gradient(f, (2.0, 5.0))
    assert val == 35.0 and type(g) is tuple and g == (20.0, 7.0)
    val, g = ad.value_and_gradient(f, [2, 5])
    assert val == 35.0 and type(g) is list and g == [20.0, 7.0]
    assert all(type(e) is float for e in g)


def test_gradient_of_vector_valued_raises():
    with pytest.raises(TypeError, match="jacobian"):
        ad.gradient(lambda v: [v[0], v[1]], [1.0, 2.0])
    with pytest.raises(TypeError, match="jacobian"):
        ad.value_and_gradient(lambda v: (v[0], v[1]), (1.0, 2.0))


def test_jacobian_shape_and_values():
    f = lambda v: [v[0] * v[1], v[0] + v[1], math.sin(v[0])]  # noqa: E731
    J = ad.jacobian(f, [2.0, 3.0])
    assert J == [[3.0, 2.0], [1.0, 1.0], [math.cos(2.0), 0.0]]
    assert len(J) == 3 and all(len(row) == 2 for row in J)
    J = ad.jacobian(lambda v: v[0] * v[1] * v[2], (1.0, 2.0, 3.0))
    assert J == [[6.0, 3.0, 2.0]]
    J = ad.jacobian(lambda v: (v[0] ** 2, v[0] * v[1], v[1] - v[2], 1.0), (1.5, -2.0, 0.5))
    assert J == [[3.0, 0.0, 0.0], [-2.0, 1.5, 0.0], [0.0, 1.0, -1.0], [0.0, 0.0, 0.0]]


def matvec(H, v):
    return [sum(h * x for h, x in zip(row, v)) for row in H]


def test_hvp_equals_hessian_times_v_exact_for_polynomial():
    f = lambda v: v[0] ** 3 * v[1] + v[1] ** 2 * v[2] - 4 * v[0] * v[2]  # noqa: E731
    x, v = [1.5, -0.5, 2.0], [1.0, -2.0, 0.25]
    H = ad.hessian(f, x)
    hv = ad.hvp(f, x, v)
    assert type(hv) is list and len(hv) == 3
    assert hv == matvec(H, v)


def test_hvp_equals_hessian_times_v_transcendental():
    """Relative 1e-12 (sums in another order)."""
    f = lambda v: math.exp(v[0] * v[1]) + math.sin(v[0]) * v[1] ** 2  # noqa: E731
    rnd = random.Random(7)
    for _ in range(5):
        x = [rnd.uniform(-1, 1), rnd.uniform(-1, 1)]
        v = [rnd.uniform(-1, 1), rnd.uniform(-1, 1)]
        for got, want in zip(ad.hvp(f, x, v), matvec(ad.hessian(f, x), v)):
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)


# =================================================================== errors


@pytest.mark.parametrize("f,name", [
    (lambda x: math.factorial(x), "math.factorial"),
    (lambda x: math.comb(x, 2), "math.comb"),
    (lambda x: math.isqrt(x), "math.isqrt"),
    (lambda x: float.hex(x), "float.hex"),
], ids=["factorial", "comb", "isqrt", "float.hex"])
def test_no_rule_error_names_function_and_frule(f, name):
    with pytest.raises(ad.NoRuleError) as info:
        D(f, 3.0)
    message = str(info.value)
    assert name in message
    assert "@ad.frule" in message
    assert isinstance(info.value, TaggingError)


def test_float_methods_called_on_differentiated_value_follow_the_rules():
    """``x.is_integer()`` is ``float.is_integer(x)``: its rule applies; a method with no rule raises NoRuleError."""
    assert D(lambda x: x * x.is_integer(), 3.0) == 1.0
    assert D(lambda x: x * x.is_integer(), 3.5) == 0.0
    assert D(lambda x: x.conjugate() * x.real + x.imag, 3.0) == 6.0
    with pytest.raises(ad.NoRuleError, match=r"float\.hex[\s\S]*@ad\.frule"):
        D(lambda x: len(x.hex()) * 1.0, 3.0)
    with pytest.raises(ad.NoRuleError, match=r"float\.as_integer_ratio"):
        D(lambda x: x.as_integer_ratio()[0] * 1.0, 3.0)


def test_no_rule_function_with_constant_argument_is_fine():
    assert D(lambda x: x * math.factorial(4), 2.0) == 24.0


# ============================================================== user rules


def mystery(x):
    return x  # the rule below says otherwise: proves the rule, not the body, is used


def cube(x):
    return x * x * x


def my_sin(x):
    return math.sin(x)


def step(x):
    return 1.0 if x > 0 else 0.0


def scale(a, n):
    return a * n


def two_out(x):
    return x * x, x + 1.0


def test_frule_on_python_function(restore_rules):
    calls = []

    @ad.frule(mystery)
    def _mystery(primals, tangents):
        calls.append(primals)
        (x,), (dx,) = primals, tangents
        return x, 3.0 * dx

    assert D(mystery, 2.0) == 3.0
    assert D(lambda x: mystery(x) * x, 2.0) == 3.0 * 2.0 + 2.0
    assert calls == [(2.0,), (2.0,)]
    assert D(lambda x: mystery(5.0) * x, 2.0) == 5.0  # constant argument: body called, rule not
    assert len(calls) == 2


def test_frule_second_derivative_through_user_rule(restore_rules):
    @ad.frule(cube)
    def _cube(primals, tangents):
        (x,), (dx,) = primals, tangents
        return x * x * x, 3.0 * x * x * dx

    assert D(cube, 2.0) == 12.0
    assert D(lambda x: D(cube, x), 2.0) == 12.0
    assert D(lambda x: D(lambda y: D(cube, y), x), 2.0) == 6.0


def test_frule_with_tuple_output(restore_rules):
    @ad.frule(two_out)
    def _two(primals, tangents):
        (x,), (dx,) = primals, tangents
        return (x * x, x + 1.0), (2 * x * dx, None)

    seen = []

    def f(x):
        a, b = two_out(x)
        seen.append(b)
        return a + b

    assert D(f, 3.0) == 6.0
    assert not is_tagged(seen[0]) and seen[0] == 4.0


def test_frule_on_native_function_with_sequence(restore_rules):
    calls = []

    @ad.frule(math.prod, sequences=(0,))
    def _prod(primals, tangents):
        xs, dxs = primals[0], tangents[0]
        calls.append(list(xs))
        out = math.prod(xs)
        terms = [d * math.prod(xs[:i] + xs[i + 1:]) for i, d in enumerate(dxs) if d is not None]
        return out, sum(terms[1:], terms[0])

    assert D(lambda x: math.prod([x, 2.0, x]), 3.0) == 12.0
    assert calls == [[3.0, 2.0, 3.0]]
    # second derivative: the rule's arithmetic is differentiated by the outer derivative
    assert D(lambda x: D(lambda y: math.prod([y, y, y]), x), 2.0) == 12.0


def test_defjvp_user_rules_and_nesting(restore_rules):
    ad.defjvp(my_sin, lambda g, ans, x: g * math.cos(x))
    for x in (0.3, 1.7, -2.2):
        assert D(my_sin, x) == math.cos(x)
        assert D(lambda a: D(my_sin, a), x) == -math.sin(x)
        assert D(lambda a: D(lambda b: D(my_sin, b), a), x) == -math.cos(x)


def test_defjvp_zero_and_defzero(restore_rules):
    ad.defjvp(step, ad.ZERO)
    seen = []

    def f(x):
        s = step(x)
        seen.append(s)
        return s * x

    assert D(f, 2.0) == 1.0
    assert not is_tagged(seen[0]) and seen[0] == 1.0
    assert D(step, 2.0) == 0.0
    assert D(lambda x: D(lambda y: step(y) * y * x, 1.0), 3.0) == 1.0


def test_defzero_user_function(restore_rules):
    def sgn(x):
        return (x > 0) - (x < 0)

    ad.defzero(sgn)
    assert D(lambda x: sgn(x) * x * 1.0, -2.0) == -1.0


def test_defjvp_none_means_zero_as_in_autograd_and_jax(restore_rules):
    ad.defjvp(scale, lambda g, ans, a, n: g * n, None)
    assert D(lambda n: scale(2.0, n), 3.0) == 0.0
    assert D(lambda x: scale(x, x), 3.0) == 3.0


def test_defjvp_not_differentiable_argument_raises(restore_rules):
    ad.defjvp(scale, lambda g, ans, a, n: g * n, ad.NOT_DIFFERENTIABLE)
    assert D(lambda a: scale(a, 3.0), 2.0) == 3.0
    with pytest.raises(ad.NoRuleError, match=r"scale.*argument 2"):
        D(lambda n: scale(2.0, n), 3.0)
    # a second derivative through the rule, in the differentiable argument
    assert D(lambda a: D(lambda b: scale(b * b, 3.0), a), 2.0) == 6.0


def test_defjvp_mixed_zero_and_rule(restore_rules):
    ad.defjvp(scale, lambda g, ans, a, n: g * n, ad.ZERO)
    assert D(lambda n: scale(2.0, n), 3.0) == 0.0
    assert D(lambda x: scale(x, x), 3.0) == 3.0  # only the first argument's contribution


def test_defjvp_rejects_bad_rules(restore_rules):
    with pytest.raises(TypeError):
        ad.defjvp(scale)
    with pytest.raises(TypeError):
        ad.defjvp(scale, 3.0)


# ============================================================== code shapes


def test_loops():
    def horner(x):
        y = 0.0
        for c in (1.0, -2.0, 3.0, 4.0):
            y = y * x + c
        return y  # x^3 - 2x^2 + 3x + 4

    assert D(horner, 2.0) == 3 * 4 - 4 * 2 + 3

    def while_loop(x):
        n = 0
        y = x
        while y < 100:  # branches on the primal
            y = y * x
            n += 1
        return y

    assert D(while_loop, 3.0) == 5 * 3.0 ** 4  # x^5 (3^5 = 243 >= 100)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def fib_like(x, n):
    if n < 2:
        return x
    return fib_like(x, n - 1) * x + fib_like(x, n - 2)


def test_recursion():
    assert D(lambda x: power(x, 5), 2.0) == 80.0
    # fib_like(x, 3) = (x * x + x) * x + x = x^3 + x^2 + x
    assert D(lambda x: fib_like(x, 3), 1.5) == 3 * 1.5 ** 2 + 2 * 1.5 + 1


def test_closures():
    def make_affine(a, b):
        return lambda t: a * t + b

    assert D(lambda x: make_affine(x, 1.0)(3.0), 2.0) == 3.0
    assert D(lambda x: make_affine(2.0, x)(3.0), 2.0) == 1.0

    def counter(x):
        total = 0.0

        def add(v):
            nonlocal total
            total = total + v * x

        for v in (1.0, 2.0, 3.0):
            add(v)
        return total

    assert D(counter, 5.0) == 6.0


class Poly:
    def __init__(self, coeffs):
        self.coeffs = list(coeffs)

    def __call__(self, x):
        return sum(c * x ** i for i, c in enumerate(self.coeffs))

    def scaled(self, k):
        return Poly(c * k for c in self.coeffs)


class Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vec2(self.x + other.x, self.y + other.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)

    def norm2(self):
        return self.x * self.x + self.y * self.y

    @property
    def area(self):
        return self.x * self.y

    @property
    def angle(self):
        return math.atan2(self.y, self.x)


def test_classes_with_methods():
    p = Poly([1.0, 2.0, 3.0])  # 1 + 2x + 3x^2
    assert D(p, 2.0) == 14.0
    assert D(lambda k: p.scaled(k)(2.0), 5.0) == p(2.0)
    assert D(lambda x: Poly([x, x])(3.0), 1.0) == 4.0
    # (x, 2x) + (1, 0) -> (x+1, 2x); |.|^2 = (x+1)^2 + 4x^2; d = 2(x+1) + 8x
    assert D(lambda x: (Vec2(x, 2 * x) + Vec2(1.0, 0.0)).norm2(), 1.5) == 2 * 2.5 + 8 * 1.5
    assert D(lambda x: (Vec2(1.0, 0.0) * x).norm2(), 3.0) == 6.0
    assert D(lambda x: Vec2(x, 2.0).area, 3.0) == 2.0  # a property doing arithmetic only
    assert D(lambda x: Vec2.norm2(Vec2(x, x)), 1.5) == 4 * 1.5  # method called through the class


def test_property_calling_a_math_function():
    """A property's getter runs under the derivative's context, as a call of it does: a
    function with a rule called there sees the context (it ran natively until 2026-11-28 and
    raised a clear error). Calling the getter explicitly gives the same."""
    assert D(lambda x: Vec2(1.0, x).angle, 0.0) == 1.0
    assert D(lambda x: Vec2(1.0, x).angle, 1.0, backend=ad.ReverseMode()) == 0.5
    assert D(lambda x: Vec2.angle.fget(Vec2(1.0, x)), 0.0) == 1.0
    assert D(lambda x: Vec2.angle.fget(Vec2(1.0, x)), 1.0) == 0.5


@dataclasses.dataclass
class Particle:
    pos: float
    vel: float
    mass: float = 1.0

    def step(self, dt):
        return Particle(self.pos + self.vel * dt, self.vel - self.pos * dt / self.mass, self.mass)

    def energy(self):
        return 0.5 * self.mass * self.vel ** 2 + 0.5 * self.pos ** 2


def test_dataclasses():
    def simulate(v0):
        p = Particle(1.0, v0)
        for _ in range(3):
            p = p.step(0.5)
        return p.pos

    # the step is linear in (pos, vel), so the central difference is exact up to rounding
    h = 1e-6
    fd = (simulate(2.0 + h) - simulate(2.0 - h)) / (2 * h)
    got = D(simulate, 2.0)
    assert got == pytest.approx(fd, rel=1e-8)
    assert D(lambda v: Particle(0.0, v).energy(), 3.0) == 3.0
    assert D(lambda m: Particle(2.0, 1.0, m).step(1.0).vel, 2.0) == 2.0 / 4.0
    assert D(lambda x: dataclasses.replace(Particle(x, 1.0), vel=x).energy(), 2.0) == 2.0 + 2.0


def test_list_comprehensions_and_generators():
    assert D(lambda x: sum([x ** i for i in range(4)]), 2.0) == 1 + 2 * 2 + 3 * 4
    assert D(lambda x: sum(x * i for i in range(4)), 2.0) == 6.0
    assert D(lambda x: [y * y for y in (x, 2 * x)][1], 1.5) == 8 * 1.5

    def powers(x, n):
        y = 1.0
        for _ in range(n):
            y = y * x
            yield y

    assert D(lambda x: list(powers(x, 3))[-1], 2.0) == 12.0
    assert D(lambda x: sum(powers(x, 3)), 2.0) == 1 + 4 + 12
    assert D(lambda x: {k: x * k for k in (1, 2, 3)}[3], 2.0) == 3.0
    assert D(lambda x: sum(map(lambda t: t * x, [1.0, 2.0])), 4.0) == 3.0
    assert D(lambda x: functools.reduce(lambda a, b: a * b, [x, x, 2.0]), 3.0) == 12.0
    assert D(lambda x: sorted([x * x, 3.0, -x])[-1], 2.0) == 4.0


def test_min_max_sum_of_lists():
    assert D(lambda x: sum([x, x * x, 1.0]), 3.0) == 7.0
    assert D(lambda x: max([x, x * x, 1.0]), 3.0) == 6.0
    assert D(lambda x: min([x, x * x, 1.0]), 3.0) == 0.0
    assert D(lambda x: min([x, x * x, 10.0]), 3.0) == 1.0
    assert D(lambda x: max(x * x, 2.0 * x, key=lambda v: -v), 3.0) == 2.0
    assert D(lambda x: sum([x, 2 * x], 1.0), 2.0) == 3.0
    assert D(lambda x: math.fsum([x, 2 * x, 0.5]), 2.0) == 3.0


def test_numpy_float64_buffer():
    def f(x):
        buf = np.zeros(3)
        buf[0] = x * x
        return buf[0] * 2

    val, der = ad.value_and_derivative(f, 3.0)
    assert val == 18.0 and der == 12.0
    assert type(val) is float and type(der) is float

    def views(x):
        buf = np.zeros(4)
        v = buf[1:]
        v[0] = x
        buf[2] = x * x
        a, b = buf[1], v[1]
        return a * b + buf[0]

    assert D(views, 2.0) == 3 * 4.0

    def iterate(x):
        buf = np.zeros(3)
        for i in range(3):
            buf[i] = x * (i + 1)
        total = 0.0
        for v in buf:
            total = total + v * v
        return total  # 14 x^2

    assert D(iterate, 1.5) == 28 * 1.5

    def overwrite(x):
        buf = np.ones(2)
        buf[0] = x
        buf[0] = 5.0  # an untagged write forgets the tangent
        return buf[0] * x

    assert D(overwrite, 2.0) == 5.0


def test_numpy_int_array_rejects_tagged():
    def f(x):
        buf = np.zeros(2, dtype=np.int64)
        buf[0] = x
        return x

    with pytest.raises(TypeError):
        D(f, 2.0)


def test_numpy_reduction_over_buffer_holding_a_tangent():
    def f(x):
        buf = np.zeros(2)
        buf[0] = x
        buf[1] = x * x
        return buf.sum()

    assert D(f, 2.0) == 5.0


@pytest.mark.skipif(sys.version_info < (3, 12), reason="math.nextafter has steps= since Python 3.12")
def test_nextafter_steps_keyword():
    """math.nextafter(x, y, steps=n) is still x moved by n ulps: derivative 1 in x."""
    assert math.nextafter(1.0, 5.0, steps=2) == 1.0 + 2 * math.ulp(1.0)
    val, der = ad.value_and_derivative(lambda x: math.nextafter(x, 5.0, steps=2), 1.0)
    assert val == math.nextafter(1.0, 5.0, steps=2)
    assert der == 1.0
