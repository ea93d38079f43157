"""Trace and profile functions the program installs under a context see what they see natively:
the program's frames and calls, none of the engine's (``context/tracehooks.py``)."""

import io
import pstats
import sys

import pytest

import context
from context import Context, overdub
from tests.helpers import OverdubOnly, Post, Pre


def _tagging():
    from context.tagging import TaggingContext, enabletagging

    return enabletagging(TaggingContext(), _tagging)


CONTEXTS = [Context, Pre, Post, OverdubOnly, context.CountCtx, context.TraceCtx, _tagging]


class Box:
    def __init__(self, v):
        self.v = v

    @property
    def double(self):
        return self.v * 2


def numbers(n):
    for i in range(n):
        yield i * i


def work(x):
    b = Box(x)
    setattr(b, "w", b.double)
    total = sum(numbers(3)) + max([x, 1], key=abs) + len(locals())
    try:
        int("nope")
    except ValueError:
        total += 1
    exec("y = 2")
    return total + eval("x + 1")


def _name(arg):
    return getattr(arg, "__qualname__", getattr(arg, "__name__", None))


def profiled():
    events = []

    def hook(frame, event, arg):
        events.append((event, frame.f_code.co_name, frame.f_lineno,
                       _name(arg) if event.startswith("c_") else None))

    sys.setprofile(hook)
    same = sys.getprofile() is hook
    work(3)
    sys.setprofile(None)
    return same, events


def traced():
    events = []

    def local(frame, event, arg):
        events.append((event, frame.f_code.co_name, frame.f_lineno))
        return local

    def hook(frame, event, arg):
        events.append(("global " + event, frame.f_code.co_name, frame.f_lineno))
        return local

    sys.settrace(hook)
    same = sys.gettrace() is hook
    work(3)
    sys.settrace(None)
    return same, events


@pytest.mark.parametrize("make", CONTEXTS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("program", [profiled, traced])
def test_the_programs_hooks_see_what_they_see_natively(program, make):
    # test_sys_setprofile and test_sys_settrace (51 and 408 tests) saw the engine's own
    # frames: the entries that route calls, the rewriter at a first call
    native = program()
    assert native[0] is True and len(native[1]) > 20
    assert overdub(make(), program) == native


def _profile_stats():
    import profile

    prof = profile.Profile()
    prof.runctx("work(2)", globals(), {})  # exec'd code: its frame's caller is the engine's
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    return sorted((func[2], calls[1]) for func, calls in stats.stats.items())


def test_the_profile_module_profiles_under_a_context():
    # its dispatcher compares frame.f_back with the frames it saw called: it asserted "Bad call"
    native = _profile_stats()
    assert ("work", 1) in native and ("max", 1) in native
    for make in CONTEXTS:
        assert overdub(make(), _profile_stats) == native, make.__name__


def test_hooks_left_installed_keep_hiding_the_engine():
    events = []

    def run():
        sys.setprofile(lambda frame, event, arg: events.append(frame.f_code.co_filename))

    overdub(Context(), run)
    overdub(Context(), work, 1)  # the engine's frames again, the program's hook still set
    sys.setprofile(None)
    assert events and not any("/context/" in f for f in events)
