"""Derivative rules for ``scipy.special`` (and so for the ``scipy.stats`` distributions built on it).

Registered when ``scipy.special`` is imported. Elementwise, broadcasting as the ufuncs do;
real and, where SciPy takes them, complex arguments (holomorphic functions: the complex
derivative; ``ive``, ``jve``, ``yve``, which scale by ``exp(-|Re z|)`` or ``exp(-|Im z|)``,
are not holomorphic and get the tangent of that real factor). Reverse mode derives its rules
from these (real values).

* Gamma family: ``gamma``, ``rgamma`` (entire: finite derivatives at 0, -1, -2, ...),
  ``gammaln``, ``loggamma``, ``psi``/``digamma``, ``polygamma`` (in ``x``), ``multigammaln``
  (in ``a``), ``beta``, ``betaln``, ``poch``, ``zeta(x, q)`` (in ``q``); ``gammasgn`` has
  derivative 0. ``psi`` of complex input differentiates through a complex polygamma of this
  module (SciPy's ``polygamma`` is real only).
* Error functions: ``erf``, ``erfc``, ``erfcx``, ``erfi``, ``dawsn``, ``wofz`` (asymptotic
  series for large arguments, where the closed forms cancel), ``erfinv``, ``erfcinv``,
  ``ndtr``, ``log_ndtr``, ``ndtri``, ``ndtri_exp``; ``expit``, ``logit``, ``log_expit``.
* Bessel functions, in the argument ``z`` only: ``jv`` (``jn``), ``yv``, ``yn``, ``iv``,
  ``kv``, their ``...e`` scaled forms, ``hankel1``/``2`` (and ``e``), ``j0``, ``j1``, ``y0``,
  ``y1``, ``i0``, ``i1``, ``i0e``, ``i1e``, ``k0``, ``k1``, ``k0e``, ``k1e``. ``i0e``,
  ``i1e``, ``ive`` at ``Re z == 0`` take 0 for the derivative of ``|Re z|``, as ``abs``.
* Distribution functions, in ``x`` (or the probability) only, the shape parameters are
  constants: ``gammainc``, ``gammaincc`` and their inverses, ``betainc``, ``betaincc`` and
  their inverses, ``chdtr``, ``chdtrc``, ``chdtri``, ``stdtr``, ``stdtrit``; ``pdtr``,
  ``pdtrc`` in ``m``. ``stats.beta.pdf``'s ``_beta_pdf`` in ``x``, ``a`` and ``b``.
* ``xlogy``, ``xlog1py``, ``entr``, ``rel_entr``, ``kl_div``, ``huber``, ``pseudo_huber``
  (every argument); ``boxcox``, ``boxcox1p``, ``inv_boxcox``, ``inv_boxcox1p`` (not in
  ``lmbda``); ``lambertw`` (not in ``k``); ``expm1``, ``log1p``, ``exp2``, ``exp10``,
  ``cbrt``, ``cosm1``, ``sindg``, ``cosdg``, ``tandg``, ``cotdg``.
* Complete elliptic integrals ``ellipk``, ``ellipkm1``, ``ellipe`` (in the parameter) and
  ``spence`` (real and complex).
* ``factorial`` (``exact=False``: ``gamma(n + 1)``, 0 for ``n < 0`` unless
  ``extend='complex'``). ``logsumexp``, ``softmax``, ``log_softmax``, ``softplus`` are
  SciPy's Python code, differentiated through.

At singular points and outside a function's domain, derivatives are what IEEE arithmetic
gives (``inf``, ``nan``), as NumPy's; where SciPy's value is ``nan``, so is the derivative.
An order (``v``, ``n``), a shape parameter (``a`` of ``gammainc``, ``df`` of ``stdtr``...) or
``zeta``'s ``x`` (also without ``q``) carrying a derivative raises NoRuleError naming the
function; so does every function not listed (``binom``, ``ellipj``, ``hyp2f1``, ``exprel``...).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import math

import numpy as np
import scipy.special as sc
from scipy.special import _ufuncs as scu

from ..engine.forward import NOT_DIFFERENTIABLE as _ND
from ..engine.forward import defjvp, defzero
from ..engine.reverse import complex_checked

# Python floats, so that float32 arguments keep float32 tangents
_SQRT_PI = math.sqrt(math.pi)
_2_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_DEG = math.pi / 180
_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _numpy(a):
    """A Python number as a NumPy one (``0.0 / 0.0`` is then ``nan``, not an exception), others as given."""
    t = type(a)
    if t is float or t is int:
        return np.float64(a)
    return np.complex128(a) if t is complex else a


def _domain(factor):
    """The rule ``g * factor(ans, *args)``, ``nan`` where SciPy's value is ``nan`` (outside the
    domain: ``gammainc`` with ``a < 0``, ``logit`` of 2...). Python numbers become NumPy ones, so
    that ``0.0 / 0.0`` is ``nan`` as for arrays; floating-point warnings are silenced."""

    def jvp(g, ans, *args):
        args = [_numpy(a) for a in args]
        with np.errstate(all="ignore"):
            return g * np.where(np.isnan(ans), np.nan, factor(ans, *args))

    return jvp


# ------------------------------------------------------------------ polygamma, real and complex

# B_2, B_4, ..., B_20: the asymptotic series of the polygamma functions
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)


def _complex_polygamma(n, z):
    """psi^(n)(z) for integers ``n >= 1`` and complex ``z``: ``z`` shifted up by the recurrence
    ``psi^(n)(z) = psi^(n)(z + 1) + (-1)^(n+1) n! / z^(n+1)`` until ``Re z >= 20 + 2n``, then
    the asymptotic series ``(-1)^(n+1) [(n-1)!/z^n + n!/(2 z^(n+1)) + sum B_2k (2k+n-1)!/((2k)! z^(2k+n))]``."""
    n, z = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(z, dtype=complex))
    if n.size == 0:
        return np.zeros(n.shape, complex)
    p = n + 1
    shifts = np.ceil(np.maximum(0.0, 20 + 2 * n - z.real))
    total = np.zeros(z.shape, complex)
    w = z.copy()
    with np.errstate(all="ignore"):  # 1/0 at the poles: an infinite result, as for real input
        for k in range(int(shifts.max())):
            active = k < shifts
            total = total + np.where(active, w ** -p, 0)
            w = np.where(active, w + 1, w)
        series = sc.gamma(n) * w ** -n + sc.gamma(p) / 2 * w ** -p
        for k, b in enumerate(_BERNOULLI, 1):
            series = series + b * (sc.gamma(2 * k + n) / sc.gamma(2 * k + 1)) * w ** -(2 * k + n)
    return (-1.0) ** p * (series + sc.gamma(p) * total)


def polygamma(n, x):
    """psi^(n)(x) for integers ``n >= 0``, real or complex ``x`` (SciPy's ``polygamma`` is real only)."""
    if not np.iscomplexobj(x):
        out = sc.polygamma(n, x)  # float64, also for float32 x: computed in float64, kept as x's type
        dtype = getattr(x, "dtype", None)
        return out.astype(dtype) if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8 else out
    n = np.asarray(n)
    if np.all(n == 0):
        return sc.psi(x) if n.ndim == 0 else sc.psi(np.broadcast_to(x, np.broadcast_shapes(n.shape, np.shape(x))))
    return np.where(n == 0, sc.psi(x), _complex_polygamma(np.maximum(n, 1), x))


def _d_polygamma(g, ans, n, x):
    return g * polygamma(n + 1, x)


defjvp(polygamma, _ND, _d_polygamma)
defjvp(sc.polygamma, _ND, _d_polygamma)
defjvp(sc.psi, lambda g, ans, x: g * polygamma(1, x))  # also sc.digamma: the same ufunc


# ------------------------------------------------------------------ gamma and beta functions


def _d_rgamma(x):
    """d/dx 1/gamma(x) = -psi(x)/gamma(x); for Re x < 1/2 by the reflection formula
    ``psi(x) = psi(1 - x) - pi cot(pi x)``, which stays finite at the poles of psi (0, -1, ...)."""
    right = -sc.rgamma(x) * sc.psi(x)
    left = sc.gamma(1 - x) * np.cos(np.pi * x) - sc.rgamma(x) * sc.psi(1 - x)
    return np.where(np.real(x) < 0.5, left, right)


defjvp(sc.gamma, lambda g, ans, x: g * (ans * sc.psi(x)))
defjvp(sc.rgamma, _domain(lambda ans, x: _d_rgamma(x)))
defjvp(sc.gammaln, lambda g, ans, x: g * sc.psi(x))
defjvp(sc.loggamma, _domain(lambda ans, x: sc.psi(x)))  # nan for real x < 0, as loggamma
defzero(sc.gammasgn)


def _d_factorial(g, ans, n, exact=False, extend="zero"):
    """``factorial(n) = gamma(n + 1)``; 0 for ``n < 0`` unless ``extend='complex'`` (``exact=True``
    takes integers only, which carry no derivative)."""
    d = ans * sc.psi(n + 1)
    return g * (d if extend == "complex" else np.where(n >= 0, d, 0.0))


defjvp(sc.factorial, _d_factorial, _ND, _ND)


def _d_multigammaln(g, ans, a, d):
    d = int(d)
    return g * sum(sc.psi(a - 0.5 * j) for j in range(d))


defjvp(sc.multigammaln, _d_multigammaln, _ND)
defjvp(sc.beta, lambda g, ans, a, b: g * (ans * (sc.psi(a) - sc.psi(a + b))),
       lambda g, ans, a, b: g * (ans * (sc.psi(b) - sc.psi(a + b))))
defjvp(sc.betaln, lambda g, ans, a, b: g * (sc.psi(a) - sc.psi(a + b)),
       lambda g, ans, a, b: g * (sc.psi(b) - sc.psi(a + b)))
defjvp(sc.poch, lambda g, ans, z, m: g * (ans * (sc.psi(z + m) - sc.psi(z))),
       lambda g, ans, z, m: g * (ans * sc.psi(z + m)))


def _d_zeta(g, ans, x, q=None, out=None):
    """d/dq zeta(x, q) = -x zeta(x + 1, q) (Hurwitz); ``zeta(x)`` alone has no rule in ``x``."""
    return g * (-x * scu._zeta(x + 1, q))


defjvp(sc.zeta, _ND, _d_zeta, _ND)
defjvp(scu._zeta, _ND, _d_zeta, _ND)  # what zeta(x, q) calls


# ------------------------------------------------------------------ error functions, normal distribution

defjvp(sc.erf, lambda g, ans, x: g * (_2_SQRT_PI * np.exp(-x * x)))
defjvp(sc.erfc, lambda g, ans, x: g * (-_2_SQRT_PI * np.exp(-x * x)))
defjvp(sc.erfi, lambda g, ans, x: g * (_2_SQRT_PI * np.exp(x * x)))


def _tail(z, alternating=False):
    """The derivative of the asymptotic series ``1/z + 1/(2 z^3) + 3/(4 z^5) + 15/(8 z^7) + ...`` (its
    signs alternating for ``alternating``) that ``dawsn``, ``wofz`` (and ``erfcx``) follow for large
    arguments, where their closed-form derivatives lose ``z^2`` ulps to cancellation."""
    u = 1 / (z * z)
    v = -u if alternating else u
    return -u * (1 + v * (1.5 + v * (3.75 + v * (13.125 + v * 59.0625))))


# erfcx(z) ~ (1/sqrt(pi)) series(z) for Re z large; dawsn(z) ~ series(z) / 2 where exp(-z^2) is
# negligible; wofz(z) ~ (i/sqrt(pi)) series(z) in the upper half-plane (and where exp(-z^2) is negligible)
defjvp(sc.erfcx, _domain(lambda ans, z: np.where(np.real(z) > 100, _tail(z, True) / _SQRT_PI,
                                                 2 * z * ans - _2_SQRT_PI)))
defjvp(sc.dawsn, _domain(lambda ans, z: np.where(np.real(z * z) > 1e4, _tail(z) / 2, 1 - 2 * z * ans)))
defjvp(sc.wofz, _domain(lambda ans, z: np.where(((np.imag(z) >= 0) & (np.abs(z) > 100)) | (np.real(z * z) > 1e4),
                                                1j / _SQRT_PI * _tail(z), _2_SQRT_PI * 1j - 2 * z * ans)))
defjvp(sc.erfinv, lambda g, ans, x: g * (_SQRT_PI / 2 * np.exp(ans * ans)))
defjvp(sc.erfcinv, lambda g, ans, x: g * (-_SQRT_PI / 2 * np.exp(ans * ans)))
defjvp(sc.ndtr, lambda g, ans, x: g * (np.exp(-0.5 * x * x) / _SQRT_2PI))
defjvp(sc.log_ndtr, lambda g, ans, x: g * (np.exp(-0.5 * x * x - ans) / _SQRT_2PI))
defjvp(sc.ndtri, lambda g, ans, p: g * (_SQRT_2PI * np.exp(0.5 * ans * ans)))
defjvp(sc.ndtri_exp, lambda g, ans, y: g * (_SQRT_2PI * np.exp(y + 0.5 * ans * ans)))
defjvp(sc.expit, lambda g, ans, x: g * (ans * sc.expit(-x)))
defjvp(sc.logit, _domain(lambda ans, p: 1 / (p * (1 - p))))
defjvp(sc.log_expit, lambda g, ans, x: g * sc.expit(-x))


# ------------------------------------------------------------------ Bessel functions (in z; orders constant)


def _bessel(fn, rule):
    defjvp(fn, _ND, rule)


_bessel(sc.jv, lambda g, ans, v, z: g * (0.5 * (sc.jv(v - 1, z) - sc.jv(v + 1, z))))
_bessel(sc.yv, lambda g, ans, v, z: g * (0.5 * (sc.yv(v - 1, z) - sc.yv(v + 1, z))))
_bessel(sc.yn, lambda g, ans, n, x: g * (0.5 * (sc.yn(n - 1, x) - sc.yn(n + 1, x))))
_bessel(sc.iv, lambda g, ans, v, z: g * (0.5 * (sc.iv(v - 1, z) + sc.iv(v + 1, z))))
_bessel(sc.kv, lambda g, ans, v, z: g * (-0.5 * (sc.kv(v - 1, z) + sc.kv(v + 1, z))))
_bessel(sc.hankel1, lambda g, ans, v, z: g * (0.5 * (sc.hankel1(v - 1, z) - sc.hankel1(v + 1, z))))
_bessel(sc.hankel2, lambda g, ans, v, z: g * (0.5 * (sc.hankel2(v - 1, z) - sc.hankel2(v + 1, z))))
# the scaled forms: jve = jv exp(-|Im z|), yve = yv exp(-|Im z|), ive = iv exp(-|Re z|) (not
# holomorphic: the tangent of the factor takes the real or imaginary part of g), kve = kv exp(z),
# hankel1e = hankel1 exp(-i z), hankel2e = hankel2 exp(i z)
_bessel(sc.jve, lambda g, ans, v, z: g * (0.5 * (sc.jve(v - 1, z) - sc.jve(v + 1, z)))
        - np.sign(np.imag(z)) * np.imag(g) * ans)
_bessel(sc.yve, lambda g, ans, v, z: g * (0.5 * (sc.yve(v - 1, z) - sc.yve(v + 1, z)))
        - np.sign(np.imag(z)) * np.imag(g) * ans)
_bessel(sc.ive, lambda g, ans, v, z: g * (0.5 * (sc.ive(v - 1, z) + sc.ive(v + 1, z)))
        - np.sign(np.real(z)) * np.real(g) * ans)
_bessel(sc.kve, lambda g, ans, v, z: g * (ans - 0.5 * (sc.kve(v - 1, z) + sc.kve(v + 1, z))))
_bessel(sc.hankel1e, lambda g, ans, v, z: g * (0.5 * (sc.hankel1e(v - 1, z) - sc.hankel1e(v + 1, z)) - 1j * ans))
_bessel(sc.hankel2e, lambda g, ans, v, z: g * (0.5 * (sc.hankel2e(v - 1, z) - sc.hankel2e(v + 1, z)) + 1j * ans))

defjvp(sc.j0, lambda g, ans, x: g * -sc.j1(x))
defjvp(sc.j1, lambda g, ans, x: g * (0.5 * (sc.j0(x) - sc.jv(2, x))))
defjvp(sc.y0, lambda g, ans, x: g * -sc.y1(x))
defjvp(sc.y1, lambda g, ans, x: g * (0.5 * (sc.y0(x) - sc.yn(2, x))))
defjvp(sc.i0, lambda g, ans, x: g * sc.i1(x))
defjvp(sc.i1, lambda g, ans, x: g * (0.5 * (sc.i0(x) + sc.iv(2, x))))
defjvp(sc.i0e, lambda g, ans, x: g * (sc.i1e(x) - np.sign(x) * ans))
defjvp(sc.i1e, lambda g, ans, x: g * (0.5 * (sc.i0e(x) + sc.ive(2, x)) - np.sign(x) * ans))
defjvp(sc.k0, lambda g, ans, x: g * -sc.k1(x))
defjvp(sc.k1, lambda g, ans, x: g * (-0.5 * (sc.k0(x) + sc.kv(2, x))))
defjvp(sc.k0e, lambda g, ans, x: g * (ans - sc.k1e(x)))
defjvp(sc.k1e, lambda g, ans, x: g * (ans - 0.5 * (sc.k0e(x) + sc.kve(2, x))))


# ------------------------------------------------------------------ distribution functions (in x only)


def _gamma_density(a, x):
    """d/dx gammainc(a, x) = x^(a-1) exp(-x) / gamma(a) (``xlogy``: 1 at x = 0 for a = 1)."""
    return np.exp(sc.xlogy(a - 1, x) - x - sc.gammaln(a))


def _beta_density(a, b, x):
    """d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return np.exp(sc.xlogy(a - 1, x) + sc.xlog1py(b - 1, -x) - sc.betaln(a, b))


def _t_density(df, t):
    """The density of Student's t with ``df`` degrees of freedom (the normal one for ``df = inf``)."""
    finite = np.exp(sc.gammaln(0.5 * (df + 1)) - sc.gammaln(0.5 * df) - 0.5 * np.log(df * np.pi)
                    - 0.5 * (df + 1) * np.log1p(t * t / df))
    return np.where(np.isinf(df), np.exp(-0.5 * t * t) / _SQRT_2PI, finite)


def _poisson_mass(k, m):
    """d/dm pdtrc(k, m) = m^floor(k) exp(-m) / floor(k)! (pdtr is ``nan`` for k < 0)."""
    k = np.floor(k)
    return np.exp(sc.xlogy(k, m) - m - sc.gammaln(k + 1))


defjvp(sc.gammainc, _ND, _domain(lambda ans, a, x: _gamma_density(a, x)))
defjvp(sc.gammaincc, _ND, _domain(lambda ans, a, x: -_gamma_density(a, x)))
defjvp(sc.gammaincinv, _ND, _domain(lambda ans, a, y: 1 / _gamma_density(a, ans)))
defjvp(sc.gammainccinv, _ND, _domain(lambda ans, a, y: -1 / _gamma_density(a, ans)))
defjvp(sc.chdtr, _ND, _domain(lambda ans, v, x: 0.5 * _gamma_density(0.5 * v, 0.5 * x)))
defjvp(sc.chdtrc, _ND, _domain(lambda ans, v, x: -0.5 * _gamma_density(0.5 * v, 0.5 * x)))
defjvp(sc.chdtri, _ND, _domain(lambda ans, v, p: -2 / _gamma_density(0.5 * v, 0.5 * ans)))
defjvp(sc.pdtr, _ND, _domain(lambda ans, k, m: -_poisson_mass(k, m)))
defjvp(sc.pdtrc, _ND, _domain(lambda ans, k, m: _poisson_mass(k, m)))
defjvp(sc.stdtr, _ND, _domain(lambda ans, df, t: _t_density(df, t)))
defjvp(sc.stdtrit, _ND, _domain(lambda ans, df, p: 1 / _t_density(df, ans)))
defjvp(sc.betainc, _ND, _ND, _domain(lambda ans, a, b, x: _beta_density(a, b, x)))
defjvp(sc.betaincc, _ND, _ND, _domain(lambda ans, a, b, x: -_beta_density(a, b, x)))
defjvp(sc.betaincinv, _ND, _ND, _domain(lambda ans, a, b, y: 1 / _beta_density(a, b, ans)))
defjvp(sc.betainccinv, _ND, _ND, _domain(lambda ans, a, b, y: -1 / _beta_density(a, b, ans)))



def _power_term(c, x):
    """``c / x``, the log-derivative of ``x^c``, taken as 0 where ``c == 0`` and ``x == 0`` (``x^0``)."""
    return np.where((c == 0) & (x == 0), 0.0, c / x)


# stats.beta.pdf: x^(a-1) (1-x)^(b-1) / B(a, b); at x = 0 or 1 what IEEE arithmetic gives (the
# derivative in x of a density with a = 1 or b = 1 is finite there)
defjvp(scu._beta_pdf, _domain(lambda ans, x, a, b: ans * (_power_term(a - 1, x) - _power_term(b - 1, 1 - x))),
       _domain(lambda ans, x, a, b: ans * (np.log(x) - sc.psi(a) + sc.psi(a + b))),
       _domain(lambda ans, x, a, b: ans * (np.log1p(-x) - sc.psi(b) + sc.psi(a + b))))


# ------------------------------------------------------------------ information theory, losses, transforms

defjvp(sc.xlogy, _domain(lambda ans, x, y: np.log(y)), _domain(lambda ans, x, y: x / y))
defjvp(sc.xlog1py, _domain(lambda ans, x, y: np.log1p(y)), _domain(lambda ans, x, y: x / (1 + y)))
defjvp(sc.entr, _domain(lambda ans, x: -(np.log(x) + 1)))
defjvp(sc.rel_entr, _domain(lambda ans, x, y: np.log(x / y) + 1), _domain(lambda ans, x, y: -x / y))
defjvp(sc.kl_div, _domain(lambda ans, x, y: np.log(x / y)), _domain(lambda ans, x, y: 1 - x / y))
# huber: r^2/2 for |r| <= delta, delta (|r| - delta/2) beyond (inf for delta < 0); the first
# derivatives are continuous at |r| = delta
defjvp(sc.huber, lambda g, ans, delta, r: g * np.where(np.abs(r) <= delta, 0.0, np.abs(r) - delta),
       lambda g, ans, delta, r: g * np.where(np.abs(r) <= delta, r, delta * np.sign(r)))


def _pseudo_huber_s(delta, r):
    """``s = sqrt(1 + (r/delta)^2)``: pseudo_huber is ``delta^2 (s - 1)``."""
    return np.sqrt(1 + (r / delta) ** 2)


defjvp(sc.pseudo_huber, _domain(lambda ans, delta, r: delta * (_pseudo_huber_s(delta, r) - 1) ** 2
                                / _pseudo_huber_s(delta, r)),
       _domain(lambda ans, delta, r: r / _pseudo_huber_s(delta, r)))
defjvp(sc.boxcox, _domain(lambda ans, x, lmbda: x ** (lmbda - 1)), _ND)
defjvp(sc.boxcox1p, _domain(lambda ans, x, lmbda: (1 + x) ** (lmbda - 1)), _ND)
defjvp(sc.inv_boxcox, _domain(lambda ans, y, lmbda: ans ** (1 - lmbda)), _ND)
defjvp(sc.inv_boxcox1p, _domain(lambda ans, y, lmbda: (1 + ans) ** (1 - lmbda)), _ND)
# lambertw(z, k, tol) calls _lambertw(z, k, tol): W' = 1 / (z + exp(W)) (1 at z = 0)
defjvp(scu._lambertw, lambda g, ans, z, k, tol: g / (z + np.exp(ans)), _ND, _ND)

defjvp(sc.expm1, lambda g, ans, x: g * (ans + 1))
defjvp(sc.log1p, lambda g, ans, x: g / (1 + x))
defjvp(sc.exp2, lambda g, ans, x: g * (ans * _LN2))
defjvp(sc.exp10, lambda g, ans, x: g * (ans * _LN10))
defjvp(sc.cbrt, lambda g, ans, x: g / (3 * ans * ans))
defjvp(sc.cosm1, lambda g, ans, x: g * -np.sin(x))
defjvp(sc.sindg, lambda g, ans, x: g * (_DEG * sc.cosdg(x)))
defjvp(sc.cosdg, lambda g, ans, x: g * (-_DEG * sc.sindg(x)))
defjvp(sc.tandg, lambda g, ans, x: g * (_DEG * (1 + ans * ans)))
defjvp(sc.cotdg, lambda g, ans, x: g * (-_DEG * (1 + ans * ans)))

# complete elliptic integrals (parameter m): K' = (E - (1 - m) K) / (2 m (1 - m)), E' = (E - K) / (2 m),
# with their limits pi/8 and -pi/8 at m = 0; ellipkm1(p) is K(1 - p)
_PI_8 = math.pi / 8


def _d_ellipk(ans, m):
    return np.where(m == 0, _PI_8, (sc.ellipe(m) - (1 - m) * ans) / (2 * m * (1 - m)))


defjvp(sc.ellipk, _domain(_d_ellipk))
defjvp(sc.ellipe, _domain(lambda ans, m: np.where(m == 0, -_PI_8, (ans - sc.ellipk(m)) / (2 * m))))
defjvp(sc.ellipkm1, _domain(lambda ans, p: -_d_ellipk(ans, 1 - p)))
# spence(z) = integral from 1 to z of log(t) / (1 - t) dt: its derivative log(z) / (1 - z), -1 at z = 1
defjvp(sc.spence, _domain(lambda ans, z: np.where(z == 1, -1.0, np.log(z) / (1 - z))))

# The functions whose reverse rules (derived from these forward rules) hold for complex values: the
# holomorphic ones (a pullback is the derivative times the cotangent, no conjugate; see vjps_complex),
# each checked by the dot-product test in tests/test_ad_reverse_complex.py. Not the scaled forms ``ive``,
# ``jve``, ``yve`` (``vjps_scipy_special`` has their rules), nor the functions SciPy gives no complex loop.
COMPLEX = (sc.psi, sc.gamma, sc.rgamma, sc.loggamma, sc.erf, sc.erfc, sc.erfi, sc.erfcx, sc.dawsn, sc.wofz, sc.ndtr,
           sc.log_ndtr, sc.xlogy, sc.xlog1py, sc.spence, sc.jv, sc.yv, sc.iv, sc.kv, sc.kve, sc.hankel1, sc.hankel2,
           sc.expm1, sc.log1p)
complex_checked(*COMPLEX)
