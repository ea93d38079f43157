"""The semantics shown in the talk that introduced Cassette: hooks, primitives,
memoisation through ``recurse``, nested tracing, counting by argument type, and
``disablehooks``."""

import math
import operator

import context
from tests.helpers import name_of

# ------------------------------------------------------------------ hook order


def leaf(x):
    return x + 1


def mid(x):
    return leaf(x) * 2


def top(x):
    return mid(x) + leaf(x=x)


class HookLog(context.Context):
    def prehook(self, f, /, *args, **kwargs):
        self.metadata.append(("pre", name_of(f), args, kwargs))

    def posthook(self, out, f, /, *args, **kwargs):
        self.metadata.append(("post", name_of(f), out))


def test_prehooks_in_call_order_posthooks_in_completion_order():
    ctx = HookLog(metadata=[])
    assert context.overdub(ctx, top, 1) == top(1) == 6
    assert ctx.metadata == [
        ("pre", "mid", (1,), {}),
        ("pre", "leaf", (1,), {}),
        ("post", "leaf", 2),
        ("post", "mid", 4),
        ("pre", "leaf", (), {"x": 1}),
        ("post", "leaf", 2),
    ]


def test_outermost_call_fires_no_hook_but_inner_calls_do():
    ctx = HookLog(metadata=[])
    assert context.overdub(ctx, leaf, 41) == 42
    assert ctx.metadata == []           # leaf makes no calls, and leaf itself is not hooked

    ctx = HookLog(metadata=[])
    context.overdub(ctx, mid, 1)
    assert [e[1] for e in ctx.metadata] == ["leaf", "leaf"]   # pre and post of leaf only


def test_posthook_sees_the_value_returned_to_the_caller():
    seen = []

    class Post(context.Context):
        def posthook(self, out, f, /, *args, **kwargs):
            seen.append((name_of(f), out, args))

    def g(s):
        return len(s) + int("7")

    assert context.overdub(Post(), g, "abc") == 10
    assert seen == [("len", 3, ("abc",)), ("int", 7, ("7",))]


# ------------------------------------------------------------------ primitives


def calls_sin(x):
    return math.sin(x) + 1.0


def deep1(x):
    return calls_sin(x) * 2.0


def deep2(x):
    return [deep1(x)][0]


def deep3(x):
    return deep2(x) - 1.0


sin_alias = math.sin


def calls_sin_alias(x):
    return sin_alias(x)


class SinCtx(context.Context):
    pass


@SinCtx.primitive(math.sin)
def _sin_is_42(ctx, x):
    return 42.0


class InheritsSin(SinCtx):
    pass


class OverridesSin(SinCtx):
    pass


@OverridesSin.primitive(math.sin)
def _sin_is_minus_one(ctx, x):
    return -1.0


def test_primitive_replaces_the_call():
    assert calls_sin(0.5) == math.sin(0.5) + 1.0
    assert context.overdub(SinCtx(), calls_sin, 0.5) == 43.0
    assert context.overdub(SinCtx(), calls_sin_alias, 0.5) == 42.0


def test_primitive_applies_deep_inside_nested_calls():
    assert deep3(0.5) == (math.sin(0.5) + 1.0) * 2.0 - 1.0
    assert context.overdub(SinCtx(), deep3, 0.5) == 85.0


def test_primitive_applies_to_the_outermost_call():
    assert context.overdub(SinCtx(), math.sin, 0.5) == 42.0


def test_primitives_are_inherited_and_overridable():
    assert context.overdub(InheritsSin(), deep3, 0.5) == 85.0
    assert context.overdub(OverridesSin(), deep3, 0.5) == -1.0
    # the override does not leak into the parent class or the base Context
    assert context.overdub(SinCtx(), deep3, 0.5) == 85.0
    assert context.overdub(context.Context(), deep3, 0.5) == deep3(0.5)


def test_primitive_receives_the_context_and_the_arguments():
    class Spy(context.Context):
        pass

    @Spy.primitive(math.hypot)
    def _hypot(ctx, *args, **kwargs):
        ctx.metadata.append((args, kwargs))
        return -1.0

    def g():
        return math.hypot(3.0, 4.0) + deep_hypot()

    def deep_hypot():
        return math.hypot(5.0, 12.0)

    ctx = Spy(metadata=[])
    assert context.overdub(ctx, g) == -2.0
    assert ctx.metadata == [((3.0, 4.0), {}), ((5.0, 12.0), {})]


class FloatSin(context.Context):
    pass


@FloatSin.primitive(math.sin, argtypes=(float,))
def _float_sin(ctx, x):
    return 100.0


def test_primitive_dispatch_on_argument_types():
    def g():
        return math.sin(1.0), math.sin(1), math.sin(True)

    assert context.overdub(FloatSin(), g) == (100.0, math.sin(1), math.sin(True))


# ------------------------------------------------------ memoisation via recurse


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class MemoCtx(context.Context):
    pass


@MemoCtx.primitive(fib)
def _memo_fib(ctx, n):
    key = (n,)
    if key in ctx.metadata:
        return ctx.metadata[key]
    out = context.recurse(ctx, fib, n)
    ctx.metadata[key] = out
    return out


def test_memoising_primitive_calls_recurse():
    ctx = MemoCtx(metadata={})
    assert context.overdub(ctx, fib, 70) == 190392490709135
    assert len(ctx.metadata) == 71
    assert set(ctx.metadata) == {(n,) for n in range(71)}
    assert ctx.metadata[(30,)] == fib(30) == 832040


# ---------------------------------------------------------------- nested trace


class TraceCtx(context.Context):
    def overdub(self, f, /, *args, **kwargs):
        subtrace = []
        self.metadata.append(((f, args), subtrace))
        if context.canrecurse(self, f, *args):
            return context.recurse(context.similarcontext(self, metadata=subtrace), f, *args)
        else:
            return f(*args)


class OperatorTraceCtx(TraceCtx):
    intercept_operators = True


def mul(a, b):
    return operator.mul(a, b)


def f_helper(x, y, z):
    return mul(x, y) + mul(y, z)


def f_operators(x, y, z):
    return x * y + y * z


def test_nested_trace_of_python_calls():
    x, y, z = 2.0, 3.0, 5.0
    trace = []
    assert context.overdub(TraceCtx(metadata=trace), f_helper, x, y, z) == 21.0
    assert trace == [
        ((f_helper, (x, y, z)), [
            ((mul, (x, y)), [((operator.mul, (x, y)), [])]),
            ((mul, (y, z)), [((operator.mul, (y, z)), [])]),
        ]),
    ]


def test_nested_trace_with_operator_interception():
    x, y, z = 2.0, 3.0, 5.0
    trace = []
    assert context.overdub(OperatorTraceCtx(metadata=trace), f_operators, x, y, z) == 21.0
    assert trace == [
        ((f_operators, (x, y, z)), [
            ((operator.mul, (x, y)), []),
            ((operator.mul, (y, z)), []),
            ((operator.add, (x * y, y * z)), []),
        ]),
    ]
    # without interception the operators are not calls
    trace = []
    context.overdub(TraceCtx(metadata=trace), f_operators, x, y, z)
    assert trace == [((f_operators, (x, y, z)), [])]


def test_operator_interception_nests_through_helpers():
    x, y, z = 2.0, 3.0, 5.0
    trace = []
    assert context.overdub(OperatorTraceCtx(metadata=trace), f_helper, x, y, z) == 21.0
    assert trace == [
        ((f_helper, (x, y, z)), [
            ((mul, (x, y)), [((operator.mul, (x, y)), [])]),
            ((mul, (y, z)), [((operator.mul, (y, z)), [])]),
            ((operator.add, (6.0, 15.0)), []),
        ]),
    ]


# ------------------------------------------------- counting by argument types


class Count:
    def __init__(self):
        self.count = 0


class StrIntCount(context.Context):
    """Counts calls with at least one positional argument, all of them str or int."""

    def prehook(self, f, /, *args, **kwargs):
        if args and all(isinstance(a, (str, int)) for a in args):
            self.metadata.count += 1


def test_counting_calls_by_argument_type():
    c = Count()
    out = context.overdub(StrIntCount(metadata=c), lambda: list(map(str, range(10))))
    assert out == [str(i) for i in range(10)]
    # range(10): counted (int argument)
    # map(str, <range>): not counted (a type and a range)
    # str(0) .. str(9), called back by map under the context: 10 counted
    # list(<map>): not counted
    assert c.count == 11


def test_counting_sees_string_arguments_too():
    c = Count()

    def g():
        return "-".join(["a", "b"]), int("12"), len("xyz"), max(3, 4, 5), abs(-2.5)

    assert context.overdub(StrIntCount(metadata=c), g) == g()
    # "-".join([...]): a list argument, no; int("12"), len("xyz"), max(3, 4, 5): yes;
    # abs(-2.5): a float, no
    assert c.count == 3


# ---------------------------------------------------------------- disablehooks


def calls_sin_deeply(x):
    return deep3(x) + len([x])


def test_disablehooks_silences_hooks_at_every_depth_but_keeps_primitives():
    events = []

    class Loud(context.Context):
        def prehook(self, f, /, *args, **kwargs):
            events.append(("pre", name_of(f)))

        def posthook(self, out, f, /, *args, **kwargs):
            events.append(("post", name_of(f)))

    @Loud.primitive(math.sin)
    def _sin(ctx, x):
        return 42.0

    ctx = Loud(metadata=[])
    quiet = context.disablehooks(ctx)
    assert isinstance(quiet, context.Context)
    assert context.overdub(quiet, calls_sin_deeply, 0.5) == 86.0
    assert events == []

    # the original context still fires its hooks, at every depth
    assert context.overdub(ctx, calls_sin_deeply, 0.5) == 86.0
    names = [n for _, n in events]
    assert names.count("deep3") == 2 and names.count("calls_sin") == 2
    assert ("pre", "sin") in events and ("post", "sin") in events
