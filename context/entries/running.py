"""Running one call under an activation, whichever strategy its call sites use.

``act.default_run(f, args, kwargs)`` is what ``Context.overdub`` does: a matching
primitive runs; else, if the context recurses into ``f``, ``f``'s code rewritten for
the context runs; else ``f`` runs natively through the context's ``fallback``.
``act.recurse(f, args, kwargs)`` is the middle step alone.

``act.call(f, args)`` and ``act.call_ex(f, args, kwargs)`` run a call as the context
sees it: prehook, the context's ``overdub`` (or ``default_run``), posthook. A hook the
class does not override is not called at all; a context with nothing to observe or
replace gets a ``call`` that is just a cache lookup and a call, and one with primitives
but no hooks gets ``default_run`` itself as ``call_ex``. ``act.run(f, *args,
**kwargs)`` is ``call_ex`` with the arguments spread.

A function's first call in a run (its cached copy is checked once per run, see
``functions.py``) goes straight to ``copy_of`` when it is a plain Python function
outside the engine, ``resolve``'s commonest answer.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from functools import partial
from sys import getprofile as _getprofile
from types import FunctionType, MethodType

from .. import primitives
from .. import resolve as resolution
from ..frames import call_with_user_globals, makes_a_class
from ..native import native_call
from ..resolve import NATIVE_CALLABLE_TYPES, instantiate, resolve
from ..tracehooks import apply as _apply, reported_call
from .kinds import PLAIN, native_kind

_EMPTY = {}


def rewritten_function(act, fn):
    """``fn`` with its code rewritten for ``act``'s configuration (cached while ``fn`` lives and is unchanged)."""
    return act.fcache.copy_of(fn)


def build_running(act, overridden):
    """Set ``act.default_run``, ``act.recurse``, ``act.call``, ``act.call_ex`` and ``act.run``."""
    ctx = act.ctx
    fget = act.fvalues.get
    table = primitives.table_for(type(ctx))
    find = primitives.find
    through_partial = primitives.through_partial
    copy_of = act.fcache.copy_of
    custom_canrecurse = "canrecurse" in overridden
    # natives may be called from here directly: nothing checks or redirects them
    plain_natives = "fallback" not in overridden and act.guard is None and act.parent is None

    # Each function here clears its arguments as it ends: a frame that called a native, or
    # code that raised, is kept by a traceback (a frame's ``f_back``), and must not keep the
    # program's objects alive (see design.md, "Engine frames hold nothing once they end").
    if "fallback" in overridden:
        def fallback(f, args, kwargs):
            try:
                return ctx.fallback(f, *args, **kwargs)
            finally:
                f = args = kwargs = None
    else:
        def fallback(f, args, kwargs):
            try:
                return native_call(act, f, args, kwargs)
            finally:
                f = args = kwargs = None

    def recurse(f, args, kwargs):
        try:
            if type(f) is FunctionType and not f.__code__.co_filename.startswith(resolution.ENGINE_PREFIXES):
                return copy_of(f)(*args, **kwargs)  # (``resolve``'s commonest answer, without its frames)
            target = resolve(f, args, kwargs)
            if target is None:
                return fallback(f, args, kwargs)
            fn, args, kwargs = target
            if fn is instantiate:
                return instantiate(*args, **kwargs)
            return copy_of(fn)(*args, **kwargs)
        finally:
            f = args = kwargs = target = fn = None

    def default_run(f, args, kwargs):
        try:
            if type(args) is not tuple:  # (``f(*xs)`` with a list: ``call_ex`` may be this function)
                args = tuple(args)
            if table is not None:
                if type(f) is partial:
                    f, args, kwargs = through_partial(table, f, args, kwargs)
                entries = table.get(id(f))
                if entries is not None and entries[0][0] is None:  # (``find``'s commonest answer, without its frame)
                    impl, pargs = entries[0][1], args
                else:
                    impl, pargs = find(table, f, args)
                if impl is not None:
                    if getattr(impl, "native_primitive", False):  # (``run_primitive``'s first case, without its frame)
                        return impl(ctx, *pargs, **kwargs)
                    return act.run_primitive(impl, pargs, kwargs)
            if custom_canrecurse:
                if ctx.canrecurse(f, *args, **kwargs):
                    return recurse(f, args, kwargs)
                return fallback(f, args, kwargs)
            rf = fget(id(f))
            if rf is not None:
                return rf(*args, **kwargs)
            kind = type(f)
            if kind is MethodType:
                rf = fget(id(f.__func__))
                if rf is not None:
                    return rf(f.__self__, *args, **kwargs)
            elif plain_natives and (kind in NATIVE_CALLABLE_TYPES or kind is type) and native_kind(f) is PLAIN:
                if len(args) >= 3 and makes_a_class(f, args):  # its __module__ is its caller's
                    return call_with_user_globals(f, args, kwargs)
                if _getprofile() is not None:  # (called from here: told to the program's profiler as natively)
                    return reported_call(f, _apply, f, args, kwargs)
                return f(*args, **kwargs)
            elif kind is FunctionType and not f.__code__.co_filename.startswith(resolution.ENGINE_PREFIXES):
                return copy_of(f)(*args, **kwargs)  # (``recurse``'s first case, without its frame)
            return recurse(f, args, kwargs)
        finally:
            f = args = kwargs = pargs = rf = None

    act.default_run = default_run
    act.recurse = recurse
    _build_calls(act, overridden, table is None and not custom_canrecurse)


def _build_calls(act, overridden, nothing_replaced):
    ctx = act.ctx
    hooks = getattr(ctx, "_hooks_enabled", True)
    pre = ctx.prehook if hooks and "prehook" in overridden else None
    post = ctx.posthook if hooks and "posthook" in overridden else None
    fget = act.fvalues.get
    recurse = act.recurse
    if "overdub" in overridden:
        ctx_overdub = ctx.overdub

        def run(f, args, kwargs):
            try:
                return ctx_overdub(f, *args, **kwargs)
            finally:
                f = args = kwargs = None
    else:
        run = act.default_run

    if pre is None and post is None and run is act.default_run and nothing_replaced:
        # Nothing to observe or replace: a cache lookup and a call.
        def call(f, args):
            try:
                rf = fget(id(f))
                if rf is not None:
                    return rf(*args)
                return recurse(f, args, _EMPTY)
            finally:
                f = args = rf = None

        def call_ex(f, args, kwargs):
            try:
                if type(args) is not tuple:
                    args = tuple(args)
                rf = fget(id(f))
                if rf is not None:
                    return rf(*args, **kwargs)
                return recurse(f, args, kwargs)
            finally:
                f = args = kwargs = rf = None
    elif pre is None and post is None and run is act.default_run:
        # Nothing to observe, primitives to find: ``default_run`` itself (it takes any sequence of arguments).
        def call(f, args):
            try:
                return run(f, args, _EMPTY)
            finally:
                f = args = None

        call_ex = run
    else:
        def call(f, args):
            try:
                if pre is not None:
                    pre(f, *args)
                out = run(f, args, _EMPTY)
                if post is not None:
                    post(out, f, *args)
                return out
            finally:
                f = args = out = None

        def call_ex(f, args, kwargs):
            try:
                if type(args) is not tuple:
                    args = tuple(args)
                if pre is not None:
                    pre(f, *args, **kwargs)
                out = run(f, args, kwargs)
                if post is not None:
                    post(out, f, *args, **kwargs)
                return out
            finally:
                f = args = kwargs = out = None

    def run_call(f, /, *args, **kwargs):
        try:
            return call_ex(f, args, kwargs)
        finally:
            f = args = kwargs = None

    act.call, act.call_ex, act.run = call, call_ex, run_call
