"""Forward rules for ``scipy.linalg`` (loaded when it is imported), put on its public functions (LAPACK
wrappers are natives): solvers in ``scipy_linalg_solvers``, factorizations in
``scipy_linalg_factorizations``, matrix functions, special matrices and refusals in
``scipy_linalg_functions``. Stacks of matrices work.

Conventions:

* Derivatives are with respect to the array as SciPy reads it: where only a triangle, a band
  or the diagonal is read (``assume_a=``, ``lower=``, ``unit_diagonal=``, ``cho_solve``'s and
  ``lu_solve``'s packed factors, ``eigh``), tangents elsewhere are ignored, and a Hermitian
  matrix read from a triangle takes the real part of the diagonal's tangent.
* ``eigh``: distinct eigenvalues; ``b`` (``type=1`` only) and ``subset_by_index``/``_value``;
  complex eigenvectors get ``numpy.linalg.eigh``'s phase convention. ``svd``/``qr``/``eig``: as
  ``numpy.linalg``'s rules; ``qr(pivoting=True)`` keeps the permutation fixed.
* ``expm``, ``logm``: the block identity ``f([[A, E], [0, A]]) = [[f(A), L], [0, f(A)]]``;
  ``sqrtm`` solves ``X dX + dX X = dA``; ``polar`` solves ``P dP + dP P = d(A^H A)`` (``P``
  invertible: ``side='right'`` needs ``m >= n``, ``'left'`` ``m <= n``).
* ``inv(assume_a='diagonal')``: the tangent follows what SciPy 1.18 returns (the rest of ``a``
  left in place).
* Refused with NoRuleError: ``lstsq``, ``cholesky_banded``, ``cho_solve_banded``, ``schur``,
  ``hessenberg``, ``ldl``, ``funm``, ``signm``, ``expm_frechet``, ``fractional_matrix_power``;
  ``eigh`` with ``type=2``/``3``, ``eig`` with ``b``/``left=True``, ``qr(mode='raw')``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from . import scipy_linalg_factorizations, scipy_linalg_functions, scipy_linalg_solvers

__all__ = ["scipy_linalg_factorizations", "scipy_linalg_functions", "scipy_linalg_solvers"]  # (registered on import)
