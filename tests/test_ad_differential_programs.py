"""Differential tests of AD on random programs (``ad_programs``): array expressions, complex
intermediates and scalar Python with nested derivatives. Forward and reverse mode's gradients,
and (for a third of the array and scalar programs) the Hessians forward over forward and forward
over reverse, against central differences. Such programs found a nan spread by a rule to the
directions that do not move its inputs, and the missing rules of ``ufunc.reduce``."""

import math
import warnings

import numpy as np
import pytest

import ad

from .ad_programs import array_program, complex_program, scalar_program

R = ad.ReverseMode()


def _compiled(source):
    namespace = {"np": np, "math": math, "ad": ad}
    exec(compile(source, "<program>", "exec"), namespace)
    return namespace["f"]


def _central(g, x, h):
    return np.array([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def _close(got, f, x, expected, scale):
    """``got`` agrees with central differences (near a kink of max, sort or clip, with a smaller step too)."""
    if np.allclose(got, expected, rtol=1e-5, atol=1e-6 * scale):
        return True
    return np.allclose(got, _central(f, x, 1e-8), rtol=1e-3, atol=1e-4 * scale)


def _defined(make, seed, wrap, x):
    """The first of the programs ``make(seed)``, ``make(seed + 10_000)``, ... that is defined and
    finite around ``x`` (a random program may leave its domain: ``math.log`` of a negative number)."""
    for k in range(20):
        source = make(seed + 10_000 * k)
        f = wrap(_compiled(source))
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                expected = _central(f, x, 1e-6)
        except (ArithmeticError, ValueError):
            continue
        if np.all(np.isfinite(expected)):
            return source, f, expected
    raise AssertionError("no program defined around x for seed %d" % seed)


def _check(make, seed, x, hessians, wrap=lambda f: f):
    """Gradients in both modes (and Hessians) of the program for ``seed`` at ``x`` against central
    differences; a point of two coordinates is passed as a list of Python floats."""
    source, f, expected = _defined(make, seed, wrap, x)
    scale = max(1.0, float(np.max(np.abs(expected))))
    point = [float(v) for v in x] if len(x) == 2 else x  # (scalar programs: a list of Python floats)
    for backend in (ad.ForwardMode(), R):
        got = np.asarray(ad.gradient(f, point, backend=backend))
        assert _close(got, f, x, expected, scale), (backend, source, got, expected)
    if hessians:
        H = _central(lambda y: np.asarray(ad.gradient(f, [float(v) for v in y] if len(y) == 2 else y)), x, 1e-5)
        scale = max(1.0, float(np.max(np.abs(H))))
        for backend in (None, R):
            got = np.asarray(ad.hessian(f, point, backend=backend))
            assert np.allclose(got, H, rtol=1e-3, atol=1e-4 * scale), (backend, source, got, H)


X12 = np.random.default_rng(0).uniform(-1, 1, 12)


@pytest.mark.parametrize("seed", range(90))
def test_array_programs(seed):
    _check(array_program, seed, X12, hessians=seed % 3 == 0)


@pytest.mark.parametrize("seed", range(60))
def test_complex_programs(seed):
    _check(complex_program, seed, np.array([0.3, -0.6, 0.9, 0.2]), hessians=False)


@pytest.mark.parametrize("seed", range(60))
def test_scalar_programs(seed):
    """Two Python floats in (a list of them when differentiated): ``f(x, y)``."""
    _check(scalar_program, seed, np.array([0.37, -0.61]), hessians=seed % 3 == 0,
           wrap=lambda f: (lambda v: f(v[0], v[1])))


NESTINGS = {"reverse over reverse": (R, R), "reverse over forward": (R, ad.ForwardMode()),
            "forward over reverse": (ad.ForwardMode(), R), "forward over forward": (ad.ForwardMode(), ad.ForwardMode())}


@pytest.mark.parametrize("seed", range(0, 90, 3))
def test_array_programs_nested_every_way(seed):
    """The Jacobian of the gradient, each mode over each: the same Hessian (no confusion of layers)."""
    source, f, _ = _defined(array_program, seed, lambda f: f, X12)
    H = ad.hessian(f, X12)
    scale = max(1.0, float(np.max(np.abs(H))))
    for name, (outer, inner) in NESTINGS.items():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X12, backend=outer)
        assert np.allclose(got, H, rtol=1e-8, atol=1e-10 * scale), (name, source)
