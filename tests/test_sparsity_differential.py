"""Sparsity detection on random programs (``ad_write_programs``, ``ad_programs``): the detected
Hessian pattern holds every nonzero of the Hessian (a missed one would be a wrong sparse Hessian),
globally where the program does not branch on its values, else at the point (``local=True``).
Such programs found ``np.add.at`` into a buffer holding dependencies dropping the new ones,
``where=`` of ufuncs refused, ``ufunc.reduce`` with no rule, and ``np.real`` of a complex array
refused."""

import numpy as np
import pytest

import ad

from .ad_programs import array_program
from .ad_write_programs import program as write_program

X4 = np.array([0.3, -0.7, 1.1, 0.4])
X12 = np.random.default_rng(0).uniform(-1, 1, 12)


def _compiled(source):
    namespace = {"np": np}
    exec(compile(source, "<program>", "exec"), namespace)
    return namespace["f"]


def _holds_every_nonzero(f, x):
    H = ad.hessian(f, x)
    try:
        pattern = ad.hessian_sparsity(f, x)
    except ad.SparsityBranchError:
        pattern = ad.hessian_sparsity(f, x, local=True)
    missed = (np.abs(H) > 1e-12) & ~pattern.toarray()
    return not missed.any(), np.argwhere(missed).tolist()


@pytest.mark.parametrize("seed", range(80))
def test_programs_that_write(seed):
    ok, missed = _holds_every_nonzero(_compiled(write_program(seed)), X4)
    assert ok, (write_program(seed), missed)


@pytest.mark.parametrize("seed", range(80))
def test_array_programs(seed):
    ok, missed = _holds_every_nonzero(_compiled(array_program(seed)), X12)
    assert ok, (array_program(seed), missed)


def test_the_rules_found_missing():
    M = np.array([True, False, True, False])
    D = np.array([1.0, 3.0, 2.0, 5.0])
    cases = [
        (lambda x: np.divide(x, D, out=np.zeros(4), where=M), [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]),
        (lambda x: np.add.reduce(x.reshape(2, 2), axis=1), [[1, 1, 0, 0], [0, 0, 1, 1]]),
        (lambda x: np.multiply.accumulate(x)[:2], [[1, 0, 0, 0], [1, 1, 0, 0]]),
        (lambda x: np.real(x + 0j) * 2, np.eye(4)),
        (lambda x: (x * 1j).imag * x, np.eye(4)),
    ]
    for f, expected in cases:
        np.testing.assert_array_equal(ad.jacobian_sparsity(f, X4).toarray(), np.asarray(expected, dtype=bool))

    def added(x):
        b = np.zeros(4)
        b[:] = x
        np.add.at(b, [0, 2, 0], x[:3] ** 2)
        return b

    np.testing.assert_array_equal(ad.jacobian_sparsity(added, X4).toarray().astype(int),
                                  [[1, 0, 1, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]])


def test_flat_reads_and_writes():
    """``.flat`` of an array depending on the input (read, iterated, written) carries its dependencies:
    reads through it were constants (missed entries) before."""
    def read(x):
        b = np.ones(4) * x
        return b.flat[2] * x[0]

    def written(x):
        b = np.ones((2, 2)) * x[1]
        b.flat[2] = x[3] * b.flat[1]
        return np.sum(b * b) + sum(v for v in b.flat) * x[0]

    for f in (read, written):
        expected = np.abs(ad.hessian(f, X4)) > 0
        np.testing.assert_array_equal(ad.hessian_sparsity(f, X4).toarray(), expected)
