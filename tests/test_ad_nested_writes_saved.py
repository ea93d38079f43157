"""Constants written, by an inner derivative's code, into arrays an outer reverse-mode run saved.

In a Hessian reverse over reverse or reverse over forward, the outer run records the inner
derivative's operations and saves their operands (the constant ``b`` of ``b * x``). A later
write of constants into ``b`` is the inner code's own (a plain write for it), yet the outer run
must keep what it saved: its backward pass used the new values, and the Hessian came out wrong
(``6`` for ``2`` below). Every form of write, in every nesting, against forward over forward."""

import numpy as np
import pytest

import ad

R, F = ad.ReverseMode(), ad.ForwardMode()
NESTINGS = {"reverse over reverse": (R, R), "reverse over forward": (R, F), "forward over reverse": (F, R)}
X = np.array([0.3, -0.7, 1.1])


def _subscript(b):
    b[0] = 5.0


def _slice(b):
    b[:2] = 5.0


def _view(b):
    v = b[1:]
    v[...] = 9.0


def _inplace(b):
    b *= 3.0


def _inplace_view(b):
    b[1:] += 2.0


def _out(b):
    np.multiply(b, 3.0, out=b)


def _copyto(b):
    np.copyto(b, np.full(3, 4.0))


def _fill(b):
    b.fill(2.0)


def _add_at(b):
    np.add.at(b, [0, 0, 2], 1.5)


def _putmask(b):
    np.putmask(b, np.array([True, False, True]), 7.0)


def _in_a_callee(b):
    _subscript(b)


WRITES = [_subscript, _slice, _view, _inplace, _inplace_view, _out, _copyto, _fill, _add_at, _putmask, _in_a_callee]


def _program(write):
    def f(x):
        b = np.ones(3)
        y = np.sum(b * x * x) + np.sum(np.sin(b[1:] * x[1:]))
        write(b)
        return y + np.sum(b * x)

    return f


def test_the_first_case():
    f = _program(_subscript)
    expected = 2.0 * np.eye(3) - np.diag([0.0, *(np.sin(X[1:]))])
    for outer, inner in NESTINGS.values():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
        assert np.allclose(got, expected)


@pytest.mark.parametrize("write", WRITES, ids=lambda w: w.__name__.strip("_"))
@pytest.mark.parametrize("nesting", NESTINGS)
def test_constants_written_into_saved_arrays(write, nesting):
    f = _program(write)
    outer, inner = NESTINGS[nesting]
    got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
    assert np.allclose(got, ad.hessian(f, X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("write", [_subscript, _inplace, _out], ids=lambda w: w.__name__.strip("_"))
def test_a_buffer_made_outside_and_reused(write):
    """The buffer lives across calls: the outer run's copy is its own, the buffer is written as natively."""
    b = np.ones(3)

    def f(x):
        b[...] = 1.0
        y = np.sum(b * x * x)
        write(b)
        return y + np.sum(b * x)

    H = ad.hessian(f, X)
    for outer, inner in NESTINGS.values():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
        assert np.allclose(got, H, rtol=1e-12, atol=1e-12)
    f(X)
    expected = np.ones(3)
    write(expected)
    assert np.array_equal(b, expected)


def test_runs_are_forgotten_when_they_end():
    """The register of runs that saved arrays holds only running ones (a run that raised too)."""
    from ad.engine import saves

    f = _program(_subscript)
    ad.jacobian(lambda y: ad.gradient(f, y, backend=R), X, backend=R)
    assert saves.RUNS == []

    def raises(x):
        b = np.ones(3)
        if np.sum(b * x) < 100.0:  # an operation recorded (an array saved) before the raise
            raise ValueError("halfway")
        return x

    with pytest.raises(ValueError, match="halfway"):
        ad.gradient(raises, X, backend=R)
    assert saves.RUNS == []
