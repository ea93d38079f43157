"""Derivative rules for ``scipy.signal``'s convolutions and correlations, on the public functions
(they reach natives such as ``_sigtools._correlateND`` and ``_convolve2d``).

``convolve``, ``fftconvolve``, ``oaconvolve`` and ``convolve2d`` are complex-bilinear in ``in1`` and
``in2``; ``correlate`` and ``correlate2d`` conjugate ``in2`` (real-linear there: a complex tangent
of a complex ``in2`` is used as it is, one of a real ``in2`` C-linearly, as in ``np.correlate``).
Every ``mode``, ``method`` and ``axes`` works: the tangent is the same function applied to the
tangents, one call per chunk direction (``method='auto'`` may pick another method for a tangent
than for the value: the same map, up to rounding).

``convolve2d``/``correlate2d`` with ``boundary='fill'`` pad ``in1`` with ``fillvalue``: affine in
``in1`` (its tangent is padded with 0), linear in ``in2``, and linear in ``fillvalue``, which may
carry a derivative too. ``mode``, ``method``, ``boundary`` and ``axes`` cannot.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.signal as signal

from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError, frule
from .convolution import bilinear_tangent, defbilinear
from .linear import linear_term

defbilinear(signal.convolve)
defbilinear(signal.correlate, conjugated=True)
defbilinear(signal.fftconvolve)
defbilinear(signal.oaconvolve)

_NAMES_2D = ("in1", "in2", "mode", "boundary", "fillvalue")
_DEFAULTS_2D = (None, None, "full", "fill", 0)


def _bind_2d(fn, primals, tangents, kwargs):
    """The five arguments of ``fn`` and their tangents, positionally."""
    if len(primals) > len(_NAMES_2D):
        raise TypeError("%s takes at most 5 positional arguments" % qualified_name(fn))
    args, tans = list(_DEFAULTS_2D), [None] * len(_NAMES_2D)
    args[: len(primals)] = primals
    tans[: len(tangents)] = tangents
    for key, value in kwargs.items():
        if key not in _NAMES_2D:
            raise TypeError("%s got an unexpected keyword argument '%s'" % (qualified_name(fn), key))
        i = _NAMES_2D.index(key)
        if i < len(primals):
            raise TypeError("%s got multiple values for argument '%s'" % (qualified_name(fn), key))
        args[i] = value
    if tans[2] is not None or tans[3] is not None:
        raise NoRuleError("%s: mode and boundary must be constants" % qualified_name(fn))
    return args, tans


def _def_2d(fn, conjugated):
    @frule(fn)
    def rule(primals, tangents, **kwargs):
        args, tans = _bind_2d(fn, primals, tangents, kwargs)
        out = fn(*args)
        padded_with_zeros = args[:4] + [0]  # in1's tangent: the padding is constant
        tangent = bilinear_tangent(fn, args, tans, {}, conjugated, padded_with_zeros)
        if tans[4] is not None:  # the padding's values: fn of zeros padded with the tangent
            complex_ = np.iscomplexobj(args[0]) or np.iscomplexobj(tans[4])
            zeros = np.zeros(np.shape(args[0]), dtype=complex if complex_ else float)
            term = linear_term(fn, [zeros] + args[1:], 4, tans[4], {})
            tangent = term if tangent is None else tangent + term
        return out, tangent

    rule.__qualname__ = rule.__name__ = "bilinear rule of %s" % qualified_name(fn)


_def_2d(signal.convolve2d, conjugated=False)
_def_2d(signal.correlate2d, conjugated=True)
