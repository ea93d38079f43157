"""Special functions the rules need and ``math`` lacks (plain Python, so differentiable too)."""

import math

import numpy as np

from context.tagging.values import primal


def digamma(x):
    """The digamma function psi(x) = d/dx log(gamma(x)), for real ``x`` not a pole."""
    if x <= 0 and x == math.floor(x):
        raise ValueError("digamma: pole at %r" % (x,))
    if x < 0.5:  # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
        return digamma(1 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 6:
        shift -= 1 / x
        x = x + 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132)))))
    return shift + math.log(x) - 0.5 / x - series


def sign(x):
    """-1, 0 or 1 (as an int; elementwise for arrays): the derivative convention of ``abs`` at 0 is 0."""
    if isinstance(primal(x), np.ndarray):
        return np.sign(x)
    return (x > 0) - (x < 0)


def floor(x):
    """``math.floor`` of a number, ``np.floor`` of an array."""
    return np.floor(x) if isinstance(primal(x), np.ndarray) else math.floor(x)


def log(x):
    """``math.log`` of a number, ``np.log`` of an array."""
    return np.log(x) if isinstance(primal(x), np.ndarray) else math.log(x)
