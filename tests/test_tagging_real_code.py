"""Real code under a tagging context with nothing tagged behaves exactly as natively.

Each case runs natively, under an empty tagging context and under AD's forward context
with nothing differentiated, and compares what it observes: results, the module that
natives reading their caller's frame see (``typing.TypeVar``, ``type(name, bases, ns)``,
``typing``'s protocol checks), warnings' file and line, tracebacks, and which
``__getattribute__`` calls ``isinstance`` and ``type`` make.
"""

import abc
import argparse
import codecs
import collections
import dataclasses
import decimal
import email
import enum
import fractions
import json
import math
import os
import pickle
import re
import string
import subprocess
import sys
import textwrap
import traceback
import typing
import warnings

import numpy as np
import pytest

import context
from ad.engine.forward import ForwardCtx
from context.tagging import TaggingContext, enabletagging

TAGGING_DIR = os.path.dirname(os.path.abspath(context.tagging.__file__)) + os.sep


class Empty(TaggingContext):
    pass


def _empty(f):
    return enabletagging(Empty(), f)


def _forward(f):
    return enabletagging(ForwardCtx(), f)


CONTEXTS = pytest.mark.parametrize("make", [_empty, _forward], ids=["empty", "forward"])


def outcome(f, *args):
    """``("ok", result)`` or ``("raised", type, message)`` of ``f(*args)``."""
    try:
        return ("ok", f(*args))
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def run_under(make, f, *args):
    return outcome(lambda: context.overdub(make(f), f, *args))


def assert_native(make, f, *args):
    native = outcome(f, *args)
    assert run_under(make, f, *args) == native
    return native


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_fresh_interpreter(check):
    """Run ``check`` in a new interpreter, where no tagged value exists (other tests keep
    theirs alive, and the guard checks natives while a tagged value of a run exists)."""

    def test(make):
        code = "import tests.test_tagging_real_code as m; m.%s(m.%s)" % (check.__name__, make.__name__)
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    test.__name__ = "test_" + check.__name__
    return CONTEXTS(test)


# ---- 1. keywords named like the guard's parameters --------------------------------


def keywords_like_the_guards():
    T = typing.TypeVar("T", bound=int)
    table = dict(f=1, run=2, bound=3, self=4, args=5, kwargs=6, owner=7)
    return T.__name__, T.__bound__, table


def keywords_named_like_the_guards_parameters(make):
    assert assert_native(make, keywords_like_the_guards)[0] == "ok"


test_keywords_named_like_the_guards_parameters = in_fresh_interpreter(keywords_named_like_the_guards_parameters)


# ---- 2. natives that read their caller's frame -----------------------------------

class _Meta(type):
    pass


class _NewMeta(type):
    def __new__(mcs, name, bases, namespace):
        return super().__new__(mcs, name, bases, namespace)


def made_in_this_module():
    global MadeT
    MadeT = typing.TypeVar("MadeT")
    Made = type("Made", (), {})
    Point = collections.namedtuple("Point", "x y")
    by_metaclasses = _Meta("M", (), {}).__module__, _NewMeta("N", (), {}).__module__
    return (MadeT.__module__, Made.__module__, Point.__module__, pickle.loads(pickle.dumps(MadeT)) is MadeT,
            by_metaclasses)


@CONTEXTS
def test_natives_see_the_callers_module(make):
    """Also while the guard checks natives (a tagged value of a run exists)."""
    from context.tagging import tag, tags

    kept = make(made_in_this_module)
    value = tag(1.0, kept)
    context.overdub(kept, lambda: None)  # a used tag that has run and lives: the guard checks natives
    assert tags.live_values()
    native = assert_native(make, made_in_this_module)
    assert native == ("ok", (__name__, __name__, __name__, True, (__name__, __name__)))
    del value


def warnings_seen():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.warn("direct")
        codecs.decode(b"\\q", "unicode_escape")  # a DeprecationWarning emitted by native code
    return [(str(w.message), w.category, w.filename, w.lineno) for w in seen]


def warnings_have_the_native_file_and_line(make):
    native = assert_native(make, warnings_seen)
    assert [w[2] for w in native[1]] == [__file__, __file__]


test_warnings_have_the_native_file_and_line = in_fresh_interpreter(warnings_have_the_native_file_and_line)


def raises_in_a_native():
    return "abc".index("z")


def no_frame_of_the_guard_in_tracebacks(make):
    f = raises_in_a_native
    try:
        context.overdub(make(f), f)
    except ValueError as exc:
        entries = traceback.extract_tb(exc.__traceback__)
    assert not [e for e in entries if e.filename.startswith(TAGGING_DIR)]
    last = entries[-1]
    assert (last.filename, last.name, last.lineno) == (__file__, f.__name__, f.__code__.co_firstlineno + 1)


test_no_frame_of_the_guard_in_tracebacks = in_fresh_interpreter(no_frame_of_the_guard_in_tracebacks)


# ---- 3. isinstance and type make the native's attribute lookups only -------------


class Watched:
    def __init__(self, log):
        object.__setattr__(self, "log", log)

    def __getattribute__(self, name):
        object.__getattribute__(self, "log").append(name)
        return object.__getattribute__(self, name)

    def __float__(self):
        return 1.5

    def __getitem__(self, key):
        return key

    def __iter__(self):
        return iter((1, 2))

    def __lt__(self, other):
        return True


def type_checks():
    log = []
    w = Watched(log)
    out = (isinstance(w, Watched), isinstance(w, int), type(w) is Watched, float(w), list(iter(w)), w < 1)
    return out, list(log)


@CONTEXTS
def test_isinstance_and_type_call_no_getattribute_natives_do_not(make):
    native = assert_native(make, type_checks)
    assert native[1][1] == ["__class__"]  # isinstance(w, int) reads it


def subscripts():
    log = []
    w = Watched(log)
    return w[3], w["k"], list(log)


@pytest.mark.parametrize("make", [_empty, _forward], ids=["empty", "forward"])
def test_subscripts_call_no_getattribute(make):
    assert assert_native(make, subscripts)[1][2] == []


# ---- 4. runtime-checkable protocols ---------------------------------------------


@typing.runtime_checkable
class HasX(typing.Protocol):
    x: int


@typing.runtime_checkable
class CanClose(typing.Protocol):
    def close(self): ...


class WithX:
    x = 1

    def close(self):
        pass


def protocol_checks():
    class Fresh:  # not in the protocols' ABC caches yet
        x = 1

    class Other:
        x = 2

    return (HasX.__instancecheck__(Fresh()), abc.ABCMeta.__instancecheck__(HasX, Other()),
            isinstance(WithX(), HasX), isinstance(1, HasX), isinstance(WithX(), CanClose),
            issubclass(WithX, CanClose))


@CONTEXTS
def test_runtime_checkable_protocols(make):
    assert assert_native(make, protocol_checks)[0] == "ok"


# ---- 5. stdlib-heavy code --------------------------------------------------------


def use_dataclasses():
    @dataclasses.dataclass(frozen=True)
    class P:
        x: int
        y: float = 2.0
        tags: list = dataclasses.field(default_factory=list)

    p = P(1)
    q = dataclasses.replace(p, y=3.0)
    try:
        p.x = 5
    except dataclasses.FrozenInstanceError as exc:
        frozen = type(exc).__name__
    D = dataclasses.make_dataclass("D", [("a", int), ("b", str, dataclasses.field(default="s"))])
    return (dataclasses.asdict(q), repr(p), p == P(1), frozen, [f.name for f in dataclasses.fields(P)],
            D.__module__, repr(D(1)))


def use_enum():
    class Color(enum.Enum):
        RED = 1
        GREEN = enum.auto()

    class Perm(enum.Flag):
        R = 4
        W = 2
        X = 1

    E2 = enum.Enum("E2", "A B C")
    return ([c.name for c in Color], repr(Color(1)), repr(Color["GREEN"]), repr(Perm.R | Perm.W), repr(Perm(6)),
            Perm.R in (Perm.R | Perm.X), repr(E2.B), E2.__module__, list(Perm) == [Perm.R, Perm.W, Perm.X])


T = typing.TypeVar("T")


def use_typing():
    class Box(typing.Generic[T]):
        def __init__(self, v: T):
            self.v = v

    class NT(typing.NamedTuple):
        a: int
        b: str = "x"

    class TD(typing.TypedDict):
        k: int

    NT2 = typing.NamedTuple("NT2", [("q", int)])
    TD2 = typing.TypedDict("TD2", {"z": int})

    def f(a: int, b: "list[int]") -> typing.Optional[str]:
        pass

    return (Box[int](3).v, NT(1), NT._fields, NT.__module__, NT2.__module__, TD2.__module__, TD.__required_keys__,
            typing.get_type_hints(f), typing.get_origin(list[int]), typing.get_args(dict[str, int]))


def use_numbers():
    F = fractions.Fraction
    with decimal.localcontext() as ctx:
        ctx.prec = 10
        d = decimal.Decimal(1) / decimal.Decimal(7)
    return (F(1, 3) + F(1, 6), F("0.25") ** 2, F(3, 4) < 1, d, decimal.Decimal("1.5").quantize(decimal.Decimal("1")),
            sum([F(1, n) for n in range(1, 5)]), round(F(7, 3)), float(F(1, 4)))


def use_text():
    s = json.dumps({"a": [1, 2.5, None, True], "b": {"c": "d"}}, indent=2, sort_keys=True)
    t = string.Template("$who likes ${what}")
    return (s, json.loads(s), json.loads('{"x": 1.5}', parse_float=decimal.Decimal),
            re.sub(r"\d+", lambda m: str(int(m.group()) * 2), "a1 b22 c333"), re.findall(r"(\w)(\d)", "a1b2"),
            t.substitute(who="tim", what="rice"), t.safe_substitute(who="x"),
            textwrap.fill("hello world " * 10, width=30), textwrap.shorten("Hello  world!", width=10))


def use_argparse_and_email():
    p = argparse.ArgumentParser(prog="prog")
    p.add_argument("--n", type=int, default=1)
    p.add_argument("files", nargs="*")
    p.add_argument("-v", action="store_true")
    ns = p.parse_args(["--n", "3", "-v", "a", "b"])
    msg = email.message_from_string("From: a@b.c\nSubject: hi\nContent-Type: text/plain\n\nbody\n")
    return vars(ns), p.format_help(), msg["From"], msg["Subject"], msg.get_payload(), msg.get_content_type()


@CONTEXTS
@pytest.mark.parametrize("f", [use_dataclasses, use_enum, use_typing, use_numbers, use_text, use_argparse_and_email],
                         ids=lambda f: f.__name__)
def test_stdlib_code(make, f):
    native = assert_native(make, f)
    assert native[0] == "ok", native


# ---- while values are tagged (AD with a derivative) -------------------------------


def test_frame_natives_while_differentiating():
    import ad

    def g(x):
        T = typing.TypeVar("T", bound=int)
        Made = type("Made", (), {})
        return x * x, T.__module__, T.__bound__, Made.__module__, isinstance(WithX(), HasX)

    seen = []

    def h(x):
        y, *rest = g(x)
        seen.append(rest)
        return y

    assert ad.D(h, 3.0) == 6.0
    assert seen == [[__name__, int, __name__, True]]
