"""Reverse-mode rules for linear functions (those ``deflinear`` declares for forward mode):
``diagflat``, ``polyder``, ``convolve``/``correlate``, ``fft.fftshift``/``ifftshift``, and the FFTs.

For ``fn`` linear in argument ``i`` (the others held fixed), the cotangent of that argument is
the adjoint of the map applied to the result's cotangent: ``deflinear_vjp(fn, adjoint_0, ...)``
registers ``adjoint_i(u, *args, **kwargs)``, reshaped to the argument's shape; the other
arguments are constants (NoRuleError if they carry a derivative). ``convolve``/``correlate``
(modes ``full``, ``same``, ``valid``) are bilinear: the adjoint in each argument is a
correlation of the cotangent, padded back to the ``full`` length, with the other.

The FFTs are linear too, with the pairing ``Re(sum(u * t))`` of ``vjps_complex``: the complex
ones' adjoints are themselves (DFT matrices are symmetric), the real ones' (``rfft``,
``irfft``, ``hfft``, ``ihfft`` and the 2-d and n-d forms) cut, pad, weigh or conjugate the
spectrum around them; each is checked by the dot-product test against forward mode.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.tagging.dispatch import qualified_name
from context.tagging.values import primal

from ..engine.forward import NOT_DIFFERENTIABLE
from ..engine.reverse import defvjp
from .vjps_shapes import as_arg


def deflinear_vjp(fn, *adjoints):
    """Register reverse-mode rules for ``fn``, linear in each argument ``i`` with an adjoint:
    ``adjoints[i](u, *args, **kwargs)`` is the adjoint of ``x_i -> fn(..., x_i, ...)`` applied to
    ``u``, reshaped to argument ``i``'s shape. None, and the arguments after the last adjoint,
    must be constants."""

    def vjp_of(i, adjoint):
        def vjp(u, ans, *args, **kwargs):
            return as_arg(adjoint(u, *args, **kwargs), args[i])

        vjp.__qualname__ = vjp.__name__ = "adjoint %d of %s" % (i, qualified_name(fn))
        return vjp

    rules = [NOT_DIFFERENTIABLE if a is None else vjp_of(i, a) for i, a in enumerate(adjoints)]
    return defvjp(fn, *rules, NOT_DIFFERENTIABLE)


# ------------------------------------------------------------------ building, polynomials


def _polyder_adjoint(u, p, m=1):
    n, m = int(np.size(primal(p))), int(m)
    if n <= m:
        return np.zeros(n)
    return np.concatenate([u * np.polyder(np.ones(n), m), np.zeros(m)])  # polyder scales each coefficient


deflinear_vjp(np.diagflat, lambda u, v, k=0: np.diagonal(u, k))
deflinear_vjp(np.polyder, _polyder_adjoint)


# ------------------------------------------------------------------ convolution, correlation


def _full_offset(fn, mode, n, m):
    """Where the result of ``fn(a, v, mode)`` (lengths ``n``, ``m``) starts in the ``full`` one."""
    if mode == "full":
        return 0
    if mode == "valid":
        return min(n, m) - 1
    if mode == "same":
        return (min(n, m) - (1 if fn is np.convolve or m <= n else 0)) // 2
    raise ValueError("mode must be one of 'valid', 'same', or 'full' (got %r)" % (mode,))


def _full(fn, u, a, v, mode):
    """The cotangent ``u`` of ``fn(a, v, mode)`` padded with zeros to the ``full`` length."""
    n, m = int(np.size(primal(a))), int(np.size(primal(v)))
    start = _full_offset(fn, mode, n, m)
    return np.pad(u, (start, n + m - 1 - start - int(np.size(primal(u)))))


def _complex(*values):
    return any(np.iscomplexobj(primal(x)) for x in values)


def _plain_correlate(x, y, mode):
    """``sum_n x[n + k] y[n]``: ``np.correlate`` without its conjugate of ``y``."""
    return np.correlate(x, np.conjugate(y) if _complex(y) else y, mode)


# The adjoints are transposes (the pairing is Re(sum(u * t)), no conjugate): convolution is
# bilinear, so its adjoints correlate without conjugating; correlate(a, v) conjugates v, so it is
# conjugate-linear in v and the cotangent of v is the conjugate of the plain correlation's.
def _conv_a(u, a, v, mode="full"):
    return _plain_correlate(_full(np.convolve, u, a, v, mode), np.ravel(v), "valid")


def _conv_v(u, a, v, mode="full"):
    return _plain_correlate(_full(np.convolve, u, a, v, mode), np.ravel(a), "valid")


def _corr_a(u, a, v, mode="valid"):  # correlate(a, v) is convolve(a, conj(v)[::-1]) in mode full
    return np.correlate(_full(np.correlate, u, a, v, mode), np.flip(np.ravel(v)), "valid")


def _corr_v(u, a, v, mode="valid"):
    full = _full(np.correlate, u, a, v, mode)
    return np.flip(np.correlate(np.conjugate(full) if _complex(full) else full, np.ravel(a), "valid"))


deflinear_vjp(np.convolve, _conv_a, _conv_v)
deflinear_vjp(np.correlate, _corr_a, _corr_v)


# ------------------------------------------------------------------ FFTs


def _shift_adjoint(sign):
    def adjoint(u, x, axes=None):
        shape = np.shape(primal(u))
        axes = tuple(range(len(shape))) if axes is None else tuple(np.atleast_1d(axes).tolist())
        return np.roll(u, tuple(-sign * (shape[a] // 2) for a in axes), axes)

    return adjoint


deflinear_vjp(np.fft.fftshift, _shift_adjoint(1))  # fftshift rolls by n // 2: its adjoint rolls back
deflinear_vjp(np.fft.ifftshift, _shift_adjoint(-1))

def _fitted(g, shape):
    """``g`` cut, or padded with zeros, to ``shape`` (axis by axis): the adjoint of fitting an array
    of ``shape`` to ``g``'s shape, as the FFTs' ``n`` and ``s`` do."""
    have = np.shape(primal(g))
    for ax, (h, w) in enumerate(zip(have, shape)):
        if h > w:
            g = g[(slice(None),) * ax + (slice(0, w),)]
        elif h < w:
            widths = [(0, 0)] * len(shape)
            widths[ax] = (0, w - h)
            g = np.pad(g, widths)
    return g


def _fft_adjoint(fn, one_axis):
    """The adjoint of ``fn``, a complex-linear FFT (``fft``, ``ifft`` and their 2-D and n-D forms)
    whose matrix is symmetric: ``fn`` itself on the cotangent (same axes and norm), fitted back to
    the argument's shape. (The transpose, not the conjugate transpose: see ``vjps_complex``.)"""
    if one_axis:
        def adjoint(u, a, n=None, axis=-1, norm=None):
            return _fitted(fn(u, axis=axis, norm=norm), np.shape(primal(a)))
    else:
        default = (-2, -1) if fn in (np.fft.fft2, np.fft.ifft2) else None

        def adjoint(u, a, s=None, axes=default, norm=None):
            ndim = np.ndim(primal(a))
            if axes is None:
                axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
            return _fitted(fn(u, axes=axes, norm=norm), np.shape(primal(a)))
    return adjoint


def _rfft_adjoint(u, a, n=None, axis=-1, norm=None):
    """``rfft`` keeps the first ``n // 2 + 1`` entries of ``fft``: its adjoint pads the cotangent with
    zeros to ``n`` and applies ``fft``; the real part reaches the (real) argument."""
    shape = list(np.shape(primal(a)))
    axis = axis % len(shape)
    full = list(np.shape(primal(u)))
    full[axis] = shape[axis] if n is None else n
    return _fitted(np.fft.fft(_fitted(u, full), axis=axis, norm=norm), shape)


def _irfft_adjoint(u, a, n=None, axis=-1, norm=None):
    """``irfft`` extends its half spectrum to a Hermitian one and applies ``ifft``: with the pairing
    ``Re(sum(u * t))``, its adjoint is ``ifft`` of the cotangent, cut to the half spectrum and weighted
    by how often each entry appears in the full one (the first, and for even ``n`` the last, once;
    the others twice), then fitted to the argument's length."""
    shape = list(np.shape(primal(a)))
    axis = axis % len(shape)
    size = 2 * (shape[axis] - 1) if n is None else n
    half = size // 2 + 1
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if size % 2 == 0:
        weights[-1] = 1.0
    weights = np.reshape(weights, [half if k == axis else 1 for k in range(len(shape))])
    cut = list(np.shape(primal(u)))
    cut[axis] = half
    return _fitted(_fitted(np.fft.ifft(u, axis=axis, norm=norm), cut) * weights, shape)


def _nd_axes(a, s, axes):
    ndim = np.ndim(primal(a))
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
    return tuple(ax % ndim for ax in axes)


def _rfftn_adjoint(default_axes):
    """``rfftn`` is ``fftn`` over the axes with the last one's spectrum cut to its first half: its
    adjoint pads the cotangent's last axis with zeros back to the full length and applies ``fftn``
    (each DFT matrix is symmetric), fitted to the argument's shape."""

    def adjoint(u, a, s=None, axes=default_axes, norm=None):
        axes = _nd_axes(a, s, axes)
        shape = list(np.shape(primal(a)))
        full = list(np.shape(primal(u)))
        full[axes[-1]] = shape[axes[-1]] if s is None else s[-1]
        return _fitted(np.fft.fftn(_fitted(u, full), axes=axes, norm=norm), shape)

    return adjoint


def _half_weights(size, half, axis, ndim):
    """How often each entry of a half spectrum of ``size`` appears in the full one (``irfft``)."""
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if size % 2 == 0:
        weights[-1] = 1.0
    return np.reshape(weights, [half if k == axis else 1 for k in range(ndim)])


def _irfftn_adjoint(default_axes):
    """``irfftn`` is ``ifftn`` over the other axes, then ``irfft`` over the last: its adjoint is ``ifftn``
    of the cotangent, cut to the half spectrum along the last axis and weighted as ``irfft``'s."""

    def adjoint(u, a, s=None, axes=default_axes, norm=None):
        axes = _nd_axes(a, s, axes)
        shape = list(np.shape(primal(a)))
        last = axes[-1]
        size = 2 * (shape[last] - 1) if s is None else s[-1]
        half = size // 2 + 1
        cut = list(np.shape(primal(u)))
        cut[last] = half
        spectrum = _fitted(np.fft.ifftn(u, axes=axes, norm=norm), cut)
        return _fitted(spectrum * _half_weights(size, half, last, len(shape)), shape)

    return adjoint


_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _ihfft_adjoint(u, a, n=None, axis=-1, norm=None):
    """``ihfft(a)`` is ``conj(rfft(a))`` with the other normalization: the adjoint of a conjugate is a
    conjugate (``Re(sum(u * conj(t))) = Re(sum(conj(u) * t))``)."""
    return _rfft_adjoint(np.conj(u), a, n, axis, _SWAPPED[norm])


def _hfft_adjoint(u, a, n=None, axis=-1, norm=None):
    """``hfft(a)`` is ``irfft(conj(a))`` with the other normalization."""
    return np.conj(_irfft_adjoint(u, a, n, axis, _SWAPPED[norm]))


for _name in ("fft", "ifft"):
    deflinear_vjp(getattr(np.fft, _name), _fft_adjoint(getattr(np.fft, _name), True))
for _name in ("fft2", "ifft2", "fftn", "ifftn"):
    deflinear_vjp(getattr(np.fft, _name), _fft_adjoint(getattr(np.fft, _name), False))
deflinear_vjp(np.fft.rfft, _rfft_adjoint)
deflinear_vjp(np.fft.irfft, _irfft_adjoint)
deflinear_vjp(np.fft.rfft2, _rfftn_adjoint((-2, -1)))
deflinear_vjp(np.fft.rfftn, _rfftn_adjoint(None))
deflinear_vjp(np.fft.irfft2, _irfftn_adjoint((-2, -1)))
deflinear_vjp(np.fft.irfftn, _irfftn_adjoint(None))
deflinear_vjp(np.fft.ihfft, _ihfft_adjoint)
deflinear_vjp(np.fft.hfft, _hfft_adjoint)
