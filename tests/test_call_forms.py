"""Every way Python code makes a call, run under a recording context: the result
equals the native one and the calls inside were hooked (``note`` marks them).

``same`` also runs each case under a context that overrides only ``overdub`` (its code
calls ``STATE.run(f, *args)`` where the stack analysis allows) and checks that it sees
the same calls as the prehook, in the same order."""

import asyncio
import collections
import dataclasses
import functools
import inspect
import itertools
import re
import sys
import threading
import time
import traceback

import pytest

import context
from tests.helpers import Counter, OverdubRecorder, Recorder, count, note, record


def _without_addresses(names):
    return [re.sub(r" at 0x[0-9a-f]+", "", name) for name in names]


def same(fn, *args, overdub="calls"):
    """Run fn natively, under a Recorder and under an OverdubRecorder; assert equal results;
    return the Recorder's (names, notes).

    ``overdub``: "calls" asserts that both saw the same calls, "notes" the same notes only
    (for code that sets up process-wide state on its first run), None skips the
    OverdubRecorder.
    """
    native = fn(*args)
    out, names, notes = record(fn, *args)
    assert out == native
    assert type(out) is type(native)
    if overdub is not None:
        out, overdub_names, overdub_notes = record(fn, *args, recorder=OverdubRecorder)
        assert out == native
        assert type(out) is type(native)
        assert overdub_notes == notes
        if overdub == "calls":
            assert _without_addresses(overdub_names) == _without_addresses(names)
    return names, notes


# ------------------------------------------------------------ argument passing


def add3(a, b, c=10):
    note("add3")
    return a * 100 + b * 10 + c


def collect(*args, **kwargs):
    note("collect")
    return args, sorted(kwargs.items())


def test_positional():
    names, notes = same(lambda: add3(1, 2, 3) + add3(4, 5))
    assert names.count("add3") == 2 and notes == ["add3", "add3"]


def test_keywords():
    def g():
        return add3(1, c=3, b=2), add3(a=7, b=8)

    names, notes = same(g)
    assert notes == ["add3", "add3"]


def test_hooks_receive_positional_and_keyword_arguments():
    ctx = Recorder(metadata=[])
    context.overdub(ctx, lambda: add3(1, c=3, b=2))
    assert ("add3", (1,), {"c": 3, "b": 2}) in ctx.metadata


def test_star_args_and_star_star_kwargs():
    def g():
        args = (1, 2)
        kw = {"c": 3}
        return (add3(*args, **kw), add3(*[4], **{"b": 5, "c": 6}), collect(*"ab", x=1, **{"y": 2}),
                collect(), collect(*range(3)))

    names, notes = same(g)
    assert notes == ["add3", "add3", "collect", "collect", "collect"]


def test_star_args_into_methods():
    def g():
        w = Widget(3)
        return w.scaled(*[2]), w.scaled(**{"k": 4}), Widget.scaled(*[w, 5]), Widget.build(*(6,)).n

    names, notes = same(g)
    assert notes == ["scaled", "scaled", "scaled", "build"]


def test_many_arguments_and_keyword_only():
    def kwonly(a, *, b, c=3, **rest):
        note("kwonly")
        return a, b, c, sorted(rest)

    def g():
        return (collect(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                        k0=0, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8, k9=9),
                collect(*range(300)), kwonly(1, b=2), kwonly(1, b=2, c=4, z=5, y=6))

    names, notes = same(g)
    assert notes == ["collect", "collect", "kwonly", "kwonly"]


def test_calling_results_and_container_items():
    def g():
        table = {"add": add3, "fns": [collect]}
        return table["add"](1, 2), table["fns"][0](3), make_counter()(5), (lambda: add3)()(0, 0, 0)

    names, notes = same(g)
    assert notes == ["add3", "collect", "inc", "add3"]


def test_overdub_accepts_any_callable_at_the_top():
    # the outermost callee may be a builtin, a class, a bound method or a partial,
    # with keyword arguments; Python code it reaches runs under the context
    assert context.overdub(context.Context(), len, [1, 2]) == 2
    assert context.overdub(context.Context(), dict, a=1) == {"a": 1}
    out, names, notes = record(Made, 21)
    assert out.v == 42 and notes == ["new", "init"]
    out, names, notes = record(Widget(3).scaled, 2)
    assert out == 6 and notes == ["scaled"]
    out, names, notes = record(add3, 1, b=2)
    assert out == 130 and notes == ["add3"]
    out, names, notes = record(functools.partial(add3, 1), 2, c=5)
    assert out == 125 and notes == ["add3"]


# ------------------------------------------------------------ methods and super


class Widget:
    def __init__(self, n):
        self.n = n

    def scaled(self, k):
        note("scaled")
        return self.n * k

    def chain(self):
        note("chain")
        return self

    @staticmethod
    def static(x):
        note("static")
        return x + 1

    @classmethod
    def build(cls, n):
        note("build")
        return cls(n)


def test_method_calls():
    names, notes = same(lambda: Widget(3).chain().chain().scaled(5))
    assert notes == ["chain", "chain", "scaled"]
    assert "Widget.scaled" in names


def test_bound_methods():
    def g():
        w = Widget(2)
        m = w.scaled
        get = getattr(w, "scaled")
        return m(3), get(4), Widget.scaled(w, 5)

    names, notes = same(g)
    assert notes == ["scaled"] * 3


def test_staticmethod_and_classmethod():
    def g():
        return Widget.static(1), Widget(0).static(2), Widget.build(7).n, Widget(0).build(8).n

    names, notes = same(g)
    assert notes == ["static", "static", "build", "build"]


class Base:
    def greet(self, x):
        note("Base.greet")
        return "base%d" % x


class Mid(Base):
    def greet(self, x):
        note("Mid.greet")
        return "mid+" + super().greet(x + 1)


class Leaf(Mid):
    def greet(self, x):
        note("Leaf.greet")
        return "leaf+" + super(Leaf, self).greet(x + 1)


class Sized(Base):
    def __init__(self, size):
        note("Sized.__init__")
        super().__init__()
        self.size = size

    @classmethod
    def make(cls):
        return super().__new__(cls)


def test_zero_arg_super_in_a_class_defined_under_the_context():
    def g():
        class Local(Base):
            def greet(self, x):
                note("Local.greet")
                return "local+" + super().greet(x)

        class Deeper(Local):
            def greet(self, x):
                return "deeper+" + super().greet(x * 10)

        return Deeper().greet(1), Deeper.__mro__[1].__name__

    names, notes = same(g)
    assert notes == ["Local.greet", "Base.greet"]


def test_super_zero_arg_and_two_arg():
    names, notes = same(lambda: Leaf().greet(1))
    assert notes == ["Leaf.greet", "Mid.greet", "Base.greet"]


def test_super_in_init_and_classmethod():
    names, notes = same(lambda: (Sized(3).size, type(Sized.make()).__name__))
    assert notes == ["Sized.__init__"]


# -------------------------------------------------- classes and callable objects


class Made:
    def __new__(cls, *args):
        note("new")
        return super().__new__(cls)

    def __init__(self, v):
        note("init")
        self.v = v * 2


class Meta(type):
    def __call__(cls, *args):
        note("Meta.__call__")
        return super().__call__(*args)


class WithMeta(metaclass=Meta):
    def __init__(self, v):
        note("WithMeta.__init__")
        self.v = v


@dataclasses.dataclass
class Record:
    a: int
    b: int = 2

    def __post_init__(self):
        note("post_init")
        self.total = self.a + self.b


class Adder:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        note("Adder.__call__")
        return x + self.n


def test_calling_a_class_runs_new_and_init_under_the_context():
    names, notes = same(lambda: Made(21).v)
    assert notes == ["new", "init"]
    assert "Made" in names


def test_metaclass_call_reaches_init():
    # Meta.__call__ hands over to type.__call__ through super(): that is still the
    # class being called, so WithMeta.__init__ runs under the context.
    names, notes = same(lambda: WithMeta(5).v)
    assert notes == ["Meta.__call__", "WithMeta.__init__"]


def test_dataclass_generated_init():
    names, notes = same(lambda: (Record(1).total, Record(a=3, b=4).total))
    assert notes == ["post_init", "post_init"]


def test_callable_objects():
    def g():
        add = Adder(10)
        return add(1), list(map(add, [2, 3]))

    names, notes = same(g)
    assert notes == ["Adder.__call__"] * 3


def test_functools_partial():
    def g():
        p = functools.partial(add3, 1, c=3)
        q = functools.partial(p, 9)
        return p(2), q(), functools.partial(Widget.scaled, Widget(4))(k=2)

    names, notes = same(g)
    assert notes == ["add3", "add3", "scaled"]


# --------------------------------------------------- nested code objects


def make_counter():
    n = 0

    def inc(step):
        nonlocal n
        note("inc")
        n += step
        return n

    return inc


def test_closures_and_nonlocal():
    def g():
        inc = make_counter()
        inc(1)
        inc(2)
        return inc(3), inc.__closure__[0].cell_contents

    names, notes = same(g)
    assert notes == ["inc"] * 3
    assert "make_counter" in names


def test_lambdas():
    def g():
        twice = lambda x: (note("lambda"), x * 2)[1]  # noqa: E731
        return twice(4), (lambda: note("inline"))()

    names, notes = same(g)
    assert notes == ["lambda", "inline"]


def test_comprehensions():
    def g():
        a = [note(i) * 2 for i in range(3)]
        b = {note(i) % 2 for i in range(3, 5)}
        c = {note(k): k for k in "xy"}
        d = [[note((i, j)) for j in range(2)] for i in range(2)]
        return a, b, c, d

    names, notes = same(g)
    assert notes == [0, 1, 2, 3, 4, "x", "y", (0, 0), (0, 1), (1, 0), (1, 1)]


def test_generator_expressions():
    def g():
        return sum(note(i) for i in range(5)), list(note(c) for c in "ab" if c != "z")

    names, notes = same(g)
    assert notes == [0, 1, 2, 3, 4, "a", "b"]


def inner_gen():
    note("inner start")
    x = yield 1
    note(("inner got", x))
    return "inner done"


def outer_gen():
    r = yield from inner_gen()
    note(("outer got", r))
    try:
        y = yield 2
        note(("y", y))
    except ValueError as e:
        note(("caught", str(e)))
        yield 3
    finally:
        note("finally")


def test_generators_send_throw_close_yield_from():
    def g():
        gen = outer_gen()
        out = [next(gen), gen.send("a"), gen.throw(ValueError("boom"))]
        gen.close()
        return out, inspect.getgeneratorstate(gen)

    names, notes = same(g)
    assert notes == ["inner start", ("inner got", "a"), ("outer got", "inner done"),
                     ("caught", "boom"), "finally"]
    assert "outer_gen" in names and "inner_gen" in names


async def co(x):
    note(("co", x))
    await asyncio.sleep(0)
    return x * 2


async def agen(n):
    for i in range(n):
        note(("agen", i))
        yield i
        await asyncio.sleep(0)


class AsyncCM:
    async def __aenter__(self):
        return "cm"

    async def __aexit__(self, *exc):
        return False


async def amain():
    vals = await asyncio.gather(co(1), co(2))
    got = [v async for v in agen(3)]
    async with AsyncCM() as cm:
        inside = note(cm)
    return vals, got, inside


def test_coroutines_and_async_generators():
    # asyncio sets up its event loop policy once per process and caches logger levels
    names, notes = same(lambda: asyncio.run(amain()), overdub="notes")
    assert notes == [("co", 1), ("co", 2), ("agen", 0), ("agen", 1), ("agen", 2), "cm"]


def test_class_bodies():
    def g():
        class K:
            a = note("body")

            def m(self):
                return note("method")

        return K.a, K().m(), K.__qualname__

    names, notes = same(g)
    assert notes == ["body", "method"]


def deco(fn):
    note("deco")

    @functools.wraps(fn)
    def wrapper(*args):
        note("wrapper")
        return fn(*args) + 1

    return wrapper


def test_decorators():
    def g():
        @deco
        def h(x):
            note("h")
            return x

        return h(1), h(2), h.__name__

    names, notes = same(g)
    assert notes == ["deco", "wrapper", "h", "wrapper", "h"]


# ------------------------------------------------------------- control flow


def risky(x):
    note(("risky", x))
    if x < 0:
        raise ValueError(x)
    return x


def test_try_except_else_finally():
    def g():
        out = []
        for x in (1, -1):
            try:
                out.append(risky(x))
            except ValueError as e:
                out.append(("err", note(e.args[0])))
            else:
                note("else")
            finally:
                note("finally")
        return out

    names, notes = same(g)
    assert notes == [("risky", 1), "else", "finally", ("risky", -1), -1, "finally"]


def raise_group():
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ValueError(3)])


def test_except_star():
    def g():
        try:
            raise_group()
        except* ValueError as eg:
            note(("V", len(eg.exceptions)))
        except* TypeError as eg:
            note(("T", len(eg.exceptions)))
        return "done"

    names, notes = same(g)
    assert notes == [("V", 2), ("T", 1)]


def test_control_flow_around_calls():
    def g():
        out = []
        for i in range(6):
            try:
                if i == 1:
                    continue
                with Managed([]) as m:
                    if i == 4:
                        break
                    try:
                        out.append(risky(i - 3))
                    except ValueError:
                        out.append(note(("handler", i)))
                        if i == 2:
                            continue
                    finally:
                        m.log.append(note(("inner finally", i)))
            finally:
                note(("outer finally", i))
        while True:
            try:
                return out, [note(k) for k in range(2) if k]
            finally:
                note("last")

    names, notes = same(g)
    assert notes == [
        ("risky", -3), ("handler", 0), ("inner finally", 0), ("outer finally", 0),
        ("outer finally", 1),
        ("risky", -1), ("handler", 2), ("inner finally", 2), ("outer finally", 2),
        ("risky", 0), ("inner finally", 3), ("outer finally", 3),
        ("outer finally", 4),
        1, "last",
    ]


class Managed:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, et, ev, tb):
        self.log.append(("exit", et.__name__ if et else None))
        return et is KeyError


def test_with_statement():
    def g():
        log = []
        with Managed(log) as m:
            note("body")
            assert m.log is log
        with Managed(log):
            note("body2")
            raise KeyError("suppressed")
        return log

    names, notes = same(g)
    assert notes == ["body", "body2"]
    # __enter__ and __exit__ are Python code reached from g: their calls are seen
    assert names.count("list.append") == 4


@dataclasses.dataclass
class Pt:
    x: int
    y: int


def classify(v):
    match v:
        case {"kind": "pt", "x": x, "y": y}:
            return note(("dict", x, y))
        case Pt(x=0, y=y):
            return note(("on y axis", y))
        case Pt(x, y) if x == y:
            return note(("diagonal", x))
        case [first, *rest]:
            return note(("seq", first, len(rest)))
        case str() as s if s.startswith("a"):
            return note(("a-word", s))
        case _:
            return note("other")


def test_match_statement():
    values = [{"kind": "pt", "x": 1, "y": 2}, Pt(0, 5), Pt(3, 3), Pt(1, 2), [1, 2, 3], "apple", "pear"]
    names, notes = same(lambda: [classify(v) for v in values])
    assert notes == [("dict", 1, 2), ("on y axis", 5), ("diagonal", 3), "other", ("seq", 1, 2),
                     ("a-word", "apple"), "other"]


# ----------------------------------------------------- frame-sensitive builtins


def uses_locals(a, b):
    c = note(a + b)
    return sorted(locals().items()), sorted(vars().items())


def uses_eval_exec(a, b):
    out = []
    note("eval")
    exec("out.append(a * b)")
    return eval("a + b"), out, eval("(a * 3 - b, len(out))")


def frame_info():
    marker = "local-value"
    note("frame")
    fr = sys._getframe()
    return (fr.f_code.co_name, fr.f_locals["marker"], marker, sys._getframe(1).f_code.co_name,
            inspect.currentframe().f_code.co_name, fr.f_code.co_filename == __file__)


def frame_caller():
    return frame_info()


def uses_globals():
    note("globals")
    return globals() is sys.modules[__name__].__dict__, globals()["__name__"]


def test_locals_and_vars():
    names, notes = same(uses_locals, 1, 2)
    assert notes == [3]
    assert uses_locals(1, 2)[0] == [("a", 1), ("b", 2), ("c", 3)]


def test_eval_and_exec_see_the_function_locals():
    names, notes = same(uses_eval_exec, 3, 4)
    assert notes == ["eval"]
    assert uses_eval_exec(3, 4) == (7, [12], (5, 1))


def malformed_evaluations():
    """The errors of calls that do not fit ``eval``'s and ``exec``'s signatures, and the
    keyword forms that do (3.13 takes ``globals``/``locals`` by keyword)."""
    out = []
    for fn in (eval, exec):
        for args, kwargs in [((), {}), ((), {"source": "1"}), (("1", {}, {}, {}), {}),
                             (("1",), {"globals": {}}), (("1", {}), {"globals": {}}),
                             (("1",), {"bogus": 1}), (("1",), {"closure": None})]:
            try:
                out.append(("ok", fn(*args, **kwargs)))
            except TypeError as exc:
                out.append((type(exc).__name__, str(exc)))
    return out


def test_eval_and_exec_given_the_wrong_arguments_raise_as_natively():
    # test_builtin's test_eval: ``eval()`` raised KeyError('source') under a context
    same(malformed_evaluations)
    assert malformed_evaluations()[0][0] == "TypeError"  # (the message differs between versions)


class _KeysOnly:
    """A mapping given to eval as its locals: ``keys()`` and ``__getitem__``, no ``__iter__``."""

    def __getitem__(self, key):
        if key == "a":
            return 12
        raise KeyError(key)

    def keys(self):
        return list("zyx")


def dir_and_locals_of_a_mapping():
    m = _KeysOnly()
    return eval("dir()", globals(), m), eval("locals()", globals(), m) is m, eval("a", globals(), m)


def test_dir_in_code_given_a_mapping_lists_its_keys():
    # test_builtin.test_general_eval under TraceCtx: the handler iterated the mapping
    same(dir_and_locals_of_a_mapping)
    assert dir_and_locals_of_a_mapping() == (["x", "y", "z"], True, 12)


class _Base:
    pass


class _Obscure(_Base):
    def arg_deleted(x):
        del x
        super()

    def cell_emptied(x):
        nonlocal __class__
        del __class__
        super()

    def not_a_type(x):
        nonlocal __class__
        __class__ = 1
        super()


def super_errors():
    out = []
    for method in (_Obscure.arg_deleted, _Obscure.cell_emptied, _Obscure.not_a_type):
        try:
            method(None)
        except RuntimeError as exc:
            out.append(str(exc))
    return out


def test_super_without_arguments_raises_the_natives_errors():
    # test_super.test_obscure_super_errors under TraceCtx: KeyError('__class__')
    same(super_errors)
    assert super_errors() == ["super(): arg[0] deleted", "super(): empty __class__ cell",
                              "super(): __class__ is not a type (int)"]


def builtins_of_fresh_globals():
    import builtins

    ns = {}
    exec("x = 1", ns)

    def h(s):
        return len(s)

    made = type(h)(h.__code__, {})
    return ns["__builtins__"] is builtins.__dict__, made.__builtins__ is builtins.__dict__, made("ab")


def test_code_given_globals_without_builtins_gets_the_callers():
    # test_funcattrs.test___builtins__ under TraceCtx: a function made by FunctionType (and
    # exec's globals, under every context) got the engine's copy of the builtins namespace
    same(builtins_of_fresh_globals)
    assert builtins_of_fresh_globals() == (True, True, 2)


def test_getframe_and_currentframe():
    names, notes = same(frame_caller)
    assert frame_caller() == ("frame_info", "local-value", "local-value", "frame_caller",
                              "frame_info", True)
    assert notes == ["frame"]


def frame_back():
    note("back")
    return sys._getframe().f_back.f_code.co_name, inspect.currentframe().f_back.f_code.co_name


def frame_back_caller():
    return frame_back()


def test_frame_back_chain_is_the_users():
    # logging.Logger.findCaller and warnings.warn(stacklevel=...) walk f_back
    names, notes = same(frame_back_caller)
    assert frame_back_caller() == ("frame_back_caller", "frame_back_caller")
    assert notes == ["back"]


def frame_two_up():
    note("two up")
    return sys._getframe(2).f_code.co_name, [fs.name for fs in traceback.extract_stack()][-3:]


def frame_middle():
    return frame_two_up()


def frame_top():
    return frame_middle()


def test_getframe_two_levels_and_extract_stack():
    names, notes = same(frame_top, overdub="notes")  # linecache reads the file on the first run only
    assert frame_top() == ("frame_top", ["frame_top", "frame_middle", "frame_two_up"])
    assert notes == ["two up"]


def test_globals_is_the_user_module():
    names, notes = same(uses_globals)
    assert uses_globals() == (True, __name__)
    assert notes == ["globals"]


def test_zero_arg_super_outside_methods_fails_the_same_way():
    def g():
        try:
            super()
        except RuntimeError as e:
            return note(str(e))

    names, notes = same(g)
    assert len(notes) == 1


# ----------------------------------------- callables handed to native code


def keyfn(x):
    note(("key", x))
    return -x


def is_odd(x):
    note(("odd?", x))
    return x % 2


def add2(a, b):
    note(("add", a, b))
    return a + b


def test_map_and_filter():
    names, notes = same(lambda: (list(map(keyfn, [1, 2])), list(filter(is_odd, [3, 4]))))
    assert notes == [("key", 1), ("key", 2), ("odd?", 3), ("odd?", 4)]
    assert names.count("keyfn") == 2 and names.count("is_odd") == 2


def test_map_with_a_lambda():
    names, notes = same(lambda: list(map(lambda v: note(v) * 3, "ab")))
    assert notes == ["a", "b"]


def test_sorted_and_list_sort_with_key():
    def g():
        data = [3, 1, 2]
        s = sorted(data, key=keyfn)
        data.sort(key=keyfn, reverse=True)
        return s, data

    names, notes = same(g)
    assert notes == [("key", 3), ("key", 1), ("key", 2)] * 2
    assert names.count("keyfn") == 6


def test_min_max_with_key():
    names, notes = same(lambda: (min([5, 7, 6], key=keyfn), max(4, 9, key=keyfn)))
    assert notes == [("key", 5), ("key", 7), ("key", 6), ("key", 4), ("key", 9)]


def test_functools_reduce():
    names, notes = same(lambda: functools.reduce(add2, [1, 2, 3, 4]))
    assert notes == [("add", 1, 2), ("add", 3, 3), ("add", 6, 4)]


def test_re_sub_with_a_function():
    def repl(m):
        return note(m.group(0)) * 2

    names, notes = same(lambda: re.sub(r"\d", repl, "a1b22"))
    assert notes == ["1", "2", "2"]


def test_itertools_callbacks():
    def g():
        return (list(itertools.starmap(add3, [(1, 2, 3), (4, 5, 6)])),
                [(k, list(v)) for k, v in itertools.groupby([1, 1, 2], key=keyfn)],
                list(itertools.accumulate([1, 2, 3], func=add2)))

    names, notes = same(g)
    assert notes == ["add3", "add3", ("key", 1), ("key", 1), ("key", 2), ("add", 1, 2), ("add", 3, 3)]


def test_builtin_callables_handed_to_native_code_are_hooked():
    names, notes = same(lambda: (sorted(["b", "A", "c"], key=str.lower), list(map(abs, [-1, 2]))))
    assert names.count("str.lower") == 3
    assert names.count("abs") == 2


def picky(x):
    note(("picky", x))
    if x == 2:
        raise ArithmeticError("no twos")
    return x


def test_exception_in_a_callback_propagates_through_native_code():
    def g():
        try:
            return sorted([3, 2, 1], key=picky)
        except ArithmeticError as e:
            return "caught " + str(e)

    names, notes = same(g)
    assert notes == [("picky", 3), ("picky", 2)]
    with pytest.raises(ArithmeticError) as info:
        record(lambda: list(map(picky, [1, 2, 3])))
    tb = traceback.extract_tb(info.value.__traceback__)
    assert tb[-1].name == "picky" and tb[-1].filename == __file__


def test_numpy_vectorize():
    import numpy as np

    def g():
        return np.vectorize(keyfn, otypes=[int])(np.array([1, 2, 3])).tolist()

    names, notes = same(g)
    assert notes == [("key", 1), ("key", 2), ("key", 3)]


# --------------------------------------------------------------- recursion


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def forever(n):
    return forever(n + 1)


def test_recursion_as_deep_as_native():
    # Depth 900 works natively under the default recursion limit (1000); the
    # design requires that recursion which works natively works under a context.
    assert sys.getrecursionlimit() >= 1000
    assert depth(900) == 900
    out, seen = count(depth, 900)
    assert out == 900
    assert seen["depth"] == 900


def test_recursion_at_a_quarter_of_the_limit():
    n = sys.getrecursionlimit() // 4
    assert depth(n) == n
    out, seen = count(depth, n)
    assert out == n and seen["depth"] == n


def test_runaway_recursion_raises_recursion_error():
    with pytest.raises(RecursionError):
        forever(0)
    with pytest.raises(RecursionError):
        context.overdub(context.Context(), forever, 0)
    # and the context still works afterwards
    assert context.overdub(context.Context(), depth, 50) == 50


# --------------------------------------------------------------- tracebacks


RAISED = []


def fails(x):
    note("fails")
    err = LookupError("bad %s" % x)
    RAISED.append(err)
    raise err  # the raise line


def calls_fails():
    return fails(3) + 1  # the call line


def _line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    (offset,) = [i for i, line in enumerate(lines) if marker in line]
    return start + offset


def test_exception_propagates_with_the_users_file_and_line():
    ctx = context.Context()
    with pytest.raises(LookupError) as info:
        context.overdub(ctx, calls_fails)
    assert info.value is RAISED[-1]
    assert type(info.value) is LookupError and info.value.args == ("bad 3",)
    tb = traceback.extract_tb(info.value.__traceback__)
    assert tb[-1].filename == __file__
    assert tb[-1].lineno == _line_of(fails, "# the raise line")
    assert tb[-1].name == "fails"
    callers = [(fs.name, fs.lineno) for fs in tb if fs.filename == __file__]
    assert ("calls_fails", _line_of(calls_fails, "# the call line")) in callers


def test_exception_chaining_is_kept():
    def g():
        try:
            {}["k"]
        except KeyError as e:
            raise RuntimeError("wrapped") from e

    with pytest.raises(RuntimeError) as info:
        record(g)
    assert isinstance(info.value.__cause__, KeyError)


# ------------------------------------------------------------------ threads


def tick_a():
    return "a"


def tick_b():
    return "b"


def worker(tick, barrier, n):
    barrier.wait()
    out = []
    for i in range(n):
        out.append(tick())
        if i % 10 == 0:
            time.sleep(0)
    return "".join(out)


def test_two_threads_with_different_contexts_do_not_interfere():
    n = 300
    barrier = threading.Barrier(2)
    ctxs = {"a": Counter(metadata=collections.Counter()),
            "b": Counter(metadata=collections.Counter())}
    results, errors = {}, []

    def run(key, tick):
        try:
            results[key] = context.overdub(ctxs[key], worker, tick, barrier, n)
        except BaseException as e:  # reported below
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=run, args=("a", tick_a)),
                   threading.Thread(target=run, args=("b", tick_b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    assert results == {"a": "a" * n, "b": "b" * n}
    assert ctxs["a"].metadata["tick_a"] == n and ctxs["a"].metadata["tick_b"] == 0
    assert ctxs["b"].metadata["tick_b"] == n and ctxs["b"].metadata["tick_a"] == 0


def test_keyword_arguments_named_like_the_engines_own_parameters_pass_through():
    def g(f=None, ctx=None, self=None, out=None, args=None, kwargs=None):
        return (f, ctx, self, out, args, kwargs)

    def h():
        return g(f=1, ctx=2, self=3, out=4, args=5, kwargs=6)

    want = (1, 2, 3, 4, 5, 6)
    assert context.overdub(context.Context(), g, f=1, ctx=2, self=3, out=4, args=5, kwargs=6) == want

    class Hooked(context.Context):
        def prehook(self, f, /, *args, **kwargs):
            pass

        def posthook(self, out, f, /, *args, **kwargs):
            pass

    for ctx in [context.Context(), Hooked(), context.PrintCtx(lambda line: None), context.TraceCtx(),
                context.CountCtx()]:
        assert context.overdub(ctx, h) == want


def test_the_short_verdict_for_bound_natives_agrees_with_native_kind():
    import re
    import sys

    from context.entries.kinds import BOUND_NATIVE_TYPES, PLAIN, native_kind, plain_bound_native

    xs = [3, 1, 2]
    bound = [xs.append, xs.sort, "".join, re.compile("a").sub, re.compile("a").match, (1).__add__, {}.setdefault,
             "abc".__eq__]
    for f in bound:
        assert type(f) in BOUND_NATIVE_TYPES
        assert plain_bound_native(f) == (native_kind(f) is PLAIN), f
    assert not plain_bound_native(xs.sort) and plain_bound_native(xs.append)
    # functions of modules are left to native_kind, which remembers them
    assert not plain_bound_native(sys.getrecursionlimit)


def test_a_class_called_through_its_call_method_wrapper_is_instantiated_under_the_context():
    seen = []

    class Seen(context.Context):
        def prehook(self, f, *args, **kwargs):
            seen.append(getattr(f, "__qualname__", None))

    class C:
        def __init__(self, v):
            self.v = v

    def make():
        return C.__call__(3).v  # a method-wrapper bound to a class: calling it runs C.__init__

    assert context.overdub(Seen(), make) == 3
    assert any(name and name.endswith("C.__init__") for name in seen), seen
    assert context.overdub(context.Context(), make) == 3
