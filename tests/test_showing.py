"""Values shown by the recording contexts without running the program's code (``context.ready.showing``).

By default ``PrintCtx`` and ``TraceCtx`` show a value whose type's ``__repr__`` is the program's
own Python code as ``object.__repr__`` does, and dataclasses, named tuples, enum members,
exceptions and container subclasses from what they store; ``reprs=True`` calls the program's
``__repr__`` methods. Each case records every method of the program that runs.
"""

import collections
import dataclasses
import enum
import functools
import json
import types
import warnings

import numpy as np
import pytest

import context
from context import cli
from context.ready.showing import format_arguments, short_repr

RAN = []


class Loud:
    """A value whose repr, str and iteration record that they ran."""

    def __init__(self, n):
        self.n = n

    def __repr__(self):
        RAN.append("Loud.__repr__")
        return "Loud(%d)" % self.n

    def __iter__(self):
        RAN.append("Loud.__iter__")
        return iter(())


class LoudList(list):
    def __repr__(self):
        RAN.append("LoudList.__repr__")
        return "LoudList"

    def __iter__(self):
        RAN.append("LoudList.__iter__")
        return list.__iter__(self)


class LoudError(ValueError):
    def __repr__(self):
        RAN.append("LoudError.__repr__")
        return "LoudError"

    def __str__(self):
        RAN.append("LoudError.__str__")
        return "loud"


class LoudMeta(type):
    def __repr__(cls):
        RAN.append("LoudMeta.__repr__")
        return "LoudMeta"


class Classy(metaclass=LoudMeta):
    pass


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass
class Point:
    x: object
    y: int = dataclasses.field(default=0, repr=False)


@dataclasses.dataclass(slots=True)
class Slotted:
    x: object


@dataclasses.dataclass
class OwnRepr:
    x: int

    def __repr__(self):
        RAN.append("OwnRepr.__repr__")
        return "OwnRepr"


Pair = collections.namedtuple("Pair", "a b")
here = __name__


def _object_text(v):
    return "<%s.%s object at %#x>" % (here, type(v).__qualname__, id(v))


CASES = [
    (lambda: Loud(1), lambda v: _object_text(v)),
    (lambda: [Loud(1), (2, "x")], lambda v: "[%s, (2, 'x')]" % _object_text(v[0])),
    (lambda: {"k": Loud(2)}, lambda v: "{'k': %s}" % _object_text(v["k"])),
    (lambda: LoudList([1, 2]), lambda v: "LoudList([1, 2])"),
    (lambda: LoudList(range(1000)), lambda v: "LoudList([0, 1, 2, 3, 4, 5, ...])"),
    (lambda: Pair(1, "b"), lambda v: "Pair(a=1, b='b')"),
    (lambda: LoudError("bad", 3), lambda v: "LoudError('bad', 3)"),
    (lambda: Classy, lambda v: "<class '%s.Classy'>" % here),
    (lambda: Color.RED, lambda v: "Color.RED"),
    (lambda: Point(Loud(1), 5), lambda v: "Point(x=%s)" % _object_text(v.x)),
    (lambda: Slotted(7), lambda v: "Slotted(x=7)"),
    (lambda: OwnRepr(1), lambda v: _object_text(v)),
    (lambda: collections.Counter("aab"), lambda v: "Counter({'a': 2, 'b': 1})"),
    (lambda: collections.deque([1, Loud(2)]), lambda v: "deque([1, %s])" % _object_text(v[1])),
    (lambda: types.SimpleNamespace(a=Loud(1)), lambda v: "namespace(a=%s)" % _object_text(v.a)),
    (lambda: collections.UserList([Loud(1)]), lambda v: "UserList([%s])" % _object_text(v[0])),
    (lambda: functools.partial(max, 1, key=abs), lambda v: "functools.partial(<built-in function max>, 1, key=<built-in function abs>)"),
    (lambda: np.array([Loud(1)], dtype=object), lambda v: "<ndarray of shape (1,), dtype object>"),
    (lambda: np.arange(3.0), lambda v: "array([0., 1., 2.])"),
    (lambda: 2.5, lambda v: "2.5"),
]


@pytest.mark.parametrize("make, expected", CASES)
def test_values_are_shown_without_the_programs_code(make, expected):
    value = make()
    RAN.clear()
    assert short_repr(value, limit=None) == expected(value)
    assert format_arguments((value,), {"k": value}, None) == "%s, k=%s" % (expected(value), expected(value))
    assert RAN == []


def test_reprs_true_calls_the_programs_reprs():
    RAN.clear()
    assert short_repr(Loud(3), reprs=True) == "Loud(3)" and RAN == ["Loud.__repr__"]
    assert short_repr([Loud(4)], reprs=True) == "[Loud(4)]"
    assert short_repr(OwnRepr(1), reprs=True) == "OwnRepr"


class Lazy:
    """A value computed on first use; its repr computes it (as a deferred value's does)."""

    def __init__(self, fn):
        self.fn, self.computed = fn, 0

    def get(self):
        self.computed += 1
        return self.fn()

    def __repr__(self):
        return "Lazy(%r)" % (self.get(),)


class Loop:
    """A loop variable whose repr reads an async property (as Jinja2's async loop context's does)."""

    @property
    async def length(self):
        return 3

    def __repr__(self):
        return "<Loop %s>" % (self.length,)


def _uses(lazy, loop):
    return id(loop) and lazy.computed


@pytest.mark.parametrize("make", [
    lambda path: context.TraceCtx(path), lambda path: context.TraceCtx(keep=True),
    lambda path: context.PrintCtx(lambda line: None, results=True),
])
def test_recording_does_not_change_what_the_program_does(tmp_path, make):
    lazy = Lazy(lambda: 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine made by a repr and never awaited warns
        assert context.overdub(make(tmp_path / "t.json"), _uses, lazy, Loop()) == 0
    assert lazy.computed == 0  # (recording the arguments computed it: the program saw 1)


def test_reprs_true_is_what_the_old_recording_did(tmp_path):
    lazy = Lazy(lambda: 1)
    assert context.overdub(context.TraceCtx(tmp_path / "t.json", reprs=True), _uses, Lazy(lambda: 1), 0) == 1
    assert context.overdub(context.PrintCtx(lambda line: None, reprs=True), _uses, lazy, 0) == 1


def test_the_command_line_takes_reprs(tmp_path, capsys):
    script = tmp_path / "s.py"
    script.write_text("class Box:\n    def __repr__(self):\n        return 'Box!'\n"
                      "def show(b):\n    return 1\nshow(Box())\n")
    out = tmp_path / "calls.txt"
    assert cli.main(["print", "-o", str(out), "--include", "*show", str(script)]) == 0
    assert "<__main__.Box object at 0x" in out.read_text()
    assert cli.main(["print", "--reprs", "-o", str(out), "--include", "*show", str(script)]) == 0
    assert out.read_text() == "show(Box!)\n"
    trace = tmp_path / "t.json"
    assert cli.main(["trace", "--reprs", "-o", str(trace), "--include", "*show", str(script)]) == 0
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("ph") == "X"]
    assert [e["args"]["args"] for e in events] == ["Box!"]


class LoggedModule(types.ModuleType):
    def __getattribute__(self, name):
        RAN.append("LoggedModule.__getattribute__")
        return types.ModuleType.__getattribute__(self, name)


class MutatingKey(str):
    def __str__(self):
        RAN.append("MutatingKey.__str__")
        return "changed"


def test_modules_and_keywords_are_shown_from_what_they_store():
    RAN.clear()
    assert short_repr(LoggedModule("mod")) == "<LoggedModule 'mod'>"
    assert short_repr(json).startswith("<module 'json' from ")
    p = functools.partial(max, **{MutatingKey("key"): [1]})
    assert short_repr(p, limit=None) == "functools.partial(<built-in function max>, key=[1])"
    assert RAN == []


def test_the_standard_librarys_test_suites_are_programs_too():
    import os

    from context.ready.showing import _trusted_file

    stdlib = os.path.dirname(os.__file__)
    assert _trusted_file(os.path.join(stdlib, "collections", "__init__.py"))
    assert not _trusted_file(os.path.join(stdlib, "test", "test_class.py"))
    assert not _trusted_file(os.path.join(stdlib, "site-packages", "attr", "_make.py"))
    assert not _trusted_file("<string>")  # exec'd code: the program's (a repr exec'd by dataclasses is handled apart)


def test_bound_methods_and_slices_show_their_parts_without_the_programs_reprs():
    box = Loud(1)
    RAN.clear()
    assert short_repr(box.__iter__, limit=None) == "<bound method Loud.__iter__ of %s>" % _object_text(box)
    assert short_repr(slice(box, 2), limit=None) == "slice(%s, 2, None)" % _object_text(box)
    assert RAN == []


def test_subclasses_of_the_standard_librarys_containers_are_shown_from_what_they_store():
    class MyPartial(functools.partial):
        pass

    RAN.clear()
    p = MyPartial(max, **{MutatingKey("key"): [1]})
    assert short_repr(p, limit=None) == "MyPartial(<built-in function max>, key=[1])"
    assert RAN == []


def test_a_value_that_holds_itself_is_shown_once():
    p = functools.partial(max)
    p.__setstate__((max, (p,), {}, None))
    assert short_repr(p, limit=None) == "functools.partial(<built-in function max>, ...)"


def test_a_repr_given_to_a_class_after_its_values_were_shown_is_not_called():
    class Later:
        pass

    value = Later()
    assert short_repr(value, limit=None).endswith(" object at %#x>" % id(value))  # object's repr, by repr

    def loud(self):
        RAN.append("Later.__repr__")
        return "loud"

    Later.__repr__ = loud
    RAN.clear()
    assert short_repr(value, limit=None).endswith("Later object at %#x>" % id(value)) and RAN == []


class _CountsHashes:
    calls = 0

    def __init__(self, v):
        self.v = v

    def __hash__(self):
        type(self).calls += 1
        return hash(self.v)


class _SetOf(set):
    pass


class _FrozenSetOf(frozenset):
    pass


class _DictOf(dict):
    pass


def test_container_subclasses_are_shown_without_hashing_their_items_again():
    # test_set's test_do_not_rehash_dict_keys under TraceCtx: showing a subclass made a new
    # set or dict of its items, which called their __hash__ (the program's code)
    items = [_CountsHashes(i) for i in range(3)]
    values = [_SetOf(items), _FrozenSetOf(items), _DictOf.fromkeys(items, 1), _SetOf(), _FrozenSetOf()]
    _CountsHashes.calls = 0
    texts = [short_repr(v, 400) for v in values]
    assert _CountsHashes.calls == 0
    assert texts[0].startswith("_SetOf({<") and texts[0].endswith(">})")
    assert texts[1].startswith("_FrozenSetOf({<") and texts[2].startswith("_DictOf({<")
    assert texts[2].count(": 1") == 3
    assert texts[3:] == ["_SetOf()", "_FrozenSetOf()"]
