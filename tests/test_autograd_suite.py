"""The fast part of autograd's test suite under ad (``tools/autograd_suite.py``), for every
CI run: a representative subset of the cases in ``tests/autograd_cases/`` must give no
wrong result and no crash (a clear refusal, ``ad.NoRuleError`` and the like, is fine).
The whole run and its figures are in docs/autograd_suite.md.

The runner's references are finite differences and, when it is installed, autograd; the
subset needs neither autograd nor (outside the SciPy test) SciPy.
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tools", "autograd_suite.py")

# A spread over the files: reductions, indexing, shapes, products, einsum, ufuncs (real and
# complex, binary with broadcasting), linalg, nested derivatives, containers, the
# operators, and NumPy functions without a rule (the FFT: clear errors). The largest inputs
# of a case (a 4-d inverse, broadcast eigh and Cholesky, 3-d tensordot: half the reverse
# subset's time, nested thrice) are left to the full run; their small siblings are here. A
# pattern with a wildcard is matched whole, so ``[v]`` ends a name where it stands.
SUBSET = [
    "test_numpy.py::test_dot*", "test_numpy.py::test_max*", "test_numpy.py::test_index_*",
    "test_numpy.py::test_prod_*", "test_numpy.py::test_concatenate_axis_*", "test_numpy.py::test_1d_array*",
    "test_numpy.py::test_where", "test_numpy.py::test_var_ddof*", "test_numpy.py::test_cumsum*",
    "test_numpy.py::test_linspace*", "test_numpy.py::test_cast_to_int",
    "test_systematic.py::test_sin[[]*", "test_systematic.py::test_sqrt[[]*", "test_systematic.py::test_logaddexp[[]*",
    "test_systematic.py::test_true_divide[[]*", "test_systematic.py::test_kron[[]R(5), *", "test_systematic.py::test_kron[[]R(), *",
    "test_systematic.py::test_tensordot_4[[]R(2,2)*",
    "test_systematic.py::test_tensordot_4[[]R(4,2,2), R(2,2),*", "test_systematic.py::test_einsum_covsum*",
    "test_systematic.py::test_matmul[[]*", "test_systematic.py::test_split_2d*", "test_systematic.py::test_sort*",
    "test_systematic.py::test_std[[]*", "test_systematic.py::test_diff*", "test_systematic.py::test_pad*",
    "test_linalg.py::test_in[v]", "test_linalg.py::test_inv_3d[[](R(4,4,4)+5I)]", "test_linalg.py::test_det*", "test_linalg.py::test_slogdet*",
    "test_linalg.py::test_solve*", "test_linalg.py::test_cholesk[y]", "test_linalg.py::test_cholesky_reparameterization_trick",
    "test_linalg.py::test_eigvalh_lowe[r]", "test_linalg.py::test_eigvalh_lower_complex",
    "test_linalg.py::test_norm_axis*", "test_linalg.py::test_svd_tall_2d",
    "test_complex.py::test_angle_*", "test_complex.py::test_abs_real*",
    "test_graphs.py::*", "test_tuple.py::*", "test_dict.py::*", "test_list.py::*",
    "test_binary_ops.py::test_pow*", "test_scalar_ops.py::*", "test_core.py::*", "test_wrappers.py::*",
    "test_jacobian.py::*", "test_fft.py::test_fft*",
]
SCIPY_SUBSET = [
    "test_scipy.py::test_logsumexp*", "test_scipy.py::test_mvn_sing_cov*", "test_scipy.py::test_norm_pdf*",
    "test_scipy.py::test_psi*", "test_scipy.py::test_convolve[[]*",
]


def _run(patterns, tmp_path, backend="forward"):
    out = tmp_path / "run.json"
    jobs = str(min(2, os.cpu_count() or 1))  # (the subsets are the suite's longest tests: both cores)
    args = [sys.executable, RUNNER, "-q", "--json", str(out), "--timeout", "120", "--backend", backend, "-j", jobs]
    for p in patterns:
        args += ["-m", p]
    # (a hang guard, not a speed check: the reverse subset takes about 270 s on a slow, loaded machine)
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads(out.read_text())["records"]


def _bad(records):
    return ["%s @%d: %s %s %s" % (r["name"], r["order"], r["cls"], r.get("error_type", ""),
                                  (r.get("error") or r.get("detail") or "")[:200])
            for r in records if r["cls"] in ("wrong", "crash")]


@pytest.mark.parametrize("backend", ["forward", "reverse"])
def test_subset_has_no_wrong_result_and_no_crash(tmp_path, backend):
    """In reverse mode the derivative of order n nests reverse mode n times."""
    done, records = _run(SUBSET, tmp_path, backend)
    assert not _bad(records), "\n".join(_bad(records))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    classes = {r["cls"] for r in records}
    names = {r["name"] for r in records}
    assert len(names) > 300
    assert sum(r["cls"] == "correct" for r in records) > 400
    assert classes <= {"correct", "clear error", "inconclusive", "n/a"}  # "clear error": see the self-test below
    assert {r["order"] for r in records} == {1, 2, 3}


@pytest.mark.parametrize("backend", ["forward", "reverse"])
def test_scipy_subset_has_no_wrong_result_and_no_crash(tmp_path, backend):
    pytest.importorskip("scipy")
    done, records = _run(SCIPY_SUBSET, tmp_path, backend)
    assert not _bad(records), "\n".join(_bad(records))
    assert sum(r["cls"] == "correct" for r in records) > 30


def _load_runner():
    spec = importlib.util.spec_from_file_location("autograd_suite_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _softsign(x):
    return x / (1 + np.abs(x))


def test_runner_tells_wrong_from_correct_and_clear():
    """The runner's own check: a rule that is off is WRONG, NumPy's sin is correct, the FFT
    is a clear error, and a case plain NumPy cannot run is n/a."""
    runner = _load_runner()
    from tests.autograd_cases._core import Case, R

    ad.defjvp(_softsign, lambda g, ans, x: g / (1 + np.abs(x)))  # the square is missing
    namespaces = {"ad": runner.Namespace("ad"), "fd": runner.Namespace("fd")}

    def case(test, fn, *args, **kw):
        c = Case("self_test", test, fn, args, **kw)
        c.name = "self_test::" + test
        return c

    runs = {
        "off_rule": case("off_rule", lambda ns: _softsign, R(3, 2)),
        "off_rule_two_args": case("off_rule_two_args", lambda ns: lambda x, y: _softsign(x) * y, R(3), R(3),
                                  argnums=(0, 1)),
        "sin_complex": case("sin_complex", "np.sin", R(3).map(lambda a: a + 0.5j, "R(3)+0.5j")),
        "no_rule": case("no_rule", lambda ns: lambda x: ns.np.bincount([0, 1, 1, 2], weights=x), R(4),
                        func="np.bincount"),
        "missing": case("missing", lambda ns: lambda x: ns.np.no_such_function(x), R(2)),
    }
    got = {k: [r["cls"] for r in runner.run_case(c, namespaces, False)] for k, c in runs.items()}
    assert got == {
        "off_rule": ["wrong", "wrong"],
        "off_rule_two_args": ["wrong", "wrong"],
        "sin_complex": ["correct", "correct"],
        "no_rule": ["clear error"],
        "missing": ["n/a"],
    }
