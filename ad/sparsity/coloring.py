"""Colourings of sparsity patterns, seed matrices, and recovery from compressed products.

* ``column_coloring(P)``: columns that share no row get the same colour, so
  ``B = J @ S`` (one forward pass per colour) holds every entry of ``J`` once:
  ``J[i, j] = B[i, colour[j]]``. ``row_coloring`` is the same for rows and ``Sᵀ J``
  (one backward pass per colour).
* ``star_coloring(H)``: for a symmetric pattern, a distance-1 colouring in which every
  path on four vertices has at least three colours (a *star* colouring). Fewer colours
  than colouring the columns of ``H``, and still every entry is read directly from
  ``B = H @ S``: ``H[i, j] = B[i, colour[j]]`` when ``j`` is the only neighbour of ``i``
  of its colour, else ``B[j, colour[i]]``.

The colourings are greedy, vertices taken largest degree first. The star colouring is
Gebremedhin, Manne and Pothen's greedy algorithm ("What color is your Jacobian? Graph
coloring for computing derivatives", SIAM Review 47, 2005, Algorithm 4.1). They are
written here because the graph libraries at hand (networkx, igraph) offer distance-1
colouring only: no star colouring, and the column colouring would need the column
intersection graph built first anyway, which SciPy's sparse products do here.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

import numpy as np
import scipy.sparse as sp


def _csr(pattern: Any, who: str) -> sp.csr_matrix:
    P = sp.csr_matrix(pattern, dtype=bool) if not sp.issparse(pattern) else sp.csr_matrix(pattern).astype(bool)
    if P.ndim != 2:
        raise ValueError("%s: the pattern must be 2-D, got %d dimensions" % (who, P.ndim))
    P.eliminate_zeros()
    P.sum_duplicates()
    return P


def _greedy(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """Distance-1 greedy colouring of the graph ``(indptr, indices)``, largest degree first."""
    degree = np.diff(indptr)
    order = np.argsort(-degree, kind="stable")
    colours = [-1] * n
    ptr, idx = indptr.tolist(), indices.tolist()
    mark = [-1] * (int(degree.max(initial=0)) + 2)
    for v in order.tolist():
        for w in idx[ptr[v]:ptr[v + 1]]:
            c = colours[w]
            if c >= 0:
                mark[c] = v
        c = 0
        while mark[c] == v:
            c += 1
        colours[v] = c
    return np.asarray(colours, dtype=np.int64)


def column_coloring(pattern: Any) -> np.ndarray:
    """Colours ``0..c-1`` of the columns of ``pattern`` (``m x n``): no two columns with an entry
    in the same row share one."""
    P = _csr(pattern, "column_coloring")
    G = (P.T.astype(np.int8) @ P.astype(np.int8)).tocsr()  # columns sharing a row
    G.setdiag(0)
    G.eliminate_zeros()
    return _greedy(G.indptr, G.indices, P.shape[1])


def row_coloring(pattern: Any) -> np.ndarray:
    """Colours of the rows of ``pattern``: no two rows with an entry in the same column share one."""
    return column_coloring(_csr(pattern, "row_coloring").T)


def star_coloring(pattern: Any) -> np.ndarray:
    """A star colouring of the symmetric ``n x n`` pattern's graph (its diagonal is ignored)."""
    P = _csr(pattern, "star_coloring")
    if P.shape[0] != P.shape[1]:
        raise ValueError("star_coloring: the pattern must be square (a Hessian's), got shape %s" % (P.shape,))
    G = (P + P.T).tocsr()
    G.setdiag(False)
    G.eliminate_zeros()
    n = P.shape[0]
    ptr, idx = G.indptr.tolist(), G.indices.tolist()
    order = np.argsort(-np.diff(G.indptr), kind="stable").tolist()
    colours = [-1] * n
    forbidden = [-1] * (n + 1)
    for v in order:
        for w in idx[ptr[v]:ptr[v + 1]]:
            cw = colours[w]
            if cw >= 0:
                forbidden[cw] = v
            for x in idx[ptr[w]:ptr[w + 1]]:
                cx = colours[x]
                if x == v or cx < 0:
                    continue
                if cw < 0:
                    forbidden[cx] = v  # v and x would share the colour at distance 2 through w
                else:
                    for y in idx[ptr[x]:ptr[x + 1]]:  # w-x-y two-coloured already: v must not extend it
                        if y != w and colours[y] == cw:
                            forbidden[cx] = v
                            break
        c = 0
        while forbidden[c] == v:
            c += 1
        colours[v] = c
    return np.asarray(colours, dtype=np.int64)


def seed_matrix(colors: np.ndarray, n_colors: int | None = None) -> np.ndarray:
    """The ``n x c`` seed matrix: ``S[j, colors[j]] = 1``."""
    colors = np.asarray(colors, dtype=np.int64)
    c = int(colors.max(initial=-1)) + 1 if n_colors is None else int(n_colors)
    S = np.zeros((len(colors), c))
    S[np.arange(len(colors)), colors] = 1.0
    return S


def _entries(P):
    rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    return rows, P.indices.astype(np.int64)


def _check(colors, n, B, shape, who):
    colors = np.asarray(colors, dtype=np.int64)
    if colors.shape != (n,):
        raise ValueError("%s: %d colours given for %d columns" % (who, len(colors), n))
    if np.shape(B) != shape:
        raise ValueError("%s: the compressed matrix has shape %s, expected %s" % (who, np.shape(B), shape))
    return colors


def _unique_per_row(rows, cols_colours, c, who, what):
    key = rows * max(c, 1) + cols_colours
    if len(key) and np.bincount(key).max() > 1:
        raise ValueError("%s: the colouring is not valid for the pattern (two %s of one colour meet)" % (who, what))


def decompress_columns(pattern: Any, colors: np.ndarray, B: np.ndarray) -> sp.csr_matrix:
    """``J`` from ``B = J @ S``: a CSR matrix whose stored entries are exactly the pattern's."""
    P = _csr(pattern, "decompress_columns")
    c = int(np.max(colors, initial=-1)) + 1
    colors = _check(colors, P.shape[1], B, (P.shape[0], np.shape(B)[1] if np.ndim(B) == 2 else -1), "decompress_columns")
    if np.shape(B)[1] < c:
        raise ValueError("decompress_columns: %d colours but B has %d columns" % (c, np.shape(B)[1]))
    rows, cols = _entries(P)
    _unique_per_row(rows, colors[cols], c, "decompress_columns", "columns sharing a row")
    return sp.csr_matrix((np.asarray(B)[rows, colors[cols]], P.indices.copy(), P.indptr.copy()), shape=P.shape)


def decompress_rows(pattern: Any, colors: np.ndarray, B: np.ndarray) -> sp.csr_matrix:
    """``J`` from ``B = Sᵀ J`` (rows coloured)."""
    P = _csr(pattern, "decompress_rows")
    c = int(np.max(colors, initial=-1)) + 1
    colors = _check(colors, P.shape[0], B, (np.shape(B)[0] if np.ndim(B) == 2 else -1, P.shape[1]), "decompress_rows")
    if np.shape(B)[0] < c:
        raise ValueError("decompress_rows: %d colours but B has %d rows" % (c, np.shape(B)[0]))
    rows, cols = _entries(P)
    _unique_per_row(cols, colors[rows], c, "decompress_rows", "rows sharing a column")
    return sp.csr_matrix((np.asarray(B)[colors[rows], cols], P.indices.copy(), P.indptr.copy()), shape=P.shape)


def decompress_star(pattern: Any, colors: np.ndarray, B: np.ndarray) -> sp.csr_matrix:
    """The symmetric ``H`` from ``B = H @ S`` and a star colouring: each entry read directly, the
    upper triangle from ``B`` and the lower mirrored, so the result is exactly symmetric."""
    P = _csr(pattern, "decompress_star")
    if P.shape[0] != P.shape[1]:
        raise ValueError("decompress_star: the pattern must be square, got shape %s" % (P.shape,))
    P = ((P + P.T) > 0).tocsr()
    n = P.shape[0]
    c = int(np.max(colors, initial=-1)) + 1
    colors = _check(colors, n, B, (n, np.shape(B)[1] if np.ndim(B) == 2 else -1), "decompress_star")
    B = np.asarray(B)
    rows, cols = _entries(P)
    count = np.bincount(rows * max(c, 1) + colors[cols], minlength=n * max(c, 1))
    here = count[rows * max(c, 1) + colors[cols]] == 1  # j alone of its colour around i: B[i, c(j)]
    there = count[cols * max(c, 1) + colors[rows]] == 1
    off = rows != cols
    if np.any(off & (colors[rows] == colors[cols])) or not np.all(here | there):
        raise ValueError("decompress_star: the colouring is not a star colouring of the pattern")
    upper = rows <= cols
    values = np.where(here, B[rows, colors[cols]], B[cols, colors[rows]])
    U = sp.csr_matrix((values[upper], (rows[upper], cols[upper])), shape=P.shape)
    H = (U + sp.triu(U, k=1).T).tocsr()
    H.sort_indices()
    return H
