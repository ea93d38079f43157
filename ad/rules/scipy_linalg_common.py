"""Helpers the ``scipy.linalg`` rules share (``scipy_linalg_solvers``, ``scipy_linalg_factorizations``,
``scipy_linalg_functions``): options, constant arguments, the matrix SciPy reads, pivots as permutations."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.values import primal

from ..engine.forward import NoRuleError
from .decompositions import _symmetric_from
from .linalg import _hermitian_from, _is_complex, _widened
from .tangents import lead, shape_of


def _no_tangent(name, tangents, *which):
    for i in which:
        if i < len(tangents) and tangents[i] is not None:
            raise NoRuleError("scipy.linalg.%s: argument %d carries a derivative; make it a constant" % (name, i + 1))


def _options(names, values, kwargs):
    """The options by name, without ``overwrite_*`` (the rule reads its arguments again)."""
    opts = dict(zip(names, values))
    opts.update(kwargs)
    return {k: v for k, v in opts.items() if not k.startswith("overwrite_")}


def _read(g, a, assume_a, lower):
    """The tangent of the matrix SciPy reads from ``a`` (``assume_a``, ``lower``) along ``g``."""
    if assume_a in (None, "general", "gen"):
        return g
    m = shape_of(a)[-1]
    if assume_a == "diagonal":
        return g * np.eye(m)
    if assume_a == "tridiagonal":
        return g * (np.tri(m, k=1) - np.tri(m, k=-2))
    if assume_a == "upper triangular":
        return g * (1 - np.tri(m, k=-1))
    if assume_a == "lower triangular":
        return g * np.tri(m)
    if assume_a == "banded":  # the band of a's nonzero entries
        diff = np.arange(m)[:, None] - np.arange(m)[None, :]  # i - j
        nz = primal(a) != 0
        below = np.max(np.where(nz, diff, -m), axis=(-2, -1))[..., None, None]
        above = np.max(np.where(nz, -diff, -m), axis=(-2, -1))[..., None, None]
        return g * ((diff <= below) & (-diff <= above))
    if assume_a in ("her", "hermitian", "pos", "positive definite") and _is_complex(a):
        return _hermitian_from(g, lower)
    if assume_a in ("sym", "symmetric", "her", "hermitian", "pos", "positive definite"):
        return _symmetric_from(g, lower)
    raise NoRuleError("scipy.linalg: assume_a=%r has no derivative rule" % (assume_a,))


def _stacked(t, p, x):
    """Tangent ``t`` of argument ``p``, lined up with the stack of matrices ``x`` (arguments of
    different stack shapes broadcast; a chunk axis must stay first)."""
    return None if t is None else _widened(t, lead(t, p), len(shape_of(p)), len(shape_of(x)))


def _perm_matrix(piv, m):
    """The 0/1 matrices ``P`` with ``P @ a = a[perm]`` for LAPACK's row interchanges ``piv`` of ``m`` rows."""
    piv = np.asarray(primal(piv))
    perms = np.empty(piv.shape[:-1] + (m,), dtype=np.intp)
    for idx in np.ndindex(piv.shape[:-1]):
        p = np.arange(m)
        for i, j in enumerate(piv[idx]):
            p[i], p[j] = p[j], p[i]
        perms[idx] = p
    return _onehot(perms, m)


def _onehot(perm, m):
    """``P[i, j] = (perm[i] == j)``, so that ``P @ a = a[perm]``."""
    return (np.asarray(perm)[..., :, None] == np.arange(m)).astype(float)
