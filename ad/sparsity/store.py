"""Where arrays keep their dependencies: beside their memory, per buffer and run.

Arrays under sparsity detection stay plain ndarrays (code that checks ``type(a) is
np.ndarray`` sees what it sees natively). Their dependencies live in a store keyed by
the buffer that owns their memory: one array of slots ``(K, root.size)`` per buffer and
run (tag). Any view of the buffer finds its own dependencies by its address and
strides, so slices, reshapes and transposes need no bookkeeping, and a write through
one view is seen by every other. A write of more slots than the buffer holds grows
its store (the memory is looked up again at each use, so no view of it goes stale).
"""

from __future__ import annotations

import numpy as np

from context.resolve import declare_engine_code
from context.tagging.arrays import per_buffer, root_of

from . import deps

declare_engine_code(__file__)

ndarray = np.ndarray
_stores = {}  # id(root buffer) -> {tag: slots (K, root.size)}
UNDECIDED = "undecided"  # a store entry of a value computed from the input with zero derivative


def _entries(a):
    entries = _stores.get(id(root_of(a)))
    if not entries:
        return None
    for t in [t for t in entries if t.finished]:
        del entries[t]
    return entries


def has_deps(a: np.ndarray) -> bool:
    """Whether ``a``'s buffer holds dependencies (or is undecided) for a live run."""
    return bool(_entries(a))


def tag_of(a):
    """The newest live tag with an entry for ``a``'s buffer, or None."""
    entries = _entries(a)
    return max(entries, key=lambda t: t.serial) if entries else None


def _address(a):
    return a.__array_interface__["data"][0]


def _view(slots, root, a):
    """The part of ``slots`` (``(K, root.size)``) that mirrors view ``a`` of ``root``."""
    if a is root and a.flags.c_contiguous:  # the buffer itself: no address arithmetic
        return slots.reshape((slots.shape[0],) + a.shape)
    size = root.itemsize
    if a.itemsize != size:
        raise TypeError(
            "a view of a buffer with another item size (%s of %s) cannot carry dependencies; "
            "copy it first with .astype()" % (a.dtype, root.dtype)
        )
    offset = (_address(a) - _address(root)) // size
    width = slots.itemsize
    strides = slots.strides[:1] + tuple(s // size * width for s in a.strides)
    return np.ndarray((slots.shape[0],) + a.shape, dtype=slots.dtype, buffer=slots, offset=offset * width,
                      strides=strides)


def get(a: np.ndarray, t) -> np.ndarray | str | None:
    """The dependencies of ``a`` for tag ``t`` (a view of the store), ``UNDECIDED``, or None."""
    root = root_of(a)
    entries = _stores.get(id(root))
    slots = entries.get(t) if entries else None
    if slots is None or slots is UNDECIDED:
        return slots
    return _view(slots, root, a)


def put(a: np.ndarray, t, D) -> None:
    """Give fresh array ``a`` (a result, owning its memory) the dependencies ``D`` (or ``UNDECIDED``)."""
    root = root_of(a)
    entries = per_buffer(_stores, root, True)
    if D is UNDECIDED:
        entries[t] = UNDECIDED
        return
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise TypeError("a non-contiguous buffer cannot carry dependencies; copy it first")
    if a is root and D.base is None and D.flags.c_contiguous and D.shape[1:] == a.shape and a.flags.c_contiguous:
        entries[t] = D.reshape(D.shape[0], a.size)  # a rule's own new array of slots: adopted, not copied
        return
    slots = np.zeros((D.shape[0], root.size), dtype=deps.DTYPE)
    entries[t] = slots
    _view(slots, root, a)[...] = D


def write(a: np.ndarray, key, t, D) -> None:
    """``a[key]`` now depends on ``D`` (``None``: on nothing) for tag ``t``."""
    root = root_of(a)
    entries = per_buffer(_stores, root, D is not None)
    if entries is None:
        return
    slots = entries.get(t)
    if slots is UNDECIDED:
        del entries[t]
        slots = None
    if slots is None:
        if D is None or not D.shape[0]:
            return
        if not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise TypeError(
                "writing a value that depends on the input into a view of a non-contiguous buffer: "
                "make the buffer with np.empty/np.zeros (or copy it) first"
            )
        slots = entries[t] = np.zeros((D.shape[0], root.size), dtype=deps.DTYPE)
    K = 0 if D is None else D.shape[0]
    if K > slots.shape[0]:
        grown = np.zeros((K, root.size), dtype=deps.DTYPE)
        grown[: slots.shape[0]] = slots
        slots = entries[t] = grown
    view = _view(slots, root, a)
    index = (slice(None),) + (key if isinstance(key, tuple) else (key,))
    if not K:
        view[index] = 0
        return
    shape = view[index].shape[1:]
    value = deps.lined(D, shape)
    if K < slots.shape[0]:  # the other slots of the written elements become empty
        value = np.concatenate([value, np.zeros((slots.shape[0] - K,) + shape, dtype=deps.DTYPE)])
    view[index] = value
