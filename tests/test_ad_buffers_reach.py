"""A plain buffer holding values being differentiated (written with ``b[:] = ...``) is the value it
stands for wherever it goes: into rules of their own (``np.concatenate``, ``np.clip``, ``np.pad``),
inside lists and tuples given to functions and natives (``np.stack([b, w])``, ``sum([b, b])``),
unpacked (``[*b]``), and written over by the functions that write (``np.copyto``, ``np.putmask``,
``np.place``, ``np.add.at``, ``out=``). Each case once gave a silent zero or a stale derivative in
one mode or both; both modes now agree with central differences."""

import math

import numpy as np
import pytest

import ad

R = ad.ReverseMode()
X = np.array([0.3, -0.7, 1.1, 0.4])
W = np.arange(1.0, 5.0)
MASK = np.array([True, False, True, False])

READS = {
    "concatenate": lambda b: np.concatenate([b, b[:2]]),
    "stack": lambda b: np.stack([b, W]),
    "vstack": lambda b: np.vstack((b, b)),
    "array of a list": lambda b: np.array([b, W]),
    "array of a list, indexed": lambda b: np.array([b])[0] * 2,
    "clip": lambda b: np.clip(b, 0.0, 0.5),
    "pad": lambda b: np.pad(b, 1)[1:5],
    "piecewise": lambda b: np.piecewise(b, [b > 0.2], [lambda v: v * 2, lambda v: v]),
    "builtin sum of a list": lambda b: sum([b, b]),
    "math.fsum": lambda b: math.fsum(b) * W,
    "list unpacking": lambda b: np.array([*b]),
    "tuple unpacking": lambda b: np.array((*b,)),
    "set unpacking": lambda b: np.array(sorted({*b})),
}

WRITES = {
    "copyto a constant": lambda b: np.copyto(b, 1.0),
    "copyto an array of constants": lambda b: np.copyto(b, np.arange(4.0)),
    "copyto where": lambda b: np.copyto(b, 1.0, where=MASK),
    "putmask": lambda b: np.putmask(b, MASK, 5.0),
    "place": lambda b: np.place(b, MASK, [7.0]),
    "add.at a constant": lambda b: np.add.at(b, [0, 0], 1.0),
    "add.at a derivative": lambda b: np.add.at(b, [0, 0, 3], b[1:] * 2),
    "subtract.at": lambda b: np.subtract.at(b, [1, 1], b[:2] ** 2),
    "ufunc out=": lambda b: np.multiply(b, 2.0, out=b),
    "ufunc out= where=": lambda b: np.add(np.ones(4), 1.0, out=b, where=MASK),
    "fill": lambda b: b.fill(3.0),
    "sort": lambda b: b.sort(),
    "np.put": lambda b: np.put(b, [0, 2], 5.0),
    "np.put a derivative, wrapped": lambda b: np.put(b, [5, -1], b[:2] * 3, mode="wrap"),
    "ndarray.put": lambda b: b.put([1], b[0] * 3),
    "put_along_axis": lambda b: np.put_along_axis(b.reshape(2, 2), np.array([[1], [0]]), b[:2, None] * 2, axis=1),
    "put_along_axis flat": lambda b: np.put_along_axis(b, np.array([3, 0]), 1.5, axis=None),
    "fill_diagonal": lambda b: np.fill_diagonal(b.reshape(2, 2), b[3] ** 2),
    "fill_diagonal a constant": lambda b: np.fill_diagonal(b.reshape(2, 2), 0.0),
}


def _read_case(op):
    def f(x):
        b = np.zeros(4)
        b[:] = x ** 2
        r = np.asarray(op(b))
        return np.sum(r * W[:r.size]) if r.size <= 4 else np.sum(r)

    return f


def _write_case(op):
    def f(x):
        b = np.zeros(4)
        b[:] = x ** 2
        op(b)
        return np.sum(b * b * W)

    return f


@pytest.mark.parametrize("backend", [ad.ForwardMode(), R], ids=["forward", "reverse"])
@pytest.mark.parametrize("name", list(READS) + list(WRITES))
def test_a_buffer_holding_derivatives_is_what_it_stands_for(name, backend):
    f = _read_case(READS[name]) if name in READS else _write_case(WRITES[name])
    expected = ad.gradient(f, X, backend=ad.FiniteDifferences())
    np.testing.assert_allclose(ad.gradient(f, X, backend=backend), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", [ad.ForwardMode(), R], ids=["forward", "reverse"])
def test_writes_with_no_rule_are_refused_clearly(backend):
    for op, match in ((lambda b: np.put(b, b[:1], 5.0), "put: the indices carry a derivative"),
                      (lambda b: np.multiply.at(b, [0], 2.0), "multiply.at"),
                      (lambda b: b.partition(2), "ndarray.partition")):
        with pytest.raises((ad.NoRuleError, TypeError), match=match):
            ad.gradient(_write_case(op), X, backend=backend)


def test_np_add_at_assembly_in_reverse_mode():
    """Finite-element style assembly: element contributions added into a global vector."""
    elements = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])

    def energy(u):
        g = np.zeros(4)
        np.add.at(g, elements, np.stack([u[elements[:, 0]] ** 2, u[elements[:, 1]] * u[elements[:, 0]]], axis=1))
        return np.sum(g * W)

    np.testing.assert_allclose(ad.gradient(energy, X, backend=R), ad.gradient(energy, X), rtol=1e-12)
    np.testing.assert_allclose(ad.hessian(energy, X, backend=R), ad.hessian(energy, X), rtol=1e-12, atol=1e-13)
