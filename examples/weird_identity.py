"""The talk's "weird identity": a tagged value keeps its metadata through objects, fields and an array."""

import dataclasses
import numpy as np

import context
from context.tagging import TaggingContext, enabletagging, metadata, tag, untag


@dataclasses.dataclass(frozen=True)
class Bar:
    x: object
    y: object
    z: object


@dataclasses.dataclass
class Foo:
    a: Bar
    b: object


def foo_bar_identity(x):
    """Returns ``x`` as a float, after a detour through objects, fields, an array and a list."""
    bar = Bar(x, x + 1, x + 2)
    foo = Foo(bar, "ha")
    foo.b = bar
    foo.a = Bar(4, 5, 6)
    foo2 = Foo(foo.a, foo.b)
    foo2.a = foo2.b
    array = np.zeros(1)
    array[0] = foo2.a.x
    return [array[0]][0]


class FooBarCtx(TaggingContext):
    """A context whose tagged values are just carried along.

    It has no primitives: as in Cassette, a function with none (``x + 1`` here) receives
    the untagged value and returns an untagged result, while ``x`` itself keeps its
    metadata through the objects, fields, array and list (``untag_for_natives``, True for
    tagging contexts; AD contexts set it False and raise instead).
    """


def main(out=print):
    v, m = 1, 2
    ctx = enabletagging(FooBarCtx(), foo_bar_identity)
    tagged = tag(v, ctx, m)
    result = context.overdub(ctx, foo_bar_identity, tagged)
    value, meta = untag(result, ctx), metadata(result, ctx)
    out("tag(%r, ctx, %r) = %r" % (v, m, tagged))
    out("overdub(ctx, foo_bar_identity, tagged) = %r" % result)
    out("untag(result, ctx) = %r, a float: %s" % (value, isinstance(value, float)))
    out("metadata(result, ctx) = %r" % (meta,))
    return value, meta


if __name__ == "__main__":
    main()
