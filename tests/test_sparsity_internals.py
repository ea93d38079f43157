"""Sparsity detection's machinery: the slot sorting network, the slot dtype, the operators'
short path and the slot-wise layout rules, each checked against a plain reference."""

import itertools
import math
import operator

import numpy as np
import pytest

import ad
from ad.sparsity import defsparsity, deps, families

pytest.importorskip("scipy")


def _pattern_is_exact(f, x):
    P = ad.jacobian_sparsity(f, x).toarray()
    J = np.abs(np.reshape(ad.jacobian(f, x), P.shape)) > 0
    assert np.array_equal(P, J), (P.astype(int), J.astype(int))


@pytest.mark.parametrize("K", range(1, 17))
def test_sorting_network_sorts_every_zero_one_input(K):
    # the 0-1 principle: a comparator network that sorts every 0/1 sequence sorts every sequence
    ones = np.array(list(itertools.product([0, 1], repeat=K)), dtype=np.uint16).T
    assert np.array_equal(np.stack(deps.sorted_rows(ones)), _distinct_reference(ones))
    assert all(i < j < K for i, j in deps.network(K))


def _distinct_reference(S):
    S = np.sort(S, axis=0)
    S[1:][S[1:] == S[:-1]] = 0
    return S


@pytest.mark.parametrize("K", [2, 3, 5, 8, 12, 16, 17, 24])
def test_sorted_rows_and_compact_match_a_plain_sort(K):
    rng = np.random.default_rng(K)
    S = rng.integers(0, 6, size=(K, 3, 50)).astype(np.uint16)
    assert np.array_equal(np.stack(deps.sorted_rows(S)), _distinct_reference(deps.flat(S)))
    C = deps.compact(S)
    assert C.shape[1:] == S.shape[1:] and C.dtype == S.dtype
    for e in np.ndindex(S.shape[1:]):
        want = set(S[(slice(None),) + e].tolist()) - {0}
        assert set(C[(slice(None),) + e].tolist()) - {0} == want
    assert C.shape[0] == max(len(set(S[(slice(None),) + e].tolist()) - {0}) for e in np.ndindex(S.shape[1:]))


def test_slot_dtype_follows_the_number_of_inputs():
    assert deps.dtype_for(65_535) == np.uint16 and deps.dtype_for(65_536) == np.uint32
    assert deps.identity((3,)).dtype == np.uint16
    n = 70_000  # more inputs than 16 bits hold: 32-bit slots, and the right pattern at the far end
    P = ad.jacobian_sparsity(lambda x: np.roll(x, 1) * x + x[::-1], np.ones(n))
    assert P.shape == (n, n) and P.nnz == 3 * n - 2  # rows 0 and n/2 list an input twice
    assert P[n - 1].indices.tolist() == [0, n - 2, n - 1] and P[0].indices.tolist() == [0, n - 1]


def test_writes_after_a_read_do_not_change_what_was_read():
    def element_then_write(u):
        u = u.copy()
        x = u[0]
        u[0] = 5.0
        return np.array([x * 2, u[1]])

    def scaled_then_write(u):
        x = u[0] * 1.0
        u[0] = 5.0
        return np.array([x * 2, u[1]])

    def buffer_element_then_write(u):
        r = np.zeros(2)
        r[0] = u[0]
        x = r[0]
        r[0] = 3.0
        return np.array([x, r[1]])

    for f in (element_then_write, scaled_then_write):
        assert ad.jacobian_sparsity(f, np.ones(3)).toarray().astype(int).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert ad.jacobian_sparsity(buffer_element_then_write, np.ones(3)).toarray().astype(int).tolist() == \
        [[1, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("shift", [0, 1, -1, 5, -7, 24, 25])
def test_roll_on_slots(shift):
    x = np.random.default_rng(1).normal(size=24)
    _pattern_is_exact(lambda x: np.roll(x, shift) * x, x)
    _pattern_is_exact(lambda x: np.roll(x.reshape(4, 6), shift, 1).ravel() * x, x)
    _pattern_is_exact(lambda x: np.roll(x.reshape(4, 6), shift, 0).ravel() * x, x)
    _pattern_is_exact(lambda x: np.roll(x.reshape(2, 3, 4), shift, -1).ravel() * x, x)


def test_roll_with_several_axes_and_concatenate_on_slots():
    x = np.random.default_rng(2).normal(size=12)
    _pattern_is_exact(lambda x: np.roll(x.reshape(3, 4), (1, -2), (0, 1)).ravel() * x, x)
    _pattern_is_exact(lambda x: np.roll(x.reshape(3, 4), 2, (0, 1)).ravel() * x, x)
    _pattern_is_exact(lambda x: np.roll(x.reshape(3, 4), np.array([1, 3]), 1).ravel() * x, x)
    _pattern_is_exact(lambda x: np.concatenate([x.reshape(3, 4), np.ones((1, 4)), x.reshape(3, 4) ** 2]), x)
    _pattern_is_exact(lambda x: np.concatenate([x.reshape(3, 4), np.ones((3, 1))], axis=1), x)
    _pattern_is_exact(lambda x: np.concatenate([x.reshape(3, 4), x.reshape(3, 4) * x[0]], axis=None), x)
    _pattern_is_exact(lambda x: np.concatenate((x[:2], [1.0, x[3]], x[4:] ** 2)), x)
    with pytest.raises(ValueError, match="same number of dimensions"):
        ad.jacobian_sparsity(lambda x: np.concatenate([x.reshape(3, 4), x]), x)


def test_operators_short_path_gives_the_rules_answer():
    x = np.random.default_rng(3).uniform(0.5, 2.0, size=6)  # (x[1] ** x[2]: a positive base)
    cases = [lambda x: x * 2.0 + 1, lambda x: 2.0 / x - x[0], lambda x: x ** 2 - x[::-1] * x[1],
             lambda x: np.array([x[0] * x[1], x[2] + 3, 2 ** x[3], x[4] - 1.5, x[5] / 2, x[1] ** x[2]]),
             lambda x: x.reshape(2, 3) * x.reshape(2, 3).T.ravel().reshape(2, 3)]
    for f in cases:
        _pattern_is_exact(f, x)


@pytest.mark.parametrize("fn, f", [(np.subtract, lambda x: x - x[::-1]),  # arrays: a - b is np.subtract
                                   (operator.sub, lambda x: np.array([x[0] - x[3], x[1] - x[2]]))])  # numbers
def test_operators_short_path_defers_to_a_replaced_rule(fn, f):
    seen = []
    stock = families.elementwise()

    def counting(ctx, fn, args, kwargs):
        seen.append(fn)
        return stock(ctx, fn, args, kwargs)

    counting.pairs_done = True
    want = ad.jacobian_sparsity(f, np.ones(4)).toarray()
    defsparsity(fn, counting)
    try:
        P = ad.jacobian_sparsity(f, np.ones(4))
    finally:
        defsparsity(fn, families.elementwise())
    assert fn in seen  # the replaced rule ran, not the short path's own copy of the stock one
    assert np.array_equal(P.toarray(), want)
    seen.clear()
    ad.jacobian_sparsity(f, np.ones(4))
    assert not seen


A3 = np.arange(9.0).reshape(3, 3) + np.eye(3)

# lists and tuples of values that depend on the input, as NumPy functions take them (each
# exact: the pattern equals the Jacobian's nonzeros at a random input)
SEQUENCES = {
    "multi_dot": lambda x: np.linalg.multi_dot([A3, A3, x]),
    "np.where of a list": lambda x: np.where([True, False, True], [x[0], x[1], x[2]], 0.0),
    "ufunc of a list": lambda x: np.add([x[0], x[1]], 1.0),
    "norm of a list": lambda x: np.array([np.linalg.norm([x[0], x[1]])]),
    "fsum": lambda x: np.array([math.fsum([x[0], x[1]])]),
    "dist": lambda x: np.array([math.dist([x[0], x[1]], [0.0, 1.0])]),
    "hypot of five": lambda x: np.array([math.hypot(x[0], 1.0, 2.0, 3.0, x[2])]),
    "interp of a list": lambda x: np.interp([0.5], [0.0, 1.0], [x[0], x[1]]),
    "copyto of a list": lambda x: (lambda b: (np.copyto(b, [x[2], x[0]]), b)[1])(np.zeros(2)),
    "diff, prepend by position": lambda x: np.diff(x, 1, -1, x[2]),
    "diff, append an array": lambda x: np.diff(x, append=x[:2] * 2),
    "diff n=2 along rows, prepend": lambda x: np.diff(np.outer(x, x), n=2, axis=1, prepend=x[0]).ravel(),
}


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_sequences_of_values_depending_on_the_input(name):
    _pattern_is_exact(SEQUENCES[name], np.random.default_rng(4).uniform(0.5, 2.0, size=3))


def test_sequences_numpy_cannot_stack_and_unfollowed_arguments_are_refused():
    x = np.ones(3)
    with pytest.raises(TypeError, match="numpy.add received a list or tuple .* cannot make one array"):
        ad.jacobian_sparsity(lambda x: np.add([x[0], x[0:2]], 1.0), x)
    with pytest.raises(TypeError, match="mixes values computed by a comparison"):
        ad.jacobian_sparsity(lambda x: np.add([x[0] > 0, x[1]], 1.0), x)
    with pytest.raises(ad.NoRuleError, match="numpy.sum: argument 5 depends on the input"):
        ad.jacobian_sparsity(lambda x: np.array([np.sum(x[:2], None, None, None, False, x[2])]), x)
    with pytest.raises(ad.NoRuleError, match="numpy.percentile: argument 1"):
        ad.jacobian_sparsity(lambda x: np.array([np.percentile(x[:2], x[2] * 10)]), x)
    # the global detector takes both candidates of a maximum (the one chosen depends on the values)
    assert ad.jacobian_sparsity(lambda x: np.array([np.max([x[0], x[2]])]), x).toarray().tolist() == [[1, 0, 1]]
    # concatenating arrays and numbers of several shapes is what np.concatenate is for
    assert ad.jacobian_sparsity(lambda x: np.concatenate([x[0:1], [x[1], x[2]]]), x).nnz == 3


def test_a_write_does_not_change_unions_that_read_the_buffer_before():
    def write_input_after_use(x):
        y = x * 2.0  # y's slots are x's, not copied
        x[0] = 1.0  # x's own slots change: y's must not
        return y + x

    def chain_then_write(x):
        a = x[:-1] + x[1:]
        b = a * 3.0 + a
        a[...] = 0.0  # a depends on nothing now; b still on what a was
        return b + a

    def write_through_a_view(x):
        buf = x * 1.0
        total = buf + buf[::-1]
        view = buf[1:]
        view[:] = 7.0
        return total * buf

    n = 4
    assert ad.jacobian_sparsity(write_input_after_use, np.ones(n)).toarray().astype(int).tolist() == \
        np.eye(n, dtype=int).tolist()
    want = (np.eye(n - 1, n, dtype=int) + np.eye(n - 1, n, 1, dtype=int)).tolist()
    assert ad.jacobian_sparsity(chain_then_write, np.ones(n)).toarray().astype(int).tolist() == want
    x = np.arange(1.0, n + 1)
    _pattern_is_exact(write_through_a_view, x)
    assert ad.jacobian_sparsity(write_through_a_view, x).toarray().astype(int).tolist() == \
        [[1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1]]


def test_subscripts_short_path_defers_to_a_replaced_rule():
    seen = []

    def counting(ctx, fn, args, kwargs):
        seen.append(args[1])
        return families.getitem(ctx, fn, args, kwargs)

    counting.pairs_done = True
    f = lambda x: x[1:] * x[0]  # noqa: E731  (a slice and an element read)
    want = ad.jacobian_sparsity(f, np.ones(4)).toarray()
    defsparsity(operator.getitem, counting)
    try:
        P = ad.jacobian_sparsity(f, np.ones(4))
    finally:
        defsparsity(operator.getitem, families.getitem)
    assert slice(1, None) in seen and 0 in seen  # the replaced rule saw both subscripts
    assert np.array_equal(P.toarray(), want)
    seen.clear()
    ad.jacobian_sparsity(f, np.ones(4))
    assert not seen
