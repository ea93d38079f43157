"""Call overhead: recursive `fib(20)` natively, under an empty context, and natively with a no-op `sys.setprofile` callback.

fib(20) makes 21,891 Python calls and little else, so this measures the cost
the engine adds to each call. `sys.setprofile` with a Python callback is the
cheapest way to see every call without rewriting and is the peer to beat.
"""

import sys

import context
from _harness import compare, ratio_row, row, fmt_time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def prof(frame, event, arg):
    pass


def profiled():
    sys.setprofile(prof)
    try:
        return fib(20)
    finally:
        sys.setprofile(None)


def run(quick):
    ctx = context.Context()
    empty = lambda: context.overdub(ctx, fib, 20)
    assert empty() == fib(20) == profiled() == 6765  # also warms the rewrite cache
    t = compare({"native": lambda: fib(20), "empty": empty, "setprofile": profiled},
                repeat=5 if quick else 20)
    return [
        row("fib(20), native", fmt_time(t["native"])),
        ratio_row("fib(20), setprofile no-op", t["setprofile"], "native", t["native"]),
        ratio_row("fib(20), empty context", t["empty"], "native", t["native"], limit=10),
        ratio_row("fib(20), empty context", t["empty"], "setprofile", t["setprofile"], limit=1.0),
    ]
