"""Sparsity rules for ``scipy.linalg`` (registered when ``scipy.linalg`` is imported:
``ad/sparsity/__init__.py``).

Solvers, factorisations and matrix functions are dense, as ``np.linalg``'s are: every
element of each result depends on every element of every argument (operands inside
tuples too, as ``cho_solve((c, lower), b)`` takes them); integer results (pivots) are
computed from the values without a derivative. Banded and triangular solvers are dense
too: their inverses fill in. The constructors that only place elements (``block_diag``,
``toeplitz``, ``circulant``, ``hankel``) follow from probes, as ``np.concatenate`` does,
and ``norm`` is a reduction.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import scipy.linalg as sl

from context.resolve import declare_engine_code

from . import families as F
from .table import defsparsity

declare_engine_code(__file__)

_DENSE = ("inv", "det", "cholesky", "cho_factor", "cho_solve", "cho_solve_banded", "cholesky_banded", "lu",
          "lu_factor", "lu_solve", "ldl", "solve", "solve_triangular", "solve_banded", "solveh_banded",
          "solve_circulant", "solve_toeplitz", "lstsq", "eig", "eigh", "eigvals", "eigvalsh", "eig_banded",
          "eigvals_banded", "eigh_tridiagonal", "eigvalsh_tridiagonal", "svd", "svdvals", "qr", "rq", "schur",
          "hessenberg", "polar", "pinv", "pinvh", "expm", "logm", "sqrtm", "cosm", "sinm", "tanm", "coshm",
          "sinhm", "tanhm", "signm", "funm", "fractional_matrix_power", "expm_frechet", "solve_sylvester",
          "solve_continuous_lyapunov", "solve_discrete_lyapunov", "solve_continuous_are", "solve_discrete_are",
          "matrix_balance", "null_space", "orth", "subspace_angles", "kron")
_PLACES = ("block_diag", "toeplitz", "circulant", "hankel")


def install() -> None:
    for name in _DENSE:
        fn = getattr(sl, name, None)
        if fn is not None:
            defsparsity(fn, F.dense())
    for name in _PLACES:
        fn = getattr(sl, name, None)
        if fn is not None:
            defsparsity(fn, F.layout(("all",)))
    defsparsity(sl.norm, F.reduction(2))


install()
