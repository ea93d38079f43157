"""Pullbacks of reverse mode's writes into arrays and reads from them (``engine/reverse_buffers``).

A buffer written with values being differentiated has a *version* node whose cotangent is
a flat array over the buffer's memory (element ``k`` is the ``k``-th item of memory). The
pullbacks move cotangents between such flat arrays and the values written or read, by the
memory positions of the elements involved.

Rule code: the backward pass runs them under the context that encloses the derivative.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from .pullbacks import unbroadcast
from .sparse_cotangents import MemoryScatter


class Read:
    """A view read from a version: its cotangent goes to the positions it occupies (with ``mask``,
    only where the mask holds: the other elements' derivative is the view's own, see ``Unwritten``)."""

    __slots__ = ("positions", "size", "start", "overlapping", "mask")

    def __init__(self, positions, size, start, overlapping, mask=None):
        # start: the first position when the view is one contiguous run of memory in order, else None
        self.positions, self.size, self.start, self.overlapping = positions, size, start, overlapping
        self.mask = mask

    def scatter(self, u):
        """``self(u)`` as a ``MemoryScatter`` (the backward pass adds it into the version's cotangent in place)."""
        if self.mask is not None:
            u = np.where(self.mask, u, 0.0)
        return MemoryScatter(self, np.reshape(u, (-1,)))

    def __call__(self, u):
        if self.mask is not None:
            u = np.where(self.mask, u, 0.0)
        g = np.zeros(self.size, dtype=complex if np.iscomplexobj(u) else float)
        if self.start is not None:
            g[self.start:self.start + self.positions.size] = np.reshape(u, (-1,))
        elif self.overlapping:  # a window view sees some memory twice: its cotangents add up
            np.add.at(g, self.positions, u)
        else:
            g[self.positions] = u
        return g


class Overwritten:
    """The version before a write: the positions written get nothing from later on."""

    __slots__ = ("positions",)

    def __init__(self, positions):
        self.positions = positions

    def __call__(self, u):
        g = np.copy(u)
        g[self.positions] = 0.0
        return g

    def in_place(self, u):
        """``self(u)`` written into ``u`` (an array the backward pass alone holds, read by nothing after)."""
        u[self.positions] = 0.0
        return u


class Written:
    """The value written: the cotangent at the positions it went to, summed where it was broadcast."""

    __slots__ = ("positions", "value")

    def __init__(self, positions, value):
        self.positions, self.value = positions, value

    def __call__(self, u):
        return unbroadcast(u[self.positions], self.value)


class Unwritten:
    """An array computed in the run, read again after writes into part of its memory: the elements
    never written keep the derivative the array had (``mask`` marks those written)."""

    __slots__ = ("mask",)

    def __init__(self, mask):
        self.mask = mask

    def __call__(self, u):
        return np.where(self.mask, 0.0, u)
