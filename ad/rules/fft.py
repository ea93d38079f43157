"""Derivative rules for ``numpy.fft``: ``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``,
``rfft``, ``irfft``, ``rfft2``, ``irfft2``, ``rfftn``, ``irfftn``, ``hfft``, ``ihfft``, ``fftshift``,
``ifftshift`` (``fftfreq``/``rfftfreq`` take no array to differentiate).

All are linear in their array argument, so the tangent is the same transform (same ``n``/``s``,
``axis``/``axes``, ``norm``) of the tangent; a chunk of directions goes through in one call, the
axes being given counted from the end (so the leading chunk axis is never transformed).

Complex tangents: ``fft``, ``ifft`` (and their 2-d, n-d forms) and the shifts are complex-linear,
so any tangent is transformed as it is. The real transforms are only real-linear: ``rfft*`` and
``ihfft`` take real arrays, ``irfft*`` and ``hfft`` read a half spectrum (dropping the imaginary
parts the Hermitian symmetry fixes). A complex tangent of a complex input is a direction in that
input's space, transformed as it is; a complex tangent of a *real* input is taken C-linearly, as
everywhere in ``ad``: its real and imaginary parts are transformed apart.

Only the array argument may carry a derivative (``n``, ``s``, ``axes``... are integers); ``out=``
must be given by keyword. Reverse mode refuses the FFTs (``vjps_linear``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError, frule
from .tangents import shape_of

_ONE_AXIS = ("a", "n", "axis", "norm", "out")  # fft, ifft, rfft, irfft, hfft, ihfft
_AXES = ("a", "s", "axes", "norm", "out")  # fft2, fftn and the like


def _bind(fn, names, primals, tangents, kwargs):
    """``(x, g, options)``: the array argument, its tangent, the other arguments by name."""
    name = qualified_name(fn)
    if len(primals) > len(names):
        raise TypeError("%s takes at most %d positional arguments" % (name, len(names)))
    if any(t is not None for t in tangents[1:]):
        raise NoRuleError("%s: only the array argument may carry a derivative; make the others constants" % name)
    opts = dict(zip(names[1:], primals[1:]))
    for key in kwargs:
        if key in opts:
            raise TypeError("%s got multiple values for argument '%s'" % (name, key))
    if opts.pop("out", None) is not None:
        raise TypeError("%s: give out= as a keyword argument while differentiating" % name)
    opts.update(kwargs)
    return primals[0], tangents[0], opts


def _from_end(axis, ndim):
    """``axis`` of an ``ndim``-axis primal as a negative axis: the same axis of a chunked tangent."""
    return normalize_axis_index(int(axis), ndim) - ndim


def _axes_from_end(axes, s, ndim):
    if axes is None:  # every axis, or the last len(s) ones
        return tuple(range(-(ndim if s is None else len(s)), 0))
    if np.ndim(axes) == 0:
        return _from_end(axes, ndim)
    return tuple(_from_end(a, ndim) for a in axes)


def _apply(fn, x, g, real_linear, **opts):
    """``fn(g, **opts)``; for a real-linear ``fn`` with a real ``x`` and a complex ``g``, C-linearly."""
    if real_linear and np.iscomplexobj(g) and not np.iscomplexobj(x):
        return fn(np.real(g), **opts) + 1j * fn(np.imag(g), **opts)
    return fn(g, **opts)


def _one_axis(fn, real_linear):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = _bind(fn, _ONE_AXIS, primals, tangents, kwargs)
        out = fn(x, **opts)
        opts["axis"] = _from_end(opts.get("axis", -1), len(shape_of(x)))
        return out, _apply(fn, x, g, real_linear, **opts)

    rule.__qualname__ = rule.__name__ = "rule of %s" % qualified_name(fn)


def _several_axes(fn, real_linear, default_axes):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = _bind(fn, _AXES, primals, tangents, kwargs)
        out = fn(x, **opts)
        opts["axes"] = _axes_from_end(opts.get("axes", default_axes), opts.get("s"), len(shape_of(x)))
        return out, _apply(fn, x, g, real_linear, **opts)

    rule.__qualname__ = rule.__name__ = "rule of %s" % qualified_name(fn)


def _shift(fn):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        x, g, opts = _bind(fn, ("x", "axes"), primals, tangents, kwargs)
        out = fn(x, **opts)
        return out, fn(g, axes=_axes_from_end(opts.get("axes"), None, len(shape_of(x))))

    rule.__qualname__ = rule.__name__ = "rule of %s" % qualified_name(fn)


for _fn in (np.fft.fft, np.fft.ifft):
    _one_axis(_fn, real_linear=False)
for _fn in (np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft):
    _one_axis(_fn, real_linear=True)
for _fn, _real, _default in (
    (np.fft.fft2, False, (-2, -1)), (np.fft.ifft2, False, (-2, -1)), (np.fft.fftn, False, None),
    (np.fft.ifftn, False, None), (np.fft.rfft2, True, (-2, -1)), (np.fft.irfft2, True, (-2, -1)),
    (np.fft.rfftn, True, None), (np.fft.irfftn, True, None),
):
    _several_axes(_fn, _real, _default)
_shift(np.fft.fftshift)
_shift(np.fft.ifftshift)
