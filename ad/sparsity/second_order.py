"""Second order: which pairs of inputs interact nonlinearly (the Hessian pattern).

Under ``hessian_sparsity`` the detector keeps one set of pairs for the whole run: each
operation that is nonlinear in values depending on the input adds the pairs its
second derivative can couple, element by element (``x * y``: the dependencies of ``x``
with those of ``y``; ``sin(x)``: those of ``x`` with themselves). Linear operations
(sums, moves, ``A @ x`` with a constant ``A``) and piecewise-linear ones (``abs``,
``maximum``, ``sort``: second derivative zero almost everywhere) add none. The set
covers the Hessian of every value computed, so it holds for the result whatever it
is made of; pairs of values computed and then thrown away are kept too (an
over-approximation, never a missing entry).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np

from context.resolve import declare_engine_code

from . import deps
from .tracer import UNDECIDED, deps_of

declare_engine_code(__file__)

LINEAR, BILINEAR, QUOTIENT, FULL = "linear", "bilinear", "quotient", "full"

_KINDS = {}


def kind_of(fn) -> str:
    """How ``fn`` couples its arguments' dependencies at second order (``FULL`` unless listed)."""
    return _KINDS.get(id(fn), FULL)


def declare(kind: str, *fns) -> None:
    for fn in fns:
        _KINDS[id(fn)] = kind


declare(LINEAR, np.add, np.subtract, np.negative, np.positive, operator.add, operator.sub, operator.iadd,
        operator.isub, operator.neg, operator.pos, np.real, np.conjugate, np.float64, np.float32, float, complex,
        np.absolute, abs, operator.abs, np.fabs, np.maximum, np.minimum, np.fmax, np.fmin, np.clip, max, min,
        np.sort, np.partition, np.where, np.select, np.sum, np.nansum, np.mean, np.nanmean, np.trace, np.cumsum,
        np.nancumsum, np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin, np.ptp, np.median, np.nanmedian,
        np.percentile, np.quantile, np.nanpercentile, np.nanquantile, np.diff, np.gradient, np.trapezoid,
        np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft, np.fft.fft2, np.fft.ifft2,
        np.fft.fftn, np.fft.ifftn, np.fft.rfft2, np.fft.irfft2, np.fft.rfftn, np.fft.irfftn, np.nan_to_num,
        np.copysign, np.unwrap, np.ndarray.astype)
declare(BILINEAR, np.multiply, operator.mul, operator.imul, np.matmul, operator.matmul, np.dot, np.inner,
        np.outer, np.vdot, np.tensordot, np.einsum, np.convolve, np.correlate, np.kron, np.cross)
declare(QUOTIENT, np.true_divide, np.divide, operator.truediv, operator.itruediv)


class Pairs:
    """The pairs found so far: lists of row and column indices (inputs, from 0)."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []

    def cross(self, A: np.ndarray, B: np.ndarray) -> None:
        """Each element couples every slot of ``A`` with every slot of ``B`` there (same shape)."""
        A, B = deps.flat(np.asarray(A)), deps.flat(np.asarray(B))
        if not A.shape[0] or not B.shape[0]:
            return
        a = np.repeat(A, B.shape[0], axis=0)
        b = np.tile(B, (A.shape[0], 1))
        keep = (a > 0) & (b > 0)
        self.rows.append(a[keep] - 1)
        self.cols.append(b[keep] - 1)

    def add(self, kind: str, parts: list, shape: tuple) -> None:
        """The pairs of an operation of ``kind`` whose dependency arguments are ``parts``
        (``None`` for an argument that depends on nothing), lined up to ``shape``."""
        if kind == LINEAR:
            return
        live = [deps.lined(p, shape) for p in parts if p is not None]
        if not live:
            return
        if kind == BILINEAR and len(parts) == 2:
            if parts[0] is not None and parts[1] is not None:
                self.cross(deps.lined(parts[0], shape), deps.lined(parts[1], shape))
            return
        if kind == QUOTIENT and len(parts) == 2:
            if parts[1] is not None:
                b = deps.lined(parts[1], shape)
                self.cross(b, b)
                if parts[0] is not None:
                    self.cross(deps.lined(parts[0], shape), b)
            return
        every = deps.union(live, shape)
        self.cross(every, every)


def after(ctx, fn, args, out) -> None:
    """The pairs of a call of ``fn`` (not elementwise) that gave ``out``: none for a linear
    function, or a bilinear one with one argument depending on the input; else every pair
    of each result element's own dependencies (its second derivatives can couple no other)."""
    kind = kind_of(fn)
    if kind == LINEAR:
        return
    t = ctx._tag
    if kind in (BILINEAR, QUOTIENT) and sum(_depends(a, t) for a in args) < 2:
        return
    for part in (out if isinstance(out, (list, tuple)) else (out,)):
        D = deps_of(part, t)
        if D is not None and D is not UNDECIDED:
            ctx.pairs.cross(D, D)


def _depends(x, t):
    D = deps_of(x, t)
    if isinstance(x, (list, tuple)):
        return any(_depends(e, t) for e in x)
    return D is not None and D is not UNDECIDED and D.shape[0] > 0
