"""Dependency arrays: which inputs each element of a value depends on.

The dependencies of a value of shape ``s`` are an array ``D`` of unsigned integers (the
run's ``dtype_for``), shape ``(K,) + s``: element ``e`` depends on inputs ``D[k, e] - 1`` for each ``k`` with
``D[k, e] > 0`` (0 means "none", so zero-filled memory depends on nothing). ``K`` is a
number of *slots*, not of inputs: an element may list an input twice, and elements
with fewer dependencies pad with 0. Unions concatenate slots (no sorting), so the
common operations cost one pass over ``K * size`` integers; slots are sorted and
deduplicated (``compact``) only when ``K`` grows. This is the index-set
representation of sparsity tracers (one set per element), laid out as NumPy arrays
so that views, broadcasting and writes act on it as on the values themselves.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math
from typing import Any

import numpy as np

EMPTY = np.uint8  # the dtype of slot arrays holding no input (no slots, padding): any other dtype absorbs it
_COMPACT_AT = 12  # slots: a union with more is deduplicated (if that halves it, the next one waits longer)


def dtype_for(count: int) -> np.dtype:
    """The slot dtype of a run with ``count`` inputs: the smallest unsigned integers that hold
    ``count`` (input numbers are 1-based). 16 bits up to 65,535 inputs: the slots' memory
    traffic, most of detection's work on large arrays, is half that of 32 bits. Arrays of
    slots keep the dtype of the slots they are made from; padding (``EMPTY``) never narrows it."""
    for kind in (np.uint16, np.uint32):
        if count <= np.iinfo(kind).max:
            return np.dtype(kind)
    return np.dtype(np.uint64)


def none(shape: tuple[int, ...]) -> np.ndarray:
    """No dependencies for a value of ``shape``."""
    return np.zeros((0,) + tuple(shape), dtype=EMPTY)


def identity(shape: tuple[int, ...], start: int = 0) -> np.ndarray:
    """Element ``i`` (row-major) depends on input ``start + i`` alone."""
    n = math.prod(shape)
    out = np.arange(start + 1, start + n + 1, dtype=dtype_for(start + n))
    out.shape = (1,) + tuple(shape)  # (in place: the array keeps its memory, which the store adopts)
    return out


class Parts:
    """A union not joined yet: the slots of ``parts`` (arrays ``(k,) + s``, each ``s`` broadcasting
    to ``shape``) side by side, as ``union`` would concatenate them.

    Chains of elementwise operations (``a + b + c + d``) would otherwise copy every slot
    of every intermediate result; here each result keeps the parts it is made of and the
    slots are joined once, when something needs them as an array (``array()``, cached).
    Parts are never written: their arrays' memory is marked read-only (``freeze``), so a
    write into a buffer whose slots a union still reads copies them first
    (``store.write``).
    """

    __slots__ = ("parts", "shape", "K", "joined")

    def __init__(self, parts: list[np.ndarray], shape: tuple[int, ...]) -> None:
        self.parts = parts
        self.shape = tuple(shape)
        self.K = sum(p.shape[0] for p in parts)
        self.joined = None

    def array(self) -> np.ndarray:
        """The slots as one array ``(K,) + shape`` (read-only: it may be shared)."""
        if self.joined is None:
            out = np.concatenate([lined(p, self.shape) for p in self.parts])
            out = compact(out) if out.shape[0] > _COMPACT_AT else out
            out.flags.writeable = False
            self.joined = out
        return self.joined


def freeze(a: np.ndarray) -> None:
    """Mark the memory of slot array ``a`` read-only: a union still reads it."""
    owner = a if a.base is None else a.base
    if isinstance(owner, np.ndarray) and owner.flags.writeable:
        owner.flags.writeable = False


def joined(D: Any) -> Any:
    """``D`` as an array of slots (a ``Parts`` joined; anything else as it is)."""
    return D.array() if type(D) is Parts else D


def lazy_union(parts: list[Any], shape: tuple[int, ...]) -> Any:
    """``union(parts, shape)``, left as ``Parts`` (joined later, once) unless it holds more than a
    few slots, which are joined and deduplicated now. ``parts`` may be ``Parts`` themselves."""
    flat_parts: list[np.ndarray] = []
    for p in parts:
        if type(p) is Parts:
            flat_parts.extend(p.parts)
        elif p.shape[0]:
            flat_parts.append(p)
    flat_parts = _distinct(flat_parts)
    if not flat_parts:
        return none(shape)
    K = sum(p.shape[0] for p in flat_parts)
    if K > _COMPACT_AT:
        out = np.concatenate([lined(p, shape) for p in flat_parts])
        return compact(out)
    for p in flat_parts:
        freeze(p)
    return Parts(flat_parts, shape)


def lined(D: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``D`` broadcast to values of ``shape`` (trailing axes line up, as NumPy broadcasts)."""
    s = D.shape[1:]
    if s == tuple(shape):
        return D
    missing = len(shape) - len(s)
    if missing > 0:
        D = D.reshape((D.shape[0],) + (1,) * missing + s)
    return np.broadcast_to(D, (D.shape[0],) + tuple(shape))


def union(parts: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """The dependencies of a value of ``shape`` that depends on every element of ``parts``
    at the same (broadcast) position."""
    parts = _distinct([p for p in parts if p.shape[0]])
    if not parts:
        return none(shape)
    if len(parts) == 1:
        return lined(parts[0], shape)
    out = np.concatenate([lined(p, shape) for p in parts])
    return compact(out) if out.shape[0] > _COMPACT_AT else out


def _distinct(parts: list[np.ndarray]) -> list[np.ndarray]:
    """``parts`` without repeats: the same slots seen through two views (``x * x``, ``u[1:-1]``
    used twice) are one part. (Views of one buffer alike in shape and strides are told apart
    by their addresses, each read once: reading one costs more than the rest of the test.)"""
    if len(parts) < 2:
        return parts
    out = []
    addresses: dict[int, int] = {}
    for p in parts:
        owner = p if p.base is None else p.base  # (NumPy points a view's base at the array owning the memory)
        for q in out:
            if q is p:
                break
            if (q.base is owner or q is owner) and q.shape == p.shape and q.strides == p.strides \
                    and _address_of(q, addresses) == _address_of(p, addresses):
                break
        else:
            out.append(p)
    return out


def _address_of(a: np.ndarray, known: dict[int, int]) -> int:
    address = known.get(id(a))
    if address is None:
        address = known[id(a)] = _address(a)
    return address


def _address(a):
    return a.__array_interface__["data"][0]


def compact(D: np.ndarray) -> np.ndarray:
    """``D`` with duplicate slots removed and the padding dropped (slots sorted per element)."""
    K = D.shape[0]
    if K <= 1:
        return D
    rows = sorted_rows(sorted_rows(D))  # sorted again: the emptied duplicates to the front
    first = next((k for k, r in enumerate(rows) if r.any()), K)  # (rows holding an input: a suffix)
    if first == K:
        return np.zeros((0,) + D.shape[1:], dtype=D.dtype)
    return np.stack(rows[first:]).reshape((K - first,) + D.shape[1:])


def distinct_slots(D: np.ndarray) -> list[np.ndarray]:
    """``D``'s slots (``(K,) + shape``) as flat rows, without rows that repeat an earlier one or
    hold nothing (cheap to find: rows that differ mostly differ at their ends)."""
    out: list[np.ndarray] = []
    for row in flat(D):
        if not row.size or not row.any():
            continue
        first, last = row[0], row[-1]
        if not any(q[0] == first and q[-1] == last and np.array_equal(q, row) for q in out):
            out.append(row)
    return out


_NETWORK_UP_TO = 16  # slots: a sorting network beyond this costs more passes than np.sort's per-column sorts


def sorted_rows(D: np.ndarray | list[np.ndarray]) -> list[np.ndarray]:
    """``D``'s slots (``(K,) + shape``, or ``K`` flat rows) sorted per element, each repeat after
    its first emptied (0): ``K`` new flat rows, the inputs of each element in increasing order,
    with gaps.

    ``np.sort(D, axis=0)`` sorts each element's few slots in a call of its own; a sorting
    network does the same in a fixed number of vectorised min/max passes over all elements
    at once (5 for 4 slots, 19 for 8), several times faster for the small ``K`` of slots.
    Each pass writes the smaller keys to a spare row, which takes the place of the row it
    came from (two passes over memory per comparison, where an in-place swap takes three).
    """
    if isinstance(D, list):
        K = len(D)
        F = D
    else:
        K = D.shape[0]
        F = flat(D)
    if K > _NETWORK_UP_TO:
        rows = list(np.sort(np.stack(F) if isinstance(F, list) else F, axis=0))
    else:
        rows = [np.array(r) for r in F]
        if K > 1:
            spare = np.empty_like(rows[0])
            for i, j in network(K):
                a, b = rows[i], rows[j]
                np.minimum(a, b, out=spare)
                np.maximum(a, b, out=b)
                rows[i], spare = spare, a
    for k in range(K - 1, 0, -1):  # from the last: each comparison sees its neighbour before it is emptied
        np.multiply(rows[k], rows[k] != rows[k - 1], out=rows[k])
    return rows


_networks: dict[int, list[tuple[int, int]]] = {}


def network(K: int) -> list[tuple[int, int]]:
    """Batcher's odd-even merge sort for ``K`` keys: compare-exchange pairs ``(i, j)``, ``i < j``.

    Built for the next power of two and restricted to pairs below ``K`` (the missing keys
    count as larger than every key, so a pair touching one never exchanges).
    """
    if K not in _networks:
        n = 1
        while n < K:
            n *= 2
        pairs: list[tuple[int, int]] = []

        def merge(lo, length, r):  # merge the sorted halves of keys lo, lo + r, lo + 2r, ... (length keys)
            step = 2 * r
            if step < length:
                merge(lo, length, step)
                merge(lo + r, length, step)
                pairs.extend((i, i + r) for i in range(lo + r, lo + length - r, step))
            else:
                pairs.append((lo, lo + r))

        def sort(lo, length):
            if length > 1:
                half = length // 2
                sort(lo, half)
                sort(lo + half, half)
                merge(lo, length, 1)

        sort(0, n)
        _networks[K] = [(i, j) for i, j in pairs if j < K]
    return _networks[K]


def reduce(D: np.ndarray, axes: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    """The dependencies of a reduction over ``axes`` (of the value, not of ``D``): each result
    element depends on every element it reduces. ``out_shape`` is the result's shape (with
    or without the reduced axes kept as 1)."""
    ndim = D.ndim - 1
    if not D.shape[0]:
        return none(out_shape)
    axes = tuple(sorted({a % ndim if ndim else 0 for a in axes}))
    if not axes:
        return lined(D, out_shape)
    moved = np.moveaxis(D, [a + 1 for a in axes], list(range(1, len(axes) + 1)))
    out = moved.reshape((-1,) + tuple(out_shape))
    return compact(out) if out.shape[0] > _COMPACT_AT else out


def spread(D: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Each element depends on every element along ``axes`` (``np.sort``, an FFT): a
    reduction over them broadcast back to the value's shape."""
    shape = D.shape[1:]
    kept = tuple(1 if i in {a % len(shape) for a in axes} else n for i, n in enumerate(shape))
    return lined(reduce(D, axes, kept), shape)


def take(D: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Dependencies gathered by flat ``index`` (an integer array shaped like the result: the
    flat position in ``D``'s value, or -1 for an element that depends on nothing)."""
    K = D.shape[0]
    index = np.asarray(index)
    source = flat(D)
    if index.size and index.min() >= 0:  # every element comes from somewhere (a permutation, a roll)
        return source[:, index.ravel()].reshape((K,) + index.shape)
    padded = np.concatenate([np.zeros((K, 1), dtype=source.dtype), source], axis=1)
    return padded[:, index.ravel() + 1].reshape((K,) + index.shape)


def same_slots(parts: list[np.ndarray]) -> list[np.ndarray]:
    """``parts`` padded with empty slots to the same ``K``."""
    K = max((p.shape[0] for p in parts), default=0)
    return [p if p.shape[0] == K else np.concatenate([p, np.zeros((K - p.shape[0],) + p.shape[1:], EMPTY)])
            for p in parts]


def flat(D: np.ndarray) -> np.ndarray:
    """``D`` as ``(K, size)``: slots by element, raveled."""
    return D.reshape(D.shape[0], math.prod(D.shape[1:]))


def pairs(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``: element ``rows[k]`` (flat) depends on input ``cols[k]``, duplicates included."""
    K = D.shape[0]
    flat = D.reshape(K, math.prod(D.shape[1:]))
    k, row = np.nonzero(flat)
    return row, flat[k, row] - 1
