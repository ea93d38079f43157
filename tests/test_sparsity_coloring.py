"""Colourings of sparsity patterns and exact recovery of sparse matrices from compressed products."""

import itertools

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
from ad.sparsity import coloring  # noqa: E402

RNG = np.random.default_rng(1)


def laplacian_2d(k):
    one = sp.diags([1, 1, 1], [-1, 0, 1], shape=(k, k))
    eye = sp.identity(k)
    return (sp.kron(one, eye) + sp.kron(eye, one)).tocsr().astype(bool)


def random_pattern(m, n, density):
    P = sp.random(m, n, density=density, random_state=RNG.integers(1 << 30), format="csr").astype(bool)
    return P


PATTERNS = {
    "diagonal": sp.identity(7, format="csr", dtype=bool),
    "tridiagonal": sp.diags([1, 1, 1], [-1, 0, 1], shape=(9, 9)).tocsr().astype(bool),
    "arrow": sp.csr_matrix(np.eye(6, dtype=bool) | (np.arange(6)[:, None] == 0) | (np.arange(6)[None, :] == 0)),
    "dense": sp.csr_matrix(np.ones((5, 5), bool)),
    "empty": sp.csr_matrix((4, 6), dtype=bool),
    "laplacian 8x8": laplacian_2d(8),
    "rectangular": random_pattern(12, 30, 0.15),
    "random": random_pattern(40, 40, 0.08),
}


def valid_columns(P, colours):
    P = sp.csr_matrix(P)
    for i in range(P.shape[0]):
        cols = P.indices[P.indptr[i]:P.indptr[i + 1]]
        if len(set(colours[cols])) != len(cols):
            return False
    return True


def star_valid(P, colours):
    """Brute force: a distance-1 colouring with no two-coloured path on four vertices."""
    A = (P + P.T).toarray().astype(bool)
    np.fill_diagonal(A, False)
    n = len(A)
    if any(A[i, j] and colours[i] == colours[j] for i in range(n) for j in range(n)):
        return False
    for a, b, c, d in itertools.permutations(range(n), 4):
        if A[a, b] and A[b, c] and A[c, d] and len({colours[a], colours[b], colours[c], colours[d]}) == 2:
            return False
    return True


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_column_and_row_colourings_are_valid_and_recover_exactly(name):
    P = PATTERNS[name]
    m, n = P.shape
    cols, rows = coloring.column_coloring(P), coloring.row_coloring(P)
    assert valid_columns(P, cols) and valid_columns(P.T, rows)
    J = sp.csr_matrix((RNG.normal(size=P.nnz), P.indices, P.indptr), shape=P.shape).toarray()
    B = J @ coloring.seed_matrix(cols)
    assert np.allclose(coloring.decompress_columns(P, cols, B).toarray(), J, rtol=0, atol=1e-12)
    Bt = coloring.seed_matrix(rows).T @ J
    assert np.allclose(coloring.decompress_rows(P, rows, Bt).toarray(), J, rtol=0, atol=1e-12)


def test_colour_counts_of_known_patterns():
    assert coloring.column_coloring(PATTERNS["diagonal"]).max() == 0
    assert coloring.column_coloring(PATTERNS["tridiagonal"]).max() + 1 == 3
    assert coloring.column_coloring(PATTERNS["dense"]).max() + 1 == 5
    assert coloring.star_coloring(PATTERNS["tridiagonal"]).max() + 1 == 3
    assert coloring.column_coloring(laplacian_2d(32)).max() + 1 <= 7


def test_no_more_colours_than_scipy_grouping():
    from scipy.optimize._numdiff import group_columns  # (SciPy's own, private: a reference count only)

    for P in (laplacian_2d(20), random_pattern(60, 60, 0.05), PATTERNS["tridiagonal"]):
        assert coloring.column_coloring(P).max() + 1 <= group_columns(P).max() + 1


@pytest.mark.parametrize("name", ["diagonal", "tridiagonal", "dense", "laplacian 8x8", "random small"])
def test_star_colouring_is_a_star_colouring_and_recovers_symmetric_matrices(name):
    P = PATTERNS.get(name)
    if P is None:
        P = random_pattern(9, 9, 0.25)
    P = ((P + P.T) > 0).tocsr()
    colours = coloring.star_coloring(P)
    if P.shape[0] <= 12:
        assert star_valid(P, colours)
    values = sp.triu(sp.csr_matrix((RNG.normal(size=P.nnz), P.indices, P.indptr), shape=P.shape))
    H = (values + sp.triu(values, 1).T).toarray()
    H = np.where(P.toarray(), H, 0.0)
    B = H @ coloring.seed_matrix(colours)
    got = coloring.decompress_star(P, colours, B)
    assert np.allclose(got.toarray(), H, rtol=0, atol=1e-12)
    assert (got != got.T).nnz == 0


def test_star_colouring_uses_fewer_colours_than_columns_on_an_arrow():
    arrow = sp.csr_matrix((np.arange(8)[:, None] == 0) | (np.arange(8)[None, :] == 0) | np.eye(8, dtype=bool))
    assert coloring.star_coloring(arrow).max() + 1 == 2
    assert coloring.column_coloring(arrow).max() + 1 == 8


def test_bad_input():
    P = PATTERNS["tridiagonal"]
    with pytest.raises(ValueError, match="square"):
        coloring.star_coloring(PATTERNS["rectangular"])
    with pytest.raises(ValueError, match="colours given"):
        coloring.decompress_columns(P, np.zeros(3, int), np.zeros((9, 1)))
    with pytest.raises(ValueError, match="not valid"):
        coloring.decompress_columns(P, np.zeros(9, int), np.zeros((9, 1)))
    with pytest.raises(ValueError, match="not a star colouring"):
        coloring.decompress_star(laplacian_2d(4), np.arange(16) % 2, np.zeros((16, 2)))
