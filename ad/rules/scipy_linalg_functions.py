"""Forward rules for the matrix functions of ``scipy.linalg`` (``expm``, ``logm``, ``sqrtm``; ``cosm``,
``sinm``, ``tanhm``... go through ``expm``), its special matrices (``toeplitz``, ``hankel``, ``circulant``,
``leslie``: linear) and the functions refused on purpose with NoRuleError."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.linalg as sl

from context.tagging.values import primal

from ..engine.forward import NoRuleError, frule
from .linalg import _is_complex
from .scipy_linalg_common import _no_tangent
from .tangents import chunk_shape, lead, shape_of, zeros_for


# -------------------------------------------------------- matrix functions


def _by_blocks(f, a, g, out):
    """The Fréchet derivative of the matrix function ``f`` at ``a`` along ``g``: the top right
    block of ``f([[a, g], [0, a]])``, ``g`` scaled to ``a``'s size first (it is linear in ``g``)."""
    n = shape_of(a)[-1]
    pa, pg = np.asarray(primal(a)), np.asarray(primal(g))
    big = float(np.max(np.abs(pg), initial=0.0))
    scale = float(np.max(np.abs(pa), initial=0.0)) / big if big else 1.0
    scale = scale or 1.0
    ab = np.broadcast_to(a, shape_of(g))
    block = np.concatenate([
        np.concatenate([ab, g * scale], axis=-1),
        np.concatenate([np.zeros_like(ab), ab], axis=-1),
    ], axis=-2)
    d = f(block)[..., :n, n:] / scale
    if _is_complex(d) and not _is_complex(out) and not _is_complex(g):
        d = np.real(d)
    return d


@frule(sl.expm)
def _expm(primals, tangents):
    a, g = primals[0], tangents[0]
    out = sl.expm(a)
    if len(shape_of(a)) < 2:
        return out, np.reshape(out * g, shape_of(g)[: lead(g, a)] + shape_of(out))
    return out, _by_blocks(sl.expm, a, g, out)


@frule(sl.logm)
def _logm(primals, tangents, **kwargs):
    a, g = primals[0], tangents[0]
    _no_tangent("logm", tangents, *range(1, len(tangents)))
    out = sl.logm(*primals, **kwargs)
    if len(shape_of(a)) < 2:
        raise NoRuleError("scipy.linalg.logm of a scalar: use np.log")
    return out, _by_blocks(sl.logm, a, g, out)


@frule(sl.sqrtm)
def _sqrtm(primals, tangents):
    a, g = primals[0], tangents[0]
    if len(shape_of(a)) < 2:
        raise NoRuleError("scipy.linalg.sqrtm of a scalar: use np.sqrt")
    x = sl.sqrtm(a)
    gx = g + 0j if _is_complex(x) and not _is_complex(g) else g
    return x, sl.solve_sylvester(x, x, gx)  # x dx + dx x = da


# ------------------------------------------------------- special matrices


def _jointly_linear(fn, tangents_of):
    """Register ``fn``, linear in its array arguments taken together: its tangent is ``fn`` of their
    tangents (``tangents_of(primals, tangents, chunk)`` fills in the constants'), direction by direction."""

    @frule(fn)
    def rule(primals, tangents):
        out = fn(*primals)
        chunk = next(chunk_shape(t, p) for t, p in zip(tangents, primals) if t is not None)
        ts = tangents_of(primals, tangents, chunk)
        if not chunk:
            return out, fn(*ts)
        return out, np.stack([fn(*(t[i] for t in ts)) for i in range(chunk[0])])

    return rule


def _filled(primals, tangents, chunk):
    return [zeros_for(p, chunk) if t is None else t for p, t in zip(primals, tangents)]


def _toeplitz_like(conjugate):
    def tangents_of(primals, tangents, chunk):
        c, dc = primals[0], _filled(primals[:1], tangents[:1], chunk)[0]
        if len(primals) > 1 and primals[1] is not None:
            return [dc, _filled(primals[1:2], tangents[1:2], chunk)[0]]
        if conjugate:  # toeplitz(c) takes r = conj(c)
            return [dc, np.conjugate(dc) if _is_complex(c) else dc]
        return [dc]

    return tangents_of


_jointly_linear(sl.toeplitz, _toeplitz_like(True))
_jointly_linear(sl.hankel, _toeplitz_like(False))
_jointly_linear(sl.circulant, _filled)
_jointly_linear(sl.leslie, _filled)


# ----------------------------------------------------------------- refused


def _refuse(fn, why):
    name = "scipy.linalg." + fn.__name__

    @frule(fn)
    def rule(primals, tangents, **kwargs):
        raise NoRuleError("%s has no derivative rule: %s" % (name, why))

    return rule


for _fn, _why in [
    (sl.lstsq, "use numpy.linalg.lstsq, or solve the normal equations"),
    (sl.cholesky_banded, "use scipy.linalg.solveh_banded"),
    (sl.cho_solve_banded, "use scipy.linalg.solveh_banded"),
    (sl.schur, "the Schur vectors are not unique"),
    (sl.hessenberg, "no rule written"),
    (sl.ldl, "no rule written"),
    (sl.funm, "use expm, logm or sqrtm, or the eigendecomposition"),
    (sl.signm, "no rule written"),
    (sl.expm_frechet, "differentiate expm twice instead"),
    (sl.fractional_matrix_power, "for t = 1/2 use sqrtm; else expm(t * logm(A))"),
]:
    _refuse(_fn, _why)
