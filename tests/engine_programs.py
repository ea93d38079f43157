"""Generated call-heavy programs for differential tests of the engine (native against contexts).

``program(seed)`` gives the source of a module whose ``main()`` exercises many call forms
at once: positional, keyword and star arguments (16 or more keywords, keywords named like
the engine's parameters), defaults, methods, class and static methods, ``super()``,
properties, closures, lambdas, ``functools.partial``, generators with ``yield from``,
comprehensions, natives that call back (``sorted``, ``map``, ``filter``, ``max``),
exceptions raised and caught across frames, ``finally``, ``with`` blocks, recursion,
dataclasses, metaclasses, ``lru_cache``, ``singledispatch``, context managers made by
``contextmanager``, frame walks, warnings, ``asyncio.run``, ``eval``. Every
value it computes goes into the list it returns, and a module-level ``log`` records the
order of side effects. The same seed gives the same program.
"""

import random

PRELUDE = '''
import functools
import itertools

log = []


class Resource:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        log.append(("enter", self.name))
        return self

    def __exit__(self, kind, value, tb):
        log.append(("exit", self.name, kind.__name__ if kind else None))
        return kind is KeyError  # swallows KeyError only

    def use(self, x):
        return len(self.name) * x


class Base:
    def __init__(self, v):
        self.v = v

    def m(self, x, *rest, k=1):
        log.append(("m", type(self).__name__, x, k))
        return self.v * x + len(rest) + k

    @classmethod
    def make(cls, x):
        return cls(x)

    @staticmethod
    def diff(a, b=2):
        return a - b

    @property
    def p(self):
        return self.v + 1

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.v)


class Sub(Base):
    def __init__(self, v, extra=0):
        super().__init__(v + extra)

    def m(self, x, *rest, k=1):
        return super().m(x, *rest, k=k) + 1


def keywords(**kw):
    return sorted(kw.items())


def engine_named(f=0, cls=1, args=2, kwargs=3, self=4, names=5):
    return (f, cls, args, kwargs, self, names)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def chain(n):
    yield from range(n)
    yield from (x * x for x in range(n))
    return n


def collect(n):
    total = yield from chain(n)
    yield total


def failing(x):
    if x % 3 == 0:
        raise ValueError("bad %d" % x)
    if x % 3 == 1:
        raise KeyError(x)
    return x


def adder(n):
    def add(x, y=0):
        return x + y + n
    return add


def counter():
    count = 0

    def bump(by=1):
        nonlocal count
        count += by
        return count
    return bump


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, *, offset=0):
        return self.k * x + offset


def made_class(n):
    cls = type("Made%d" % n, (Base,), {"m": lambda self, x, *r, k=1: Base.m(self, x, k=k) * 2})
    return cls(n).m(n, k=n)


import asyncio
import contextlib
import dataclasses
import operator
import sys
import warnings


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0

    def norm1(self):
        return abs(self.x) + abs(self.y)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b=1):
        self.a, self.b = a, b

    def __getattr__(self, name):
        return "missing " + name


class Registry(type):
    seen = []

    def __new__(mcls, name, bases, ns, **kw):
        cls = super().__new__(mcls, name, bases, ns, **kw)
        mcls.seen.append(name)
        return cls


class Plugin(metaclass=Registry):
    def __init_subclass__(cls, tag="", **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag


@functools.lru_cache(maxsize=None)
def cached(n):
    return n * n + len(log)


@functools.singledispatch
def kind(x):
    return "object"


@kind.register
def _(x: int):
    return "int %d" % x


@contextlib.contextmanager
def managed(n):
    log.append(("managed in", n))
    try:
        yield n * 2
    finally:
        log.append(("managed out", n))


def caller_name():
    return sys._getframe(1).f_code.co_name


def warns(n):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("careful %d" % n, stacklevel=2)
    return [(str(w.message), w.lineno > 0, w.filename) for w in caught]


async def ticker(n):
    total = 0
    for i in range(n):
        await asyncio.sleep(0)
        total += i
    return total


def counted(f, x):
    import context

    ctx = context.CountCtx()
    out = context.overdub(ctx, lambda: (f(x), sum(f(i) for i in range(3)), "".join(str(f(i)) for i in range(2))))
    return out, sorted(ctx.counts.items())


def traced(f, x):
    import context

    ctx = context.TraceCtx(keep=True)
    out = context.overdub(ctx, lambda: max((f(i) for i in range(x + 1)), default=None))
    return out, len(ctx.roots), len(ctx.render().splitlines())


def countdown(start):
    state = [start]

    def step():
        state[0] -= 1
        return state[0]
    return step
'''

# statements of main(), each adding what it computes to ``acc``; {f} names an earlier function
STATEMENTS = [
    "acc.append({f}({a}))",
    "acc.append({f}(*[{a}]))",
    "acc.append({f}(**{{'x': {a}}}))",
    "acc.append(sorted([{a}, 3, -1, 7], key=lambda t: {f}(t)))",
    "acc.append(list(map({f}, range({n}))))",
    "acc.append(list(filter(lambda t: {f}(t) % 2, range({n}))))",
    "acc.append(max(range({n}), key={f}) if {n} else None)",
    "acc.append([{f}(i) for i in range({n})])",
    "acc.append({{i: {f}(i) for i in range({n})}})",
    "acc.append(sum({f}(i) for i in range({n})))",
    "acc.append(list(collect({n})))",
    "acc.append(fib({n}))",
    "acc.append(Sub({a}, extra={n}).m({n}, 1, 2, k={a}))",
    "acc.append(Base.make({a}).p + Sub.make({n}).p)",
    "acc.append(Base.diff({a}) + Sub.diff(b={n}, a=1))",
    "acc.append(repr(Sub({a})))",
    "acc.append(functools.partial({f}, {a})())",
    "acc.append(adder({n})({a}, y={n}))",
    "acc.append(keywords(" + ", ".join("k%d=%d" % (i, i) for i in range(18)) + "))",
    "acc.append(engine_named(f={a}, cls={n}, names=-1))",
    "acc.append(engine_named(**{{'self': {a}, 'kwargs': {n}}}))",
    "acc.append(list(itertools.starmap(lambda p, q: {f}(p) + q, [({a}, 1), ({n}, 2)])))",
    "acc.append(Scaled({n})({a}, offset={f}({n})))",
    "bump = counter(); acc.append([bump(), bump({a}), bump()])",
    "acc.append(made_class({n}))",
    "acc.append(list(iter(countdown({n}), -2)))",
    "acc.append(sorted([{a}, {n}, 5], key=functools.cmp_to_key(lambda p, q: {f}(p) - {f}(q))))",
    "acc.append(getattr(Sub({n}), 'm')({a}, k={n}))",
    """g = collect({n} + 1)
    acc.append(next(g))
    g.close()""",
    "acc.append((Point({a}, {n}), Point({a}).norm1(), dataclasses.astuple(Point({n}, {a}))))",
    "sl = Slotted({a}); acc.append((sl.a, sl.b, sl.nothing_{n}))",
    "acc.append(type('P{n}', (Plugin,), {{}}, tag='t{n}').tag)",
    "acc.append((cached({n}), cached({n}), kind({a}), kind('s')))",
    """with managed({n}) as got:
        acc.append(got + {f}({a}))""",
    "acc.append(caller_name())",
    "acc.append(warns({n}))",
    "acc.append(asyncio.run(ticker({n})))",
    "acc.append(eval('{f}({a}) + 1'))",
    "acc.append(list(map(operator.add, range({n}), range({a}, {a} + {n}))))",
    "acc.append(operator.methodcaller('m', {n}, k={a})(Sub({a})))",
    # a context nested in the one the program runs under sees what it sees when outermost
    "acc.append(counted({f}, {a}))",
    "acc.append(traced({f}, {n}))",
    """try:
        acc.append(failing({a}))
    except ValueError as exc:
        acc.append(("value", str(exc)))
    except KeyError as exc:
        acc.append(("key", exc.args))
    finally:
        log.append(("finally", {a}))""",
    """with Resource("r{n}") as r:
        acc.append(r.use({f}({a})))
        if {a} % 2:
            raise KeyError("swallowed")""",
    """try:
        with Resource("s{n}"):
            failing(3 * {n})
    except ValueError as exc:
        acc.append(str(exc))""",
]

# bodies of the helper functions f0, f1, ...: take x, may call earlier helpers ({g})
BODIES = [
    "return x + {c}",
    "return {g}(x) * {c}",
    "return {g}(x + 1) - {g}(x)",
    "return sum({g}(i) for i in range(x % 4))",
    "return len([y for y in range(x % 5) if {g}(y) % 2])",
    "return Sub(x).m({c}, k=x) + {g}(x)",
    "return abs(x - {c}) + min(x, {c})",
    "return {g}(*[x], **{{}})",
    """try:
        return failing(x)
    except (ValueError, KeyError):
        return {g}(x) + {c}""",
    "return functools.reduce(lambda s, t: s + {g}(t), range(x % 3), 0)",
    """if x > 6:
        raise RuntimeError("too big: %d" % x)
    return {g}(x) + {c}""",
]


def program(seed, helpers=6, statements=14):
    """The source of one generated program."""
    rnd = random.Random(seed)
    lines = [PRELUDE]
    for i in range(helpers):
        body = rnd.choice(BODIES if i else BODIES[:1] + BODIES[6:7])
        g = "f%d" % rnd.randrange(i) if i else "abs"
        lines.append("\ndef f%d(x):\n    %s\n" % (i, body.format(g=g, c=rnd.randrange(1, 9))))
    lines.append("\ndef main():\n    acc = []")
    for _ in range(statements):
        statement = rnd.choice(STATEMENTS).format(
            f="f%d" % rnd.randrange(helpers), a=rnd.randrange(-3, 10), n=rnd.randrange(0, 6))
        lines.append("    " + statement)
    lines.append("    return acc, log\n")
    return "\n".join(lines)
