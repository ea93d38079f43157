"""Differential tests of AD on random programs that write into arrays (``ad_write_programs``):
forward mode's gradient (directions in chunks), its jvp along each input, reverse mode's gradient,
and the Hessians forward over forward and forward over reverse, each against central differences
of the function or of its gradient. Such programs found wrong numbers (a scalar read's tangent a
view of the buffer, a copy of a tangent dropping its second-order part, a constant written over
second-order shadow memory) that the hand-written cases did not."""

import numpy as np
import pytest

import ad

from .ad_write_programs import program

R = ad.ReverseMode()
X = np.array([0.3, -0.7, 1.1, 0.4])
SEEDS = range(120)


def _function(seed):
    namespace = {"np": np}
    exec(compile(program(seed), "<program %d>" % seed, "exec"), namespace)
    return namespace["f"]


def _central(g, x, h):
    return np.array([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_that_write(seed):
    f = _function(seed)
    expected = _central(f, X, 1e-6)
    scale = max(1.0, float(np.max(np.abs(expected))))
    got = {"forward": ad.gradient(f, X), "reverse": ad.gradient(f, X, backend=R),
           "jvp": np.array([ad.jvp(f, X, e)[1] for e in np.eye(4)])}
    for mode, g in got.items():
        assert np.allclose(g, expected, rtol=1e-5, atol=1e-5 * scale), (mode, program(seed), g, expected)
    H = _central(lambda y: ad.gradient(f, y), X, 1e-5)
    scale = max(1.0, float(np.max(np.abs(H))))
    for mode, backend in (("forward over forward", None), ("forward over reverse", R)):
        got = ad.hessian(f, X, backend=backend)
        assert np.allclose(got, H, rtol=1e-4, atol=1e-4 * scale), (mode, program(seed), got, H)


NESTINGS = {"reverse over reverse": (R, R), "reverse over forward": (R, ad.ForwardMode()),
            "forward over reverse": (ad.ForwardMode(), R), "forward over forward": (ad.ForwardMode(), ad.ForwardMode())}


@pytest.mark.parametrize("seed", range(0, 120, 2))
def test_random_programs_that_write_nested_every_way(seed):
    """The Jacobian of the gradient, each mode over each: the Hessian."""
    f = _function(seed)
    H = ad.hessian(f, X)
    scale = max(1.0, float(np.max(np.abs(H))))
    for name, (outer, inner) in NESTINGS.items():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
        assert np.allclose(got, H, rtol=1e-8, atol=1e-10 * scale), (name, program(seed), got, H)

