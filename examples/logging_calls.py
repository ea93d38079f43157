"""The talk's first example: a context whose prehook prints every call, indented by depth."""

import statistics

import context


class PrintCalls(context.Context):
    """Prints each call made under it with its arguments, indented by call depth."""

    def __init__(self, out=print):
        super().__init__(metadata=0)  # metadata: the current depth
        self.out = out

    def prehook(self, f, *args, **kwargs):
        name = getattr(f, "__qualname__", type(f).__name__)
        shown = ", ".join([repr(a) for a in args] + ["%s=%r" % kv for kv in kwargs.items()])
        self.out("  " * self.metadata + "%s(%s)" % (name, shown))
        self.metadata += 1

    def posthook(self, out, f, *args, **kwargs):
        self.metadata -= 1


def main(out=print):
    result = context.overdub(PrintCalls(out), statistics.mean, [1, 2, 4])
    out("mean = %r" % result)
    return result


if __name__ == "__main__":
    main()
