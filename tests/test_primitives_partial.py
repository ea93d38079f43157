"""A ``functools.partial`` of a function with primitives calls the primitive, as the call it
makes would (``partial(np.sum, axis=0)(x)`` is ``np.sum(x, axis=0)``), on the direct path and
under contexts with hooks; before, it ran the function's own code or reached the native with
tagged arguments (AD: ``NoRuleError`` naming the partial)."""

import functools
import math

import numpy as np

import ad
import context


def test_partials_reach_ad_rules():
    x = np.array([1.0, 2.0])
    assert np.array_equal(ad.jacobian(lambda v: functools.partial(np.multiply, 3.0)(v), x), 3 * np.eye(2))
    assert np.array_equal(ad.gradient(lambda v: functools.partial(np.sum, axis=0)(v * v), x, backend=ad.ReverseMode()),
                          2 * x)
    assert np.array_equal(ad.jacobian(lambda v: functools.partial(np.pad, mode="constant")(v, 1), x)[1:3], np.eye(2))
    assert ad.derivative(lambda v: functools.partial(functools.partial(math.pow, v))(2.0), 3.0) == 6.0


class Hooked(context.Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append(f)


class Plain(context.Context):
    pass


for _ctx in (Hooked, Plain):
    @_ctx.primitive(math.sin)
    def _sin(ctx, x):
        return ("sin", x)


def test_partials_reach_primitives_with_and_without_hooks():
    for ctx in (Hooked(metadata=[]), Plain()):
        p = functools.partial(math.sin)
        assert context.overdub(ctx, lambda: p(1.0)) == ("sin", 1.0)
        assert context.overdub(ctx, lambda: functools.partial(p)(2.0)) == ("sin", 2.0)
        assert context.overdub(ctx, lambda: functools.partial(math.cos)(0.0)) == 1.0  # no primitive: as natively
