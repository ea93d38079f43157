"""Reverse mode on complex values: the rules that need a form of their own, and the functions
whose reverse rules are checked on complex values.

The convention is JAX's (``engine/reverse.py``): a cotangent ``u`` pairs with a tangent ``t``
as ``Re(sum(u * t))``. A holomorphic function's pullback is then its forward rule's factor
times ``u``, as for real values, so the rules derived from forward rules hold as they are. The
functions that are not holomorphic need their own: ``|z|`` (its pullback is ``u * conj(z) / |z|``,
0 at 0), ``imag`` (``-1j * u``), ``angle`` (``-1j * u * conj(z) / |z|^2``, also ``cmath.phase``); ``real`` (``u``) and
``conj`` (``conj(u)``) already have them, as have ``vdot`` (``conj(u * b)`` and ``u * conj(a)``)
the vector norms (``u * conj(x) / |x|`` per element, scaled), the matrix norms (the spectral and
nuclear norms' cotangents are ``conj(u_i v_i^H)`` of the singular vectors), and ``var`` and ``std``
(the conjugate of the deviation from the mean).

``tests/test_ad_reverse_complex.py`` checks every function listed in ``CHECKED`` with the
dot-product test against forward mode, on complex arguments (and on real ones mixed with
complex ones for the binary functions). A complex value reaching any other function in
reverse mode raises ``ComplexValuesError`` naming it.

Imported after the rules derived from forward rules are installed, so that these replace them.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import cmath
import operator

import numpy as np

from context.tagging import native_primitive
from context.tagging.values import primal

from ..engine.forward import ZERO
from ..engine.reverse import ReverseCtx, complex_checked, defvjp, vjp_primitive
from . import array_api
from .arrays import _clipped
from .indexing import scattered_sum
from .layout import _appended, _padded
from .pullbacks import from_vjp
from .special import conjugate_sign, dabs, sign_cotangent
from .ufuncs import SIGN_IS_DIRECTION
from .vjps_shapes import as_arg


def abs_vjp(u, ans, x):
    """The pullback of ``|x|``: ``u * sign(x)`` for real ``x``; ``u * conj(x) / |x|`` for complex ``x``
    (0 where ``x`` is 0, as forward mode's tangent)."""
    if not np.iscomplexobj(primal(x)):
        return dabs(u, x)
    return as_arg(u * conjugate_sign(x), x)


def imag_vjp(u, ans, val):
    """The pullback of ``imag(z)``: ``-1j * u`` (its real part, 0, reaches a real argument)."""
    return as_arg(-1j * u, val) if np.iscomplexobj(primal(val)) else as_arg(0.0 * u, val)


def angle_vjp(u, ans, z, deg=False):
    """The pullback of ``angle(z)``: ``-1j * u * conj(z) / |z|^2`` for complex ``z`` (its tangent is
    ``Im(conj(z) dz) / |z|^2``; 0 at 0), in degrees if asked; 0 for real ``z`` (piecewise constant)."""
    if not np.iscomplexobj(primal(z)):
        return as_arg(0.0 * u, z)
    squared = np.real(z * np.conjugate(z))
    zero = primal(squared) == 0
    scale = 180.0 / np.pi if deg else 1.0
    return as_arg(-1j * scale * u * np.where(zero, 0.0, np.conjugate(z) / np.where(zero, 1.0, squared)), z)


for _fn in (np.absolute, builtins.abs, operator.abs):
    defvjp(_fn, abs_vjp)
defvjp(np.imag, imag_vjp)
defvjp(np.angle, angle_vjp)
defvjp(cmath.phase, angle_vjp)


def sign_vjp(u, ans, x):
    """The pullback of NumPy 2's ``sign`` of complex ``x`` (``x / |x|``)."""
    return as_arg(sign_cotangent(u, x), x)


_SIGN_CONSTANT = vjp_primitive(np.sign, (ZERO,))  # real values (and NumPy 1's complex sign): piecewise constant
_SIGN_COMPLEX = vjp_primitive(np.sign, (from_vjp(sign_vjp),))


@ReverseCtx.primitive(np.sign)
@native_primitive
def _sign(ctx, x, **kwargs):
    if SIGN_IS_DIRECTION and np.iscomplexobj(primal(x)):
        return _SIGN_COMPLEX(ctx, x, **kwargs)
    return _SIGN_CONSTANT(ctx, x, **kwargs)

TRAPEZOID = getattr(np, "trapezoid", None) or np.trapz  # (NumPy 2 renamed it)
ELEMENTWISE = (
    np.add, np.subtract, np.multiply, np.divide, np.negative, np.positive, np.power, np.square,
    np.reciprocal, np.sqrt, np.exp, np.expm1, np.log, np.log1p, np.log2, np.log10,
    np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh,
    np.arctanh, np.exp2, np.sinc, np.float_power,
    np.conjugate, np.real, np.imag, np.absolute, np.angle, np.sign,
    np.maximum, np.minimum, np.fmax, np.fmin,  # (complex values order as NumPy sorts them: the rule selects)
)
OPERATORS = (
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos, operator.pow, builtins.pow,
    operator.abs, builtins.abs, operator.matmul, operator.getitem,
)
LINEAR = (
    np.sum, np.mean, np.cumsum, np.dot, np.matmul, np.outer, np.reshape, np.transpose, np.ravel,
    np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.array, np.flip, np.roll,
    np.squeeze, np.expand_dims, np.swapaxes, np.tile, np.repeat,
    np.diff, np.trace, np.diag, np.einsum, np.tensordot, np.prod, np.cumprod, np.where, np.sort, TRAPEZOID,
    np.linalg.inv, np.linalg.solve, np.linalg.det, np.vdot, np.linalg.norm,
    np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
    np.fft.rfft2, np.fft.rfftn, np.fft.irfft2, np.fft.irfftn, np.fft.hfft, np.fft.ihfft,
)
# Checked later. Most by the rules derived from forward mode or written for real values, which hold as
# they are; var, std, vecdot, vecmat, convolve, correlate, the matrix norms and the decompositions
# below (pinv's terms in dA^H, lstsq's residuals) have forms of their own for complex values.
DECOMPOSITIONS = (np.linalg.slogdet, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.cholesky, np.linalg.pinv,
                  np.linalg.lstsq, np.linalg.matrix_rank, np.linalg.svd, np.linalg.svdvals, np.linalg.eigvals,
                  np.linalg.qr, np.linalg.cond, np.linalg.eig)
SHAPES = (
    np.ndarray.astype, np.shape, np.ndim, np.size, np.iscomplexobj, np.isrealobj, np.isscalar, np.result_type,
    np.pad, _padded, np.append, _appended, np.linalg.tensorsolve, np.linalg.tensorinv, np.ufunc.at, scattered_sum,
    np.moveaxis, np.atleast_1d, np.atleast_2d, np.atleast_3d, np.broadcast_to, np.take, np.take_along_axis,
    np.split, np.array_split, np.hsplit, np.vsplit, np.rot90, np.fliplr, np.flipud, np.triu, np.tril, np.diagonal,
    np.copy, np.asarray, np.asanyarray, np.full_like, np.zeros_like, np.ones_like, np.ufunc.accumulate,
    np.rollaxis, np.full, np.dsplit, np.broadcast_arrays, np.diagflat, np.fft.fftshift, np.fft.ifftshift,
    np.ascontiguousarray, np.block, np.empty_like, np.partition, np.real_if_close, np.complex64, np.complex128, np.ufunc.reduce,
    np.clongdouble, np.nan_to_num, np.round, np.around, np.select, np.piecewise, np.polyder, np.ediff1d,
    np.gradient, np.linspace, np.logspace, np.geomspace, np.interp, np.iscomplex, np.isreal,
) + tuple(f for f in (getattr(np, "permute_dims", None), getattr(np, "concat", None)) if f is not None)
PRODUCTS = (np.kron, np.cross, np.inner, np.polyval, np.linalg.multi_dot, np.linalg.matrix_power, np.convolve,
            np.correlate) + tuple(
    getattr(np, f) for f in ("vecdot", "matvec", "vecmat") if hasattr(np, f))  # (vecdot, vecmat: conj of the first)
STATISTICS = (np.average, np.nansum, np.nanmean, np.var, np.std, np.nanvar, np.nanstd, np.nanprod, np.nancumsum,
              np.nancumprod, np.max, np.amax, np.min, np.amin, np.ptp, np.clip, _clipped, np.median, np.nanmedian,
              np.nanmax, np.nanmin) + tuple(
    f for f in (getattr(np.linalg, "matrix_norm", None), getattr(np.linalg, "vector_norm", None)) if f is not None)
CMATH = (cmath.exp, cmath.log, cmath.log10, cmath.sqrt, cmath.sin, cmath.cos, cmath.tan, cmath.asin, cmath.acos,
         cmath.atan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh, cmath.acosh, cmath.atanh, cmath.phase,
         cmath.polar, cmath.rect)
# NumPy 2's array-API functions, through NumPy's code (``array_api``): those whose inner functions are all checked
ARRAY_API = tuple(f for f in array_api.FUNCTIONS if f is not getattr(np.linalg, "svdvals", None))  # (in DECOMPOSITIONS)
CHECKED = ELEMENTWISE + OPERATORS + LINEAR + DECOMPOSITIONS + SHAPES + PRODUCTS + STATISTICS + CMATH + ARRAY_API

complex_checked(*CHECKED)
