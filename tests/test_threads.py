"""Contexts running on several threads at once: the empty context, counting, tracing and both
AD modes side by side, with the interpreter switching threads as often as it can, give what
each gives alone."""

import sys
import threading
import tomllib

import numpy as np
import pytest

import ad
from context import Context, CountCtx, TraceCtx, overdub

DOC = "\n".join('[t%d]\nname = "x%d"\nvalues = [%d, 2.5, "s"]\n' % (i, i, i) for i in range(40))


def _comprehensions(n):
    return sum([len({k: v for k, v in zip("abc", range(i))}) for i in range(n)]) + sum(x for x in range(n))


def _loss(y):
    return np.sum(np.sin(y) ** 2) + np.sum([v * 2 for v in y[:3]])


@pytest.fixture
def fast_switching():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_four_kinds_of_context_on_four_threads(fast_switching):
    expected = tomllib.loads(DOC)
    ref = _comprehensions(30)
    x = np.linspace(0.0, 1.0, 8)
    grad = ad.gradient(_loss, x, ad.ForwardMode())
    errors = []
    barrier = threading.Barrier(4)

    def work(kind):
        barrier.wait()
        for i in range(10):
            try:
                if kind == 0:
                    assert overdub(Context(), tomllib.loads, DOC) == expected
                    assert overdub(Context(), _comprehensions, 30) == ref
                elif kind == 1:
                    counter = CountCtx()
                    assert overdub(counter, _comprehensions, 30) == ref
                    assert counter.total > 30
                elif kind == 2:
                    assert overdub(TraceCtx(), tomllib.loads, DOC) == expected
                else:
                    backend = ad.ReverseMode() if i % 2 else ad.ForwardMode()
                    np.testing.assert_allclose(ad.gradient(_loss, x, backend), grad, rtol=1e-12)
            except BaseException as e:  # kept for the assertion below, in the test's thread
                errors.append((kind, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
