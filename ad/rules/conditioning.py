"""The derivative rule of ``np.linalg.cond``: from the singular values' tangents for ``p`` None,
2 and -2, else from the norms' tangents of the matrix and of its inverse (``cond = ||A|| ||A^-1||``,
``d(A^-1) = -A^-1 dA A^-1``). Its own module: it needs both the SVD's rules
(``decompositions``) and the norms' (``reductions``), which need each other's neither.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from ..engine.forward import frule
from .decompositions import svd_tangent
from .reductions import _norm_tangent
from .shapes import bind
from .tangents import shape_of


@frule(np.linalg.cond)
def _cond(primals, tangents, **kwargs):
    x, g, opts = bind(np.linalg.cond, ("x", "p"), primals, tangents, kwargs)
    p = opts.get("p")
    out = np.linalg.cond(x, p)
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = np.linalg.svd(x, compute_uv=False)
        ds = svd_tangent(x, g, np.linalg.svd(x, full_matrices=False), compute_uv=False)
        hi, lo, dhi, dlo = s[..., 0], s[..., -1], ds[..., 0], ds[..., -1]
        if p == -2:
            hi, lo, dhi, dlo = lo, hi, dlo, dhi
        return out, dhi / lo - hi * dlo / (lo * lo)
    nd = len(shape_of(x))
    axes = (nd - 2, nd - 1)
    inv = np.linalg.inv(x)
    nx, ni = np.linalg.norm(x, p, axis=(-2, -1)), np.linalg.norm(inv, p, axis=(-2, -1))
    dnx = _norm_tangent(np.linalg.norm, x, g, nx, p, axes, True)
    dni = _norm_tangent(np.linalg.norm, inv, -(inv @ g @ inv), ni, p, axes, True)
    return out, dnx * ni + nx * dni
