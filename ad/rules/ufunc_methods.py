"""Rules of the ufunc methods ``reduce`` and ``accumulate`` (``np.add.reduce(x)``,
``np.logaddexp.reduce(x)``, ``np.multiply.accumulate(x)``), in both modes, by composition: each is
computed, under the running derivative, by the NumPy function it equals, so its derivative is
that function's rule: ``add``/``multiply``/``maximum``/``minimum`` reductions are ``np.sum``,
``np.prod``, ``np.max``, ``np.min`` (with ``axis`` defaulting to 0, as for ``reduce``);
``logaddexp``/``logaddexp2`` reductions are ``m + log(sum(exp(x - m)))`` with ``m`` the maximum
(base 2 for the latter); ``add``/``multiply`` accumulations are ``np.cumsum`` and ``np.cumprod``.
Other ufuncs' methods raise ``NoRuleError`` naming them. Values agree with NumPy's to rounding.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.base import Context
from context.tagging import native_primitive

from ..engine.forward import ForwardCtx, NoRuleError
from ..engine.reverse import ReverseCtx

_NO_VALUE = np._NoValue


def _logaddexp_reduce(x, axis, keepdims, exp, log):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)  # all -inf (or an inf): shift by nothing
    out = m + log(np.sum(exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis if axis is not None else tuple(range(np.ndim(x))))


_REDUCTIONS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}
_LOG_REDUCTIONS = {np.logaddexp: (np.exp, np.log), np.logaddexp2: (np.exp2, np.log2)}
_ACCUMULATIONS = {np.add: np.cumsum, np.multiply: np.cumprod}


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """``ufunc.reduce(array, ...)`` as the NumPy function it equals (see the module's docstring)."""
    name = "np.%s.reduce" % ufunc.__name__
    if ufunc in _REDUCTIONS:
        options = {"axis": axis, "out": out, "keepdims": keepdims, "where": where}
        if initial is not _NO_VALUE:
            options["initial"] = initial
        if dtype is not None:
            if ufunc in (np.maximum, np.minimum):
                array = np.asarray(array, dtype=dtype)
            else:
                options["dtype"] = dtype
        return _REDUCTIONS[ufunc](array, **options)
    if ufunc in _LOG_REDUCTIONS:
        if out is not None or initial is not _NO_VALUE or where is not True or dtype is not None:
            raise NoRuleError("%s with out=, initial=, where= or dtype= has no derivative rule; leave them out" % name)
        exp, log = _LOG_REDUCTIONS[ufunc]
        return _logaddexp_reduce(array, axis, keepdims, exp, log)
    raise NoRuleError("%s has no derivative rule (add, multiply, maximum, minimum, logaddexp and logaddexp2 "
                      "reductions have one)" % name)


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """``ufunc.accumulate(array, ...)`` as ``np.cumsum`` or ``np.cumprod``."""
    if ufunc not in _ACCUMULATIONS:
        raise NoRuleError("np.%s.accumulate has no derivative rule (add and multiply accumulations have one)"
                          % ufunc.__name__)
    return _ACCUMULATIONS[ufunc](array, axis=axis, dtype=dtype, out=out)


def _by_composition(ctx_class, method, composition):
    @ctx_class.primitive(method)
    @native_primitive
    def primitive(ctx, ufunc, *args, **kwargs):
        return Context.overdub(ctx, composition, ufunc, *args, **kwargs)

    primitive.__qualname__ = primitive.__name__ = "rule of ufunc.%s (a composition)" % method.__name__
    return primitive


for _ctx in (ForwardCtx, ReverseCtx):
    _by_composition(_ctx, np.ufunc.reduce, reduce)
    _by_composition(_ctx, np.ufunc.accumulate, accumulate)
