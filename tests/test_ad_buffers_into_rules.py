"""A plain buffer holding values being differentiated, passed to functions whose rules take their
arguments as given (custom primitives: ``np.average``, ``np.divmod``, ``np.putmask``, ``np.copyto``,
``np.add.at``, ...), in every mode and nesting, against central differences.

Such rules computed on the buffer's values alone where they did not lift it to the value it
stands for: ``np.average`` of a buffer had a zero derivative in forward mode; ``np.copyto(...,
where=)`` from one too; chained ``np.add.at`` lost second-order terms (the forward Hessian,
and third derivatives with reverse mode innermost); and Hessians forward over reverse and
reverse over reverse of ``average``, ``divmod``, ``putmask``, ``place``, ``copyto``,
``fill_diagonal`` and a plain ``a[:] = buffer`` were wrong."""

import numpy as np
import pytest

import ad

X = np.array([0.3, -0.7, 1.1, 0.4])
W = np.arange(1.0, 5.0)
R, F = ad.ReverseMode(), ad.ForwardMode()
NESTINGS = {"FF": (F, F), "FR": (F, R), "RF": (R, F), "RR": (R, R)}


def buf(x):
    z = np.zeros(4)
    z[:] = x ** 3 + x[0] * x
    return z


def _into(write, init=np.zeros):
    def g(z, x):
        a = init(4)
        write(a, z, x)
        return a
    return g


def _fill_diagonal(z, x):
    a = np.zeros((4, 4))
    np.fill_diagonal(a, z)
    return a.ravel()[:4] + a[1]


def _chained_add_at(z, x):
    a = np.zeros(4)
    np.add.at(a, [0, 1, 1, 3], z)
    b = np.zeros(4)
    np.add.at(b, [3, 2, 1, 0], a)
    return b


MASK = np.array([True, False, True, True])
CASES = {
    "average": lambda z, x: np.average(z, weights=W) * np.ones(4),
    "average unweighted": lambda z, x: np.average(z) * np.ones(4),
    "divmod": lambda z, x: np.divmod(z, 0.7)[1],
    "clip": lambda z, x: np.clip(z, -0.5, 0.5),
    "array of a list": lambda z, x: np.array([z, x])[0],
    "append": lambda z, x: np.append(z, x)[:4],
    "select": lambda z, x: np.select([z > 0], [z], default=0.0),
    "block": lambda z, x: np.block([z, x])[:4],
    "pad": lambda z, x: np.pad(z, 1)[1:5],
    "piecewise": lambda z, x: np.piecewise(z, [z > 0], [lambda v: v * v, lambda v: v]),
    "ptp": lambda z, x: np.ptp(z) * np.ones(4),
    "median": lambda z, x: np.median(z) * np.ones(4),
    "putmask": _into(lambda a, z, x: np.putmask(a, MASK, z)),
    "place": _into(lambda a, z, x: np.place(a, MASK, z)),
    "copyto": _into(lambda a, z, x: np.copyto(a, z)),
    "copyto where": _into(lambda a, z, x: np.copyto(a, z, where=MASK), np.ones),
    "add.at": _into(lambda a, z, x: np.add.at(a, [0, 1, 1, 3], z)),
    "add.at chained": _chained_add_at,
    "ufunc where out": _into(lambda a, z, x: np.add(z, x, out=a, where=MASK), np.ones),
    "ufunc out": _into(lambda a, z, x: np.multiply(z, x, out=a), np.ones),
    "put": _into(lambda a, z, x: np.put(a, [0, 2], z[:2])),
    "put_along_axis": _into(lambda a, z, x: np.put_along_axis(a, np.array([3, 1]), z[:2], 0)),
    "fill_diagonal": _fill_diagonal,
}


def _assigned(z, x):
    a = np.zeros(4)
    a[:] = z
    return a


CASES["subscript assignment"] = _assigned


def _function(g):
    return lambda x: np.sum(g(buf(x), x) ** 2 * W)


def _central(f, x, h):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("name", CASES)
def test_gradients(name):
    f = _function(CASES[name])
    expected = _central(f, X, 1e-6)
    for backend in (F, R):
        np.testing.assert_allclose(ad.gradient(f, X, backend=backend), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", CASES)
def test_hessians_every_nesting(name):
    f = _function(CASES[name])
    expected = _central(lambda y: ad.gradient(f, y), X, 1e-5)
    for nesting, (outer, inner) in NESTINGS.items():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=nesting)


def test_third_derivatives_with_reverse_mode_innermost():
    """``x[0:2][::-1]`` reads twice; their pullbacks, ``np.add.at`` into zeros, are chained."""
    def f(x):
        c = x[0:2][::-1] * x[0]
        return np.sum(c * c)

    def third(a, b, c):
        return ad.jacobian(lambda z: ad.jacobian(lambda y: ad.gradient(f, y, backend=c), z, backend=b), X, backend=a)

    expected = third(F, F, F)
    np.testing.assert_allclose(expected, _central(lambda y: ad.hessian(f, y), X, 1e-5), atol=1e-6)
    for modes in ((F, F, R), (F, R, R), (R, R, R), (R, F, F), (F, R, F)):
        np.testing.assert_allclose(third(*modes), expected, rtol=1e-10, atol=1e-10)
    # reverse over forward over reverse: the inner backward pass writes (np.add.at) under the forward
    # derivative values of the outer reverse-mode run; refused clearly, as before this session
    with pytest.raises(TypeError, match="one derivative at a time"):
        third(R, F, R)


def _flat_written(z, x):
    a = np.zeros(4)
    a.flat[1] = z[0] * x[1]
    a.flat[2:] = z[2:]
    return a


FLAT = {
    "iterated": lambda z, x: np.array([v for v in z.flat]),
    "indexed": lambda z, x: z.flat[2] * x,
    "to a function": lambda z, x: np.sum(z.flat) * x,
    "written": _flat_written,
    "of a computed array": lambda z, x: np.array([v for v in (z * x).flat]),
    "of a computed array, written": lambda z, x: (lambda y: (y.flat.__setitem__(0, x[2]), y)[1])(z * 1.0),
}


@pytest.mark.parametrize("name", FLAT)
def test_flat(name):
    """``.flat`` of a buffer holding values being differentiated read the buffer's values alone: a
    zero derivative (and ``.flat`` of a computed array was an AttributeError)."""
    f = _function(FLAT[name])
    expected = _central(f, X, 1e-6)
    for backend in (F, R):
        np.testing.assert_allclose(ad.gradient(f, X, backend=backend), expected, rtol=1e-5, atol=1e-6)
    H = _central(lambda y: ad.gradient(f, y), X, 1e-5)
    for nesting, (outer, inner) in NESTINGS.items():
        got = ad.jacobian(lambda y: ad.gradient(f, y, backend=inner), X, backend=outer)
        np.testing.assert_allclose(got, H, rtol=1e-4, atol=1e-4, err_msg=nesting)


def test_flat_of_a_non_contiguous_array_being_differentiated_is_refused():
    with pytest.raises(TypeError, match="non-contiguous"):
        ad.gradient(lambda x: np.sum(np.outer(x, x).T[:, ::2].flat[1]), X)
