"""``DualArray``: a NumPy array being differentiated (primal ``value``, tangent ``meta``).

The tangent has the array's shape, or a chunk axis of ``k`` directions before it. Its
operators, methods and attributes are those of an ndarray, each computed by the rule of
the matching NumPy function (``a * b`` is ``np.multiply``, ``a.sum()`` is ``np.sum``).
Writes (``a[i] = v``, ``a += v``) change the value and the tangent in place, so views
of it see them. Native code cannot read it: ``np.asarray`` outside a derivative raises
rather than return bare numbers.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import dispatch
from context.tagging.operators import MetadataLossError
from context.tagging.tags import Tag
from context.tagging.values import primal

from .dual import Dual

declare_engine_code(__file__)

ndarray = np.ndarray
_new = object.__new__


def is_array(x):
    """Whether ``x``'s primal is an array: NumPy's, or another library's that NumPy's functions
    dispatch to (``__array_function__``: CuPy's). NumPy scalars are not."""
    x = primal(x)
    return isinstance(x, ndarray) or hasattr(type(x), "__array_function__")


def make_dual(value: Any, tag: Tag, tangent: Any) -> Dual:
    """The tagged value for primal ``value``: a ``DualArray`` for arrays, else a ``Dual``."""
    d = _new(DualArray if type(value) is ndarray or (type(value) is not float and is_array(value)) else Dual)
    if not tag.used:  # (Tagged.__init__, without its frame: every operation's result is made here)
        tag.mark_used()
    d.value = value
    d.tag = tag
    d.meta = tangent
    return d


def _write(a, key, value):
    """``a[key] = value`` with its tangent: the rule of ``operator.setitem`` does the write."""
    dispatch(operator.setitem, (a, key, value))


def _binary(fn):
    def method(a, b):
        return dispatch(fn, (a, b))

    def reflected(a, b):
        return dispatch(fn, (b, a))

    def inplace(a, b):
        _write(a, Ellipsis, dispatch(fn, (a, b)))
        return a

    method.__name__ = reflected.__name__ = inplace.__name__ = fn.__name__
    return method, reflected, inplace


def _unary(fn):
    def method(a):
        return dispatch(fn, (a,))

    method.__name__ = fn.__name__
    return method


def _method(fn):
    def method(self: DualArray, *args: Any, **kwargs: Any) -> Any:
        return dispatch(fn, (self,) + args, kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = "``np.%s`` of this array, differentiated." % fn.__name__
    return method


class DualArray(Dual):
    """An ndarray ``value`` with tangent ``meta`` (same shape, or a chunk axis first)."""

    __slots__ = ()

    shape = property(lambda self: primal(self).shape)
    ndim = property(lambda self: primal(self).ndim)
    size = property(lambda self: primal(self).size)
    dtype = property(lambda self: primal(self).dtype)
    flags = property(lambda self: primal(self).flags)
    strides = property(lambda self: primal(self).strides)
    T = property(lambda self: dispatch(np.transpose, (self,)))
    real = property(lambda self: dispatch(np.real, (self,)))
    imag = property(lambda self: dispatch(np.imag, (self,)))

    def __len__(self):
        return len(primal(self))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, key):
        return dispatch(operator.getitem, (self, key))

    def __setitem__(self, key, value):
        _write(self, key, value)

    def __array__(self, dtype=None, copy=None):
        if not self.tag.finished:
            who = _python_caller(_getframe(1))
            raise MetadataLossError(
                "native code called by %s asked for the numbers of an array being differentiated: its "
                "tangent would be dropped; that function needs a derivative rule (@ad.frule(...))" % who
            )
        return np.asarray(self.value, dtype=dtype)

    @property
    def flat(self) -> Any:
        """The array raveled, a view (what ``ndarray.flat`` reads and writes, iterated and indexed the same way)."""
        if not (primal(self).flags.c_contiguous or self.ndim <= 1):
            raise TypeError(
                ".flat of a non-contiguous array being differentiated cannot be written through; "
                "read it with np.ravel(x), write it with an index"
            )
        return self.reshape(-1)

    @property
    def base(self) -> None:
        """None: a ``DualArray`` owns its data (as a fresh ``ndarray`` does; code such as SciPy's
        checks ``a.base`` before deciding whether to copy)."""
        return None

    def __repr__(self):
        return "DualArray(%r, tag=#%d, tangent=%r)" % (self.value, self.tag.serial, self.meta)

    def __hash__(self):
        raise TypeError("unhashable type: 'DualArray'")

    def __bool__(self):
        return bool(primal(self))

    def __matmul__(a, b):
        return dispatch(np.matmul, (a, b))

    def __rmatmul__(a, b):
        return dispatch(np.matmul, (b, a))

    def __imatmul__(a, b):
        _write(a, Ellipsis, dispatch(np.matmul, (a, b)))
        return a

    def __pow__(a, b, mod=None):
        if mod is not None:
            return dispatch(pow, (a, b, mod))
        return dispatch(np.power, (a, b))

    def __rpow__(a, b):
        return dispatch(np.power, (b, a))

    def __ipow__(a, b):
        _write(a, Ellipsis, dispatch(np.power, (a, b)))
        return a

    def __divmod__(a, b):
        return dispatch(np.divmod, (a, b))

    def __rdivmod__(a, b):
        return dispatch(np.divmod, (b, a))

    __neg__ = _unary(np.negative)
    __pos__ = _unary(np.positive)
    __abs__ = _unary(np.absolute)
    __lt__ = _binary(np.less)[0]
    __le__ = _binary(np.less_equal)[0]
    __gt__ = _binary(np.greater)[0]
    __ge__ = _binary(np.greater_equal)[0]
    __eq__ = _binary(np.equal)[0]
    __ne__ = _binary(np.not_equal)[0]

    def item(self, *args: Any) -> Any:
        """The element at ``args`` (or the only one) as a scalar being differentiated."""
        if not args:
            if self.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            args = (0,) * self.ndim
        elif len(args) == 1 and not isinstance(args[0], tuple):
            args = np.unravel_index(args[0], self.shape)
        return self[tuple(args) if len(args) != 1 else args[0]]

    def tolist(self) -> Any:
        """Nested lists of the elements, each a scalar being differentiated."""
        if self.ndim == 0:
            return self.item()
        return [row.tolist() if self.ndim > 1 else row for row in self]

    def flatten(self, order: str = "C") -> Any:
        return dispatch(np.ravel, (self, order)).copy()

    def fill(self, value: Any) -> None:
        _write(self, Ellipsis, value)

    def sort(self, axis: int = -1, kind: str | None = None, order: Any = None) -> None:
        _write(self, Ellipsis, dispatch(np.sort, (self, axis, kind, order)))

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return dispatch(np.transpose, (self, axes or None))

    def reshape(self, *shape: Any, **kwargs: Any) -> Any:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return dispatch(np.reshape, (self, tuple(shape)), kwargs)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        return dispatch(ndarray.astype, (self, dtype) + args, kwargs)

    def copy(self, order: str = "C") -> Any:
        return dispatch(np.copy, (self, order))

    def put(self, ind: Any, v: Any, mode: str = "raise") -> None:
        dispatch(np.put, (self, ind, v, mode))

    def __copy__(self) -> Any:
        return dispatch(np.copy, (self,))

    def __deepcopy__(self, memo: Any) -> Any:
        return dispatch(np.copy, (self,))

    def conj(self) -> Any:
        return dispatch(np.conjugate, (self,))

    conjugate = conj


# The NumPy function each binary operator of ``DualArray`` computes, by the operator's dunder name
# (``a * b`` is ``np.multiply``; ``@`` and ``**`` have the methods above). The AD contexts' operator
# handlers call it directly for an operand of this type on the left (``handlers.build``).
BINARY_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
                 "floordiv": np.floor_divide, "mod": np.remainder, "and": np.bitwise_and, "or": np.bitwise_or,
                 "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift,
                 "matmul": np.matmul, "pow": np.power}

for _name, _fn in BINARY_UFUNCS.items():
    if _name in ("matmul", "pow"):
        continue
    _m, _r, _i = _binary(_fn)
    setattr(DualArray, "__%s__" % _name, _m)
    setattr(DualArray, "__r%s__" % _name, _r)
    setattr(DualArray, "__i%s__" % _name, _i)

for _fn in (np.sum, np.mean, np.prod, np.max, np.min, np.cumsum, np.cumprod, np.var, np.std, np.dot,
            np.ravel, np.squeeze, np.clip, np.argmax, np.argmin, np.argsort, np.swapaxes, np.diagonal,
            np.trace, np.nonzero, np.all, np.any, np.round, np.repeat, np.take, np.searchsorted,
            np.ptp, np.cumsum):
    setattr(DualArray, _fn.__name__, _method(_fn))
DualArray.round = _method(np.round)


def _python_caller(frame):
    """``module.qualname`` of the Python function whose native call asked for an array's numbers."""
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return "native code"
    module = frame.f_globals.get("__name__", "?")
    return "%s.%s" % (module, frame.f_code.co_qualname)
