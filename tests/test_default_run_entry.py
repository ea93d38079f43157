"""A context with primitives and no hooks runs calls with ``default_run`` itself as its
``call_ex`` (``context/entries/running.py``), so ``default_run`` takes its arguments as
``call_ex`` did: any sequence, a list included, and a primitive still gets them."""

import math

import context


class Swap(context.Context):
    pass


@Swap.primitive(math.hypot)
def _hypot(ctx, *args):
    return ("hypot", args)


def _star_list(xs):
    return math.hypot(*xs), math.copysign(*xs)


def _nested(xs):
    return context.overdub(Swap(), _star_list, xs)


def test_a_list_of_arguments_reaches_the_primitive_under_an_enclosing_context():
    out = context.overdub(context.Context(), _nested, [3.0, -4.0])
    assert out == (("hypot", (3.0, -4.0)), -3.0)


def test_the_entry_is_default_run_itself_and_takes_a_list():
    seen = []

    def probe():
        call_ex = context.state.STATE.call_ex
        seen.append((call_ex, call_ex(math.hypot, [3.0, 4.0], {})))

    context.overdub(Swap(), probe)
    call_ex, out = seen[0]
    assert getattr(call_ex, "__name__", "") == "default_run"
    assert out == ("hypot", (3.0, 4.0))
