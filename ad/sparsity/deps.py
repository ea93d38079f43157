"""Dependency arrays: which inputs each element of a value depends on.

The dependencies of a value of shape ``s`` are an integer array ``D`` of shape
``(K,) + s``: element ``e`` depends on inputs ``D[k, e] - 1`` for each ``k`` with
``D[k, e] > 0`` (0 means "none", so zero-filled memory depends on nothing). ``K`` is a
number of *slots*, not of inputs: an element may list an input twice, and elements
with fewer dependencies pad with 0. Unions concatenate slots (no sorting), so the
common operations cost one pass over ``K * size`` integers; slots are sorted and
deduplicated (``compact``) only when ``K`` grows. This is the index-set
representation of sparsity tracers (one set per element), laid out as NumPy arrays
so that views, broadcasting and writes act on it as on the values themselves.
"""

from __future__ import annotations

import numpy as np

DTYPE = np.int32  # input numbers + 1: up to 2**31 - 2 inputs, half the memory traffic of int64
_COMPACT_AT = 12  # slots: a union with more is deduplicated (if that halves it, the next one waits longer)


def none(shape: tuple[int, ...]) -> np.ndarray:
    """No dependencies for a value of ``shape``."""
    return np.zeros((0,) + tuple(shape), dtype=DTYPE)


def identity(shape: tuple[int, ...], start: int = 0) -> np.ndarray:
    """Element ``i`` (row-major) depends on input ``start + i`` alone."""
    n = int(np.prod(shape, dtype=np.int64))
    return np.arange(start + 1, start + n + 1, dtype=DTYPE).reshape((1,) + tuple(shape))


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
    used twice) are one part."""
    if len(parts) < 2:
        return parts
    seen = set()
    out = []
    for p in parts:
        key = (p.__array_interface__["data"][0], p.shape, p.strides)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def compact(D: np.ndarray) -> np.ndarray:
    """``D`` with duplicate slots removed and the padding dropped (slots sorted per element)."""
    K = D.shape[0]
    if K <= 1:
        return D
    s = np.sort(D, axis=0)
    s[1:][s[1:] == s[:-1]] = 0
    s.sort(axis=0)
    used = np.count_nonzero(s, axis=0).max(initial=0)
    return np.ascontiguousarray(s[K - used:])


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
    padded = np.concatenate([np.zeros((K, 1), dtype=DTYPE), source], axis=1)
    return padded[:, index.ravel() + 1].reshape((K,) + index.shape)


def same_slots(parts: list[np.ndarray]) -> list[np.ndarray]:
    """``parts`` padded with empty slots to the same ``K``."""
    K = max((p.shape[0] for p in parts), default=0)
    return [p if p.shape[0] == K else np.concatenate([p, np.zeros((K - p.shape[0],) + p.shape[1:], DTYPE)])
            for p in parts]


def flat(D: np.ndarray) -> np.ndarray:
    """``D`` as ``(K, size)``: slots by element, raveled."""
    return D.reshape(D.shape[0], int(np.prod(D.shape[1:], dtype=np.int64)))


def pairs(D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``: element ``rows[k]`` (flat) depends on input ``cols[k]``, duplicates included."""
    K = D.shape[0]
    flat = D.reshape(K, int(np.prod(D.shape[1:], dtype=np.int64)))
    k, row = np.nonzero(flat)
    return row, flat[k, row] - 1
