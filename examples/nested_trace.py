"""The talk's nested tracing: an overriding ``overdub`` builds a call tree with ``similarcontext``."""

import context


class Trace(context.Context):
    """Records ``((f, args), subtrace)`` for every call, nested like the calls themselves."""

    intercept_operators = True  # see ``x * y`` as a call of ``operator.mul``

    def overdub(self, f, *args, **kwargs):
        subtrace = []
        self.metadata.append(((f, args), subtrace))
        if context.canrecurse(self, f, *args, **kwargs):
            return context.recurse(context.similarcontext(self, metadata=subtrace), f, *args, **kwargs)
        return f(*args, **kwargs)


def f(x, y, z):
    return x * y + y * z


def show(trace, out, depth=0):
    for (fn, args), sub in trace:
        out("  " * depth + "%s%r" % (getattr(fn, "__name__", fn), args))
        show(sub, out, depth + 1)


def main(out=print):
    trace = []
    context.overdub(Trace(metadata=trace), f, 2.0, 3.0, 4.0)
    show(trace, out)
    return trace


if __name__ == "__main__":
    main()
