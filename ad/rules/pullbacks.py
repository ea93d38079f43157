"""Pullbacks for reverse mode: derived from elementwise forward rules, or from ``defvjp`` rules.

An elementwise forward rule is a product by a factor: ``jvp(g, ans, x, y) = g * c`` with ``c``
broadcast as the function broadcasts its arguments. Its transpose multiplies the result's
cotangent ``u`` by the same factor, so the pullback of argument ``x`` is the forward rule
applied to ``u`` itself, summed over the axes along which ``x`` was broadcast (``unbroadcast``).
Real values only: reverse mode refuses complex ones.

Rule code: the backward pass calls these under the context that encloses the derivative,
so that a derivative of a gradient (forward over reverse) differentiates them.
"""

import numpy as np

from context.tagging.values import primal



def unbroadcast(u, x):
    """Cotangent ``u`` of a broadcast result, summed to the shape of argument ``x``."""
    if type(x) is float and type(u) is float:  # Python numbers: nothing to sum
        return u
    shape = np.shape(primal(x))
    if np.shape(primal(u)) == shape:
        return u
    if not shape:
        return np.sum(u) if isinstance(primal(x), np.ndarray) else _number(np.sum(u))
    extra = np.ndim(primal(u)) - len(shape)
    if extra:
        u = np.sum(u, axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(primal(u))[i] != 1)
    if axes:
        u = np.sum(u, axis=axes, keepdims=True)
    return u


def _number(v):
    """A 0-d result as a Python float (a plain number's cotangent), tagged ones left as they are."""
    p = primal(v)
    return float(v) if p is v else v


def _detached(values, root):
    out = list(values)
    for i, v in enumerate(out):
        if type(v) is np.ndarray:
            r = v
            while isinstance(r.base, np.ndarray):
                r = r.base
            if r is root:
                out[i] = v.copy()
    return out


class _FromJvp:
    """The pullback of argument ``i`` of an elementwise function, from its forward rule."""

    __slots__ = ("jvp", "ans", "primals", "kwargs", "i", "mask")

    def __init__(self, jvp, ans, primals, kwargs, i):
        self.jvp, self.ans, self.primals, self.kwargs, self.i = jvp, ans, primals, kwargs, i
        self.mask = None  # where= of a ufunc: the elements computed (the others send nothing back)

    def detach(self, root):
        """Keep copies of the saved arrays in memory block ``root`` (about to be written)."""
        self.primals, self.ans = _detached(self.primals, root), _detached([self.ans], root)[0]

    def __call__(self, u):
        primals = self.primals
        if self.mask is not None:  # where= of a ufunc: the elements left out were computed too; their terms are dropped
            with np.errstate(all="ignore"):
                term = np.where(self.mask, self.jvp(u, self.ans, *primals, **self.kwargs), 0.0)
            return unbroadcast(term, primals[self.i])
        try:
            term = self.jvp(u, self.ans, *primals, **self.kwargs)
        except (ZeroDivisionError, ValueError, OverflowError):  # Python numbers at a singular point
            with np.errstate(all="ignore"):
                term = float(self.jvp(np.float64(u), np.float64(self.ans), *map(_ieee, primals), **self.kwargs))
        return unbroadcast(term, primals[self.i])


def _ieee(v):
    return np.float64(v) if type(v) in (float, int) else v


def from_jvp(jvp):
    """The maker of pullbacks for one argument of an elementwise ``defjvp`` rule."""

    def make(ans, primals, kwargs, i):
        return _FromJvp(jvp, ans, primals, kwargs, i)

    return make


class _FromVjp:
    """The pullback of argument ``i`` from a ``defvjp`` rule ``vjp(u, ans, *args, **kwargs)``."""

    __slots__ = ("vjp", "ans", "primals", "kwargs")

    def __init__(self, vjp, ans, primals, kwargs):
        self.vjp, self.ans, self.primals, self.kwargs = vjp, ans, primals, kwargs

    def detach(self, root):
        """Keep copies of the saved arrays in memory block ``root`` (about to be written)."""
        self.primals, self.ans = _detached(self.primals, root), _detached([self.ans], root)[0]

    def __call__(self, u):
        return self.vjp(u, self.ans, *self.primals, **self.kwargs)


def from_vjp(vjp):
    """The maker of pullbacks for one argument of a ``defvjp`` rule."""

    def make(ans, primals, kwargs, i):
        return _FromVjp(vjp, ans, primals, kwargs)

    return make

