"""Code that walks the stack sees the user's frames, also under contexts that run Python
frames of their own around each call (an ``overdub`` method, hooks).

``frame.f_back`` read in rewritten code, ``sys._getframe(depth)`` and
``warnings.warn(stacklevel=...)`` skip the engine's frames and the contexts' methods;
tracebacks leave out the frames the contexts' methods pass through.
"""

import io
import logging
import os
import sys
import traceback
import warnings

import pytest

import context
from context._support import WARN_SKIP_FILE_PREFIXES


class Wraps(context.Context):
    def overdub(self, f, /, *args, **kwargs):
        return context.Context.overdub(self, f, *args, **kwargs)


class Posts(context.Context):
    def posthook(self, out, f, /, *args, **kwargs):
        pass


CONTEXTS = [Wraps, Posts, context.TraceCtx, context.Context]
IDS = ["overdub only", "posthook", "TraceCtx", "empty"]


def under(kind, fn, *args):
    return context.overdub(kind(), fn, *args)


def chain_names(depth):
    frame, names = sys._getframe(), []
    for _ in range(depth):
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return names


def middle():
    return chain_names(3)


def outer():
    return middle()


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_f_back_walks_the_users_frames(kind):
    assert under(kind, outer) == ["chain_names", "middle", "outer"] == outer()


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_f_back_reaches_the_frames_that_called_overdub(kind):
    def runs_it():
        return under(kind, chain_names, 3)

    assert runs_it() == ["chain_names", "under", "runs_it"]


def callers_name():
    return sys._getframe(1).f_code.co_name


def warns_at_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("careful", stacklevel=2)
    return [(w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_walks_above_the_top_function_reach_the_caller_of_overdub(kind):
    def calls_overdub():
        return under(kind, callers_name), under(kind, warns_at_callers_line)

    name, where = calls_overdub()
    assert name == "under"
    assert where == [(__file__, under.__code__.co_firstlineno + 1)]


def warns(level, **extra):
    warnings.warn("careful", DeprecationWarning, stacklevel=level, **extra)


def calls_warns(level, **extra):
    warns(level, **extra)  # the line stacklevel=2 points at


def where_warned(level, **extra):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls_warns(level, **extra)
    return [(str(w.message), w.category.__name__, w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_warnings_stacklevel_counts_the_users_frames(kind, level):
    assert under(kind, where_warned, level) == where_warned(level)


@pytest.mark.skipif(not WARN_SKIP_FILE_PREFIXES, reason="skip_file_prefixes is new in 3.12")
@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
@pytest.mark.parametrize("prefix", [os.path.dirname(__file__), __file__], ids=["folder", "whole name"])
def test_warnings_skip_file_prefixes(kind, prefix):
    skipping = lambda: where_warned(1, skip_file_prefixes=(prefix,))  # noqa: E731
    assert under(kind, skipping) == skipping()


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_warnings_errors_are_the_natives(kind):
    def bad_category():
        warnings.warn("x", int)

    with pytest.raises(TypeError) as native:
        bad_category()
    with pytest.raises(TypeError) as dubbed:
        under(kind, bad_category)
    assert str(dubbed.value) == str(native.value)


def logs():
    stream = io.StringIO()
    logger = logging.getLogger("pycassette.tests.stack_walks")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(funcName)s:%(lineno)d %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("hello")
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_logging_names_the_users_function(kind):
    assert under(kind, logs) == logs()


def fails():
    raise KeyError("missing")


def catches():
    try:
        fails()
    except KeyError as exc:
        return [fs.name for fs in traceback.extract_tb(exc.__traceback__)]


@pytest.mark.parametrize("kind", CONTEXTS, ids=IDS)
def test_tracebacks_leave_out_the_contexts_methods(kind):
    assert under(kind, catches) == catches() == ["catches", "fails"]


class Broken(context.Context):
    def overdub(self, f, /, *args, **kwargs):
        if getattr(f, "__name__", None) == "fails":
            raise RuntimeError("the context's own bug")
        return context.Context.overdub(self, f, *args, **kwargs)


def test_an_error_raised_in_a_contexts_method_keeps_its_frame():
    def run():
        try:
            fails()
        except RuntimeError as exc:
            return [fs.name for fs in traceback.extract_tb(exc.__traceback__)]

    assert context.overdub(Broken(), run) == ["run", "overdub"]
