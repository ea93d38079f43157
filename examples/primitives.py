"""Primitives replace calls: swap ``math.sin`` everywhere, and memoise with ``recurse``."""

import math

import context


class SinIsCos(context.Context):
    pass


@SinIsCos.primitive(math.sin)
def _sin_as_cos(ctx, x):
    return math.cos(x)


def wave(x):
    return math.sin(x) ** 2 + math.cos(x) ** 2


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Memo(context.Context):
    """Memoises ``fib``: a primitive that looks up the cache and otherwise recurses."""


@Memo.primitive(fib)
def _memo_fib(ctx, n):
    if n not in ctx.metadata:
        ctx.metadata[n] = context.recurse(ctx, fib, n)
    return ctx.metadata[n]


def main(out=print):
    replaced = context.overdub(SinIsCos(), wave, 0.3)
    out("sin(x)^2 + cos(x)^2 with sin replaced by cos at 0.3: %.6f (natively %.6f)" % (replaced, wave(0.3)))
    cache = {}
    value = context.overdub(Memo(metadata=cache), fib, 70)
    out("fib(70) = %d with %d cache entries" % (value, len(cache)))
    return replaced, value, len(cache)


if __name__ == "__main__":
    main()
