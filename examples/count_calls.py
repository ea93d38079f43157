"""The talk's ``Count{T}`` example: count calls whose arguments are all of given types."""

import context


class CountCalls(context.Context):
    """Counts calls whose positional arguments are all instances of ``types`` (in ``metadata``)."""

    def __init__(self, types):
        super().__init__(metadata=0)
        self.types = types

    def prehook(self, f, *args, **kwargs):
        if args and all(isinstance(a, self.types) for a in args):
            self.metadata += 1


def main(out=print):
    ctx = CountCalls((str, int))
    result = context.overdub(ctx, lambda: list(map(str, range(10))))
    # range(10) counts, and so does each str(i) that map makes natively: 1 + 10.
    out("list(map(str, range(10))) = %r" % result)
    out("calls whose arguments are all str or int: %d" % ctx.metadata)
    return ctx.metadata


if __name__ == "__main__":
    main()
