"""What the interpreter calls implicitly (property getters, ``__getitem__``, ``__iter__`` and
``__next__``) runs under a tagging context where it is Python code (``context.tagging.implicit``):
derivatives through properties and containers of the user's classes, in both modes, and the
same results, errors and tracebacks as natively where nothing is tagged."""

import functools
import sys
import math
import operator
import os
import traceback
import warnings

import numpy as np
import pytest

import ad
import context
from context.tagging import TaggingContext, enabletagging, istagged

R = ad.ReverseMode()
MODES = [ad.ForwardMode(), R]


class Circle:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return math.pi * math.pow(self.r, 2)

    @property
    def waves(self):
        return np.sum(np.sin(self.r))

    @functools.cached_property
    def rim(self):
        return 2 * math.pi * math.sin(self.r)


class Tripled:
    """A data descriptor written in Python."""

    def __get__(self, obj, cls):
        return self if obj is None else math.exp(obj.r) * 3

    def __set__(self, obj, value):
        raise AttributeError("read-only")


class WithDescriptor:
    d = Tripled()

    def __init__(self, r):
        self.r = r


class Grid:
    def __init__(self, x):
        self.x = x

    def __getitem__(self, i):
        return np.sin(self.x[i])

    def __iter__(self):
        for i in range(len(self.x)):
            yield math.exp(self.x[i])


class Steps:
    def __init__(self, x):
        self.x, self.i = x, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= 3:
            raise StopIteration
        self.i += 1
        return math.sin(self.x * self.i)


@pytest.mark.parametrize("mode", MODES, ids=["forward", "reverse"])
def test_derivatives_through_getters(mode):
    def f(r):
        c = Circle(r)
        return c.area + c.rim + c.rim + WithDescriptor(r).d  # the cached value is read the second time

    expected = 2 * math.pi * 0.5 + 4 * math.pi * math.cos(0.5) + 3 * math.exp(0.5)
    assert ad.derivative(f, 0.5, backend=mode) == pytest.approx(expected, rel=1e-14)
    x = np.array([0.1, 0.2, 0.3])
    assert np.allclose(ad.gradient(lambda v: Circle(v).waves, x, backend=mode), np.cos(x), rtol=1e-14)


@pytest.mark.parametrize("mode", MODES, ids=["forward", "reverse"])
def test_derivatives_through_subscripts_and_loops(mode):
    def f(x):
        g = Grid(x)
        total = g[0] + g[1]  # plain keys: __getitem__ computes with the values
        for v in g:  # a generator __iter__
            total = total + v
        a, b = Grid(x)  # unpacking iterates too
        return total + a * b + sum([v for v in Steps(x[0])])  # an iterator's own __next__

    x = np.array([0.3, 0.7])
    e = np.exp(x)
    expected = np.cos(x) + e + np.array([e[0] * e[1], e[0] * e[1]])
    expected[0] += sum(k * math.cos(0.3 * k) for k in (1, 2, 3))
    assert np.allclose(ad.gradient(f, x, backend=mode), expected, rtol=1e-13)


def test_a_derivative_inside_a_property():
    class Model:
        def __init__(self, a):
            self.a = a

        @property
        def slope(self):  # an inner derivative: it returned a Dual, before getters ran under the context
            return ad.derivative(lambda x: self.a * x * x, 1.0)

    assert ad.derivative(lambda a: Model(a).slope, 3.0) == 2.0
    assert ad.derivative(lambda a: Model(a).slope, 3.0, backend=R) == 2.0


def test_a_tagging_context_sees_the_calls_inside_getters():
    class Sines(TaggingContext):
        pass

    seen = []

    @Sines.primitive(math.sin)
    def _sin(ctx, x):
        seen.append("sin")
        return math.sin(x.value if istagged(x, ctx) else x)

    def run(r):
        t = context.tagging.tag(r, ctx, "m")
        c = Circle(t)
        return c.rim, [v for v in Steps(t)]

    ctx = enabletagging(Sines(), run)
    rim, steps = context.overdub(ctx, run, 0.5)
    assert rim == 2 * math.pi * math.sin(0.5) and steps == [math.sin(0.5 * k) for k in (1, 2, 3)]
    assert seen == ["sin"] * 4


class Fallback:
    @property
    def p(self):
        raise AttributeError("p")

    def __getattr__(self, name):
        return ("fallback", name)


class OwnLookup:
    @property
    def p(self):
        return "property"

    def __getattribute__(self, name):
        return ("own", name)


class NotAnIterator:
    def __iter__(self):
        return [1, 2]


class Failing:
    def __getitem__(self, key):
        return 1 / 0

    @property
    def p(self):
        return {}["key"]


class FailingSteps:
    def __iter__(self):
        return self

    def __next__(self):
        raise ValueError("bad step")


def _outcome(fn):
    try:
        return "value", fn()
    except Exception as e:  # the error and the traceback below the test's own frame
        lines = traceback.format_exc().splitlines()
        start = min(i for i, line in enumerate(lines) if ", in body" in line)
        return type(e).__name__, str(e), lines[start:]


CASES = {
    "getattr fallback": lambda: Fallback().p,
    "own lookup": lambda: OwnLookup().p,
    "class attribute": lambda: type(Circle.area).__name__,
    "native getter": lambda: property(operator.attrgetter("real")).__get__(3.0),
    "method of a property": lambda: Circle(2.0).__class__.area.fget(Circle(2.0)),
    "iter returns a list": lambda: [v for v in NotAnIterator()],
    "getitem raises": lambda: Failing()[0],
    "property raises": lambda: Failing().p,
    "next raises": lambda: [v for v in FailingSteps()],
    "slice of a user container": lambda: Grid(np.array([0.0, 1.0, 2.0]))[1:].tolist(),
}


def _under_tagging(body):
    return context.overdub(enabletagging(TaggingContext(), body), body)


def _under_a_derivative(body):
    got = []
    ad.derivative(lambda x: got.append(body()) or x, 1.0)
    return got[0]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("under", [_under_tagging, _under_a_derivative], ids=["tagging", "forward"])
def test_transparent_where_nothing_is_tagged(name, under):
    case = CASES[name]

    def body():
        return case()

    assert _outcome(lambda: under(body)) == _outcome(body)


def test_method_loads_are_not_attribute_loads():
    """``o.f(...)`` loads ``f`` as a method: the handler sees only plain loads."""
    seen = []

    def getattr_(obj, name):
        seen.append(name)
        return getattr(obj, name)

    class Loads(context.Context):
        implicit_handlers = {"getattr": getattr_}

    class Box:
        def __init__(self):
            self.v = [3]

        def get(self):
            return self.v

    def body():
        b = Box()
        return b.get()[0] + len(b.v)

    assert context.overdub(Loads(), body) == 4
    assert seen == ["v", "v"]  # in get() and in len(b.v); not "get"


def _callers():
    frame, names = sys._getframe(), []
    while frame is not None and len(names) < 4:
        names.append(frame.f_code.co_name)
        frame = frame.f_back  # (a frame walk: it skips the engine's frames; the getattr handler leaves it alone)
    return names


class Walker:
    @property
    def callers(self):
        return _callers()


def test_frame_walks_see_the_users_frames():
    def body():
        return _callers(), Walker().callers

    native = body()
    assert native[0][:2] == ["_callers", "body"] and native[1][:3] == ["_callers", "callers", "body"]
    got = context.overdub(enabletagging(TaggingContext(), body), body)
    assert got[0][:2] == native[0][:2] and got[1][:3] == native[1][:3]


def _deprecated_module():
    import types
    import warnings as w

    module = types.ModuleType("deprecating")

    def __getattr__(name):
        if name == "old":
            w.warn("old is deprecated", DeprecationWarning, stacklevel=2)
            return 1
        raise AttributeError(name)

    module.__getattr__ = __getattr__
    return module


class Deprecating:
    def __getattr__(self, name):
        if name == "old":
            warnings.warn("old is deprecated", DeprecationWarning, stacklevel=2)
            return 2
        raise KeyError(name)  # (an error of __getattr__'s own: it carries no context, as natively)


MODULE = _deprecated_module()


def _warned_where():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        values = (MODULE.old, Deprecating().old)
    try:
        Deprecating().missing
    except KeyError as e:
        context_of_error = e.__context__
    return values, [(os.path.basename(s.filename), s.lineno) for s in seen], context_of_error


@pytest.mark.parametrize("under", [_under_tagging, _under_a_derivative], ids=["tagging", "forward"])
def test_getattr_fallbacks_warn_from_the_users_frame(under):
    """A module's and a class's ``__getattr__`` run under the context where CPython calls them:
    their warnings point at the user's line, and their errors carry no context, as natively."""
    native = _warned_where()
    assert native[1][0][0] == "test_tagging_implicit.py" and native[2] is None
    assert under(_warned_where) == native


class _Base:
    x = "base x"

    def __getattr__(self, name):
        return name


class _Middle(_Base):
    __getattr__ = None  # found first: CPython's lookup stops here


class _Leaf(_Middle):
    y = "leaf y"


class _Plain:
    z = 1


@pytest.mark.parametrize("cls", [_Base, _Middle, _Leaf, _Plain, int, type, object])
@pytest.mark.parametrize("name", ["x", "y", "z", "__getattr__", "missing", "__init__", "real"])
def test_one_walk_finds_what_two_lookups_find(cls, name):
    from context.resolve import lookup_attribute, lookup_special

    assert lookup_attribute(cls, name) == (lookup_special(cls, name), lookup_special(cls, "__getattr__"))
