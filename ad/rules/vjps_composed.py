"""Reverse-mode rules written as compositions: the function is computed, under reverse mode, by an
equivalent composition of functions that have reverse rules, so its pullback is theirs.

``np.linalg.tensorinv`` and ``tensorsolve`` are ``inv`` and ``solve`` of the arrays reshaped to
matrices; ``np.divmod`` is ``(floor_divide, remainder)``; ``np.modf`` is ``(x - trunc(x),
trunc(x))``; ``np.frexp`` is ``(x * 2.0 ** -e, e)`` with the exponents ``e`` constants (as in
forward mode, the exponents and the quotients have zero derivative); ``cmath.polar`` is ``(abs(z),
phase(z))`` and ``cmath.rect`` is ``r * (cos(phi) + 1j sin(phi))``. The values are NumPy's (and
``cmath``'s) own to rounding: the compositions compute the same numbers by another route.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import cmath
import math

import numpy as np

from context.base import Context
from context.tagging import native_primitive
from context.tagging.values import primal

from ..engine.reverse import ReverseCtx


def tensorinv(a, ind=2):
    shape = np.shape(a)
    rows = int(np.prod(shape[:ind]))
    return np.reshape(np.linalg.inv(np.reshape(a, (rows, -1))), shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    nd = np.ndim(a)
    if axes is not None:
        moved = [ax % nd for ax in axes]
        a = np.transpose(a, [i for i in range(nd) if i not in moved] + moved)
    shape_b = np.shape(b)
    rest = np.shape(a)[np.ndim(b):]
    n = int(np.prod(shape_b))
    return np.reshape(np.linalg.solve(np.reshape(a, (n, -1)), np.ravel(b)), rest)


def divmod_(x, y):
    return np.floor_divide(x, y), np.remainder(x, y)


def modf(x):
    whole = np.trunc(x)
    return x - whole, whole


def frexp(x, e):
    """The mantissa ``x * 2 ** -e`` for NumPy's own exponents ``e`` (constants)."""
    return x * np.exp2(-np.asarray(e, dtype=float)), e


def polar(z):
    return abs(z), cmath.phase(z)


def rect(r, phi):
    return r * (math.cos(phi) + 1j * math.sin(phi))


def _exponents(args):
    """``np.frexp``'s exponents, computed natively (a call under the context would come back here)."""
    return args + (np.frexp(primal(args[0]))[1],)


def _by_composition(fn, composition, prepare=None):
    @ReverseCtx.primitive(fn)
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        if prepare is not None:
            args = prepare(args)
        return Context.overdub(ctx, composition, *args, **kwargs)

    primitive.__qualname__ = primitive.__name__ = "reverse rule of %s (a composition)" % fn.__name__
    return primitive


for _fn, _composition in ((np.linalg.tensorinv, tensorinv), (np.linalg.tensorsolve, tensorsolve),
                          (np.divmod, divmod_), (np.modf, modf), (cmath.polar, polar), (cmath.rect, rect)):
    _by_composition(_fn, _composition)
_by_composition(np.frexp, frexp, _exponents)
