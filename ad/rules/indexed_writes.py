"""Rules of the NumPy functions that write values at computed positions, in both modes:
``np.put`` (and ``ndarray.put``), ``np.put_along_axis``, ``np.fill_diagonal``.

Each is the subscript assignment ``a[key] = values`` it performs, with ``key`` computed from the
constant indices and ``values`` laid out (cycled or broadcast) as NumPy lays them: forward mode
writes it with its tangent (``mutation.assign``), reverse mode records it
(``reverse_writes.assign``), so the elements written take the values' derivatives and keep
none of what they held. Indices carrying a derivative raise ``NoRuleError``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging import Tagged, dispatch, enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine import buffers, mutation, reverse_buffers, reverse_writes
from ..engine.forward import ForwardCtx, NoRuleError
from ..engine.reverse import ReverseCtx
from .indexing import _cycled


def _put_key(shape, ind, mode):
    """The subscript of ``np.put(a, ind, v, mode)`` for ``a`` of ``shape``: flat positions, unraveled."""
    size = int(np.prod(shape))
    flat = np.ravel(np.asarray(ind, dtype=np.intp))
    if mode == "wrap":
        flat = flat % size
    elif mode == "clip":
        flat = np.clip(flat, 0, size - 1)
    elif mode == "raise":
        if flat.size and (flat.max() >= size or flat.min() < -size):
            raise IndexError("index %d is out of bounds for axis 0 with size %d"
                             % (int(flat[np.argmax((flat >= size) | (flat < -size))]), size))
        flat = flat % size
    else:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'")
    return flat, np.unravel_index(flat, shape)


def put(ctx, a, ind, v, mode="raise"):
    flat, key = _put_key(np.shape(primal(a)), ind, mode)
    return key, (_cycled(ctx, v, flat.size) if flat.size else None)


def put_along_axis(ctx, arr, indices, values, axis):
    shape = np.shape(primal(arr))
    if axis is None:  # along the flattened array: the values broadcast against the indices (1-d)
        flat = np.ravel(np.asarray(indices, dtype=np.intp)) % int(np.prod(shape))
        laid = dispatch(np.broadcast_to, (values, flat.shape)) if isinstance(values, Tagged) \
            else np.broadcast_to(values, flat.shape)
        return np.unravel_index(flat, shape), laid
    nd = len(shape)
    axis = axis % nd
    indices = np.asarray(indices, dtype=np.intp)
    key = tuple(indices if d == axis else np.arange(n).reshape((-1,) + (1,) * (nd - d - 1)) for d, n in enumerate(shape))
    shape_written = np.broadcast_shapes(*(np.shape(k) for k in key))
    return key, dispatch(np.broadcast_to, (values, shape_written)) if isinstance(values, Tagged) \
        else np.broadcast_to(values, shape_written)


def fill_diagonal(ctx, a, val, wrap=False):
    shape = np.shape(primal(a))
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) == 2:
        step = shape[1] + 1
        end = None if wrap else shape[1] * shape[1]
    else:
        if len(set(shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(shape[:-1]).sum())
        end = None
    flat = np.arange(int(np.prod(shape)))[:end:step]
    return np.unravel_index(flat, shape), (_cycled(ctx, val, flat.size) if flat.size else None)


# function: (where it writes what, its parameters, the position of its indices or None)
WRITES = {np.put: (put, ("a", "ind", "v", "mode"), 1), np.ndarray.put: (put, ("a", "ind", "v", "mode"), 1),
          np.put_along_axis: (put_along_axis, ("arr", "indices", "values", "axis"), 1),
          np.fill_diagonal: (fill_diagonal, ("a", "val", "wrap"), None)}


def bound_arguments(fn, names, args, kwargs):
    """The arguments of ``fn(*args, **kwargs)`` by ``names``, in order (those given)."""
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            raise TypeError("%s got an unexpected or repeated argument '%s'" % (qualified_name(fn), key))
        bound[key] = value
    return [bound[n] for n in names if n in bound]


def _rule(fn, where, names, indices, holds, assign):
    def primitive(ctx, *args, **kwargs):
        args = bound_arguments(fn, names, args, kwargs)
        target, rest = args[0], args[1:]
        if not (holds(ctx, target) or any(holds(ctx, v) for v in rest)):  # constants: a plain write
            reverse_writes.before_write(primal(target))  # the tape's saved arrays keep their values
            return enclosing_call(ctx._tag, fn, tuple(args), {})
        if indices is not None and holds(ctx, args[indices]):
            raise NoRuleError("%s: the indices carry a derivative; they must be constants" % fn.__name__)
        key, values = where(ctx, *args)
        if values is not None:
            assign(target, key, values)
        return None

    primitive.__qualname__ = primitive.__name__ = "rule of %s (a write)" % fn.__name__
    primitive.writes_arguments = True  # (reverse mode: the target's versions are this rule's to read)
    return native_primitive(primitive)


def _forward_holds(ctx, v):
    return isinstance(v, Tagged) or (type(v) is np.ndarray and buffers.has_shadow(v))


def _reverse_holds(ctx, v):
    return (isinstance(v, Tagged) and v.tag is ctx._tag) or (type(v) is np.ndarray and reverse_buffers.has_version(v))


for _fn, (_where, _names, _indices) in WRITES.items():
    ForwardCtx.primitive(_fn)(_rule(_fn, _where, _names, _indices, _forward_holds, mutation.assign))
    ReverseCtx.primitive(_fn)(_rule(_fn, _where, _names, _indices, _reverse_holds, reverse_writes.assign))
