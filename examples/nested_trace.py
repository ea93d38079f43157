"""The talk's nested tracing: an overriding ``overdub`` builds a call tree with ``similarcontext``.

The ready-made ``context.TraceCtx`` records the same tree with results and wall times,
and writes it as a Chrome trace file that Perfetto, chrome://tracing and speedscope open.
"""

import json
import os
import tempfile

import context


class Trace(context.Context):
    """Records ``((f, args), subtrace)`` for every call, nested like the calls themselves."""

    intercept_operators = True  # see ``x * y`` as a call of ``operator.mul``

    def overdub(self, f, /, *args, **kwargs):
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

    out("\nThe same with context.TraceCtx, which also records results and wall times:")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        with context.TraceCtx(path, keep=True, operators=True) as recorder:
            context.overdub(recorder, f, 2.0, 3.0, 4.0)
        out(recorder.render())
        with open(path) as handle:
            events = json.load(handle)["traceEvents"]
        begun = [e["name"] for e in sorted((e for e in events if e["ph"] == "X"), key=lambda e: e["ts"])]
        out("%s: %d events for the calls %s" % (os.path.basename(path), len(events), ", ".join(begun)))
    return trace, recorder.roots


if __name__ == "__main__":
    main()
