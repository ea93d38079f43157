"""Reverse mode with complex values inside the function (real inputs, real results).

Every function whose reverse rule lets complex values through (``vjps_complex.CHECKED``) is
checked here against forward mode, which is itself checked against central differences on
complex inputs: a complex argument ``z = a + 1j b`` is made of two real inputs, the result
is paired with a random complex cotangent ``u`` as ``Re(sum(u * f(z)))``, and the reverse
gradient in ``(a, b)`` must equal the forward one. That is the dot-product test on complex
values (``<u, J v> = <J^T u, v>`` with the pairing ``Re(sum(u * t))``).
"""

import builtins
import cmath
import operator

import numpy as np
import pytest

import scipy.linalg as sl
import scipy.signal as ss
import scipy.special as sc
from scipy.special import _ufuncs as scu

import ad
from ad.engine.forward import defjvp
from ad.engine.reverse import COMPLEX_CHECKED, complex_checked, defvjp
from ad.engine.traced import ComplexValuesError
from ad.rules import array_api, arrays, indexing, layout, vjps_complex, vjps_scipy_linalg, vjps_scipy_linalg_more
from ad.rules import scipy_special, vjps_scipy_signal, vjps_scipy_special

R, F = ad.ReverseMode(), ad.ForwardMode()
SHAPE = (2, 3)


def _split(n_complex, n_real, shape=SHAPE):
    """A function of one real vector made of ``n_complex`` complex arrays and ``n_real`` real ones."""
    size = int(np.prod(shape))

    def parts(v):
        out = []
        k = 0
        for _ in range(n_complex):
            out.append(np.reshape(v[k:k + size], shape) + 1j * np.reshape(v[k + size:k + 2 * size], shape))
            k += 2 * size
        for _ in range(n_real):
            out.append(np.reshape(v[k:k + size], shape))
            k += size
        return out

    return parts, size * (2 * n_complex + n_real)


def agree(f, n_complex, n_real=0, seed=0, shape=SHAPE, positive=False):
    """Reverse mode's gradient of ``Re(sum(u * f(*parts)))`` equals forward mode's (inputs of
    magnitude 0.3 to 1.2, of either sign unless ``positive``)."""
    rng = np.random.default_rng(seed)
    parts, n = _split(n_complex, n_real, shape)
    v = rng.uniform(0.3, 1.2, n) * (1.0 if positive else rng.choice([-1.0, 1.0], n))
    out = np.asarray(f(*parts(v)))
    u = rng.standard_normal(out.shape) + 1j * rng.standard_normal(out.shape)

    def paired(w):
        return np.sum(np.real(u * f(*parts(w))))

    got, expected = ad.gradient(paired, v, backend=R), ad.gradient(paired, v, backend=F)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)


UNARY = [np.negative, np.positive, np.square, np.reciprocal, np.sqrt, np.exp, np.expm1, np.log, np.log1p,
         np.log2, np.log10, np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.arcsin, np.arccos, np.arctan,
         np.arcsinh, np.arccosh, np.arctanh, np.exp2, np.sinc, np.conjugate, np.real, np.imag, np.angle,
         np.absolute, np.sign, operator.neg, operator.pos, operator.abs, builtins.abs]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power, operator.add, operator.sub, operator.mul,
          operator.truediv, operator.pow, builtins.pow, np.maximum, np.minimum, np.fmax, np.fmin]


@pytest.mark.parametrize("fn", UNARY, ids=lambda fn: getattr(fn, "__name__", str(fn)))
def test_unary(fn):
    agree(fn, 1)


@pytest.mark.parametrize("fn", BINARY, ids=lambda fn: getattr(fn, "__name__", str(fn)))
def test_binary_complex_and_mixed_with_real(fn):
    agree(fn, 2)
    agree(lambda z, x: fn(z, x), 1, 1)
    agree(lambda z, x: fn(x, z), 1, 1)  # a negative real base too: the derivative in z uses its complex log


LINEAR = {
    np.sum: lambda z: np.sum(z, axis=0),
    np.mean: lambda z: np.mean(z, axis=1),
    np.cumsum: lambda z: np.cumsum(z, axis=1),
    np.dot: lambda z: np.dot(z, z.T),
    np.matmul: lambda z: np.matmul(z.T, z),
    operator.matmul: lambda z: z @ z.T,
    np.outer: lambda z: np.outer(z[0], z[1]),
    np.reshape: lambda z: np.reshape(z, (3, 2)),
    np.transpose: lambda z: np.transpose(z),
    np.ravel: lambda z: np.ravel(z),
    np.concatenate: lambda z: np.concatenate([z, 2 * z]),
    np.stack: lambda z: np.stack([z, z * z]),
    np.flip: lambda z: np.flip(z, 1),
    np.roll: lambda z: np.roll(z, 1, axis=1),
    operator.getitem: lambda z: z[1, ::-1],
    np.hstack: lambda z: np.hstack([z, 2 * z]),
    np.vstack: lambda z: np.vstack([z, z * z]),
    np.dstack: lambda z: np.dstack([z, z]),
    np.column_stack: lambda z: np.column_stack([z[0], z[1]]),
    np.array: lambda z: np.array([z[0], z[1] * 2]),
    np.squeeze: lambda z: np.squeeze(z[None]),
    np.expand_dims: lambda z: np.expand_dims(z, 0),
    np.swapaxes: lambda z: np.swapaxes(z, 0, 1),
    np.tile: lambda z: np.tile(z, 2),
    np.repeat: lambda z: np.repeat(z, 2, axis=1),
    np.diff: lambda z: np.diff(z, axis=1),
    np.trace: lambda z: np.trace(z[:, :2]),
    np.diag: lambda z: np.diag(z[:, :2]),
    np.einsum: lambda z: np.einsum("ij,kj->ik", z, z),
    np.tensordot: lambda z: np.tensordot(z, z, axes=([1], [1])),
    np.prod: lambda z: np.prod(z, axis=1),
    np.cumprod: lambda z: np.cumprod(z, axis=1),
    np.where: lambda z: np.where(np.arange(3) > 0, z, 2 * z),
    np.sort: lambda z: np.sort(z, axis=1),
    vjps_complex.TRAPEZOID: lambda z: vjps_complex.TRAPEZOID(z, axis=1),
    np.linalg.inv: lambda z: np.linalg.inv(z[:, :2]),
    np.linalg.solve: lambda z: np.linalg.solve(z[:, :2], z[:, 2]),
    np.linalg.det: lambda z: np.linalg.det(z[:, :2]),
    np.linalg.eigh: lambda z: np.linalg.eigh(z.T @ np.conj(z) + np.diag([0.0, 1.0, 3.0]))[0] * 2
    + np.linalg.eigh(z[:, 1:], UPLO="U")[0].sum(),  # (its eigenvectors: test_vectors_with_a_free_phase_in_reverse_mode)
    np.linalg.cholesky: lambda z: np.linalg.cholesky(z.T @ np.conj(z) + np.diag([1.0, 2.0, 3.0]))
    + np.linalg.cholesky(z.T @ np.conj(z) + np.eye(3), upper=True) + np.linalg.cholesky(z[:, :2] + 3 * np.eye(2)).sum(),
    np.linalg.pinv: lambda z: np.linalg.pinv(z) + np.linalg.pinv(np.outer(z[0, :2], z[1])),  # (rank 1: every term)
    np.linalg.lstsq: lambda z: np.linalg.lstsq(z.T, z[0] * z[1] + 1, rcond=None)[0]
    + np.linalg.lstsq(z.T, z[0] + 1, rcond=None)[1].sum() + np.linalg.lstsq(z.T, z[1], rcond=None)[3].sum(),
    np.linalg.matrix_rank: lambda z: z * np.linalg.matrix_rank(z),
    np.linalg.svd: lambda z: np.linalg.svd(z, compute_uv=False) + np.linalg.svd(z.T)[1]
    + np.linalg.svd(z.T @ np.conj(z) + np.eye(3), hermitian=True, compute_uv=False)[:2],  # (singular values)
    np.linalg.svdvals: lambda z: np.linalg.svdvals(np.stack([z, 2 * z])),
    np.linalg.eigvals: lambda z: np.linalg.eigvals(z[:, :2]) + np.linalg.eigvals(np.stack([z[:, 1:], np.real(z[:, :2])])),
    np.linalg.eigvalsh: lambda z: np.linalg.eigvalsh(z[:, :2]) + np.linalg.eigvalsh(np.stack([z[:, 1:], z[:, :2]]), "U"),
    np.linalg.slogdet: lambda z: np.linalg.slogdet(z[:, :2])[1] + np.linalg.slogdet(z[:, :2] @ z[:, 1:].T)[0],
    np.linalg.qr: lambda z: np.concatenate([np.ravel(p) for p in (*np.linalg.qr(z.T), *np.linalg.qr(z))]),  # (tall, wide)
    np.linalg.eig: lambda z: np.linalg.eig(z[:, :2])[1] * np.linalg.eig(z[:, 1:])[0],  # (more in test_eig_in_reverse_mode)
    np.vdot: lambda z: np.vdot(z, z * z + 1) + np.vdot(z * z, np.real(z)),
    np.rollaxis: lambda z: np.rollaxis(z[None], 2),
    np.full: lambda z: np.full((2, 2), z[0, 1]),
    np.dsplit: lambda z: np.dsplit(z[None], [1])[1],
    np.broadcast_arrays: lambda z: np.broadcast_arrays(z, z[:1])[1] * 2 + np.broadcast_arrays(z, z[:1])[0],
    np.diagflat: lambda z: np.diagflat(z[0]),
    np.fft.fftshift: lambda z: np.fft.fftshift(z),
    np.fft.ifftshift: lambda z: np.fft.ifftshift(z, axes=1),
    np.ascontiguousarray: lambda z: np.ascontiguousarray(z.T),
    np.block: lambda z: np.block([[z, z], [z * 2, z]]),
    np.empty_like: lambda z: np.empty_like(z) * 0 + z,
    np.partition: lambda z: np.partition(z, 1, axis=1),
    np.real_if_close: lambda z: np.real_if_close(z) + np.real_if_close(np.real(z) + 0j),
    np.complex64: lambda z: np.complex64(z[0, 1]) * z,
    np.complex128: lambda z: np.complex128(z[0, 1]) * z + np.complex128(np.real(z[1, 1])),  # (of a real value too)
    np.clongdouble: lambda z: np.complex128(np.clongdouble(z[0, 1])) * z,
    np.nan_to_num: lambda z: np.nan_to_num(np.where([True, False, True], z, np.inf)),
    np.round: lambda z: np.round(z, 2) + z,
    np.around: lambda z: np.around(z, 1) * 0 + z,
    np.select: lambda z: np.select([np.array([True, False, False]), np.array([False, True, False])], [z, 2 * z], z * z),
    np.piecewise: lambda z: np.piecewise(z[0], [np.array([True, False, True])], [lambda t: t * t, lambda t: 2 * t]),
    np.polyder: lambda z: np.polyder(z[0], 1),
    np.ediff1d: lambda z: np.ediff1d(z, to_begin=z[0, 0]),
    np.gradient: lambda z: np.gradient(z, axis=1) + np.gradient(z, 0.5, axis=1, edge_order=2),
    np.linspace: lambda z: np.linspace(z[0, 0], z[1, 1], 5),
    np.logspace: lambda z: np.logspace(z[0, 0], z[1, 1], 4),
    np.geomspace: lambda z: np.geomspace(z[0, 0] + 2, z[1, 1] + 3, 4),
    np.interp: lambda z: np.interp(np.array([0.5, 1.5, 3.0]), np.array([0.0, 1.0, 2.0]), z[0], right=z[1, 0]),
    np.nanvar: lambda z: np.nanvar(z, axis=1) + np.nanvar(np.where([True, False, True], z, np.nan), ddof=1),
    np.nanstd: lambda z: np.nanstd(z, axis=1) + np.nanstd(np.where([True, False, True], z, np.nan)),
    np.nanprod: lambda z: np.nanprod(np.where([True, False, True], z, np.nan), axis=1),
    np.nancumsum: lambda z: np.nancumsum(np.where([True, False, True], z, np.nan), axis=1),
    np.nancumprod: lambda z: np.nancumprod(z, axis=1),
    np.max: lambda z: np.max(z, axis=1),
    np.amax: lambda z: np.amax(z),
    np.min: lambda z: np.min(z, axis=0),
    np.amin: lambda z: np.amin(z, axis=1),
    np.ptp: lambda z: np.ptp(z, axis=1),
    np.clip: lambda z: np.clip(z, -1, 1) + np.clip(z, -0.5 + 0.5j, None),
    np.iscomplex: lambda z: z * np.iscomplex(z * np.array([1.0, 0.0, 1.0])),
    np.isreal: lambda z: z * np.isreal(z * np.array([1.0, 0.0, 1.0])),
    arrays._clipped: lambda z: arrays._clipped(z, None, 0.5),
    np.linalg.cond: lambda z: np.linalg.cond(z[:, :2] + 2 * np.eye(2)) + np.linalg.cond(z) + np.linalg.cond(z.T, -2)
    + np.linalg.cond(np.stack([z[:, :2], z[:, 1:] + np.eye(2)]), "fro") + np.linalg.cond(z[:, 1:], 1)
    + np.linalg.cond(z[:, 1:] - np.eye(2), -np.inf) + np.linalg.cond(z[:, :2], "nuc"),
    np.linalg.norm: lambda z: (np.linalg.norm(z) + np.linalg.norm(z, axis=1) + np.linalg.norm(z, "fro")
                               + np.linalg.norm(z, ord=1, axis=0).sum() + np.linalg.norm(z, ord=3, axis=1).sum()
                               + np.linalg.norm(z, ord=np.inf, axis=1).sum()),
    np.fft.fft: lambda z: np.fft.fft(z) + np.fft.fft(z, n=5, axis=0, norm="ortho") .sum() + np.fft.fft(z, n=2).sum(),
    np.fft.ifft: lambda z: np.fft.ifft(z, axis=0) + np.fft.ifft(z, n=4, norm="forward").sum(),
    np.fft.fft2: lambda z: np.fft.fft2(z) + np.fft.fft2(z, s=(3, 2)).sum(),
    np.fft.ifft2: lambda z: np.fft.ifft2(z, norm="ortho"),
    np.fft.fftn: lambda z: np.fft.fftn(z, s=(4,)).sum() + np.fft.fftn(z),
    np.fft.ifftn: lambda z: np.fft.ifftn(z, axes=(0,)),
    np.fft.irfft: lambda z: np.fft.irfft(z) + np.fft.irfft(z, n=7, axis=0, norm="ortho").sum()
    + np.fft.irfft(z, n=2).sum() + np.fft.irfft(z, n=9, norm="forward").sum(),
}


@pytest.mark.parametrize("fn", list(LINEAR), ids=lambda fn: getattr(fn, "__name__", str(fn)))
def test_linear(fn):
    agree(LINEAR[fn], 1)


def _added_at(z):
    b = np.zeros(4, dtype=complex)
    np.add.at(b, [0, 1, 1], z[0, :3])
    np.subtract.at(b, [3, 3], z[1, :2] * z[0, :2])
    return b * z[1, 0]


MORE = {  # shapes, products, statistics and cmath (scalars taken from the array)
    np.ndarray.astype: lambda z: z.astype(np.complex128) * 2 + z.astype(np.complex64).astype(complex),
    np.iscomplexobj: lambda z: z * np.iscomplexobj(z),
    np.isrealobj: lambda z: z * (1 + np.isrealobj(z)),
    np.isscalar: lambda z: z * (1 + np.isscalar(z)),
    np.result_type: lambda z: z.astype(np.result_type(z, 1.0)),
    np.ufunc.at: lambda z: _added_at(z),
    indexing.scattered_sum:
    lambda z: indexing.scattered_sum((4,), np.complex128, (np.array([0, 1, 1]),), z[0, :3]),
    np.shape: lambda z: z * np.shape(z)[0],
    np.ndim: lambda z: z * np.ndim(z),
    np.size: lambda z: z * np.size(z),
    np.pad: lambda z: np.pad(z, 1) + np.pad(z, ((0, 1), (2, 0)), mode="reflect").sum(),
    layout._padded: lambda z: np.pad(z, 2, mode="edge") + np.pad(z, 2, mode="wrap") + np.pad(z, 2, constant_values=2.0),
    np.append: lambda z: np.append(z, z[0]),
    layout._appended: lambda z: np.append(z, z, axis=0),
    np.linalg.tensorsolve: lambda z: np.linalg.tensorsolve(z[:, :2], z[:, 2]),
    np.linalg.tensorinv: lambda z: np.linalg.tensorinv(z[:, :2], ind=1),
    np.moveaxis: lambda z: np.moveaxis(z, 0, 1),
    np.atleast_1d: lambda z: np.atleast_1d(z[0, 0]),
    np.atleast_2d: lambda z: np.atleast_2d(z[0]),
    np.atleast_3d: lambda z: np.atleast_3d(z),
    np.broadcast_to: lambda z: np.broadcast_to(z[0], (4, 3)),
    np.take: lambda z: np.take(z, [2, 0, 0], axis=1) + np.take(z, [5, 5]).sum(),
    np.take_along_axis: lambda z: np.take_along_axis(z, np.array([[2, 0], [1, 1]]), axis=1),
    np.split: lambda z: np.split(z, 3, axis=1)[1] + np.split(z, 3, axis=1)[2],
    np.array_split: lambda z: np.array_split(z, 2, axis=1)[0],
    np.hsplit: lambda z: np.hsplit(z, 3)[0],
    np.vsplit: lambda z: np.vsplit(z, 2)[1],
    np.rot90: lambda z: np.rot90(z),
    np.fliplr: lambda z: np.fliplr(z),
    np.flipud: lambda z: np.flipud(z),
    np.triu: lambda z: np.triu(z),
    np.tril: lambda z: np.tril(z, 1),
    np.diagonal: lambda z: np.diagonal(z),
    np.copy: lambda z: np.copy(z) * 2,
    np.asarray: lambda z: np.asarray(z) * 2,
    np.asanyarray: lambda z: np.asanyarray(z) * 2,
    np.full_like: lambda z: np.full_like(z, 2.0) * z + np.full_like(z, z[0, 0]),
    np.zeros_like: lambda z: np.zeros_like(z) + z,
    np.ones_like: lambda z: np.ones_like(z) * z,
    np.ufunc.accumulate: lambda z: np.add.accumulate(z, axis=1) + np.multiply.accumulate(z),
    np.ufunc.reduce: lambda z: np.add.reduce(z, axis=1) + np.multiply.reduce(z, axis=0)[:2],
    np.median: lambda z: np.median(z, axis=0) + np.median(z) + np.median(z.T, axis=1, keepdims=True)[:, 0],
    np.nanmedian: lambda z: np.nanmedian(np.where(np.abs(z) > 1.5, np.nan, z), axis=1),
    np.nanmax: lambda z: np.nanmax(np.where(np.abs(z) > 1.5, np.nan, z), axis=0) + np.nanmax(z),
    np.nanmin: lambda z: np.nanmin(np.where(np.abs(z) > 1.5, np.nan, z), axis=1)[:1] + np.nanmin(z),
    np.kron: lambda z: np.kron(z, z[:, :2]),
    np.convolve: lambda z: np.convolve(z[0], z[1, :2]) + np.convolve(z[0], np.real(z[1]), "same").sum()
    + np.convolve(z[0, :2], z[1], "valid").sum(),
    np.correlate: lambda z: np.correlate(z[0], z[1, :2]) + np.correlate(z[0, :2], z[1], "full").sum()
    + np.correlate(np.real(z[0]), z[1], "same").sum(),  # (correlate conjugates its second operand)
    np.cross: lambda z: np.cross(z[0], z[1]),
    np.inner: lambda z: np.inner(z, z),
    np.polyval: lambda z: np.polyval(z[0], z[1]),
    np.linalg.multi_dot: lambda z: np.linalg.multi_dot([z, z.T, z]),
    np.linalg.matrix_power: lambda z: np.linalg.matrix_power(z[:, :2], 3),
    np.average: lambda z: np.average(z, axis=1, weights=[1.0, 2.0, 3.0]),
    np.nansum: lambda z: np.nansum(z, axis=0),
    np.nanmean: lambda z: np.nanmean(z, axis=0),
    np.var: lambda z: np.var(z, axis=1) + np.var(z),
    np.std: lambda z: np.std(z, axis=0, ddof=1) + np.std(z),
    cmath.exp: lambda z: np.array([cmath.exp(z[0, 0]), cmath.exp(z[1, 2])]),
    cmath.log: lambda z: np.array([cmath.log(z[0, 0]), cmath.log(z[1, 2], 3.0)]),
    cmath.log10: lambda z: cmath.log10(z[0, 1]),
    cmath.sqrt: lambda z: cmath.sqrt(z[0, 1]),
    cmath.sin: lambda z: cmath.sin(z[0, 1]),
    cmath.cos: lambda z: cmath.cos(z[0, 1]),
    cmath.tan: lambda z: cmath.tan(z[0, 1]),
    cmath.asin: lambda z: cmath.asin(z[0, 1]),
    cmath.acos: lambda z: cmath.acos(z[0, 1]),
    cmath.atan: lambda z: cmath.atan(z[0, 1]),
    cmath.sinh: lambda z: cmath.sinh(z[0, 1]),
    cmath.cosh: lambda z: cmath.cosh(z[0, 1]),
    cmath.tanh: lambda z: cmath.tanh(z[0, 1]),
    cmath.asinh: lambda z: cmath.asinh(z[0, 1]),
    cmath.acosh: lambda z: cmath.acosh(z[0, 1]),
    cmath.atanh: lambda z: cmath.atanh(z[0, 1]),
    cmath.phase: lambda z: cmath.phase(z[0, 1]) + cmath.phase(z[1, 0].real),
    cmath.polar: lambda z: np.array(cmath.polar(z[0, 1])),
    cmath.rect: lambda z: cmath.rect(abs(z[0, 1]), z[1, 2].real) + cmath.rect(2.0, z[0, 0].imag),
}
for _name, _case in (("permute_dims", lambda z: np.permute_dims(z, (1, 0))), ("concat", lambda z: np.concat([z, z]))):
    if hasattr(np, _name):
        MORE[getattr(np, _name)] = _case
for _name in ("matrix_norm", "vector_norm"):
    if hasattr(np.linalg, _name):
        MORE[getattr(np.linalg, _name)] = (lambda f: lambda z: f(z) + f(np.stack([z, 2 * z]), keepdims=True).sum())(
            getattr(np.linalg, _name))


for _name, _case in (("vecdot", lambda z: np.vecdot(z, z ** 2) + np.vecdot(z, z * 2 + 1, axis=0).sum()),
                     ("matvec", lambda z: np.matvec(z.T @ z, z[0])),
                     ("vecmat", lambda z: np.vecmat(z[1], z.T @ z) + np.vecmat(np.real(z[0]), z.T @ z))):
    if hasattr(np, _name):  # (vecdot and vecmat take the conjugate of their first operand)
        MORE[getattr(np, _name)] = _case
ARRAY_API = {  # NumPy 2's (through NumPy's own code, ad/rules/array_api.py)
    "linalg.vecdot": lambda z: np.linalg.vecdot(z, z ** 2) + np.linalg.vecdot(np.real(z), z).sum(),
    "linalg.outer": lambda z: np.linalg.outer(z[0], z[1]),
    "linalg.matmul": lambda z: np.linalg.matmul(z, z.T),
    "linalg.tensordot": lambda z: np.linalg.tensordot(z, z.T, axes=1),
    "linalg.trace": lambda z: np.linalg.trace(z, offset=1),
    "linalg.diagonal": lambda z: np.linalg.diagonal(z),
    "linalg.cross": lambda z: np.linalg.cross(z[0], z[1]),
    "linalg.matrix_transpose": lambda z: np.linalg.matrix_transpose(z),
    "matrix_transpose": lambda z: np.matrix_transpose(z),
    "cumulative_sum": lambda z: np.cumulative_sum(z, axis=1, include_initial=True),
    "cumulative_prod": lambda z: np.cumulative_prod(z, axis=0, include_initial=True),
    "unstack": lambda z: np.unstack(z)[1] * 2,
}
for _fn in vjps_complex.ARRAY_API:
    _name = next(n for n in array_api.NAMES if array_api._function(n) is _fn)
    MORE[_fn] = ARRAY_API[_name]


@pytest.mark.parametrize("fn", list(MORE), ids=lambda fn: getattr(fn, "__name__", str(fn)))
def test_shapes_products_statistics_and_cmath(fn):
    agree(MORE[fn], 1)


@pytest.mark.parametrize("ord", [1, -1, np.inf, -np.inf, 2, -2, "nuc", "fro", None])
@pytest.mark.parametrize("shape", [(2, 3), (3, 3)])
def test_every_matrix_norm(ord, shape):
    """The spectral and nuclear norms go through the singular vectors: their cotangent is conj(u v^H)."""
    agree(lambda z: np.linalg.norm(z, ord=ord) + np.linalg.norm(np.stack([z, 2 * z]), ord=ord, axis=(2, 1)).sum(),
          1, shape=shape, seed=3)


def test_rfft_of_real_values():
    agree(lambda x: np.fft.rfft(x), 0, 1)
    agree(lambda x: np.fft.rfft(x, n=7, axis=0, norm="ortho"), 0, 1)
    agree(lambda x: np.fft.rfft(x, n=2), 0, 1)


def test_the_other_real_ffts():
    """rfft2/rfftn and ihfft of real values; irfft2/irfftn and hfft of complex half spectra; every ``s``,
    ``n``, ``axes`` and ``norm`` form (SHAPE is 3 x 4)."""
    for norm in (None, "ortho", "forward"):
        agree(lambda x: np.fft.rfft2(x, norm=norm), 0, 1)
        agree(lambda x: np.fft.rfftn(x, s=(4, 5), norm=norm), 0, 1)
        agree(lambda x: np.fft.rfftn(x, axes=(0,), norm=norm), 0, 1)
        agree(lambda x: np.fft.ihfft(x, n=6, norm=norm), 0, 1)
        agree(lambda z: np.fft.irfft2(z, norm=norm), 1)
        agree(lambda z: np.fft.irfftn(z, s=(2, 5), norm=norm), 1)
        agree(lambda z: np.fft.irfftn(z, axes=(0,), norm=norm), 1)
        agree(lambda z: np.fft.hfft(z, n=7, norm=norm), 1)
        agree(lambda z: np.fft.hfft(z, axis=0, norm=norm), 1)


def test_every_checked_function_is_tested_here():
    tested = set(map(id, UNARY + BINARY + list(LINEAR) + list(MORE) + [np.fft.rfft, np.fft.rfft2, np.fft.rfftn, np.fft.irfft2,
                                                         np.fft.irfftn, np.fft.hfft, np.fft.ihfft]))
    assert set(COMPLEX_CHECKED) == tested | set(map(id, SCIPY_CHECKED))  # (SciPy's: test_scipy_eig_in_reverse_mode)
    assert set(map(id, vjps_complex.CHECKED)) == tested


def test_the_comparison_fails_on_a_wrong_rule():
    """A conjugate too many (the usual mistake) is caught."""
    def twice(z):
        return 2 * z

    defvjp(twice, lambda u, ans, z: 2 * np.conjugate(u))
    complex_checked(twice)
    try:
        with pytest.raises(AssertionError):
            agree(twice, 1)
    finally:
        COMPLEX_CHECKED.pop(id(twice))


def test_a_complex_result_of_a_stacking_function_is_never_dropped():
    """It once was: the stacking rules kept a derivative only for float results, so a complex one
    became a constant and the gradient a silent zero."""
    x = np.array([0.3, -0.7, 1.1])

    def f(y):
        return np.sum(np.real(np.hstack([y * 1j, y]) * (1 + 2j)))

    np.testing.assert_allclose(ad.gradient(f, x, backend=R), [-1.0, -1.0, -1.0])


def test_angle_in_degrees():
    agree(lambda z: np.angle(z, deg=True), 1)


def test_spectral_and_phase_losses():
    """Losses users write: a power spectrum, a phase, a complex exponential."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(16)

    def power(y):
        return np.sum(np.abs(np.fft.rfft(y)) ** 2 * np.arange(9))

    def rotation(y):
        return np.sum(np.real(np.exp(1j * y) * np.conj(np.exp(0.5j * y[::-1]))))

    for f in (power, rotation):
        np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=F), rtol=1e-10)
    np.testing.assert_allclose(ad.gradient(rotation, x, backend=R), ad.gradient(rotation, x, backend=ad.FiniteDifferences()),
                               rtol=1e-5, atol=1e-7)


def test_python_complex_numbers():
    def f(t):
        z = complex(0.0, 1.0) * t[0] + t[1]
        return abs(z * z) + (z ** 2).real

    t = np.array([0.7, -0.4])
    np.testing.assert_allclose(ad.gradient(f, t, backend=R), ad.gradient(f, t, backend=F), rtol=1e-12)


def test_hessian_forward_over_reverse_with_complex_values_inside():
    def f(y):
        return np.sum(np.abs(np.fft.fft(y * y)) ** 2)

    x = np.random.default_rng(5).standard_normal(6)
    both = ad.HigherOrder(F, R)
    np.testing.assert_allclose(ad.hessian(f, x, backend=both), ad.hessian(f, x), rtol=1e-9, atol=1e-9)


def test_what_reverse_mode_refuses_is_named():
    x = np.linspace(0.1, 0.9, 4)
    with pytest.raises(ComplexValuesError, match="returned a complex value"):  # (a complex input: its gradient
        ad.gradient(np.sum, x + 1j, backend=R)  # needs a real result, test_ad_complex_gradient.py)
    gcd = lambda y: np.sum(np.gcd(np.arange(4), 2) * np.sinc(y * (1 + 2j)).real)  # noqa: E731  (sinc: checked)
    np.testing.assert_allclose(ad.gradient(gcd, x, backend=R), ad.gradient(gcd, x, backend=F), rtol=1e-12)
    def spread(z):  # a rule of the user's own, not checked on complex values
        return z * 2.0

    defjvp(spread, lambda g, ans, z: g * 2.0)
    norm = lambda y: np.sum(spread(np.outer(y, y[:2]) * (1 + 2j)).real)  # noqa: E731
    with pytest.raises(ComplexValuesError, match="spread"):
        ad.gradient(norm, x, backend=R)
    hfft = lambda y: np.sum(np.fft.hfft(y * 1j))  # noqa: E731  (refused before it had a checked rule)
    np.testing.assert_allclose(ad.gradient(hfft, x, backend=R), ad.gradient(hfft, x, backend=F), rtol=1e-12)
    # the default backend falls back to forward mode, which differentiates them
    np.testing.assert_allclose(ad.gradient(norm, x), ad.gradient(norm, x, backend=ad.FiniteDifferences()),
                               rtol=1e-5, atol=1e-7)


def test_forward_mode_power_of_a_negative_real_base_with_a_complex_exponent():
    """d/dt (-0.5) ** (i t) uses the complex log of -0.5 (it was nan)."""
    base = np.array([-0.5, 2.0, -3.0])
    expected = np.real(np.log(base + 0j) * 1j * (base + 0j) ** 0.7j)
    got = ad.jvp(lambda t: np.real(base ** (1j * t)), np.full(3, 0.7), np.ones(3))[1]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert ad.derivative(lambda t: ((-0.5) ** (t * 1j)).real, 0.7) == pytest.approx(expected[0], rel=1e-12)


def _cat(*parts):
    return np.concatenate([np.ravel(p) for p in parts])


def _hermitian(z):
    return z + np.conj(z.T) + np.diag([0.0, 2.0, 5.0])


PHASE_CASES = {  # (function, shape of its complex input): vectors with a free phase, forward mode's gauge
    "svd tall": (lambda z: _cat(*np.linalg.svd(z, full_matrices=False)), (4, 2)),
    "svd wide": (lambda z: _cat(*np.linalg.svd(z, full_matrices=False)), (2, 4)),
    "svd square": (lambda z: _cat(*np.linalg.svd(z)), (3, 3)),
    "svd full, tall": (lambda z: _cat(*np.linalg.svd(z)), (4, 2)),
    "svd full, wide": (lambda z: _cat(*np.linalg.svd(z)), (2, 4)),
    "svd hermitian=True": (lambda z: _cat(*np.linalg.svd(z @ np.conj(z.T) + np.diag([1.0, 2.0, 4.0]), hermitian=True)),
                           (3, 3)),
    "svd stack": (lambda z: _cat(*np.linalg.svd(np.stack([z, z * 1j + 1]), full_matrices=False)), (3, 2)),
    "eigh": (lambda z: _cat(*np.linalg.eigh(_hermitian(z))), (3, 3)),
    "eigh of the upper triangle": (lambda z: _cat(*np.linalg.eigh(z + np.diag([0.0, 2.0, 5.0]), "U")), (3, 3)),
    "eigh stack": (lambda z: np.linalg.eigh(np.stack([_hermitian(z), _hermitian(z * 1j)]))[1], (3, 3)),
    "scipy eigh": (lambda z: _cat(*sl.eigh(_hermitian(z))), (3, 3)),
    "scipy eigh, upper, values only": (lambda z: sl.eigh(z + np.diag([0.0, 2.0, 5.0]), lower=False, eigvals_only=True),
                                       (3, 3)),
}


@pytest.mark.parametrize("case", list(PHASE_CASES))
def test_vectors_with_a_free_phase_in_reverse_mode(case):
    """Complex singular vectors and Hermitian eigenvectors: reverse mode transposes forward mode's
    gauge (svd: V^H dV with zero diagonal, the phases' change in U; eigh: V^H dV with zero diagonal),
    so the two modes agree on any function of them; a real matrix's complex cotangents too."""
    f, shape = PHASE_CASES[case]
    agree(f, 1, shape=shape)
    if not case.startswith("scipy"):
        agree(lambda x: f(x) * (1 + 2j), 0, 1, shape=shape)


@pytest.mark.parametrize("vectors", ["svd", "eigh"])
def test_functions_of_vectors_that_do_not_depend_on_their_phase_against_central_differences(vectors):
    """What does not depend on the free phases (projectors u u^H, |u|) is NumPy's own derivative."""
    rng = np.random.default_rng(4)
    x, w = rng.uniform(-1, 1, 18), rng.standard_normal((3, 3))

    def f(y):
        z = np.reshape(y[:9] + 1j * y[9:], (3, 3))
        if vectors == "svd":
            u = np.linalg.svd(z + np.diag([1.0, 3.0, 6.0]))[0][:, :2]
        else:
            u = np.linalg.eigh(_hermitian(z))[1][:, 1:]
        return np.sum(w * np.real(u @ np.conj(u.T))) + np.sum(np.abs(u) ** 3)

    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=ad.FiniteDifferences()),
                               rtol=1e-6, atol=1e-8)


def test_eigenvalues_of_a_real_matrix_in_reverse_mode():
    """``eigvals`` is holomorphic (distinct eigenvalues): the cotangent is V^-T diag(u) V^T, also for a
    real matrix with complex eigenvalues."""
    x = np.array([0.4, 1.3, -0.8, 0.2])
    f = lambda y: np.sum(np.abs(np.linalg.eigvals(np.reshape(y, (2, 2)) + np.array([[0.0, 1.0], [-2.0, 0.0]]))) ** 3)  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=F), rtol=1e-10)
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=ad.FiniteDifferences()),
                               rtol=1e-6, atol=1e-8)


QR_CASES = {  # every mode and shape of qr, and both factors together
    "tall": (lambda z: np.concatenate([np.ravel(p) for p in np.linalg.qr(z)]), (4, 2)),
    "square": (lambda z: np.concatenate([np.ravel(p) for p in np.linalg.qr(z)]), (3, 3)),
    "wide": (lambda z: np.concatenate([np.ravel(p) for p in np.linalg.qr(z)]), (2, 4)),
    "complete": (lambda z: np.concatenate([np.ravel(p) for p in np.linalg.qr(z, "complete")]), (4, 2)),
    "r": (lambda z: np.linalg.qr(z, "r"), (4, 2)),
    "wide r": (lambda z: np.linalg.qr(z, mode="r"), (2, 3)),
    "product": (lambda z: np.linalg.qr(z)[0] @ np.linalg.qr(z)[1][:, :1] + np.linalg.qr(z)[0][:, :1], (3, 2)),
    "stack": (lambda z: np.linalg.qr(np.stack([z, z * 1j + 1]))[0], (3, 2)),
}


@pytest.mark.parametrize("case", list(QR_CASES))
def test_qr_of_complex_matrices(case):
    """QR of complex matrices: the rule has the imaginary part of Q^H dQ's diagonal (R's diagonal
    stays real) and conjugates where the real rule transposes; a real matrix with complex
    cotangents keeps the real rule."""
    f, shape = QR_CASES[case]
    agree(f, 1, shape=shape)
    agree(lambda x: f(x) * (1 + 2j), 0, 1, shape=shape)



EIG_SHIFT = np.array([[0.0, 1.0, 0.0], [-2.0, 0.0, 0.5], [0.3, 0.0, 1.0]])  # complex eigenvalues
EIG_CASES = {  # (function, complex inputs, real inputs) of 3 x 3 matrices
    "complex matrix": (lambda z: np.concatenate([np.ravel(p) for p in np.linalg.eig(z)]), 1, 0),
    "real matrix, real eigenvalues": (lambda x: np.linalg.eig(x + 3 * np.diag([0.0, 1.0, 2.0]))[1] * (1 + 2j), 0, 1),
    "real matrix, complex eigenvalues": (lambda x: np.concatenate([np.ravel(p) for p in np.linalg.eig(0.2 * x + EIG_SHIFT)]),
                                         0, 1),
    "stack": (lambda z: np.linalg.eig(np.stack([z, z.T * 1j + np.eye(3)]))[1], 1, 0),
    "scipy, complex matrix": (lambda z: np.concatenate([np.ravel(p) for p in sl.eig(z)]), 1, 0),
    "scipy, real eigenvalues": (lambda x: np.concatenate([np.ravel(p) for p in sl.eig(x + 3 * np.diag([0.0, 1.0, 2.0]))]),
                                0, 1),
    "scipy, complex eigenvalues": (lambda x: np.concatenate([np.ravel(p) for p in sl.eig(0.2 * x + EIG_SHIFT)]), 0, 1),
    "scipy, right=False": (lambda z: sl.eig(z, right=False), 1, 0),
    "scipy eigvals": (lambda x: sl.eigvals(0.2 * x + EIG_SHIFT) + sl.eigvals(x + 3 * np.diag([0.0, 1.0, 2.0])), 0, 1),
}


@pytest.mark.parametrize("case", list(EIG_CASES))
def test_eig_in_reverse_mode(case):
    """eig's eigenvectors, normalised as LAPACK does (unit length, largest-modulus component real): the
    transpose of forward mode's tangent, step by step; for real and complex matrices, NumPy's and SciPy's."""
    f, n_complex, n_real = EIG_CASES[case]
    agree(f, n_complex, n_real, shape=(3, 3))


def test_eigenvectors_in_reverse_mode_against_central_differences():
    x = np.random.default_rng(2).uniform(-1, 1, 9)
    u = np.random.default_rng(3).standard_normal((3, 3))
    f = lambda y: np.sum(np.real(u * np.linalg.eig(0.2 * np.reshape(y, (3, 3)) + EIG_SHIFT)[1] ** 2))  # noqa: E731
    np.testing.assert_allclose(ad.gradient(f, x, backend=R), ad.gradient(f, x, backend=ad.FiniteDifferences()),
                               rtol=1e-6, atol=1e-8)


I3 = np.eye(3)


def _positive(z):
    return z @ np.conj(z.T) + 2 * I3


SCIPY_CASES = {  # scipy.linalg and scipy.signal on complex 3 x 3 matrices (eig and eigh: above)
    sl.solve: lambda z: sl.solve(z + 2 * I3, z[0]) + sl.solve(_positive(z), z[1], assume_a="pos"),
    sl.solve_triangular: lambda z: sl.solve_triangular(z + 2 * I3, z[0]) + sl.solve_triangular(z + 2 * I3, z[1], trans=2)
    + sl.solve_triangular(z + 2 * I3, z[2], lower=True, trans=1),
    sl.cholesky: lambda z: sl.cholesky(_positive(z)) + sl.cholesky(_positive(z), lower=True),
    sl.cho_factor: lambda z: sl.cho_factor(_positive(z))[0] + sl.cho_factor(_positive(z), lower=True)[0],
    sl.cho_solve: lambda z: sl.cho_solve(sl.cho_factor(_positive(z)), z[0])
    + sl.cho_solve(sl.cho_factor(_positive(z), lower=True), z[1]),
    vjps_scipy_linalg._cho_solve_flat: lambda z: vjps_scipy_linalg._cho_solve_flat(sl.cholesky(_positive(z)), False, z[0]),
    sl.lu_factor: lambda z: sl.lu_factor(z + 2 * I3)[0],
    sl.lu_solve: lambda z: sl.lu_solve(sl.lu_factor(z + 2 * I3), z[0]) + sl.lu_solve(sl.lu_factor(z + 2 * I3), z[1], trans=2)
    + sl.lu_solve(sl.lu_factor(z + 2 * I3), z[2], trans=1),
    vjps_scipy_linalg._lu_solve_flat: lambda z: vjps_scipy_linalg._lu_solve_flat(*sl.lu_factor(z + 2 * I3), z[0]),
    sl.inv: lambda z: sl.inv(z + 2 * I3),
    sl.det: lambda z: sl.det(z + 2 * I3),
    sl.eigh: lambda z: sl.eigh(_hermitian(z), eigvals_only=True) + sl.eigvalsh(_hermitian(z * 1j)),
    sl.eig: lambda z: sl.eig(z)[1],
    sl.eigvals: lambda z: sl.eigvals(z),
    sl.expm: lambda z: sl.expm(z * 0.5),
    sl.logm: lambda z: sl.logm(0.3 * z + 2 * I3),
    sl.sqrtm: lambda z: sl.sqrtm(0.3 * z + 2 * I3),
    sl.solve_sylvester: lambda z: sl.solve_sylvester(z + 3 * I3, z.T + 2 * I3, z * z),
    sl.solve_continuous_lyapunov: lambda z: sl.solve_continuous_lyapunov(z - 3 * I3, z * z),
    sl.solve_discrete_lyapunov: lambda z: sl.solve_discrete_lyapunov(0.2 * z, z * z),
    sl.svd: lambda z: _cat(*sl.svd(z + I3)) + 0 * sl.svd(z[:2], compute_uv=False).sum(),
    sl.svdvals: lambda z: sl.svdvals(z),
    sl.qr: lambda z: _cat(*sl.qr(z)),
    sl.lu: lambda z: _cat(*sl.lu(z + 2 * I3)[1:]),
    sl.pinv: lambda z: sl.pinv(z[:, :2]),
    sl.pinvh: lambda z: sl.pinvh(_hermitian(z)),
    sl.polar: lambda z: _cat(*sl.polar(z + 2 * I3)) + _cat(*sl.polar(z + 2 * I3, "left")),
    sl.solve_banded: lambda z: sl.solve_banded((1, 1), z + np.array([[0], [3.0], [0]]), z[0]),
    sl.solveh_banded: lambda z: sl.solveh_banded(np.stack([z[0] * 0.2, z[1] * 0.1 + 3.0]), z[2])
    + sl.solveh_banded(np.stack([z[1] * 0.1 + 3.0, z[0] * 0.2]), z[2], lower=True),
    sl.toeplitz: lambda z: sl.toeplitz(z[0], z[1]) + sl.toeplitz(z[2]),  # (a first row conj(c) when not given)
    sl.circulant: lambda z: sl.circulant(z[0]),
    sl.hankel: lambda z: sl.hankel(z[0], z[1]),
    ss.convolve: lambda z: _cat(ss.convolve(z[0], z[1]), ss.convolve(z, np.real(z[:2, :2]), mode="same")),
    ss.correlate: lambda z: ss.correlate(z[0], z[1]) + ss.correlate(np.real(z), z[:2, :2], mode="valid").sum(),
    ss.fftconvolve: lambda z: ss.fftconvolve(z[0], z[1]),
    ss.oaconvolve: lambda z: ss.oaconvolve(z[0], z[1]),
    ss.convolve2d: lambda z: _cat(ss.convolve2d(z, z[:2, :2]), ss.convolve2d(z, z[:2, :2], boundary="wrap", mode="same")),
    ss.correlate2d: lambda z: _cat(ss.correlate2d(z, z[:2, :2]), ss.correlate2d(z, z[1:, 1:], boundary="symm", mode="same")
                                   + ss.correlate2d(z, z[:2, :2], mode="same", fillvalue=z[0, 0])),
}
SCIPY_CASES.update({  # scipy.special's holomorphic functions
    sc.psi: lambda z: sc.psi(z + 2), sc.gamma: lambda z: sc.gamma(z + 2), sc.rgamma: lambda z: sc.rgamma(z + 2),
    sc.loggamma: lambda z: sc.loggamma(z + 2), sc.erf: sc.erf, sc.erfc: sc.erfc, sc.erfi: sc.erfi, sc.erfcx: sc.erfcx,
    sc.dawsn: sc.dawsn, sc.wofz: sc.wofz, sc.ndtr: sc.ndtr, sc.log_ndtr: sc.log_ndtr,
    sc.xlogy: lambda z: sc.xlogy(z, z + 2), sc.xlog1py: lambda z: sc.xlog1py(z, z + 2), sc.spence: lambda z: sc.spence(z + 2),
    sc.jv: lambda z: sc.jv(1.5, z), sc.yv: lambda z: sc.yv(1.5, z + 2), sc.iv: lambda z: sc.iv(1.5, z),
    sc.kv: lambda z: sc.kv(1.5, z + 2), sc.kve: lambda z: sc.kve(1.5, z + 2), sc.hankel1: lambda z: sc.hankel1(1.5, z + 2),
    sc.hankel2: lambda z: sc.hankel2(1.5, z + 2), sc.expm1: sc.expm1, sc.log1p: sc.log1p,
})
SCIPY_CASES.update({  # the scaled Bessel functions: exp(-|Re z|) and exp(-|Im z|) are not holomorphic (their
    # own rules), hankel1e and hankel2e are; the inputs take both signs of Re z and Im z
    sc.ive: lambda z: sc.ive(1.5, z) + sc.ive(np.array([[0.5], [2.0], [-1.0]]), z[0]),  # (an order broadcast)
    sc.jve: lambda z: sc.jve(1.5, z) + sc.jve(np.array([[0.5], [2.0], [-1.0]]), z[0]),
    sc.yve: lambda z: sc.yve(1.5, z + 2) + sc.yve(0.5, z[0, 0] + 3),  # (a complex scalar)
    sc.hankel1e: lambda z: sc.hankel1e(1.5, z + 2), sc.hankel2e: lambda z: sc.hankel2e(1.5, z + 2),
    scu._lambertw: lambda z: sc.lambertw(z) + sc.lambertw(z + 1, k=1),
})
SCIPY_CHECKED = (vjps_scipy_linalg_more.COMPLEX + vjps_scipy_signal.COMPLEX + scipy_special.COMPLEX
                 + vjps_scipy_special.COMPLEX)


@pytest.mark.parametrize("fn", list(SCIPY_CASES), ids=lambda fn: getattr(fn, "__name__", str(fn)))
def test_scipy_on_complex_values(fn):
    agree(SCIPY_CASES[fn], 1, shape=(3, 3))


@pytest.mark.parametrize("fn", [sc.ive, sc.jve, sc.yve])
def test_scaled_bessel_functions_of_real_values_in_reverse_mode(fn):
    """On real arguments the real parts of their rules are the derivatives: against forward mode,
    at points of both signs (the scaled factor's kink is at 0)."""
    agree(lambda x: fn(1.5, np.abs(x) + 0.1) + fn(0.5, x) * (1 + 2j), 0, 1, shape=(3, 3))


def test_the_scaled_bessel_rule_is_not_the_forward_rule_applied_to_the_cotangent():
    """What the rule derived from the forward rule computed (``u a - sign(Re z) Re(u) ans``) is wrong for
    complex z: the gradient of ``|ive(v, z)|^2`` along a complex line against central differences."""
    f = lambda y: np.sum(np.abs(sc.ive(1.5, y * (1 + 1j) - 0.4j)) ** 2)  # noqa: E731
    y = np.array([0.3, -0.6, 0.9])
    np.testing.assert_allclose(ad.gradient(f, y, backend=R), ad.gradient(f, y, backend=ad.FiniteDifferences()),
                               rtol=1e-6)


def test_every_checked_scipy_function_is_tested_here():
    assert set(map(id, SCIPY_CHECKED)) == set(map(id, SCIPY_CASES))


def test_complex_results_of_real_matrices_in_scipy():
    """logm and sqrtm of a real matrix with negative eigenvalues are complex."""
    agree(lambda x: sl.logm(0.2 * x - 2 * I3), 0, 1, shape=(3, 3))
    agree(lambda x: sl.sqrtm(0.2 * x - 2 * I3), 0, 1, shape=(3, 3))
