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

from ..engine.broadcast_sums import number as _number, unbroadcast  # noqa: F401  (re-exported)



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
        return self.applied(_direct, u)

    def applied(self, call, u):
        """``self(u)``, with the forward rule and what computes on its term called through ``call``
        (the backward pass passes the running context's entry for calls: see ``engine/backward.py``)."""
        primals = self.primals
        if self.mask is not None:  # where= of a ufunc: the elements left out were computed too; their terms are dropped
            with np.errstate(all="ignore"):
                term = call(self.jvp, (u, self.ans, *primals), self.kwargs)
                term = call(np.where, (self.mask, term, 0.0), _NO_KWARGS)
            return unbroadcast(term, primals[self.i])
        try:
            term = call(self.jvp, (u, self.ans, *primals), self.kwargs)
        except (ZeroDivisionError, ValueError, OverflowError):  # Python numbers at a singular point
            term = call(_singular, (self.jvp, u, self.ans, primals, self.kwargs), _NO_KWARGS)
        return unbroadcast(term, primals[self.i])


_NO_KWARGS: dict = {}


def _direct(f, args, kwargs):
    return f(*args, **kwargs)


def _singular(jvp, u, ans, primals, kwargs):
    """A forward rule's term for numbers whose Python arithmetic raised: the rule in IEEE arithmetic."""
    with np.errstate(all="ignore"):
        return float(jvp(np.float64(u), np.float64(ans), *map(_ieee, primals), **kwargs))


def run_pull(call, pull, u):
    """``pull(u)`` for the backward pass, which runs natively (``engine/backward.py``): a pullback
    of these rule tables applies its rule through ``call`` (``applied``); any other is called
    through ``call`` whole."""
    applied = getattr(pull, "applied", None)
    if applied is not None:
        return applied(call, u)
    return call(pull, (u,), _NO_KWARGS)


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

    def applied(self, call, u):
        """``self(u)``, the rule called through ``call`` (see ``_FromJvp.applied``)."""
        return call(self.vjp, (u, self.ans, *self.primals), self.kwargs)


def from_vjp(vjp):
    """The maker of pullbacks for one argument of a ``defvjp`` rule."""

    def make(ans, primals, kwargs, i):
        return _FromVjp(vjp, ans, primals, kwargs)

    return make

