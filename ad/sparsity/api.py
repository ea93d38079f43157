"""Sparsity patterns of Jacobians and Hessians: ``jacobian_sparsity`` and ``hessian_sparsity``.

Not engine code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import deps, detect, second_order


def _sparse():
    try:
        import scipy.sparse
    except ImportError:
        raise ImportError("sparsity patterns are SciPy sparse matrices: install SciPy "
                          "(pip install 'pycassette[sparse]')") from None
    return scipy.sparse


def _matrix(D, m, n):
    """The boolean CSR pattern of slots ``D`` (``(K,) + shape``, ``m`` elements) over ``n`` inputs,
    built row by row from the slots (no triplet sort: the slots are the rows already)."""
    sp = _sparse()
    slots = deps.flat(D).T  # (m, K): the slots of each row
    used = slots > 0
    K = slots.shape[1]
    if K and used.all():
        indices = slots.ravel() - 1
        indptr = np.arange(0, m * K + 1, K, dtype=np.int64)
    else:
        indices = slots[used] - 1
        indptr = np.concatenate([[0], np.cumsum(used.sum(axis=1))]).astype(np.int64)
    pattern = sp.csr_matrix((np.ones(len(indices), dtype=bool), indices, indptr), shape=(m, n))
    pattern.sum_duplicates()  # sorts each row and merges an input listed twice
    pattern.data[:] = True
    return pattern


def jacobian_sparsity(f: Callable[[Any], Any], x: Any, *, local: bool = False) -> Any:
    """The sparsity pattern of the Jacobian of ``f`` (array to array) as a SciPy CSR matrix of
    booleans, ``f(x).size`` by ``x.size`` (both raveled in row-major order).

    ``local=False``: the pattern holds for every input; code that branches or indexes on
    the input's values raises ``SparsityBranchError`` (write the choice with ``np.where``,
    or pass ``local=True``). ``local=True``: the pattern holds at ``x``.
    """
    a = detect.input_array(x, "jacobian_sparsity")
    value, D = detect.run(f, a, local)
    return _matrix(D, int(np.size(value)), a.size)


def hessian_sparsity(f: Callable[[Any], Any], x: Any, *, local: bool = False) -> Any:
    """The sparsity pattern of the Hessian of scalar ``f`` as a symmetric SciPy CSR matrix of
    booleans, ``x.size`` by ``x.size``: the pairs of inputs that some nonlinear operation
    couples (``local`` as for ``jacobian_sparsity``; see ``second_order``)."""
    a = detect.input_array(x, "hessian_sparsity")
    pairs = second_order.Pairs()
    value, _ = detect.run(f, a, local, pairs)
    if np.size(value) != 1:
        raise ValueError("hessian_sparsity: f must return a single number, got shape %s" % (np.shape(value),))
    sp = _sparse()
    rows = np.concatenate(pairs.rows) if pairs.rows else np.zeros(0, np.int64)
    cols = np.concatenate(pairs.cols) if pairs.cols else np.zeros(0, np.int64)
    n = a.size
    H = sp.coo_matrix((np.ones(2 * len(rows), dtype=bool), (np.r_[rows, cols], np.r_[cols, rows])), shape=(n, n))
    H = H.tocsr()
    H.sum_duplicates()
    H.data[:] = True
    return H
