"""What derivatives are taken with respect to: a real number, a list or tuple of them, or a
float array of any shape, seen by backends as one array of ``shape``.

Not engine code: an enclosing derivative differentiates through it.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math
import numbers

import numpy as np

from . import outputs
from .engine import runs
from .engine.dual_array import is_array


def _real(x, who, name):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError("%s: %s must be a real number, got %s %r" % (who, name, type(x).__name__, x))
    if runs.is_tagged(x):
        return x
    return float(x)


class Input:
    """The input of a derivative: its kind (``scalar``, ``list``, ``tuple``, ``array``) and shape."""

    def __init__(self, x, who, name="x", complex_scalar=False):
        self.who = who
        if complex_scalar and type(x) in (complex, np.complex128, np.complex64):  # (a gradient's input)
            self.kind, self.value, self.shape, self.size = "scalar", complex(x), (), 1
            return
        if is_array(x):
            if x.dtype.kind not in "fc":
                raise TypeError(
                    "%s: %s has dtype %s; derivatives need a float array (pass %s.astype(float))"
                    % (who, name, x.dtype, name)
                )
            self.kind, self.value, self.shape = "array", x, x.shape
        elif isinstance(x, (list, tuple)):
            self.kind = "tuple" if isinstance(x, tuple) else "list"
            self.value = [_real(e, who, "%s[%d]" % (name, i)) for i, e in enumerate(x)]
            self.shape = (len(self.value),)
        else:
            try:
                self.value = _real(x, who, name)
            except TypeError:
                raise TypeError(
                    "%s: %s must be a real number, a list or tuple of them, or a float array; got %s"
                    % (who, name, type(x).__name__)
                ) from None
            self.kind, self.shape = "scalar", ()
        self.size = math.prod(self.shape)

    def directions(self, v, name="v"):
        """``v`` (shaped like the input) as one direction: an array of the input's shape."""
        other = Input(v, self.who, name)
        if other.shape != self.shape:
            raise ValueError(
                "%s: %s has shape %s but x has shape %s; they must match" % (self.who, name, other.shape, self.shape)
            )
        return other.array()

    def array(self):
        """The input as an array (tagged by enclosing derivatives where it is)."""
        if self.kind == "array":
            return self.value
        if self.kind == "scalar":
            return np.array(self.value)
        return np.array(self.value) if self.value else np.zeros(0)

    def basis(self, unit=1.0):
        """The unit directions, one per element, as a ``UnitBasis`` (shape ``(size,) + shape``):
        made a block at a time, never the whole ``size x size`` identity at once. ``unit=1j``:
        the imaginary ones (of a complex input)."""
        dtype = self.value.dtype if self.kind == "array" else (complex if self.complex else np.float64)
        return UnitBasis(self.size, self.shape, dtype, unit)

    @property
    def complex(self):
        """Whether the input is a complex array or number."""
        return self.value.dtype.kind == "c" if self.kind == "array" else type(self.value) is complex

    def seeded(self, ctx, seeds):
        """The input in its own form, carrying ``seeds`` for ``ctx``: one direction (shaped like
        the input) when ``seeds`` has the input's rank, else a chunk (one more axis, first)."""
        chunked = (seeds.ndim if type(seeds) is np.ndarray else np.ndim(seeds)) > len(self.shape)
        if self.kind == "array":
            return runs.seed(ctx, self.value, _same_layout(seeds, self.value, chunked))
        if self.kind == "scalar":
            return runs.seed(ctx, self.value, seeds if chunked else (complex if self.complex else float)(seeds))
        items = [
            runs.seed(ctx, e, seeds[:, i] if chunked else float(seeds[i])) for i, e in enumerate(self.value)
        ]
        return tuple(items) if self.kind == "tuple" else items

    def from_array(self, a):
        """An array of the input's shape in the input's own form (to call ``f`` with)."""
        if self.kind == "array":
            return a
        if self.kind == "scalar":
            return a[()]
        items = [a[i] for i in range(self.size)]
        return tuple(items) if self.kind == "tuple" else items

    def like(self, a):
        """An array of the input's shape returned in the input's form (a gradient, an hvp)."""
        if self.kind == "array":
            return a
        if self.kind == "scalar":
            return outputs.number(a[()])
        items = [outputs.number(a[i]) for i in range(self.size)]
        return tuple(items) if self.kind == "tuple" else items


def _same_layout(seeds, value, chunked):
    """Seeds laid out in memory as ``value`` is (each direction), so that a view NumPy makes of
    the value without copying is also a view of its tangent."""
    if value.flags.c_contiguous or value.ndim < 2:
        return np.asarray(seeds, order="C")
    if value.flags.f_contiguous:
        if not chunked:
            return np.asarray(seeds, order="F")
        return np.moveaxis(np.asfortranarray(np.moveaxis(seeds, 0, -1)), -1, 0)
    return np.array(seeds)


class UnitBasis:
    """The unit directions of an input of ``shape``, one per element, made on demand.

    ``basis[start:stop]`` is the block of those directions, an array of shape
    ``(stop - start,) + shape``; a backend that pushes ``k`` directions per run holds
    ``k x size`` numbers at a time instead of ``size x size`` (n = 40,000 would need
    12 GiB). ``np.asarray(basis)`` makes the whole identity, for backends that want it.
    """

    def __init__(self, size, shape, dtype=np.float64, unit=1.0):
        self.size = size
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)  # the input's: float32 inputs get float32 derivatives
        self.unit = unit  # (1j: the imaginary directions of a complex input)

    def __len__(self):
        return self.size

    def block(self, start, stop):
        """Directions ``start`` to ``stop``: an array of shape ``(stop - start,) + shape``.

        (Backends call this rather than slicing: a method called by name runs under the
        context that runs the derivative, ``GPUCtx`` say, where ``__getitem__`` called by the
        interpreter would run natively.)
        """
        rows = np.arange(start, min(stop, self.size))
        block = np.zeros((len(rows), self.size), dtype=self.dtype)
        block[np.arange(len(rows)), rows] = self.unit
        return block.reshape((len(rows),) + self.shape)

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(self.size)
            if step == 1:
                return self.block(start, stop)
            return np.stack([self[i] for i in range(start, stop, step)]) if stop > start else \
                np.zeros((0,) + self.shape)
        index = range(self.size)[key]  # an int (IndexError out of range, as for arrays)
        row = np.zeros(self.size, dtype=self.dtype)
        row[index] = 1.0
        return row.reshape(self.shape)

    def __iter__(self):
        for i in range(self.size):
            yield self[i]

    def __array__(self, dtype=None, copy=None):
        whole = (np.eye(self.size, dtype=self.dtype) * self.unit).reshape((self.size,) + self.shape)
        return whole if dtype is None else whole.astype(dtype)
