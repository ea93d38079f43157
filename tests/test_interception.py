"""Operators, subscripts and attribute access become calls for the context
classes that ask for them (and only for those)."""

import operator

import context
from tests.helpers import Recorder


class Calls(Recorder):
    pass


class Operators(Recorder):
    intercept_operators = True


class Subscripts(Recorder):
    intercept_subscripts = True


class Attributes(Recorder):
    intercept_attributes = True


def seen(cls, fn, *args):
    ctx = cls(metadata=[])
    out = context.overdub(ctx, fn, *args)
    return out, [(name, a) for name, a, _ in ctx.metadata]


def arith(x, y):
    return -(x * y) + (x - y), x < y, x == y


def subscripts(d):
    d["x"] = d["y"] + 1
    del d["y"]
    return d


class Box:
    pass


def attributes(b):
    b.a = 5
    v = b.a
    del b.a
    return v, hasattr(b, "a")


def test_operators_become_operator_calls():
    out, calls = seen(Operators, arith, 3, 4)
    assert out == arith(3, 4)
    assert calls == [
        ("mul", (3, 4)), ("neg", (12,)), ("sub", (3, 4)), ("add", (-12, -1)),
        ("lt", (3, 4)), ("eq", (3, 4)),
    ]


def test_operator_calls_are_the_operator_module_functions():
    fs = []

    class Keep(context.Context):
        intercept_operators = True

        def prehook(self, f, /, *args, **kwargs):
            fs.append(f)

    context.overdub(Keep(), arith, 1.5, 2.5)
    assert fs == [operator.mul, operator.neg, operator.sub, operator.add, operator.lt, operator.eq]


def test_subscripts_become_getitem_setitem_delitem():
    out, calls = seen(Subscripts, subscripts, {"y": 1})
    assert out == {"x": 2}
    names = [n for n, _ in calls]
    assert names == ["getitem", "setitem", "delitem"]
    assert calls[0][1][1] == "y" and calls[1][1][1:] == ("x", 2) and calls[2][1][1] == "y"


def test_attribute_access_becomes_getattr_setattr_delattr():
    out, calls = seen(Attributes, attributes, Box())
    assert out == (5, False)
    names = [n for n, _ in calls]
    assert names == ["setattr", "getattr", "delattr", "hasattr"]
    assert calls[0][1][1:] == ("a", 5) and calls[1][1][1:] == ("a",)


def test_nothing_is_intercepted_unless_asked():
    assert seen(Calls, arith, 3, 4)[1] == []
    assert seen(Calls, subscripts, {"y": 1})[1] == []
    assert [n for n, _ in seen(Calls, attributes, Box())[1]] == ["hasattr"]
    # operators stay operators for a subscript-only class, and so on
    assert seen(Subscripts, arith, 3, 4)[1] == []
    assert [n for n, _ in seen(Operators, subscripts, {"y": 1})[1]] == ["add"]


def test_a_primitive_on_an_operator_changes_arithmetic():
    class AddIsMul(context.Context):
        intercept_operators = True

    @AddIsMul.primitive(operator.add)
    def _add(ctx, a, b):
        return a * b

    def g(x):
        return x + 3

    assert g(5) == 8
    assert context.overdub(AddIsMul(), g, 5) == 15
    assert context.overdub(context.Context(), g, 5) == 8
