"""Cotangents that are zero but at a few elements: what a read of a few elements sends back.

A loop reading one element at a time (``x[i]`` of an input, ``buf[i]`` of a buffer written in the
run) would otherwise send back, per read, an array the size of the whole input or buffer:
quadratic on the way back. With no enclosing derivative, the backward pass
(``engine/backward.py``) takes these instead and adds them, in place, into an array that it
alone holds (one per node), as autograd's sparse ``untake`` objects and JAX's ``scatter-add``
do. Under an enclosing derivative the rules run as written (dense arrays), so that it sees them.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.values import primal


def basic(key) -> bool:
    """Whether ``key`` indexes basically (integers, slices, ``...``, ``None``): one element or a view,
    each element once."""
    for k in key if type(key) is tuple else (key,):
        kind = type(k)
        if not (kind is int or kind is slice or k is Ellipsis or k is None
                or (isinstance(k, np.integer) and kind is not np.bool_)):
            return False
    return True


def getitem_vjp(u, ans, x, key):
    """``x[key]``'s pullback, dense (the backward pass with no enclosing derivative sends an
    ``IndexScatter`` instead)."""
    z = np.zeros(np.shape(primal(x)), dtype=complex if np.iscomplexobj(primal(u)) else float)
    np.add.at(z, key, u)  # repeated indices (fancy keys) accumulate
    return z


class MemoryScatter:
    """What a ``Read`` of a buffer's version sends back: ``values`` at the memory positions it read."""

    __slots__ = ("read", "values")

    def __init__(self, read, values):
        self.read, self.values = read, values

    @property
    def shape(self):
        return (self.read.size,)

    def add_into(self, g):
        """Add into ``g``, a flat array over the buffer's memory (changed in place)."""
        read = self.read
        if read.start is not None:
            g[read.start:read.start + self.values.size] += self.values
        elif read.overlapping:  # a window view sees some memory twice
            np.add.at(g, read.positions.reshape(-1), self.values)
        else:
            g[read.positions.reshape(-1)] += self.values

    def dense(self):
        g = np.zeros(self.read.size, dtype=np.result_type(self.values, float))
        self.add_into(g)
        return g


class IndexScatter:
    """What ``x[key]`` sends back to ``x`` (of shape ``shape``): ``values`` at ``key``."""

    __slots__ = ("key", "values", "shape")

    def __init__(self, key, values, shape):
        self.key, self.values, self.shape = key, values, shape

    def add_into(self, g):
        if basic(self.key):
            g[self.key] += self.values
        else:  # repeated indices (fancy keys) accumulate
            np.add.at(g, self.key, self.values)

    def dense(self):
        g = np.zeros(self.shape, dtype=np.result_type(self.values, float))
        self.add_into(g)
        return g


SPARSE = frozenset({MemoryScatter, IndexScatter})


def add(previous, g, previous_mine, g_mine):
    """``previous + g``, one of them sparse: added into an array the pass alone holds when one is
    (``previous_mine``, ``g_mine``: a writable float array of the full shape), else into a new one."""
    if type(g) in SPARSE:
        if type(previous) in SPARSE:
            total = previous.dense()
        elif previous_mine and _whole(previous, g.shape):
            total = previous
        else:
            return _plus(g.dense(), previous)
        g.add_into(total)
        return total
    if g_mine and _whole(g, previous.shape):
        previous.add_into(g)
        return g
    return _plus(previous.dense(), g)


def _plus(total, other):
    """``total + other``, in place into ``total`` (a new array) when the result's type allows."""
    if np.result_type(total, other) == total.dtype and np.shape(other) in ((), total.shape):
        total += other
        return total
    return total + other


def _whole(a, shape):
    return type(a) is np.ndarray and a.shape == shape and a.dtype == np.float64 and a.flags.writeable
