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

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

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
    if any(t.finished for t in entries):
        for t in [t for t in entries if t.finished]:
            del entries[t]
    return entries or None


def has_deps(a: np.ndarray) -> bool:
    """Whether ``a``'s buffer holds dependencies (or is undecided) for a live run."""
    return bool(_entries(a))


def tag_of(a):
    """The newest live tag with an entry for ``a``'s buffer, or None."""
    entries = _entries(a)
    if not entries:
        return None
    if len(entries) == 1:
        for t in entries:
            return t
    return max(entries, key=_serial)


def _serial(t):
    return t.serial


def _address(a):
    return a.__array_interface__["data"][0]


class _Entries(dict):
    """A buffer's entries ``{tag: slots}``, with the buffer's address (views find their offset from
    it) and layout (read once: a buffer's memory never moves or changes layout)."""

    __slots__ = ("address", "c_contiguous", "contiguous", "whole")

    def __init__(self, root):
        self.address = None  # read when a view first needs it: most buffers are never seen through one
        self.whole = None  # (slots, their view shaped as the buffer): one object each time, which unions recognise
        flags = root.flags
        self.c_contiguous = flags.c_contiguous
        self.contiguous = flags.c_contiguous or flags.f_contiguous


def _view(slots, root, a, entries, reading=False):
    """The part of ``slots`` (``(K, root.size)``) that mirrors view ``a`` of ``root``. With ``reading``,
    ``a`` may be the real or imaginary part of a complex buffer: it depends on what the complex
    elements depend on (a superset, never less; writes through such a view are refused)."""
    if a is root:
        if entries.c_contiguous:  # the buffer itself: no address arithmetic
            whole = entries.whole
            if whole is not None and whole[0] is slots:
                return whole[1]
            view = slots.reshape((slots.shape[0],) + a.shape)
            entries.whole = (slots, view)
            return view
        offset = 0
    else:
        start = entries.address
        if start is None:
            start = entries.address = _address(root)
        offset = _address(a) - start
    size = root.itemsize
    if a.itemsize != size and not (reading and root.dtype.kind == "c" and a.dtype.kind == "f"
                                   and 2 * a.itemsize == size):
        raise TypeError(
            "a view of a buffer with another item size (%s of %s) cannot carry dependencies; "
            "copy it first with .astype()" % (a.dtype, root.dtype)
        )
    width = slots.itemsize
    strides = (slots.strides[0],) + tuple([s // size * width for s in a.strides])
    return np.ndarray((slots.shape[0],) + a.shape, dtype=slots.dtype, buffer=slots, offset=offset // size * width,
                      strides=strides)


def _settled(entries, t, root):
    """The entry of ``t`` as an array of slots ``(K, root.size)``: a ``deps.Parts`` is joined now
    (and kept joined)."""
    slots = entries[t]
    if type(slots) is deps.Parts:
        D = slots.array()
        slots = entries[t] = D.reshape(D.shape[0], root.size)
    return slots


def _seen_as(entries, t, root, a, lazy):
    """``a``'s dependencies from its buffer's entry for ``t`` (not None, not ``UNDECIDED``): a view of
    the slots; with ``lazy``, the buffer itself may get its ``deps.Parts`` as they are."""
    slots = entries[t]
    if type(slots) is deps.Parts:
        if lazy and a is root and entries.c_contiguous and slots.shape == a.shape:
            return slots
        slots = _settled(entries, t, root)
    return _view(slots, root, a, entries, reading=True)


def get(a: np.ndarray, t, lazy: bool = False) -> Any:
    """The dependencies of ``a`` for tag ``t`` (a view of the store), ``UNDECIDED``, or None.
    With ``lazy``, a buffer's union not joined yet may come as the ``deps.Parts`` it is."""
    root = a if a.base is None else root_of(a)
    entries = _stores.get(id(root))
    slots = entries.get(t) if entries else None
    if slots is None or slots is UNDECIDED:
        return slots
    return _seen_as(entries, t, root, a, lazy)


def lookup(a: np.ndarray, lazy: bool = False) -> tuple:
    """``(tag, dependencies)`` of ``a`` for the newest live run with an entry for its buffer
    (``has_deps``, ``tag_of`` and ``get`` in one look), or ``(None, None)``; ``lazy`` as for ``get``."""
    root = a if a.base is None else root_of(a)
    entries = _stores.get(id(root))
    if not entries:
        return None, None
    if len(entries) == 1:
        t = next(iter(entries))
        if t.finished:
            del entries[t]
            return None, None
    else:
        t = tag_of(a)
        if t is None:
            return None, None
    if entries[t] is UNDECIDED:
        return t, UNDECIDED
    return t, _seen_as(entries, t, root, a, lazy)


def put(a: np.ndarray, t, D) -> None:
    """Give fresh array ``a`` (a result, owning its memory) the dependencies ``D`` (or ``UNDECIDED``)."""
    root = a if a.base is None else root_of(a)
    entries = per_buffer(_stores, root, True, _Entries)
    if D is UNDECIDED:
        entries[t] = UNDECIDED
        return
    if not entries.contiguous:
        raise TypeError("a non-contiguous buffer cannot carry dependencies; copy it first")
    if type(D) is deps.Parts:
        if a is root and entries.c_contiguous and D.shape == a.shape:
            entries[t] = D  # joined when something needs the slots as an array
            return
        D = D.array()
    if a is root and entries.c_contiguous and D.shape[1:] == a.shape:
        if D.base is None and D.flags.c_contiguous:
            entries[t] = D.reshape(D.shape[0], a.size)  # a rule's own new array of slots: adopted, not copied
        else:  # slots seen through a view (another buffer's, a broadcast): copied, in one pass
            entries[t] = np.array(D, order="C").reshape(D.shape[0], a.size)
        return
    slots = np.zeros((D.shape[0], root.size), dtype=D.dtype)
    entries[t] = slots
    _view(slots, root, a, entries)[...] = D


def write(a: np.ndarray, key, t, D) -> None:
    """``a[key]`` now depends on ``D`` (``None``: on nothing) for tag ``t``."""
    root = root_of(a)
    entries = per_buffer(_stores, root, D is not None, _Entries)
    if entries is None:
        return
    D = deps.joined(D)
    slots = entries.get(t)
    if slots is UNDECIDED:
        del entries[t]
        slots = None
    elif slots is not None:
        slots = _settled(entries, t, root)
        owner = slots if slots.base is None else slots.base
        if not owner.flags.writeable:  # a union still reads these slots: they are copied, then written
            slots = entries[t] = np.array(slots)
    if slots is None:
        if D is None or not D.shape[0]:
            return
        if not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise TypeError(
                "writing a value that depends on the input into a view of a non-contiguous buffer: "
                "make the buffer with np.empty/np.zeros (or copy it) first"
            )
        slots = entries[t] = np.zeros((D.shape[0], root.size), dtype=D.dtype)
    K = 0 if D is None else D.shape[0]
    wide = slots.dtype if not K else np.promote_types(slots.dtype, D.dtype)
    if K > slots.shape[0] or wide != slots.dtype:  # more slots, or input numbers the slots' dtype cannot hold
        grown = np.zeros((max(K, slots.shape[0]), root.size), dtype=wide)
        grown[: slots.shape[0]] = slots
        slots = entries[t] = grown
    view = _view(slots, root, a, entries)
    index = (slice(None),) + (key if isinstance(key, tuple) else (key,))
    if not K:
        view[index] = 0
        return
    shape = view[index].shape[1:]
    value = deps.lined(D, shape)
    if K < slots.shape[0]:  # the other slots of the written elements become empty
        value = np.concatenate([value, np.zeros((slots.shape[0] - K,) + shape, dtype=deps.EMPTY)])
    view[index] = value
