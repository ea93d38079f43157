"""Sparsity patterns of Jacobians and Hessians: ``jacobian_sparsity`` and ``hessian_sparsity``.

Not engine code.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

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
    """The boolean CSR pattern of slots ``D`` (``(K,) + shape``, ``m`` elements) over ``n`` inputs.

    The slots are the rows already: sorted and deduplicated per element by a sorting
    network (``deps.sorted_rows``), laid out row by row, ``K`` entries a row, with the
    empty slots stored as explicit ``False`` entries that SciPy's ``eliminate_zeros`` then
    drops in one pass; nothing is left to sort or merge. Slot arrays that repeat one
    another (``x`` used three times in an expression) or hold nothing are dropped first.
    """
    sp = _sparse()
    slots = deps.distinct_slots(D)
    K = len(slots)
    if not K or not m:
        return sp.csr_matrix((m, n), dtype=bool)
    index = np.int32 if max(m * K, n) < 2**31 else np.int64
    # (m, K), row-major: the transposition, widened to the index type in the same pass
    columns = np.stack(deps.sorted_rows(slots), axis=1, dtype=index).ravel()
    columns -= 1  # an empty slot: column -1, whose entry is False and dropped below
    present = columns >= 0
    indptr = np.arange(0, m * K + 1, K, dtype=index)
    pattern = sp.csr_matrix((present, columns, indptr), shape=(m, n))
    if not present.all():
        pattern.eliminate_zeros()
    pattern.has_sorted_indices = True  # and no duplicates: canonical, as sum_duplicates would leave it
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
