"""Wrong answers once given by ``ad``, each checked against central differences or a closed form."""

import math
import warnings

import numpy as np
import pytest

import ad
from ad.testing import check_grads

C = 1.1 + 1.2j


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", [
    lambda x: np.abs(np.array([x]) * C)[0],
    lambda x: np.absolute(np.array([x, 2.0]) * C).sum(),
    lambda x: abs(x * C),  # Python's abs of a complex scalar
    lambda x: np.abs(np.array([x]) * C)[0] ** 2,
    lambda x: np.linalg.norm(np.array([x * C, 2.0 + x])),
    lambda x: np.linalg.norm(np.array([x * C, 2.0 + x]), ord=3),
    lambda x: np.linalg.norm(np.array([x * C, 2.0 + x]), ord=1),
], ids=["np.abs", "np.absolute", "abs", "abs**2", "norm", "norm3", "norm1"])
def test_abs_of_complex_values_has_a_real_tangent(f):
    d = ad.D(f, 0.7)
    assert np.isrealobj(d) and d == pytest.approx(central(f, 0.7), rel=1e-6)


@pytest.mark.parametrize("order", [3, 4, 1.5])
def test_second_derivative_of_a_complex_norm(order):
    def f(x):
        return np.linalg.norm(np.array([x * C, 2.0 + x, x * x * 1j]), ord=order)

    second = ad.D(lambda x: ad.D(f, x), 0.7)
    reference = (central(f, 0.7 + 1e-4) - central(f, 0.7 - 1e-4)) / 2e-4
    assert np.isrealobj(second) and second == pytest.approx(reference, rel=1e-4)


def test_copyto_with_a_constant_source_and_a_mask_keeps_the_other_tangents():
    def into_buffer(x):
        b = np.empty(3)
        b[:] = x
        np.copyto(b, 0.0, where=b < 0)
        return b

    def into_copy(x):
        b = x.copy()
        np.copyto(b, 0.0, where=b < 0)
        return b

    for f in (into_buffer, into_copy):
        _, tangent = ad.jvp(f, np.array([1.0, -2.0, 3.0]), np.ones(3))
        assert tangent.tolist() == [1.0, 0.0, 1.0]


def test_a_direction_that_does_not_touch_a_bad_entry_gives_no_nan():
    grad = ad.gradient(lambda v: np.sum(v ** 2), np.array([np.nan, np.inf, 1.0]))
    assert math.isnan(grad[0]) and grad[1] == np.inf and grad[2] == 2.0
    grad = ad.gradient(lambda v: np.sum(np.sqrt(v)), np.array([0.0, 4.0]))
    assert grad.tolist() == [np.inf, 0.25]


def test_powers_at_zero():
    assert ad.D(lambda y: 0.0 ** y, 2.0) == 0.0  # no math domain error
    assert ad.D(lambda x: x ** 0.0, 0.0) == 0.0  # no ZeroDivisionError
    assert ad.D(lambda x: x ** 0, 0.0) == 0.0
    assert ad.D(lambda x: x ** 0.5, 0.0) == math.inf  # as for arrays (and JAX)
    assert ad.jvp(lambda x: x ** 0.5, np.array([0.0]), np.array([1.0]))[1][0] == math.inf
    assert ad.D(lambda y: np.power(0.0, y), 2.0) == 0.0
    assert ad.D(lambda y: 2.0 ** y, 1.0) == pytest.approx(2 * math.log(2))
    assert math.isnan(ad.D(lambda y: (-2.0) ** y, 2.0))  # defined at integer y only


def test_ufuncs_with_where_keep_the_elements_left_out():
    def safe_divide(a):
        b = np.array([1.0, 0.0, 2.0])
        return np.divide(a, b, out=np.zeros_like(a), where=b != 0)

    J = ad.jacobian(safe_divide, np.array([3.0, 4.0, 5.0]))
    assert J.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.5]]
    value, tangent = ad.jvp(lambda a: np.sqrt(a, out=np.full(3, 9.0), where=a > 0),
                            np.array([4.0, -1.0, 1.0]), np.ones(3))
    assert value.tolist() == [2.0, 9.0, 1.0] and tangent.tolist() == [0.25, 0.0, 0.5]

    def add_where_into_buffer(x):
        b = np.empty(3)
        b[:] = x * 2.0
        np.add(b, x, out=b, where=x > 0)
        return b

    J = ad.jacobian(add_where_into_buffer, np.array([1.0, -1.0, 2.0]))
    assert J.tolist() == [[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]


def test_gradients_of_many_inputs_make_their_directions_a_block_at_a_time():
    import tracemalloc

    from ad.inputs import Input, UnitBasis

    basis = UnitBasis(6, (2, 3))
    assert basis[1:3].shape == (2, 2, 3) and basis[4].tolist() == [[0, 0, 0], [0, 1, 0]]
    assert np.array_equal(np.asarray(basis), np.eye(6).reshape(6, 2, 3))
    assert np.array_equal(np.stack(list(basis)), np.asarray(basis))

    x = np.linspace(0.0, 1.0, 20_000)
    tracemalloc.start()
    try:
        grad = ad.gradient(lambda v: np.sum(v * v), x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.allclose(grad, 2 * x)
    assert peak < 200 * 2**20  # the identity alone would be 3 GiB

    backend = ad.ForwardMode()
    assert backend.chunk_for(Input(np.zeros(1000), "t"), 1000) == 1000  # one run
    assert backend.chunk_for(Input(np.zeros(40_000), "t"), 40_000) == 52  # within the budget
    assert backend.chunk_for(Input([1.0, 2.0], "t"), 2) == 1  # plain floats, one run each


def test_a_number_that_leaves_through_text_is_refused_not_a_silent_zero():
    from context.tagging.operators import MetadataLossError

    for f in (lambda x: float(format(x, ".3f")), lambda x: float(f"{x:.2f}"), lambda x: float("%f" % x)):
        with pytest.raises(MetadataLossError):
            ad.D(f, 1.5)
    for f in (lambda x: float(str(x)), lambda x: float(f"{x}")):  # str() shows the dual, not a number
        with pytest.raises(ValueError, match="could not convert string to float: 'Dual"):
            ad.D(f, 1.5)
    seen = []
    ad.D(lambda x: seen.append(str(x)) or x, 1.5)
    assert seen == ["Dual(1.5, tangent=1.0)"]


def test_numpy_functions_of_lists_of_values_being_differentiated():
    assert ad.D(lambda x: np.std([x, x + 2]), 1.0) == 0.0
    assert ad.D(lambda x: np.std([x, 2 * x]), 1.0) == pytest.approx(0.5)
    assert ad.D(lambda x: np.linalg.norm([x, 3.0]), 4.0) == pytest.approx(0.8)
    assert ad.D(lambda x: np.mean([[x, 1.0], [2.0, x]]), 1.0) == pytest.approx(0.5)


def test_float32_inputs_get_float32_derivatives():
    x = np.array([1.0, 2.0], dtype=np.float32)
    grad = ad.gradient(lambda v: np.sum(v ** 2), x)
    assert grad.dtype == np.float32 and grad.tolist() == [2.0, 4.0]
    assert ad.jacobian(lambda v: np.sin(v) * 2.0, x).dtype == np.float32
    assert ad.gradient(lambda v: np.sum(v ** 2), x.astype(np.float64)).dtype == np.float64


def test_second_derivative_of_the_pseudo_inverse_of_an_ill_conditioned_matrix():
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    a = q @ np.diag([1.0, 0.5, 0.1, 1e-2, 2e-5]) @ q.T  # invertible, condition number 5e4
    v = rng.standard_normal((5, 5))

    def second(t):  # d2/dt2 of pinv(a + t v), elementwise: 2 A^-1 V A^-1 V A^-1 at t = 0
        return ad.D(lambda s: ad.D(lambda r: np.linalg.pinv(a + r * v), s), t)

    inv = np.linalg.inv(a)
    exact = 2 * inv @ v @ inv @ v @ inv
    assert np.allclose(second(0.0), exact, rtol=1e-7, atol=1e-7 * np.abs(exact).max())


def test_abs_of_complex_numbers_to_second_order_and_signs_of_numpy_scalars():
    c = 1.66 + 0.127j
    assert ad.D(lambda x: ad.D(lambda y: abs(y * c * y), x), 0.7) == pytest.approx(2 * abs(c))
    assert abs(ad.D(lambda x: ad.D(lambda y: abs(y * c), x), 0.7)) < 1e-12
    assert ad.D(lambda x: np.abs(np.float64(2.0) - x), 0.5) == -1.0


def test_native_code_asking_for_an_arrays_numbers_is_named():
    from context.tagging.operators import MetadataLossError

    class Holder:  # a comparison's special method runs natively (a subscript's runs under ad)
        def __eq__(self, other):
            return np.array(self.x)

        def __getitem__(self, key):
            return np.array(self.x)

    def f(x, read):
        h = Holder()
        h.x = x
        return read(h)

    with pytest.raises(MetadataLossError, match=r"native code called by .*Holder\.__eq__"):
        ad.jacobian(lambda x: f(x, lambda h: h == 0), np.ones(2))
    assert np.array_equal(ad.jacobian(lambda x: f(x, lambda h: h[0]), np.ones(2)), np.eye(2))
    seen = []
    ad.jvp(lambda x: seen.append(x.base) or x, np.ones(2), np.ones(2))
    assert seen == [None]  # a DualArray owns its data, as SciPy's copy checks expect


def test_a_complex_value_written_into_a_real_buffer_keeps_the_real_part_of_its_tangent():
    def f(x):
        buf = np.zeros(2)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            buf[:] = x * (1 + 2j)  # NumPy keeps the real part
        return buf

    value, tangent = ad.jvp(f, np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    assert tangent.dtype == np.float64 and list(tangent) == [1.0, 0.0]


@pytest.mark.parametrize("join", [np.concatenate, np.stack, np.vstack, np.hstack, np.column_stack])
def test_values_inside_a_nested_list_of_a_join_keep_their_tangents(join):
    x = np.array([1.0, 2.0])
    f = lambda x: join([x, [x[0] * x[1], 1.0]])  # was a zero derivative for the nested list's values
    check_grads(f, [x], order=2)
    assert np.any(ad.jacobian(f, x) != 0, axis=-1).sum() >= 3


def test_real_and_imag_of_a_complex_number_being_differentiated():
    # .real gave the whole complex tangent and .imag a zero tangent: wrong answers
    assert ad.D(lambda t: (t * (1 + 2j)).real, 1.0) == 1.0
    assert ad.D(lambda t: (t * (1 + 2j)).imag, 1.0) == 2.0
    assert ad.D(lambda t: (np.complex128(t) * (1 + 2j)).imag, 1.0) == 2.0
    assert ad.D(lambda t: (t * 3.0).real, 1.0) == 3.0 and ad.D(lambda t: (t * 3.0).imag, 1.0) == 0.0


def test_ufuncs_of_lists_and_numpy_scalar_methods():
    # a list holding values being differentiated crashed inside the ufunc; .squeeze() of a scalar did too
    assert ad.D(lambda x: np.sum(np.exp([x, 2 * x])), 1.0) == pytest.approx(np.exp(1) + 2 * np.exp(2), rel=1e-15)

    def scalar_methods(x):
        y = np.sum(np.array([x, 2 * x]))
        return y.squeeze() * (y.ndim + 1) + y.item()

    assert ad.D(scalar_methods, 1.0) == 6.0


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()])
def test_copy_and_deepcopy_of_values_being_differentiated(backend):
    import copy

    def f(x):
        y = x * 2.0
        return copy.copy(y) + copy.deepcopy(y) + copy.deepcopy(y[0]) + copy.copy(y[1])

    np.testing.assert_array_equal(ad.jacobian(f, np.ones(2), backend=backend), [[6.0, 2.0], [2.0, 6.0]])
    # a deep copy of a structure holding them (it used to pickle the tag, and with it a frame)
    assert ad.gradient(lambda t: copy.deepcopy([t, {"a": t * t}])[1]["a"], 3.0, backend=backend) == 6.0


def test_a_list_argument_holding_values_being_differentiated_beside_another_such_argument():
    # np.polyval([p, 2.0, p * x], x): the list was left as a list of Duals when x carried a tangent too
    for backend in (ad.ForwardMode(), ad.ReverseMode()):
        g = ad.grad(lambda p, x: np.polyval([p, 2.0, p * x], x), (0, 1), backend=backend)(0.3, 1.2)
        assert g == (pytest.approx(1.2 ** 2 + 1.2), pytest.approx(2 * 0.3 * 1.2 + 2.0 + 0.3))
    check_grads(lambda v: np.polyval([v[0], 2.0], v[1]), [np.array([0.3, 1.2])])


@pytest.mark.skipif("descending" not in __import__("inspect").signature(np.sort).parameters,
                    reason="np.sort(descending=) is new in NumPy 2.5")
def test_sort_descending_follows_the_descending_order():
    # the rule used the ascending order: a wrong Jacobian
    J = ad.jacobian(lambda v: np.sort(v, descending=True), np.array([3.0, 1.0, 2.0, 1.0]))
    np.testing.assert_array_equal(J, [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    check_grads(lambda v: np.sort(v, descending=True) * np.arange(4.0), [np.array([3.0, 1.0, 2.0, 0.5])])


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()])
def test_numpy_scalar_methods_of_a_number_being_differentiated(backend):
    f = lambda x: np.sum(x).sum() * np.max(x).squeeze() + np.sum(x).ndim + np.mean(x).item()
    np.testing.assert_allclose(ad.gradient(f, np.array([1.0, 2.0]), backend=backend), [2.5, 5.5])


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()], ids=["forward", "reverse"])
def test_a_generator_given_to_a_function_whose_rule_reads_its_items(backend):
    """``math.fsum(v for v in data)`` with no item being differentiated: forward mode's rule read the
    generator to look for tangents, then called ``fsum`` with what was left of it, nothing, so the
    value was 1.0 where it is 4.0. The function gets the items; an iterator still, so what refuses
    iterators (``np.stack``) refuses as natively."""
    cases = [
        (lambda x: x + math.fsum(v for v in [1.0, 2.0]), 4.0, 1.0),
        (lambda x: math.fsum(v * x for v in [1.0, 2.0]), 3.0, 3.0),
        (lambda x: math.dist((v for v in [3.0, 4.0]), [0.0, 0.0]) * x, 5.0, 5.0),
        (lambda x: math.dist((v * x for v in [3.0, 4.0]), iter([0.0, 0.0])), 5.0, 5.0),
    ]
    for f, value, derivative in cases:
        assert ad.value_and_derivative(f, 1.0, backend=backend) == (value, derivative)
    with pytest.raises(TypeError, match="sequence"):
        ad.derivative(lambda x: float(np.sum(np.stack(v for v in [np.ones(2)]))) * x, 1.0, backend=backend)


@pytest.mark.parametrize("backend", [ad.ForwardMode(), ad.ReverseMode()], ids=["forward", "reverse"])
def test_statistics_exact_sums_name_what_has_no_rule_in_both_modes(backend):
    """``statistics.harmonic_mean`` sums exact fractions (``float.as_integer_ratio``), through which no
    derivative passes, and has no rule of its own (``mean`` and the variances have): an error naming
    that method; reverse mode's numbers lacked the method, and statistics' fallback raised a
    TypeError naming no function."""
    import statistics

    with pytest.raises(ad.NoRuleError, match="float.as_integer_ratio"):
        ad.gradient(lambda x: statistics.harmonic_mean(list(x)), np.array([0.3, 0.5]), backend=backend)


def test_an_infinite_tangent_of_a_sequence_item_keeps_the_directions_it_touches():
    """``math.fsum([sqrt(x0), x1])`` at x0 = 0: the check that zeroes the directions no input touches
    (where a derivative is infinite) skipped the items of sequence arguments, so it saw no input
    touching any direction and zeroed the whole gradient, [0, 0] where it is [inf, 1]."""
    f = lambda x: math.fsum([math.sqrt(x[0]), x[1]])  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for backend in (ad.ForwardMode(), ad.ReverseMode()):
            np.testing.assert_array_equal(ad.gradient(f, np.array([0.0, 1.0]), backend=backend), [np.inf, 1.0])
