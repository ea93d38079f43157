"""autograd's tests/test_scipy.py, on plain SciPy (every case needs SciPy).

autograd checks most of these with ``modes=["rev"]`` (its forward mode lacks the rules);
the orders are autograd's. Where autograd's check iterates over the elements of an array
(``combo_check(f, [1])([1], R(4) ** 2 + 1.3)``), each element is one case, as there.
"""

import numpy as onp

from ._core import R, U, Suite, const, made, unary_ufunc_check

S = Suite("test_scipy.py")
SUITES = [S]
SC = ("scipy",)


def check(test, fn, *args, **kw):
    kw.setdefault("needs", SC)
    return S.check(test, fn, *args, **kw)


def combo(test, fn, *arglists, **kw):
    kw.setdefault("needs", SC)
    return S.combo(test, fn, *arglists, **kw)


def elements(spec, n):
    """The ``n`` elements of a keyed array spec, each a spec (autograd's combo_check over an array)."""
    return [spec.map((lambda i: lambda a: float(a[i]))(i), "%s[%d]" % (spec.label, i)) for i in range(n)]


def pos(*shape, add=1.1, key=None):
    """``R(*shape) ** 2 + add``."""
    return R(*shape, key=key) ** 2 + add


def symmetrize_arg(build, argnum):
    """autograd's symmetrize_matrix_arg: the function of ``(X + X^T) / 2`` in argument ``argnum``."""
    def outer(ns):
        fun = build(ns)

        def symmetrized(*args, **kwargs):
            args = list(args)
            X = args[argnum]
            if ns.np.ndim(X) > 1:
                args[argnum] = 0.5 * (X + ns.np.swapaxes(X, -1, -2))
            return fun(*args, **kwargs)
        return symmetrized
    return outer


# --- stats ---
for _f in ["pdf", "cdf", "logpdf"]:
    combo("test_chi2_" + _f, "stats.chi2." + _f, [pos(4)], [1, 2, 3])
combo("test_beta_cdf", "stats.beta.cdf", [U(0.0, 1.0, 4)], [pos(4)], [pos(4)])
combo("test_beta_pdf", "stats.beta.pdf", [U(0.0, 1.0, 4)], [pos(4)], [pos(4)], argnums=(0, 1, 2))
combo("test_beta_logpdf", "stats.beta.logpdf", [U(0.0, 1.0, 4)], [pos(4)], [pos(4)], argnums=(0, 1, 2))
combo("test_gamma_cdf", "stats.gamma.cdf", [pos(4)], [pos(4)])
combo("test_gamma_pdf", "stats.gamma.pdf", [pos(4)], [pos(4)], argnums=(0, 1))
combo("test_gamma_logpdf", "stats.gamma.logpdf", [pos(4)], [pos(4)], argnums=(0, 1))
for _f in ["pdf", "cdf", "sf", "logpdf", "logcdf", "logsf"]:
    combo("test_norm_" + _f, "stats.norm." + _f, [R(4)], [R(4)], [pos(4)], argnums=(0, 1, 2))
# (autograd's *_sf_broadcast and *_logsf_broadcast tests call cdf and logcdf)
for _test, _f in [("pdf", "pdf"), ("cdf", "cdf"), ("sf", "cdf"), ("logpdf", "logpdf"), ("logcdf", "logcdf"),
                  ("logsf", "logcdf")]:
    combo("test_norm_%s_broadcast" % _test, "stats.norm." + _f, [R(4, 3)], [R(1, 3)], [pos(4, 1)], argnums=(0, 1, 2))
for _f in ["cdf", "logpmf", "pmf"]:
    combo("test_poisson_" + _f, "stats.poisson." + _f, [R(4).map(lambda a: onp.round(a ** 2), "round(R(4)**2)")],
          [pos(4)], argnums=(1,))
    combo("test_poisson_%s_broadcast" % _f, "stats.poisson." + _f,
          [R(4, 3).map(lambda a: onp.round(a ** 2), "round(R(4,3)**2)")], [pos(4, 1)], argnums=(1,))
for _f, _argnums in [("pdf", (0, 1, 2, 3)), ("cdf", (0, 2)), ("logpdf", (0, 1, 2, 3)), ("logcdf", (0, 2))]:
    combo("test_t_" + _f, "stats.t." + _f, [R(4)], [pos(4, add=2.1)], [R(4)], [pos(4, add=2.1)], argnums=_argnums)
    combo("test_t_%s_broadcast" % _f, "stats.t." + _f, [R(4, 3)], [pos(1, 3, add=2.1)], [R(4, 3)],
          [pos(4, 1, add=2.1)], argnums=_argnums)


def make_psd(spec):
    return spec.map(lambda m: m.T @ m + onp.eye(m.shape[0]), "make_psd(%s)" % spec.label)


combo("test_mvn_pdf", symmetrize_arg(lambda ns: ns.mvn.pdf, 2), [R(4)], [R(4)], [make_psd(R(4, 4))],
      allow_singular=[False], argnums=(0, 1, 2), func="stats.multivariate_normal.pdf")
combo("test_mvn_logpdf", symmetrize_arg(lambda ns: ns.mvn.logpdf, 2), [R(4)], [R(4)], [make_psd(R(4, 4))],
      allow_singular=[False], argnums=(0, 1, 2), func="stats.multivariate_normal.logpdf")
combo("test_mvn_entropy", symmetrize_arg(lambda ns: ns.mvn.entropy, 1), [10 * R(4)], [make_psd(R(4, 4))],
      argnums=(0, 1), func="stats.multivariate_normal.entropy")


def _sing(which):
    def build(ns):
        from functools import partial

        dist = getattr(ns.mvn, which)

        def fun(x, mean, cov):
            x = ns.np.concatenate([x[:2], mean[2:]])
            return symmetrize_arg(lambda _: partial(dist, allow_singular=True), 2)(ns)(x, mean, cov)
        return fun
    return build


_SING_COV = onp.diag([1.0, 1.0, 0.0, 0.0])
_pad2 = lambda: R(2).map(lambda a: onp.concatenate((a, onp.zeros(2))), "(R(2),0,0)")  # noqa: E731
combo("test_mvn_sing_cov", _sing("pdf"), [_pad2()], [_pad2()], [const(_SING_COV, "diag(1,1,0,0)")], argnums=(0, 1),
      func="stats.multivariate_normal.pdf")
combo("test_mvn_sing_cov", _sing("logpdf"), [_pad2()], [_pad2()], [const(_SING_COV, "diag(1,1,0,0)")],
      argnums=(0, 1), func="stats.multivariate_normal.logpdf")
combo("test_mvn_pdf_broadcast", symmetrize_arg(lambda ns: ns.mvn.pdf, 2), [R(5, 4)], [R(4)], [make_psd(R(4, 4))],
      argnums=(0, 1, 2), func="stats.multivariate_normal.pdf")
combo("test_mvn_logpdf_broadcast", symmetrize_arg(lambda ns: ns.mvn.logpdf, 2), [R(5, 4)], [R(4)],
      [make_psd(R(4, 4))], argnums=(0, 1, 2), func="stats.multivariate_normal.logpdf")

_alpha = made("alpha", lambda r: r.random_sample(4) ** 2 + 1.2, key="alpha")
_x = made("x~Dirichlet(alpha)", lambda r: (lambda a: r.dirichlet(a))(r.random_sample(4) ** 2 + 1.2), key="alpha")


def _normalized(which):
    # x / sum(x) (the builtin sum, as autograd's test), so that perturbed x still sums to one
    return lambda ns: lambda x, alpha: getattr(ns.stats.dirichlet, which)(x / sum(x), alpha)


combo("test_dirichlet_pdf_x", _normalized("pdf"), [_x], [_alpha], func="stats.dirichlet.pdf")
combo("test_dirichlet_pdf_alpha", "stats.dirichlet.pdf", [_x], [_alpha], argnums=(1,))
combo("test_dirichlet_logpdf_x", _normalized("logpdf"), [_x], [_alpha], func="stats.dirichlet.logpdf")
combo("test_dirichlet_logpdf_alpha", "stats.dirichlet.logpdf", [_x], [_alpha], argnums=(1,))

# --- logsumexp ---
LSE = "special.logsumexp"
combo("test_logsumexp1", LSE, [const(onp.array([1.1])), R(4), R(3, 4)], axis=[None, 0], keepdims=[True, False])
combo("test_logsumexp2", LSE, [R(3, 4), R(4, 5, 6), R(1, 5)], axis=[None, 0, 1], keepdims=[True, False])
combo("test_logsumexp3", LSE, [R(4)], b=[R(4).map(onp.exp, "exp(R(4))")], axis=[None, 0], keepdims=[True, False])
combo("test_logsumexp4", LSE, [R(3, 4)], b=[R(3, 4).map(onp.exp, "exp(R(3,4))")], axis=[None, 0, 1],
      keepdims=[True, False])
combo("test_logsumexp5", LSE, [R(2, 3, 4)], b=[R(2, 3, 4).map(onp.exp, "exp(R(2,3,4))")], axis=[None, 0, 1],
      keepdims=[True, False])
check("test_logsumexp6", lambda ns: lambda a: ns.special.logsumexp(a, axis=1, keepdims=True), R(1, 5, key="x"),
      func=LSE, label="f")
check("test_logsumexp6", lambda ns: lambda a: ns.grad(lambda b: ns.special.logsumexp(b, axis=1, keepdims=True))(a),
      R(1, 5, key="x"), func=LSE, label="grad(f)")

# --- signal ---
CONV = "signal.convolve"
combo("test_convolve", CONV, [R(4), R(5), R(6)], [R(2), R(3), R(4)], mode=["full", "valid", "same"], argnums=(0, 1))
combo("test_convolve_2d", CONV, [R(4, 3), R(5, 4), R(6, 7)], [R(2, 2), R(3, 2), R(4, 2), R(4, 1)],
      mode=["full", "valid", "same"], argnums=(0, 1))
_NA_CONV = "autograd's convolve(..., axes=, dot_axes=) generalisation has no SciPy counterpart"
combo("test_convolve_ignore", CONV, [R(4, 3)], [R(3, 2)],
      axes=[([0], [0]), ([1], [1]), ([0], [1]), ([1], [0]), ([0, 1], [0, 1]), ([1, 0], [1, 0])],
      mode=["full", "valid", "same"], argnums=(0, 1), na=_NA_CONV)
combo("test_convolve_ignore_dot", CONV, [R(3, 3, 2)], [R(3, 2, 3)], axes=[([1], [1])],
      dot_axes=[([0], [2]), ([0], [0])], mode=["full", "valid", "same"], argnums=(0, 1), na=_NA_CONV)

# --- special ---
combo("test_beta", "special.beta", [pos(4)], [pos(4)], argnums=(0, 1))
combo("test_betainc", "special.betainc", [pos(4)], [pos(4)], [U(0.0, 1.0, 4)], argnums=(2,))
combo("test_betaln", "special.betaln", [pos(4)], [pos(4)], argnums=(0, 1))
for _f, _first in [("gammainc", 1), ("gammaincc", 1), ("polygamma", 0), ("jn", 2), ("yn", 2)]:
    combo("test_" + _f, "special." + _f, [_first], elements(pos(4, add=1.3, key="x"), 4), argnums=(1,))
for _f, _lims in [("psi", (0.3, 2.0)), ("digamma", (0.3, 2.0)), ("gamma", (0.3, 2.0)), ("gammaln", (0.3, 2.0)),
                  ("gammasgn", (0.3, 2.0)), ("rgamma", (0.3, 2.0)), ("j0", (0.2, 20.0)), ("j1", (0.2, 20.0)),
                  ("y0", (0.2, 20.0)), ("y1", (0.2, 20.0)), ("i0", (0.2, 20.0)), ("i1", (0.2, 20.0)),
                  ("erfinv", (-0.95, 0.95)), ("erfcinv", (0.05, 1.95)), ("logit", (0.10, 0.90)),
                  ("expit", (-4.05, 4.95))]:
    unary_ufunc_check(S, "test_" + _f, "special." + _f, lims=_lims, test_complex=False, needs=SC)
for _f in ["erf", "erfc"]:
    unary_ufunc_check(S, "test_" + _f, "special." + _f, lims=(-3.0, 3.0), test_complex=True, needs=SC)
combo("test_multigammaln", "special.multigammaln", [U(4.0, 5.0), U(4.0, 5.0, 2, 3)], [1, 2, 3])
for _f in ["iv", "ive"]:
    combo("test_" + _f, "special." + _f, elements(U(1.0, 50.0, 4, key="v"), 4), elements(pos(4, add=1.3, key="z"), 4),
          argnums=(1,))


# --- integrate ---
def _odeint(ns):
    """autograd's case, solved to tolerances of 1e-12 (``odeint``'s default is 1.5e-8): finite
    differences of an adaptive solver's output differentiate its discretization, and their
    second differences then differ from the solution's derivatives (3e-5 here, at the default),
    where ad and autograd's rules integrate the sensitivity or adjoint equations."""
    def func(y, t, arg1, arg2):
        return -ns.np.sqrt(t) - y + arg1 - ns.np.mean((y + arg2) ** 2)
    return lambda y0, t, args: ns.integrate.odeint(func, y0, t, args, rtol=1e-12, atol=1e-12)


combo("test_odeint", _odeint, [R(3)], [const(onp.linspace(0.1, 0.2, 4), "linspace(0.1,0.2,4)")], [(R(3), R(3))],
      argnums=(0, 1, 2), func="integrate.odeint")

# --- linalg ---
combo("test_sqrtm", symmetrize_arg(lambda ns: ns.linalg.sqrtm, 0), [R(3, 3)], func="linalg.sqrtm")
combo("test_solve_sylvester", "linalg.solve_sylvester", [R(3, 3)], [R(3, 3)], [R(3, 3)], argnums=(0, 1, 2))
combo("test_solve_banded", "linalg.solve_banded", [(1, 1)], [R(3, 5)], [R(5)], argnums=(1, 2), order=1)
