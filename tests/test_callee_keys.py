"""Keys that identify callees for counting, profiling and tracing: cheap, stable, never leaking."""

import functools
import gc
import re
import weakref

import pytest

import context
from context.ready.display import IdentityKey, callee_key, identity_key


def test_bound_native_methods_of_temporary_objects_share_one_key_per_type_and_name():
    pattern = re.compile("a+")

    def work(n):
        out = 0
        for i in range(n):
            out += bool(pattern.match("aa" * (i % 3)))  # a new bound method object at every access
            out += len(str(i).__str__())
        return out

    ctx = context.CountCtx()
    context.overdub(ctx, work, 300)
    assert ctx.counts["re.Pattern.match"] == 300 and ctx.counts["str.__str__"] == 300
    assert len(ctx._by_key) < 10  # one key per function, however many bound method objects
    assert callee_key(pattern.match) == callee_key(re.compile("b").match)
    assert callee_key("x".__str__) == callee_key("y".__str__)


def test_functions_of_one_code_share_an_identity_hashed_key_that_keeps_nothing_alive():
    def make(k):
        def add(x):
            return x + k

        return add

    a, b = make(1), make(2)
    assert callee_key(a) is callee_key(b) and type(callee_key(a)) is IdentityKey
    assert callee_key(a.__get__(object())) is callee_key(a)  # a bound method counts as its function

    namespace = {}
    exec("def temp(x):\n    return x\n", namespace)
    code = namespace["temp"].__code__
    key = identity_key(code)
    ref = weakref.ref(code)
    del namespace, code
    gc.collect()
    assert ref() is None  # the key did not keep the code alive
    assert type(key) is IdentityKey


def test_methods_of_native_types_found_in_the_type_have_keys_and_names_of_their_own():
    from context.ready.display import callee_name

    assert callee_key(str.replace) is str.replace and callee_key(str.split) is str.split
    assert callee_name(str.replace) == "str.replace" and callee_name(re.Match.group) == "re.Match.group"
    assert callee_name(dict.__dict__["fromkeys"]) == "dict.fromkeys"
    assert callee_name(re.compile("a").match) == "re.Pattern.match"

    def calls_descriptors(s):
        return str.upper(s), str.lower(s), str.upper(s)

    ctx = context.CountCtx()
    context.overdub(ctx, calls_descriptors, "Ab")
    assert ctx.counts == {"str.upper": 2, "str.lower": 1}


class _Recorder:
    """A callable object whose ``__hash__`` and ``__eq__`` record that they ran."""

    ran = []

    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        return x + self.n

    def __hash__(self):
        _Recorder.ran.append("hash")
        return 1

    def __eq__(self, other):
        _Recorder.ran.append("eq")
        return isinstance(other, _Recorder)


def _calls_objects(objs):
    return [o(1) for o in objs]


@pytest.mark.parametrize("make", [
    context.CountCtx, lambda: context.CountCtx(via="monitoring"), lambda: context.CountCtx(via="profile"),
    context.ProfileCtx, lambda: context.TraceCtx(keep=True), lambda: context.TraceCtx(keep=True, include=["*"]),
])
def test_callable_objects_are_keyed_by_identity_without_running_their_hash_or_eq(make):
    objs = [_Recorder(1), _Recorder(2), _Recorder(1)]
    _Recorder.ran.clear()
    ctx = make()
    assert context.overdub(ctx, _calls_objects, objs) == [2, 3, 2]
    assert _Recorder.ran == []  # (they ran for the key: equal objects shared one, a mock recorded calls)


def test_a_mocks_recorded_calls_are_the_programs_under_a_counting_context():
    from unittest import mock

    def run(m):
        m(1)
        m("x")
        return m.mock_calls

    native = run(mock.MagicMock(side_effect=lambda v: v))
    for make in (context.Context, context.CountCtx, context.ProfileCtx, lambda: context.TraceCtx(keep=True)):
        assert context.overdub(make(), run, mock.MagicMock(side_effect=lambda v: v)) == native


class _Proxy:
    """A callable proxy whose ``__getattr__`` records every attribute it is asked for."""

    asked = []

    def __call__(self, x):
        return x

    def __getattr__(self, name):
        _Proxy.asked.append(name)
        raise AttributeError(name)


class _LoudMeta(type):
    def __repr__(cls):
        _Proxy.asked.append("repr")
        return "loud"


class _Loud(metaclass=_LoudMeta):
    pass


def _named(fn):
    class Wrapper:
        def __init__(self):
            functools.update_wrapper(self, fn)

        def __call__(self, x):
            return fn(x)

    return Wrapper()


def _calls_proxies(p, w):
    return p(1), w(2), _Loud()


@pytest.mark.parametrize("make", [
    context.CountCtx, lambda: context.CountCtx(via="monitoring"), context.ProfileCtx, context.PrintCtx,
    lambda: context.TraceCtx(keep=True),
])
def test_naming_a_callee_runs_none_of_its_code(make, capsys):
    w = _named(abs)
    _Proxy.asked.clear()
    ctx = make()
    context.overdub(ctx, _calls_proxies, _Proxy(), w)
    assert _Proxy.asked == []  # (naming read __qualname__ and __name__ through __getattr__)
    if hasattr(ctx, "counts"):
        names = set(ctx.counts)
        assert "abs" in names and __name__ + "._Loud" in names and "<_Proxy object>" in names


def test_pstats_labels_of_classes_are_types_own_reprs():
    from context.ready.counting import pstats_label

    _Proxy.asked.clear()
    assert pstats_label(_Loud) == ("~", 0, "<class '%s._Loud'>" % __name__) and _Proxy.asked == []
