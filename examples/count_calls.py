"""The talk's ``Count{T}`` example: ``CountCtx`` counts calls whose arguments are all of given types."""

import context


def main(out=print):
    ctx = context.CountCtx((str, int))
    result = context.overdub(ctx, lambda: list(map(str, range(10))))
    # range(10) counts, and so does each str(i) that map makes natively: 1 + 10.
    out("list(map(str, range(10))) = %r" % result)
    out("calls whose arguments are all str or int: %d" % ctx.total)
    out(ctx.table())
    return ctx.total


if __name__ == "__main__":
    main()
