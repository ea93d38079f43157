"""autograd's own test suite (HIPS/autograd, ``tests/``), as data, for checking ``ad``.

Each autograd check ``check_grads(fun, argnum=..., order=N)(*args, **kwargs)`` (and each
combination a ``combo_check`` or a ``*_ufunc_check`` expands to) is one ``Case``: a
function built from a namespace (NumPy or autograd.numpy, SciPy or autograd.scipy), the
arguments it is checked at (drawn by seeded generators, as autograd draws them with
``npr.randn`` and friends), which of them are differentiated, and the order. The runner,
``tools/autograd_suite.py``, differentiates each with ``ad`` on plain NumPy and checks
the result against finite differences and against autograd; docs/autograd_suite.md
describes it. The cases are our own restatement of autograd's tests (read, not copied),
in plain NumPy: ``autograd.numpy`` becomes ``numpy`` and ``autograd.scipy`` ``scipy``.

Covered (HIPS/autograd at commit bff107b):

* ``test_numpy.py``: every check but ``test_numpy_version`` (nothing to differentiate).
  ``np.make_diagonal`` (autograd's own) is ``D[..., :, None] * np.eye(n)`` on NumPy;
  ``np.r_``/``np.c_`` are NumPy's index tricks; ``grad(f)(x) == value`` assertions are
  first-order checks at that point.
* ``test_systematic.py``: every family (statistics, unary and binary ufuncs, shapes,
  products, einsum, splits, stacks, ``select``, ``pad``). ``msort`` exists on NumPy < 2
  only; ``row_stack`` is gone from recent NumPy (those cases are "n/a").
* ``test_linalg.py``: every check, at the order autograd asks for (its
  ``modes=["rev"]`` concerns autograd's own forward mode). ``np.linalg._dot`` and
  ``np.linalg.T`` (autograd helpers) are ``matmul`` and ``swapaxes``.
* ``test_scipy.py``: stats (chi2, beta, gamma, norm, poisson, t, multivariate_normal,
  dirichlet), special, ``logsumexp``, ``integrate.odeint``, ``linalg.sqrtm``,
  ``solve_sylvester``, ``solve_banded``, ``signal.convolve``. autograd's
  ``convolve(..., axes=, dot_axes=)`` generalisation has no SciPy counterpart: those
  combinations are "n/a", and ``test_convolve_generalization`` (values of that
  generalisation only) is left out.
* ``test_complex.py``, ``test_builtins.py``, ``test_binary_ops.py``, ``test_truediv.py``,
  ``test_scalar_ops.py``, ``test_list.py``, ``test_tuple.py``, ``test_dict.py``,
  ``test_graphs.py``, ``test_logic.py``, ``test_core.py``, ``test_direct.py``,
  ``test_jacobian.py``, ``test_fft.py``: every check. Where autograd expects its own
  refusal (assignment into an array, a boolean or complex result under ``grad``, odd
  ``rfftn``), the case checks the derivative, which ad may compute. autograd's
  ``isinstance``, ``list``, ``tuple`` and ``dict`` are the builtins.
* ``test_wrappers.py`` and ``test_misc.py``: the checks with numbers to differentiate
  (``value_and_grad``, ``hessian``, hvps, tensor-Jacobian products, ``make_jvp``,
  ``make_ggnvp`` as the second derivative of ``g(f(x))``, ``grad_and_aux``, dtypes,
  ``elementwise_grad``, ``flatten`` inside a function).

Derivatives taken inside a function (autograd's ``grad``, ``jacobian``,
``elementwise_grad``, ``value_and_grad``) go through the namespace: ad's own under ad,
finite differences under the finite-difference reference, autograd's under autograd.

Not covered, and why:

* ``test_vspaces.py``, ``test_tests.py``, ``test_performance.py``,
  ``_test_complexity.py``, ``profiling.py``: autograd's own machinery (vector spaces, its
  checker failing on purpose, timings); nothing to differentiate.
* ``test_ufunc_dispatch.py``: xarray containers (not a dependency here).
* The parts of ``test_wrappers.py`` and ``test_misc.py`` about autograd's API itself:
  ``checkpoint``, ``const_graph``, ``flatten``/``unflatten`` round trips, the deprecated
  ``defgrad``/``defvjp`` wrappers, ``primitive`` without rules, names and docstrings of
  wrapped functions, and autograd's ``np.where`` wrapper's dtypes.
"""

import importlib

from ._core import Case, Spec, Suite  # noqa: F401

MODULES = [
    "numpy_cases", "systematic", "linalg", "scipy_cases", "complex_cases", "builtins_cases", "binary_ops",
    "scalar_ops", "containers", "graphs", "misc_cases", "fft",
]


def load():
    """Every case, in a stable order, with unique names."""
    cases = []
    for name in MODULES:
        module = importlib.import_module("%s.%s" % (__name__, name))
        for suite in module.SUITES:
            cases.extend(suite.finish())
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1][:5]
    return cases
