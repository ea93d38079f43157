"""Language features under every kind of context, against native runs: generators driven by
``send``/``throw``/``close``, ``async`` code under ``asyncio.run``, suppressed and chained
exceptions, ``return`` in ``finally``, metaclass ``__call__``, descriptors with ``__set_name__``,
frozen dataclasses, ``match``, the walrus operator and f-strings, ``except*``, ``__slots__``,
container dunders, late-binding closures, deep recursion, ``cmp_to_key``, warnings caught as
they are raised, property setters, ``__init_subclass__``, star unpacking, ``itertools``,
``nonlocal``/``global``, string methods, formatted tracebacks (carets included), natives that take their caller's module or line, builtins replaced and ``sys._getframe`` deleted while the program runs. The same results, exceptions and messages under an
empty context, ``CountCtx``, ``PrintCtx``, ``TraceCtx``, a tagging context and reverse mode's
(whose values are all untagged here)."""

import contextlib
import dataclasses
import io

import pytest

import context
from ad import tape
from context.tagging import TaggingContext

def gen_send(n):
    def g():
        total = 0
        while True:
            v = yield total
            if v is None: return total
            total += v
    it = g(); next(it)
    out = [it.send(i) for i in range(n)]
    try: it.send(None)
    except StopIteration as e: out.append(e.value)
    return out


def gen_throw(n):
    def g():
        try:
            yield 1
            yield 2
        except KeyError as e:
            yield "caught %s" % e
        finally:
            log.append("fin")
    log = []
    it = g(); a = next(it); b = it.throw(KeyError(n)); it.close()
    return a, b, log


async def _co(v):
    return v * 2
def async_run(n):
    import asyncio
    async def main():
        rs = await asyncio.gather(*[_co(i) for i in range(n)])
        return sum(rs)
    return asyncio.run(main())


def suppress(n):
    import contextlib
    out = []
    for i in range(n):
        with contextlib.suppress(ZeroDivisionError):
            out.append(10 // (i - 1))
    return out


def chained(n):
    try:
        try:
            raise ValueError("inner %d" % n)
        except ValueError as e:
            raise KeyError("outer") from e
    except KeyError as e:
        return repr(e), repr(e.__cause__), e.__suppress_context__


def finally_return(n):
    def f():
        try:
            return "try"
        finally:
            if n % 2:
                return "finally"
    return f()


class Meta(type):
    def __call__(cls, *a, **k):
        obj = super().__call__(*a, **k)
        obj.made_by_meta = True
        return obj
class WithMeta(metaclass=Meta):
    def __init__(self, v): self.v = v
def metaclass_call(n):
    o = WithMeta(n)
    return o.v, o.made_by_meta


class Desc:
    def __set_name__(self, owner, name): self.name = "_" + name
    def __get__(self, obj, typ=None): return 0 if obj is None else getattr(obj, self.name, -1)
    def __set__(self, obj, v): setattr(obj, self.name, v * 10)
class HasDesc:
    d = Desc()
def descriptor(n):
    h = HasDesc(); before = h.d; h.d = n
    return before, h.d, HasDesc.d


@dataclasses.dataclass(order=True, frozen=True)
class Pt:
    x: int
    y: int = 0
def dataclass_ops(n):
    ps = sorted([Pt(i % 3, -i) for i in range(n)])
    try:
        ps[0].x = 5
    except dataclasses.FrozenInstanceError as e:
        err = type(e).__name__
    return [dataclasses.astuple(p) for p in ps], err, repr(ps[0])


def match_stmt(n):
    out = []
    for v in [n, [n, 1], {"k": n}, (1, 2, 3), "s", None]:
        match v:
            case int(i) if i > 2: out.append("big")
            case int(): out.append("int")
            case [a, b]: out.append(("pair", a, b))
            case {"k": k}: out.append(("map", k))
            case (1, *rest): out.append(("star", rest))
            case str() | None: out.append("other")
    return out


def walrus_fstring(n):
    out = [y for x in range(n) if (y := x * x) % 2 == 0]
    return f"{n!r:>5}|{out}|{n/3:.2f}|{'abc'[n % 3]}"


def exc_group(n):
    try:
        raise ExceptionGroup("eg", [ValueError(n), TypeError("t")])
    except* ValueError as eg:
        v = [str(e) for e in eg.exceptions]
    except* TypeError as eg:
        t = len(eg.exceptions)
    return v, t


class Slotted:
    __slots__ = ("a", "b")
    def __init__(self, a): self.a = a
def slots_attr(n):
    s = Slotted(n)
    try:
        s.c = 1
    except AttributeError as e:
        msg = str(e)
    try:
        s.b
    except AttributeError as e:
        msg2 = str(e)
    return s.a, msg, msg2


class Vec:
    def __init__(self, *xs): self.xs = list(xs)
    def __len__(self): return len(self.xs)
    def __getitem__(self, i): return self.xs[i]
    def __iter__(self): return iter(self.xs)
    def __contains__(self, v): return v in self.xs
    def __add__(self, o): return Vec(*[a + b for a, b in zip(self, o)])
    def __radd__(self, o): return self if o == 0 else NotImplemented
    def __bool__(self): return bool(self.xs)
    def __repr__(self): return "Vec%r" % (tuple(self.xs),)
def dunders(n):
    v = Vec(*range(n)); w = Vec(*range(n, 2 * n))
    return repr(v + w), sum([v, w], 0) if n else None, 2 in v, bool(Vec()), v[-1] if n else None, list(reversed(v))


def closures_late(n):
    fs = [lambda i=i: i * n for i in range(3)]
    gs = [lambda: i for i in range(3)]
    return [f() for f in fs], [g() for g in gs]


def recursion_limit(n):
    def deep(k):
        return 0 if k == 0 else 1 + deep(k - 1)
    try:
        return deep(50 * n)
    except RecursionError:
        return "recursion"


def recursion_to_the_limit(n):
    """Recursion that uses what the limit leaves, as tomllib's nesting-limit test does, with a
    class made and a native called at the deepest level."""
    from test import support

    class Node:
        def __init__(self, k):
            self.k = k

    def a(k):
        return b(k)

    def b(k):
        return c(k)

    def c(k):
        return Node(len(str(k))) if k == 0 else a(k - 1)

    with support.infinite_recursion(max_depth=100):
        available = support.get_recursion_available()
        return type(a(available // 3 - 2 - n)).__name__


def sort_stability(n):
    data = [(i % 3, str(i)) for i in range(n * 3)]
    import functools, operator
    return sorted(data, key=operator.itemgetter(0)), sorted(data, key=functools.cmp_to_key(lambda a, b: (a[0] > b[0]) - (a[0] < b[0])))


def warn_and_catch(n):
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warnings.warn("careful %d" % n, UserWarning)
    return [(str(x.message), x.category.__name__) for x in w]


def property_setter(n):
    class P:
        def __init__(self): self._v = 0
        @property
        def v(self): return self._v
        @v.setter
        def v(self, x):
            if x < 0: raise ValueError("neg")
            self._v = x
    p = P(); p.v = n
    try: p.v = -1
    except ValueError as e: return p.v, str(e)


def init_subclass(n):
    registry = []
    class Base:
        def __init_subclass__(cls, tag=None, **kw):
            super().__init_subclass__(**kw); registry.append((cls.__name__, tag))
    class A(Base, tag=n): pass
    class B(A): pass
    return registry, [c.__name__ for c in B.__mro__]


def star_unpack(n):
    a, *b, c = range(n + 2)
    d = {**{"x": 1}, **{"y": n}}
    def f(*args, **kw): return args, sorted(kw.items())
    return a, b, c, f(*b, **d), [*b, *"ab"]


def iter_protocols(n):
    import itertools
    out = list(itertools.accumulate(range(n), lambda a, b: a * 2 + b))
    out += list(itertools.starmap(pow, [(2, i) for i in range(n)]))
    out += [k for k, g in itertools.groupby(sorted("mississippi"))]
    return out, list(zip(*[iter(range(n * 2))] * 2)), list(map(max, [1, 5], [3, 2]))


def nonlocal_global(n):
    global _G
    _G = n
    def outer():
        x = 0
        def inner():
            nonlocal x
            x += _G
            return x
        return [inner() for _ in range(3)]
    return outer()


def str_methods(n):
    s = "Hello, World " * n
    return s.split(", "), s.title(), "-".join(reversed(s.split())), s.encode("utf-8")[:5], "%s:%d" % ("a", n), format(n, "08b")


def traceback_text(n):
    import traceback
    def fails(k):
        it, d = [1, 2], {"a": 1}
        ops = [lambda: it[k + 5], lambda: d["zz"], lambda: 1 / (k - k), lambda: len(k),
               lambda: [*k], lambda: it.nope, lambda: next(iter(())), lambda: int("x%d" % k)]
        return ops[k % len(ops)]()
    out = []
    for k in range(n, n + 8):
        try:
            fails(k)
        except Exception as e:
            out.append("".join(traceback.format_exception(e)[1:]))  # below the runner's own frame
    return out


def caller_module(n):
    """Natives that take their caller's module or line: ``TypeVar`` (written in C from 3.12),
    ``warnings.warn`` and the ``warn`` of a copy of ``_warnings`` imported afresh, and
    ``abc``'s ``register`` of a protocol (typing lets only ``abc`` check it), and classes made by
    calling ``type``, a metaclass or ``type.__new__`` (they take the caller's module)."""
    import typing
    import warnings
    from test.support import import_helper
    fresh = import_helper.import_fresh_module("warnings", fresh=["_warnings"])
    T = typing.TypeVar("T%d" % n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("w%d" % n)
    with fresh.catch_warnings(record=True, module=fresh) as caught_fresh:
        fresh.simplefilter("always")
        fresh.warn("f%d" % n)
    class C:
        x = n

    @typing.runtime_checkable
    class P(typing.Protocol):  # a protocol with a data member: abc's register may check it
        x = 1

    P.register(C)

    class Meta(type):
        pass

    class NewMeta(type):
        def __new__(mcs, name, bases, namespace):
            return super().__new__(mcs, name, bases, namespace)

    import types
    made = [type("A", (), {}), types.new_class("B"), Meta("C", (), {}), NewMeta("D", (), {})]
    return (T.__module__, [(w.filename, w.lineno, str(w.message)) for w in caught + caught_fresh],
            isinstance(C(), P), [m.__module__ for m in made])


def patched_builtins(n):
    """A builtin replaced while the program runs (as ``test_functools`` does with ``len``): the
    program's calls see the replacement, the engine's own code never does."""
    import builtins
    import functools
    old = builtins.len
    out = []
    try:
        builtins.len = functools.lru_cache(4)(old)  # fails on unhashable arguments
        out += [len("abcdef"[:i]) for i in range(n + 2)]
        try:
            [][n]
        except IndexError:
            out.append("caught")
    finally:
        builtins.len = old
    return out, builtins.len is old


def without_getframe(n):
    """``sys._getframe`` deleted while the program runs (attrs' tests do, for Jython): the
    program's own code sees it gone, the engine's never needs it."""
    import collections
    import sys
    import types
    saved = sys._getframe
    del sys._getframe
    try:
        made = types.new_class("C%d" % n), collections.namedtuple("P", "x y")
        return [m.__module__ for m in made], hasattr(sys, "_getframe")
    finally:
        sys._getframe = saved


FEATURES = [gen_send, gen_throw, async_run, suppress, chained, finally_return, metaclass_call, descriptor,
            dataclass_ops, match_stmt, walrus_fstring, exc_group, slots_attr, dunders, closures_late,
            recursion_limit, recursion_to_the_limit, sort_stability, warn_and_catch, property_setter, init_subclass, star_unpack,
            iter_protocols, nonlocal_global, str_methods, traceback_text, caller_module, patched_builtins, without_getframe]
CONTEXTS = {"empty": context.Context, "count": context.CountCtx, "print": context.PrintCtx,
            "trace": context.TraceCtx, "tagging": TaggingContext, "reverse mode": tape.start}


def _run(fn, arg, ctx=None):
    try:
        return "ok", repr(fn(arg) if ctx is None else context.overdub(ctx, fn, arg))
    except Exception as e:  # the same exception, with the same message
        return "raised", type(e).__name__, str(e)


@pytest.mark.parametrize("kind", CONTEXTS)
@pytest.mark.parametrize("fn", FEATURES, ids=[fn.__name__ for fn in FEATURES])
def test_the_same_as_natively(fn, kind):
    for arg in (0, 1, 3, 5):
        native = _run(fn, arg)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            got = _run(fn, arg, CONTEXTS[kind]())
        assert got == native, (fn.__name__, arg)
