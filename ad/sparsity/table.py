"""Which function propagates dependencies how: the rule table of sparsity detection.

Elementwise functions come from forward mode's own table (every ``defjvp`` rule of a
broadcasting function, with the arguments it marks ``ZERO``), so a rule added there
serves here too. The rest are listed below by kind (``families``); ``defsparsity``
adds an entry.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import cmath
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.forward import JVP_RULES, ON_DEFJVP, ZERO
from . import families as F
from . import linear, padding

_SHAPE_ONLY = {np.shape, np.ndim, np.size, np.empty_like, np.zeros_like, np.ones_like, np.result_type, np.isscalar,
               np.iscomplexobj, np.isrealobj}
_done = set()


def defsparsity(fn: Callable[..., Any], kind: Any) -> Callable[..., Any]:
    """Register how ``fn`` propagates dependencies: ``kind`` is a rule from ``ad.sparsity.families``
    (``elementwise()``, ``reduction(...)``, ``layout(...)``, ``dense()``, ...)."""
    F.primitive(fn, kind)
    _done.add(id(fn))
    return fn


def _from_forward(fn, jvps, elementwise, argtypes):
    if id(fn) in _done or not elementwise:
        return
    if all(j is ZERO for j in jvps):
        F.primitive(fn, F.zero(values=fn not in _SHAPE_ONLY))
    else:
        F.primitive(fn, F.elementwise(tuple(i for i, j in enumerate(jvps) if j is ZERO)))


def install() -> None:
    """Register the table (elementwise rules from forward mode's, now and as they are added)."""
    for fn, kind in _explicit():
        defsparsity(fn, kind)
    for fn, jvps, elementwise, argtypes in list(JVP_RULES.values()):
        _from_forward(fn, jvps, elementwise, argtypes)
    ON_DEFJVP.append(_from_forward)


def _explicit():
    E, Z, R, L, S, D = F.elementwise, F.zero, F.reduction, F.layout, F.spread, F.dense
    out = [(operator.getitem, F.getitem), (operator.setitem, F.setitem)]
    # comparisons and truth: undecided under the global detector
    for fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.truth,
               operator.not_, int, round, math.floor, math.ceil, math.trunc, np.sign, np.argmax, np.argmin,
               np.argsort, np.nonzero, np.flatnonzero, np.argwhere, np.searchsorted, np.any, np.all,
               np.count_nonzero, np.nanargmax, np.nanargmin):
        out.append((fn, Z()))
    for fn in (np.sum, np.nansum, np.prod, np.nanprod, np.mean, np.nanmean, np.max, np.min, np.amax, np.amin,
               np.nanmax, np.nanmin, np.ptp, np.median, np.nanmedian, np.std, np.var, np.nanstd, np.nanvar):
        out.append((fn, R()))
    out += [(np.average, R(1, data=(0, 2))), (np.percentile, R(2)), (np.quantile, R(2)),
            (np.nanpercentile, R(2)), (np.nanquantile, R(2)), (np.linalg.norm, R(2)),
            (np.linalg.vector_norm, R(1)), (np.linalg.matrix_norm, R(axes=(-2, -1))),
            (np.trace, R(axes="all")), (math.fsum, R(axes="all")), (math.hypot, R(axes="all", data="all")),
            (math.dist, R(axes="all", data=(0, 1))), 
            (np.linalg.det, R(axes=(-2, -1))), (np.linalg.slogdet, D()), (np.linalg.cond, D())]
    for fn in (np.cumsum, np.cumprod, np.nancumsum, np.nancumprod):
        out.append((fn, F.scan()))
    out += [(np.sort, S()), (np.partition, S(2)), (np.unwrap, E())]
    for fn in (np.linalg.inv, np.linalg.pinv, np.linalg.solve, np.linalg.lstsq, np.linalg.eig, np.linalg.eigh,
               np.linalg.eigvals, np.linalg.eigvalsh, np.linalg.svd, np.linalg.svdvals, np.linalg.qr,
               np.linalg.cholesky, np.linalg.matrix_power, np.linalg.tensorinv, np.linalg.tensorsolve,
               np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn, np.fft.rfft2, np.fft.irfft2, np.fft.rfftn,
               np.fft.irfftn, np.polyval, np.polyder):
        out.append((fn, D()))
    for fn in (np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft):
        out.append((fn, linear.along_axis()))
    # elementwise beyond forward mode's defjvp table (frule there)
    for fn in (np.clip, np.nan_to_num, np.angle, np.real_if_close, np.float64, np.float32, np.float16,
               np.longdouble, np.complex128, np.complex64, np.clongdouble, np.real, float, complex):
        out.append((fn, E()))
    out += [(np.imag, Z(values=False)), (np.ndarray.astype, linear.astype()), (np.where, F.select()),
            (np.select, linear.select_many())]
    # moving, copying, selecting elements
    for fn in (np.reshape, np.ravel, np.transpose, np.moveaxis, np.rollaxis, np.swapaxes, np.squeeze,
               np.expand_dims, np.flip, np.fliplr, np.flipud, np.rot90, np.broadcast_to, np.copy,
               np.array, np.asarray, np.asanyarray, np.ascontiguousarray, np.take, np.take_along_axis,
               np.repeat, np.tile, np.diag, np.diagflat, np.diagonal, np.triu, np.tril, np.split,
               np.array_split, np.hsplit, np.vsplit, np.dsplit, np.delete, np.fft.fftshift, np.fft.ifftshift,
               np.resize, np.ndarray.__copy__, np.ndarray.__deepcopy__, np.ndarray.flatten, np.ndarray.copy):
        out.append((fn, L()))
    out += [(np.roll, F.along_slots(F.roll_slots)), (np.concatenate, F.along_slots(F.concatenate_slots, (("seq", 0),)))]
    for fn in (np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.block):
        out.append((fn, L((("seq", 0),))))
    out += [(np.append, L((0, 1))), (np.insert, L((0, 2))), (np.full, L((1,))), (np.full_like, L((1,))),
            (np.broadcast_arrays, L(("all",))), (np.atleast_1d, L(("all",))), (np.atleast_2d, L(("all",))),
            (np.atleast_3d, L(("all",))), (np.pad, padding.rule()), (cmath.polar, D()), (cmath.rect, D())]
    out += linear.table()
    return out
