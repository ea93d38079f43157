"""The rules of ``ad/rules/scipy_special.py``: scipy.special's functions and the scipy.stats
distributions built on them, against central differences (``check_grads``), reverse mode
against forward mode (``check_vjp``), values at special points, and the refused cases."""

import numpy as np
import pytest

import ad
from ad.testing import check_grads, check_vjp

sc = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
scu = sc._ufuncs

rng = np.random.default_rng(7)
X = rng.uniform(0.3, 2.0, 4)  # positive reals
S = rng.uniform(-0.9, 0.9, 4)  # signed, small
P = rng.uniform(0.1, 0.9, 4)  # probabilities
Z = X + 0.4j * rng.standard_normal(4)  # complex, right half-plane
ZS = S + 0.4j * rng.standard_normal(4)  # complex, around 0


def _finite(f, args):
    out = np.asarray(f(*args))
    assert np.all(np.isfinite(out)), out  # check_grads takes nan == nan: test where values are finite


CASES = {
    # gamma family
    "gamma": (sc.gamma, [X]), "gamma_neg": (sc.gamma, [S - 1.0]), "gamma_c": (sc.gamma, [Z]),
    "rgamma": (sc.rgamma, [X]), "rgamma_c": (sc.rgamma, [ZS - 1.0]),
    "gammaln": (sc.gammaln, [X]), "gammaln_neg": (sc.gammaln, [S - 1.0]), "loggamma_c": (sc.loggamma, [Z]),
    "psi": (sc.psi, [X]), "psi_neg": (sc.psi, [S - 2.0]),
    "digamma_c": (sc.digamma, [Z]), "psi_c_left": (sc.psi, [ZS - 3.0]),
    "polygamma": (lambda x: sc.polygamma(2, x), [X]),
    "polygamma_orders": (lambda x: sc.polygamma(np.array([0, 1, 2, 3]), x), [X]),
    "multigammaln": (lambda a: sc.multigammaln(a, 3), [X + 2.0]),
    "multigammaln_2d": (lambda a: sc.multigammaln(a, 2), [(X + 2.0).reshape(2, 2)]),
    "multigammaln_scalar": (lambda a: sc.multigammaln(a, 4), [4.5]),
    "beta": (sc.beta, [X, X[::-1]]), "betaln": (sc.betaln, [X, X[::-1]]), "poch": (sc.poch, [X, X[::-1]]),
    "zeta": (lambda q: sc.zeta(3.0, q), [X]), "factorial": (sc.factorial, [X]),
    "factorial_complex_ext": (lambda n: sc.factorial(n, extend="complex"), [S - 0.5]),
    # error functions
    "erf": (sc.erf, [S]), "erf_c": (sc.erf, [ZS]), "erfc": (sc.erfc, [S]), "erfc_c": (sc.erfc, [ZS]),
    "erfcx": (sc.erfcx, [ZS]), "erfi": (sc.erfi, [ZS]), "dawsn": (sc.dawsn, [ZS]), "wofz": (sc.wofz, [ZS]),
    "erfinv": (sc.erfinv, [S]), "erfcinv": (sc.erfcinv, [P]),
    "ndtr": (sc.ndtr, [S * 3]), "ndtr_c": (sc.ndtr, [ZS]),
    "log_ndtr": (sc.log_ndtr, [np.array([-30.0, -3.0, 0.5, 6.0])]),
    "log_ndtr_c": (sc.log_ndtr, [ZS]), "ndtri": (sc.ndtri, [P]), "ndtri_exp": (sc.ndtri_exp, [-X]),
    "expit": (sc.expit, [S * 4]), "logit": (sc.logit, [P]), "log_expit": (sc.log_expit, [S * 4]),
    # Bessel functions
    "jv": (lambda z: sc.jv(1.5, z), [X]), "jv_c": (lambda z: sc.jv(1.5, z), [Z]), "jn": (lambda z: sc.jn(2, z), [X]),
    "yv_c": (lambda z: sc.yv(0.5, z), [Z]), "yn": (lambda x: sc.yn(0, x), [X]), "yn2": (lambda x: sc.yn(2, x), [X]),
    "iv": (lambda z: sc.iv(2.5, z), [X]), "iv_c": (lambda z: sc.iv(2.5, z), [Z]),
    "kv_c": (lambda z: sc.kv(0.5, z), [Z]),
    "jve_c": (lambda z: sc.jve(1.5, z), [Z]), "yve_c": (lambda z: sc.yve(1.5, z), [Z]),
    "ive": (lambda z: sc.ive(2.0, z), [S]), "ive_c": (lambda z: sc.ive(1.5, z), [Z]),
    "kve_c": (lambda z: sc.kve(1.5, z), [Z]),
    "hankel1_c": (lambda z: sc.hankel1(1.5, z), [Z]), "hankel2_c": (lambda z: sc.hankel2(1.5, z), [Z]),
    "hankel1e_c": (lambda z: sc.hankel1e(1.5, z), [Z]), "hankel2e_c": (lambda z: sc.hankel2e(1.5, z), [Z]),
    "j0": (sc.j0, [X * 5]), "j1": (sc.j1, [X * 5]), "y0": (sc.y0, [X * 5]), "y1": (sc.y1, [X * 5]),
    "i0": (sc.i0, [S]), "i1": (sc.i1, [S]), "i0e": (sc.i0e, [S]), "i1e": (sc.i1e, [S]),
    "k0": (sc.k0, [X]), "k1": (sc.k1, [X]), "k0e": (sc.k0e, [X]), "k1e": (sc.k1e, [X]),
    # distribution functions
    "gammainc": (lambda x: sc.gammainc(1.7, x), [X]), "gammaincc": (lambda x: sc.gammaincc(0.7, x), [X]),
    "gammaincinv": (lambda p: sc.gammaincinv(1.7, p), [P]), "gammainccinv": (lambda p: sc.gammainccinv(0.7, p), [P]),
    "chdtr": (lambda x: sc.chdtr(3.0, x), [X]), "chdtrc": (lambda x: sc.chdtrc(3.0, x), [X]),
    "chdtri": (lambda p: sc.chdtri(3.0, p), [P]),
    "pdtr": (lambda m: sc.pdtr(2.5, m), [X]), "pdtrc": (lambda m: sc.pdtrc(np.array([0, 1, 2, 3]), m), [X]),
    "stdtr": (lambda t: sc.stdtr(3.5, t), [S * 3]), "stdtr_inf": (lambda t: sc.stdtr(np.inf, t), [S * 3]),
    "stdtrit": (lambda p: sc.stdtrit(3.5, p), [P]),
    "betainc": (lambda x: sc.betainc(1.5, 2.5, x), [P]), "betaincc": (lambda x: sc.betaincc(0.5, 2.5, x), [P]),
    "betaincinv": (lambda y: sc.betaincinv(1.5, 2.5, y), [P]),
    "betainccinv": (lambda y: sc.betainccinv(1.5, 0.5, y), [P]),
    "beta_pdf": (scu._beta_pdf, [P, X + 0.5, X[::-1] + 0.5]),
    # information theory, losses, transforms, elementary
    "xlogy": (sc.xlogy, [S, X]), "xlogy_c": (sc.xlogy, [ZS, Z]), "xlog1py": (sc.xlog1py, [S, S[::-1]]),
    "entr": (sc.entr, [X]), "rel_entr": (sc.rel_entr, [X, X[::-1]]), "kl_div": (sc.kl_div, [X, X[::-1]]),
    "huber": (sc.huber, [X, np.array([-2.5, -0.2, 0.1, 3.0])]),
    "pseudo_huber": (sc.pseudo_huber, [X, np.array([-2.5, -0.2, 0.1, 3.0])]),
    "boxcox": (lambda x: sc.boxcox(x, 0.3), [X]), "boxcox1p": (lambda x: sc.boxcox1p(x, -0.3), [S]),
    "inv_boxcox": (lambda y: sc.inv_boxcox(y, 0.3), [S]), "inv_boxcox1p": (lambda y: sc.inv_boxcox1p(y, 0.3), [S]),
    "lambertw": (sc.lambertw, [X]), "lambertw_c": (lambda z: sc.lambertw(z, 1), [Z]),
    "expm1_c": (sc.expm1, [ZS]), "log1p_c": (sc.log1p, [ZS]), "exp2": (sc.exp2, [S]), "exp10": (sc.exp10, [S]),
    "cbrt": (sc.cbrt, [X]), "cosm1": (sc.cosm1, [S]), "sindg": (sc.sindg, [X * 50]), "cosdg": (sc.cosdg, [X * 50]),
    "tandg": (sc.tandg, [X * 20]), "cotdg": (sc.cotdg, [X * 20]),
    # SciPy's Python code, differentiated through
    "logsumexp": (lambda x: sc.logsumexp(x.reshape(2, 2), axis=1, b=X[:2, None]), [S]),
    "softmax": (lambda x: sc.softmax(x), [S]), "log_softmax": (lambda x: sc.log_softmax(x), [S]),
    "softplus": (sc.softplus, [S]),
    # elliptic integrals, dilogarithm
    "ellipk": (sc.ellipk, [P]), "ellipk_neg": (sc.ellipk, [-X]), "ellipkm1": (sc.ellipkm1, [P]),
    "ellipe": (sc.ellipe, [P]), "ellipe_neg": (sc.ellipe, [-X]), "spence": (sc.spence, [X]), "spence_c": (sc.spence, [Z]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_central_differences(name):
    f, args = CASES[name]
    _finite(f, args)
    check_grads(f, args, order=2)


@pytest.mark.parametrize("name", ["gamma", "psi", "erf", "jv", "ive", "gammainc", "xlogy", "beta_pdf"])
def test_jacobian_in_chunks(name):
    # ad.jacobian pushes all directions at once: tangents with a chunk axis
    f, (x, *rest) = CASES[name]
    j = ad.jacobian(lambda v: f(v, *rest), x)
    h = 1e-6
    fd = np.stack([(f(x + h * e, *rest) - f(x - h * e, *rest)) / (2 * h) for e in np.eye(x.size)], -1)
    np.testing.assert_allclose(j, fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["gamma", "rgamma", "psi", "polygamma", "multigammaln", "zeta", "beta", "erf",
                                  "log_ndtr", "expit", "iv", "ive", "i1e", "gammainc", "pdtr", "stdtr", "betainc",
                                  "beta_pdf", "xlogy", "rel_entr", "huber", "factorial"])
def test_reverse_mode(name):
    f, args = CASES[name]
    check_vjp(f, args)


def test_reverse_gradient_and_hessian():
    def f(x):
        return np.sum(sc.gammaln(x) * sc.erf(x - 1) + sc.psi(x) ** 2 + sc.iv(1.0, x) + sc.xlogy(x, x + 1))

    for fwd, rev in [(ad.gradient, ad.gradient), (ad.hessian, ad.hessian)]:
        np.testing.assert_allclose(rev(f, X, backend=ad.ReverseMode()), fwd(f, X), rtol=1e-10)


# ------------------------------------------------------------------ special points and conventions


def test_rgamma_is_entire():
    # 1/gamma near -n is (-1)^n n! (x + n) (1 - psi(n + 1) (x + n) + ...)
    for n in range(4):
        d = (-1) ** n * sc.factorial(n)
        assert ad.derivative(sc.rgamma, float(-n)) == pytest.approx(d, rel=1e-12)
        second = ad.derivative(lambda x: ad.derivative(sc.rgamma, x), float(-n))
        assert second == pytest.approx(-2 * d * sc.psi(n + 1), rel=1e-10)


def test_complex_polygamma():
    from ad.rules.scipy_special import polygamma

    x = np.array([-7.3, -2.5, -0.5, 0.01, 0.3, 1.0, 3.7, 15.2, 80.0, 1234.5])
    for n in [1, 2, 3, 6]:
        np.testing.assert_allclose(polygamma(n, x + 0j), sc.polygamma(n, x), rtol=1e-13)
    z = rng.standard_normal(50) * 5 + 1j * rng.standard_normal(50) * 5
    lhs, rhs = polygamma(1, 1 - z) + polygamma(1, z), np.pi ** 2 / np.sin(np.pi * z) ** 2  # reflection
    assert np.max(np.abs(lhs - rhs) / (np.abs(polygamma(1, z)) + np.abs(rhs))) < 1e-13
    np.testing.assert_allclose(polygamma(0, z), sc.psi(z))


def test_elliptic_and_spence_limits():
    """The limits where the formulas are 0/0: K'(0) = pi/8, E'(0) = -pi/8, spence'(1) = -1."""
    assert ad.derivative(sc.ellipk, 0.0) == pytest.approx(np.pi / 8)
    assert ad.derivative(sc.ellipe, 0.0) == pytest.approx(-np.pi / 8)
    assert ad.derivative(sc.spence, 1.0) == pytest.approx(-1.0)
    for f, m in ((sc.ellipk, 1e-7), (sc.ellipe, 1e-7), (sc.spence, 1 + 1e-7)):
        h = 1e-9
        assert ad.derivative(f, m) == pytest.approx((f(m + h) - f(m - h)) / (2 * h), rel=1e-5)


def test_values_at_special_points():
    D = ad.derivative
    assert D(lambda x: sc.gammainc(1.0, x), 0.0) == 1.0
    assert D(lambda x: sc.gammainc(0.5, x), 0.0) == np.inf
    assert D(lambda x: sc.gammainc(2.0, x), 0.0) == 0.0
    assert D(lambda m: sc.pdtr(0.0, m), 0.0) == -1.0
    assert D(lambda x: scu._beta_pdf(x, 1.0, 2.0), 0.0) == -2.0  # Beta(1, 2): 2 (1 - x)
    assert D(lambda x: scu._beta_pdf(x, 1.0, 1.0), 1.0) == 0.0
    assert D(lambda x: sc.xlogy(x, 0.0), 0.0) == -np.inf
    assert D(sc.entr, 0.0) == np.inf
    assert D(sc.expit, 800.0) == 0.0 and D(sc.logit, 0.0) == np.inf
    assert D(sc.log_ndtr, -40.0) == pytest.approx(40.0249688472, rel=1e-10)
    assert D(sc.i0e, 0.0) == 0.0  # |x| at 0 takes derivative 0, as abs
    r = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(ad.gradient(lambda r: np.sum(sc.huber(1.0, r)), r), [-1.0, -1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(ad.gradient(lambda x: np.sum(sc.factorial(x)), np.array([-1.5, -0.5])), [0.0, 0.0])


def test_nan_outside_the_domain():
    D = ad.derivative
    with np.errstate(all="raise"):  # no warning either
        for f, x in [(sc.logit, 2.0), (lambda x: sc.gammainc(-1.0, x), 1.0), (lambda x: sc.chdtr(-1.0, x), 1.0),
                     (sc.loggamma, -1.5), (lambda m: sc.pdtr(-1.0, m), 1.0), (sc.erfinv, 2.0),
                     (lambda y: sc.xlogy(2.0, y), -1.0), (lambda x: sc.stdtr(0.0, x), 1.0)]:
            assert np.isnan(np.real(f(x))) and np.isnan(D(f, x))


def test_float32_keeps_its_type():
    x = np.array([0.5, 1.5], np.float32)
    for f in [sc.psi, sc.erf, sc.gamma, sc.expit, sc.gammaln, sc.ndtr]:
        assert ad.jacobian(f, x).dtype == np.float32


# ------------------------------------------------------------------ refused


@pytest.mark.parametrize("f, name", [
    (lambda a: sc.gammainc(a, 1.0), "gammainc"), (lambda a: sc.gammaincc(a, 1.0), "gammaincc"),
    (lambda v: sc.jv(v, 1.0), "jv"), (lambda v: sc.iv(v, 1.0), "iv"), (lambda v: sc.ive(v, 1.0), "ive"),
    (lambda n: sc.polygamma(n, 1.5), "polygamma"), (lambda s: sc.zeta(s, 2.0), "zeta"),
    (lambda s: sc.zeta(s), "zeta"), (lambda s: scu._riemann_zeta(s), "_riemann_zeta"),
    (lambda df: sc.stdtr(df, 0.3), "stdtr"), (lambda a: sc.betainc(a, 2.0, 0.3), "betainc"),
    (lambda lm: sc.boxcox(2.0, lm), "boxcox"), (lambda n: sc.binom(n, 2.0), "binom"), (lambda m: sc.ellipj(1.0, m)[0], "ellipj"),
])
def test_refused(f, name):
    with pytest.raises(ad.NoRuleError, match=name):
        ad.derivative(f, 2.0)


def test_multigammaln_invalid_input_is_scipys_error():
    with pytest.raises(ValueError, match="condition a"):
        ad.derivative(lambda a: sc.multigammaln(a, 5), 1.0)


# ------------------------------------------------------------------ scipy.stats through these rules


@pytest.mark.parametrize("f, args", [
    (lambda x, m, s: stats.norm.cdf(x, m, s), [S, S[::-1], X]),
    (lambda x, m, s: stats.norm.logcdf(x, m, s), [S, S[::-1], X]),
    (lambda x, m, s: stats.norm.logsf(x, m, s), [S, S[::-1], X]),
    (lambda p: stats.norm.ppf(p), [P]),
    (lambda x, df, m, s: stats.t.logpdf(x, df, m, s), [S, X + 2.0, S[::-1], X]),
    (lambda x, m: stats.t.cdf(x, 3.5, m), [S, S[::-1]]),
    (lambda x, a: stats.gamma.logpdf(x, a), [X, X[::-1]]),
    (lambda x: stats.gamma.cdf(x, 2.5), [X]),
    (lambda x, a, b: stats.beta.pdf(x, a, b), [P, X + 0.5, X[::-1] + 0.5]),
    (lambda x: stats.beta.cdf(x, 1.5, 2.5), [P]),
    (lambda mu: stats.poisson.logpmf(np.array([0.0, 1.0, 3.0, 5.0]), mu), [X]),
    (lambda mu: stats.poisson.cdf(np.array([0.0, 1.0, 3.0, 5.0]), mu), [X]),
    (lambda x: stats.chi2.cdf(x, 3), [X]),
    (lambda x: stats.chi2.logpdf(x, 3), [X]),
])
def test_stats(f, args):
    _finite(f, args)
    check_grads(f, args, order=2)


@pytest.mark.parametrize("f", [sc.erfcx, sc.dawsn, sc.wofz])
@pytest.mark.parametrize("z0", [50.0, 100.1, 1e3, 1e6, 150 + 20j, 120 - 30j, 30 + 120j])
def test_large_arguments_keep_their_digits(f, z0):
    # the closed forms (erfcx' = 2 z erfcx - 2/sqrt(pi), ...) cancel for large z: asymptotic series there
    if not np.isfinite(f(z0)):
        pytest.skip("overflows")
    d = ad.derivative(lambda t: f(z0 + t), 0.0)
    h = abs(z0) * 1e-4
    fd = (f(z0 + h) - f(z0 - h)) / (2 * h)  # relative error about 1e-8 (h^2 f''' / 6)
    assert abs(d / fd - 1) < 3e-8
