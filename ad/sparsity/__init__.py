"""Sparsity: Jacobian and Hessian patterns by running code under a detector context,
colourings that compress them, and sparse Jacobians and Hessians in as many passes as
there are colours.

``ad.jacobian_sparsity(f, x)`` and ``ad.hessian_sparsity(f, x)`` return SciPy sparse
patterns; ``ad.Sparse(backend)`` computes sparse derivatives with them. SciPy is
needed for the matrices (``pip install 'pycassette[sparse]'``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from ..engine.optional import when_imported
from . import table as _table
from .api import hessian_sparsity, jacobian_sparsity
from .families import primitive as _primitive  # noqa: F401
from .table import defsparsity
from .tracer import SparsityBranchError, SparsityCtx

_table.install()
when_imported("scipy.signal", "ad.sparsity.scipy_signal")
when_imported("scipy.linalg", "ad.sparsity.scipy_linalg")

__all__ = ["SparsityBranchError", "SparsityCtx", "defsparsity", "hessian_sparsity", "jacobian_sparsity"]
