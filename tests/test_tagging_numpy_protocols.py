"""NumPy called from code that runs natively follows the tagging context's rules (NumPy's
``__array_ufunc__`` and ``__array_function__`` protocols on tagged values).

Special methods the interpreter calls itself (``Vec.__add__`` behind ``u + v``), a property
loaded as a method, a function behind ``functools.lru_cache``, ``sum()`` over the user's
objects: their bodies run natively, where a NumPy call on a value being differentiated was a
bare ``TypeError: operand 'DualArray' does not support ufuncs``. Each case is checked in both
modes against central differences or the analytic answer.
"""

import functools
import math
import operator

import numpy as np
import pytest

import ad
import context
from context.tagging import TaggingContext, enabletagging, istagged, metadata, tag

F, R = ad.ForwardMode(), ad.ReverseMode()
FD = ad.FiniteDifferences()
MODES = [F, R]


class Vec:
    """A user's vector: its operators call NumPy on what it holds."""

    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vec(np.add(self.x, other.x))

    def __radd__(self, other):  # sum() starts from 0
        return self if other == 0 else Vec(np.add(other, self.x))

    def __mul__(self, other):
        return Vec(np.multiply(self.x, other.x if isinstance(other, Vec) else other))

    def __rmul__(self, c):
        return Vec(np.exp(self.x) * c)

    def __abs__(self):
        return np.sqrt(np.sum(self.x ** 2))

    def __matmul__(self, other):
        return np.dot(self.x, other.x)

    @property
    def norm(self):
        return np.linalg.norm(np.concatenate([self.x, np.tanh(self.x)]))

    @property
    def scaled(self):  # a property returning a function, loaded as a method: o.scaled(c)
        return lambda c: Vec(np.sin(self.x) * c)


X = np.array([0.3, -0.5, 0.7])


@pytest.mark.parametrize("mode", MODES, ids=["forward", "reverse"])
@pytest.mark.parametrize("case", [
    lambda x: np.sum((Vec(x) + Vec(x * 2)).x),
    lambda x: np.sum((Vec(x) * Vec(np.cos(x))).x) + np.sum((2.0 * Vec(x)).x),
    lambda x: abs(Vec(x)),
    lambda x: Vec(x) @ Vec(x ** 2),
    lambda x: getattr(Vec(x), "norm") + Vec(x).norm,
    lambda x: np.sum(Vec(x).scaled(3.0).x),
    lambda x: np.sum(sum([Vec(x), Vec(x * x)]).x),
], ids=["add", "mul-rmul", "abs", "matmul", "getattr-property", "property-as-method", "builtin-sum"])
def test_special_methods_of_the_users_class_are_differentiated(case, mode):
    np.testing.assert_allclose(ad.gradient(case, X, backend=mode), ad.gradient(case, X, backend=FD), rtol=1e-6)


@functools.lru_cache(maxsize=None)
def _cached_power(n):
    return lambda x: np.power(x, n)  # (the cache holds functions; what they do runs natively)


def test_functions_called_through_native_wrappers():
    f = lambda x: np.sum(_cached_power(3)(x))  # noqa: E731
    for mode in MODES:
        np.testing.assert_allclose(ad.gradient(f, X, backend=mode), 3 * X ** 2, rtol=1e-12)


def test_second_derivatives_through_special_methods_in_every_nesting():
    def f(x):
        v = Vec(x)
        return abs(v + Vec(np.sin(x))) * np.sum((2.0 * v).x)

    expected = ad.hessian(f, X, backend=FD)
    for b in (F, ad.HigherOrder(F, R), ad.HigherOrder(R, F), ad.HigherOrder(R, R)):
        np.testing.assert_allclose(ad.hessian(f, X, backend=b), expected, rtol=1e-4, atol=1e-6)


def test_no_perturbation_confusion_through_special_methods():
    """The inner derivative's values reach NumPy inside ``__abs__`` beside the outer one's:
    d/dy d/dz |(z y, z)| at z = 1 is y / sqrt(y^2 + 1)."""
    def g(y):
        return ad.derivative(lambda z: abs(Vec(np.array([z * y, z]))), 1.0)

    for mode in MODES:
        assert ad.derivative(g, 0.5, backend=mode) == pytest.approx(0.5 / math.sqrt(1.25), rel=1e-12)


def test_arrays_on_the_left_of_an_operator_in_native_code():
    """``array * x`` in native code: NumPy calls ``np.multiply(array, x)``, which goes to the rule of
    ``operator.mul`` as the reflected operator did; ``array += x`` rebinds as before."""
    class Scale:
        def __init__(self, x):
            self.x = x

        def __rmul__(self, a):
            return np.ones(3) * self.x + a

        def bump(self):
            acc = np.zeros(3)
            acc += self.x
            return acc

    f = lambda x: np.sum(2.0 * Scale(x)) + np.sum(Scale(x * x).bump())  # noqa: E731
    for mode in MODES:
        np.testing.assert_allclose(ad.gradient(f, X, backend=mode), 1 + 2 * X, rtol=1e-12)


def test_a_function_with_no_rule_reached_from_native_code_is_named():
    class Counts:
        def __init__(self, w):
            self.w = w

        def __abs__(self):
            return np.bincount([0, 1, 1], weights=self.w).sum()

    with pytest.raises(ad.NoRuleError, match="bincount"):
        ad.gradient(lambda x: abs(Counts(x)), X, backend=F)


class Marks(TaggingContext):
    """A tagging context with a primitive for ``operator.add`` only: NumPy's other functions see
    its values untagged (``untag_for_natives``)."""


@Marks.primitive(operator.add)
def _marked_add(ctx, a, b):
    out = (a.value if istagged(a, ctx) else a) + (b.value if istagged(b, ctx) else b)
    return tag(out, ctx, "added")


class Halves:
    def __init__(self, x):
        self.x = x

    def __radd__(self, a):  # natively: NumPy's array on the left of a tagged value
        return np.full(2, a) + self.x

    def __abs__(self):
        return np.sqrt(self.x)


def test_a_context_with_operator_primitives_sees_arrays_on_the_left_as_before():
    def run(x):
        return 1.0 + Halves(x), abs(Halves(x))

    ctx = enabletagging(Marks(), run)
    x = tag(np.array([4.0, 9.0]), ctx, "input")
    added, root = context.overdub(ctx, run, x)
    assert metadata(added, ctx) == "added"  # operator.add's primitive, as with the reflected operator
    np.testing.assert_array_equal(np.asarray(added.value), [5.0, 10.0])
    assert not istagged(root, ctx)  # np.sqrt: no primitive, so the untagged value and result
    np.testing.assert_array_equal(root, [2.0, 3.0])


def test_values_of_a_finished_context_count_as_what_they_carry():
    holder = []

    def run(x):
        holder.append(x)
        return x

    ctx = enabletagging(Marks(), run)
    context.overdub(ctx, run, tag(np.array([0.0, 1.0]), ctx, "m"))
    escaped = holder[0]
    np.testing.assert_array_equal(np.sin(escaped), np.sin([0.0, 1.0]))
    np.testing.assert_array_equal(np.concatenate([escaped, [2.0]]), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.ones(2) + escaped, [1.0, 2.0])


def test_dicts_find_and_keep_keys_being_differentiated_by_their_value():
    """``d[x]`` with ``x`` being differentiated looks the key up by its value, as ``x in d`` and
    ``d.get(x)`` do (it was an error about array indices); ``d[x] = v`` keeps the key as it is, as a
    set does, so the derivative flows through the keys read back."""
    import collections

    def f(x):
        d = {0.5: 2.0}
        d[x * 2] = np.sin(x)
        counts = collections.defaultdict(float)
        counts[x] += x * 3
        total = sum(k * v for k, v in d.items())
        return d[x] * x + d[1.0] + total + counts[x]

    expected = 5 + 2 * math.cos(0.5) + 2 * math.sin(0.5)
    for mode in MODES:
        assert ad.derivative(f, 0.5, backend=mode) == pytest.approx(expected, rel=1e-14)
    with pytest.raises(ad.NoRuleError, match="index carries a derivative"):
        ad.derivative(lambda x: [1.0, 2.0][x], 1.0)  # a list's index is not a key


def test_math_in_native_code_names_the_code_that_called_it():
    """``math`` has no protocol: converting a value being differentiated there is an error that names
    the Python function whose native call converted it, and points to NumPy's function."""
    from context.tagging.operators import MetadataLossError

    class Disc:
        def __init__(self, r):
            self.r = r

        def __abs__(self):
            return math.sqrt(self.r)

    with pytest.raises(MetadataLossError, match=r"called by .*Disc\.__abs__ .*use NumPy's"):
        ad.derivative(lambda r: abs(Disc(r)), 2.0)
