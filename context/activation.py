"""An activation: one context running on one thread, with its per-call entry points.

The entry points (``call``, ``call_ex``, ``callee``, ``enter*``) are closures built for the
context's class: a hook the class does not override is not called at all, and a
class that overrides nothing gets a path that is just a cache lookup and a call.
"""

import sys
import weakref
from contextlib import contextmanager
from functools import partial
from types import FunctionType, MethodType

from . import primitives
from .native import SPECIAL_NATIVES, native_call
from .callbacks import (
    BUILTIN_METHOD_TYPES,
    CALLBACK_ARGUMENTS,
    CALLBACK_METHOD_ARGUMENTS,
    register_numpy_callbacks,
    wrap_callbacks,
)
from .frames import CALLING_FRAME_ONLY
from .resolve import NATIVE_CALLABLE_TYPES, class_verdict, instantiate, is_engine_callable, resolve
from .functions import FunctionCache, new_epoch
from .rewrite import config_for
from .depth import FRAMES_PER_CALL, HOOK_FRAMES, deeper_recursion
from .hooks import HOOK_METHODS, overridden_hooks
from .state import STATE, state_of, switch_to

_function_caches = weakref.WeakValueDictionary()  # RewriteConfig -> FunctionCache
_EMPTY = {}


def _function_cache(config):
    cache = _function_caches.get(config)
    if cache is None:
        cache = _function_caches[config] = FunctionCache(config)
    return cache


def rewritten_function(act, fn):
    """``fn`` with its code rewritten for ``act``'s configuration (cached while ``fn`` lives and is unchanged)."""
    return act.fcache.copy_of(fn, act.fvalues)


_plans = weakref.WeakKeyDictionary()  # class -> (primitives version, config, overridden names, cache)


def _class_plan(cls):
    """The rewrite config, the set of overridden methods and the function cache of a context class."""
    cached = _plans.get(cls)
    if cached is None or cached[0] != primitives.version():
        overridden = overridden_hooks(cls)
        # A prehook must see each call's arguments: its code asks at every call site instead.
        # A context that overrides only ``overdub`` (of the hooks) has ``f(x)`` call
        # ``STATE.run(f, x)``, which is its ``overdub``: see ``_overdub_only``.
        overdub_only = "overdub" in overridden and not overridden & {"prehook", "posthook"}
        config = config_for(cls)._replace(callees_at_load="prehook" not in overridden,
                                          callee_as_argument=overdub_only)
        # the class keeps its function cache alive; classes with equal configs share one
        cached = _plans[cls] = (primitives.version(), config, overridden, _function_cache(config))
    return cached[1], cached[2], cached[3]


class Activation:
    __slots__ = (
        "ctx", "parent", "alive", "config", "fcache", "fvalues", "entry_frame", "frames_per_call", "hook_frames", "state", "tag", "guard",
        "call", "call_ex", "callee", "run", "enter", "enter_kw", "enter_ex", "default_run", "recurse",
    )

    def __init__(self, ctx, parent, entry_frame):
        self.ctx = ctx
        self.parent = parent
        self.alive = True
        self.entry_frame = entry_frame
        cls = type(ctx)
        self.config, overridden, self.fcache = _class_plan(cls)
        if parent is None:
            new_epoch()  # code that ran outside any context may have changed functions
        self.fvalues = self.fcache.values  # the copies checked in this epoch
        self.guard = getattr(cls, "native_guard", None)
        register_numpy_callbacks()
        _build_entries(self, cls, overridden)
        self.state = state_of(self)
        self.tag = getattr(ctx, "_tag", None)
        if self.tag is not None:
            self.tag.started(self)

    def finish(self):
        """The context's run is over: calls seen from now on run natively."""
        self.alive = False
        self.entry_frame = None  # the caller's frame: keeping it would keep its locals alive
        if self.tag is not None:
            self.tag.ended(self)

    def run_primitive(self, impl, args, kwargs):
        """Run a primitive's body; under a nested context it runs under the enclosing one.

        A primitive marked ``native_primitive`` always runs natively: it decides itself
        what runs under the enclosing context.
        """
        parent = self.parent
        if parent is None or not parent.alive or getattr(impl, "native_primitive", False):
            return impl(self.ctx, *args, **kwargs)
        previous = switch_to(parent)
        try:
            return parent.recurse(impl, (self.ctx,) + args, kwargs)
        finally:
            switch_to(previous)


def _build_entries(act, cls, overridden):
    ctx = act.ctx
    fget = act.fvalues.get
    hooks = getattr(ctx, "_hooks_enabled", True)
    pre = ctx.prehook if hooks and "prehook" in overridden else None
    post = ctx.posthook if hooks and "posthook" in overridden else None
    table = primitives.table_for(cls)
    find = primitives.find
    custom_canrecurse = "canrecurse" in overridden
    plain_natives = "fallback" not in overridden and act.guard is None and act.parent is None

    if "fallback" in overridden:
        def fallback(f, args, kwargs):
            return ctx.fallback(f, *args, **kwargs)
    else:
        def fallback(f, args, kwargs):
            return native_call(act, f, args, kwargs)

    def recurse(f, args, kwargs):
        target = resolve(f, args, kwargs)
        if target is None:
            return fallback(f, args, kwargs)
        fn, args, kwargs = target
        if fn is instantiate:
            return instantiate(*args, **kwargs)
        return rewritten_function(act, fn)(*args, **kwargs)

    def default_run(f, args, kwargs):
        if table is not None:
            impl, pargs = find(table, f, args)
            if impl is not None:
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
        elif plain_natives and (kind in NATIVE_CALLABLE_TYPES or kind is type):
            key = id(f)
            if key not in SPECIAL_NATIVES and key not in CALLBACK_ARGUMENTS and not (
                kind in BUILTIN_METHOD_TYPES and (type(f.__self__), f.__name__) in CALLBACK_METHOD_ARGUMENTS
            ) and (kind is not type or class_verdict(f) is None):
                return f(*args, **kwargs)
        return recurse(f, args, kwargs)

    act.default_run = default_run
    act.recurse = recurse

    if "overdub" in overridden:
        ctx_overdub = ctx.overdub

        def run(f, args, kwargs):
            return ctx_overdub(f, *args, **kwargs)
    else:
        run = default_run

    if pre is None and post is None and run is default_run and table is None and not custom_canrecurse:
        # Nothing to observe or replace: a cache lookup and a call.
        def call(f, args):
            rf = fget(id(f))
            if rf is not None:
                return rf(*args)
            return recurse(f, args, _EMPTY)

        def call_ex(f, args, kwargs):
            if type(args) is not tuple:
                args = tuple(args)
            rf = fget(id(f))
            if rf is not None:
                return rf(*args, **kwargs)
            return recurse(f, args, kwargs)
    else:
        def call(f, args):
            if pre is not None:
                pre(f, *args)
            out = run(f, args, _EMPTY)
            if post is not None:
                post(out, f, *args)
            return out

        def call_ex(f, args, kwargs):
            if type(args) is not tuple:
                args = tuple(args)
            if pre is not None:
                pre(f, *args, **kwargs)
            out = run(f, args, kwargs)
            if post is not None:
                post(out, f, *args, **kwargs)
            return out

    act.call = call
    act.call_ex = call_ex

    def run_call(f, /, *args, **kwargs):  # ``STATE.run``; overdub-only contexts have their own
        return call_ex(f, args, kwargs)

    act.run = run_call

    fast = (
        post is None and run is default_run and not custom_canrecurse
        and "fallback" not in overridden and act.parent is None
    )
    act.frames_per_call = 1 if fast else FRAMES_PER_CALL  # engine frames between user frames, plus one
    act.hook_frames = HOOK_FRAMES if pre is not None or post is not None else 0
    if fast:
        _build_direct_entries(act, pre, fget, table)
    elif pre is None and post is None and run is not default_run:
        _overdub_only(act, ctx_overdub)
    else:
        def enter(f, args):
            return MethodType(_call_star, (call, f))

        def callee(f):
            return MethodType(_call_through, (act, f))

        act.callee = callee

        def enter_ex(f, args, kwargs):
            return _EMPTY, call_ex, (f, args, kwargs)

        act.enter, act.enter_ex = enter, enter_ex
    act.enter_kw = _enter_kw(act.enter_ex)


def _overdub_only(act, ctx_overdub):
    """Entries for a context that overrides only ``overdub``: call sites call it directly.

    Code rewritten for such a context calls ``STATE.run(f, *args)``, that is the context's
    ``overdub``, wherever the stack analysis allows; other call sites ask ``callee``,
    ``enter`` or ``enter_ex``. No check that the context is still running is needed: a
    callee is handled where it is loaded only when no suspension (a yield or an await)
    lies between the load and the call, so the call happens while the context that
    answered is still current.
    """

    act.run = ctx_overdub
    callee = partial(partial, ctx_overdub)  # callee(f) is partial(ctx_overdub, f), made without a Python frame

    def enter(f, args):
        return partial(ctx_overdub, f)

    def enter_ex(f, args, kwargs):
        if type(args) is not tuple:
            args = tuple(args)
        return kwargs, ctx_overdub, (f,) + args

    act.callee, act.enter, act.enter_ex = callee, enter, enter_ex


def _enter_kw(enter_ex):
    def enter_kw(f, args, names):
        if names is None:  # 3.13 CALL_KW: the names tuple is the last item
            names = args[-1]
            args = args[:-1]
        n = len(names)
        return enter_ex(f, args[:-n], dict(zip(names, args[-n:])))

    return enter_kw


# Natives that do the right thing when called straight from the user's frame: they act on
# that frame only. (Those that walk further up, such as ``sys._getframe(1)``, would reach
# the engine's frames above the outermost rewritten one; they go through their handlers.)
_FRAME_NATIVES = frozenset(id(f) for f in CALLING_FRAME_ONLY)


def _build_direct_entries(act, pre, fget, table):
    """Entries that hand rewritten code the callee itself: no engine frame between user frames."""
    guard = act.guard

    def native(f, args, kwargs):
        key = id(f)
        if key in SPECIAL_NATIVES and key not in _FRAME_NATIVES:
            return _run_special, (SPECIAL_NATIVES[key], act, f, args, kwargs), _EMPTY
        args, kwargs = wrap_callbacks(act, f, args, kwargs)
        if guard is not None and not guard.passes(f) and not is_engine_callable(f):
            return guard.call, (f, args, kwargs), _EMPTY
        return f, args, kwargs

    def prepare(f, args, kwargs):
        kind = type(f)
        if kind in NATIVE_CALLABLE_TYPES:
            return native(f, args, kwargs)
        if kind is MethodType:
            rf = fget(id(f.__func__))
            if rf is not None:
                return rf, (f.__self__,) + args, kwargs
        target = resolve(f, args, kwargs)
        if target is None:
            return native(f, args, kwargs)
        fn, args, kwargs = target
        if fn is instantiate:
            return fn, args, kwargs
        return rewritten_function(act, fn), args, kwargs

    special_ids = SPECIAL_NATIVES
    callback_ids = CALLBACK_ARGUMENTS

    def known(f):
        """What to call for ``f`` when its arguments need no preparing (after a cache miss), or None."""
        kind = type(f)
        if kind is MethodType:
            rf = fget(id(f.__func__))
            if rf is not None:
                return MethodType(rf, f.__self__)
        elif kind in NATIVE_CALLABLE_TYPES or kind is type:
            key = id(f)
            if key in _FRAME_NATIVES:
                return f  # called from the user's frame, it acts on that frame
            if key not in special_ids and key not in callback_ids and not (
                kind in BUILTIN_METHOD_TYPES and (type(f.__self__), f.__name__) in CALLBACK_METHOD_ARGUMENTS
            ):
                verdict = class_verdict(f) if kind is type else None
                if verdict is not None:
                    return MethodType(verdict, f)
                if guard is None or guard.passes(f):
                    return f  # a plain native: call it as it is
                return MethodType(_guarded_native, (guard, f))
        return None

    has_primitives = table is not None
    primitive_ids = table if has_primitives else _EMPTY

    def primitive_for(f):
        return id(f) in primitive_ids or (type(f) is MethodType and id(f.__func__) in primitive_ids)

    def run_primitive_or(f, args, kwargs):
        """What to call for ``f(*args, **kwargs)`` when ``f`` has primitives: one that matches, else ``f``."""
        impl, pargs = primitives.find(table, f, args)
        if impl is not None:
            return _run_found, (act, impl, pargs, kwargs), _EMPTY
        return prepare(f, args, kwargs)

    def enter_unhooked(f, args):
        if has_primitives and primitive_for(f):
            g, prepared, kwargs = run_primitive_or(f, args, _EMPTY)
            return MethodType(_call_prepared, (g, prepared, kwargs))
        g = fget(id(f)) or known(f)
        if g is not None:
            return g
        g, prepared, kwargs = prepare(f, args, _EMPTY)
        if not kwargs:
            if prepared is args:
                return g
            if len(prepared) == len(args) + 1 and all(a is b for a, b in zip(prepared[1:], args)):
                return MethodType(g, prepared[0])  # a bound method, a callable object, a class
        return MethodType(_call_prepared, (g, prepared, kwargs))

    def enter_hooked(f, args):
        pre(f, *args)
        return enter_unhooked(f, args)

    def enter_ex(f, args, kwargs):
        if type(args) is not tuple:
            args = tuple(args)
        if pre is not None:
            pre(f, *args, **kwargs)
        if has_primitives and primitive_for(f):
            g, args, kwargs = run_primitive_or(f, args, kwargs)
            return kwargs, g, args
        rf = fget(id(f))
        if rf is not None:
            return kwargs, rf, args
        g, args, kwargs = prepare(f, args, kwargs)
        return kwargs, g, args

    act.enter = enter_unhooked if pre is None else enter_hooked
    act.enter_ex = enter_ex

    def callee_unhooked(f):
        if has_primitives and primitive_for(f):
            return MethodType(_prepare_then_call, (run_primitive_or, f))
        g = fget(id(f)) or known(f)
        if g is not None:
            return g
        target = resolve(f, (), _EMPTY)
        if target is None:
            key = id(f)
            if key not in special_ids and key not in callback_ids and (guard is None or guard.passes(f)):
                return f  # a native callable object (an lru_cache wrapper, say): called from the user's frame
            return MethodType(_prepare_then_call, (prepare, f))
        fn, bound, kwargs = target
        if fn is not instantiate:
            fn = rewritten_function(act, fn)
        if kwargs or len(bound) > 1:
            return partial(fn, *bound, **kwargs)
        return MethodType(fn, bound[0]) if bound else fn

    def callee_hooked(f):
        return MethodType(_call_through, (act, f))

    act.callee = callee_unhooked if pre is None else callee_hooked


def _run_special(handler, act, f, args, kwargs):
    return handler(act, f, args, kwargs)


def _run_found(act, impl, args, kwargs):
    return act.run_primitive(impl, args, kwargs)


def _guarded_native(bound, /, *args, **kwargs):
    """A native called under a context that checks what natives receive (see ``native_guard``)."""
    guard, f = bound
    return guard.call(f, args, kwargs)


def _call_prepared(prepared, *ignored):
    """Call ``g(*args, **kwargs)`` prepared by an entry (the call site's own arguments were replaced)."""
    g, args, kwargs = prepared
    return g(*args, **kwargs)


def _call_through(bound, /, *args, **kwargs):
    """A call site's callee under a context that observes calls. The context is still running:
    no callee is swapped where it is loaded if a yield or await comes before its call."""
    act, f = bound
    return act.call_ex(f, args, kwargs)


def _prepare_then_call(bound, /, *args, **kwargs):
    """A native that needs its arguments prepared (callbacks wrapped, frame-sensitive help)."""
    prepare, f = bound
    g, args, kwargs = prepare(f, args, kwargs)
    return g(*args, **kwargs)


def _call_star(bound, *args):
    """``call(f, args)`` for a call site of a context whose entries do the call themselves."""
    call, f = bound
    return call(f, args)


# --- entering a context ------------------------------------------------------------

def find_activation(ctx):
    """The live activation of ``ctx`` on this thread's dynamic chain, or None."""
    act = STATE.act
    while act is not None:
        if act.ctx is ctx:
            return act
        act = act.parent
    return None


def new_activation(ctx, entry_frame):
    """An activation for ``ctx``: a child of the current one, or a sibling of the context it was derived from."""
    origin = getattr(ctx, "_similar_to", None)
    while origin is not None:
        origin_act = find_activation(origin)
        if origin_act is not None:
            return Activation(ctx, origin_act.parent, origin_act.entry_frame)
        origin = getattr(origin, "_similar_to", None)
    return Activation(ctx, STATE.act, entry_frame)


@contextmanager
def entered(ctx):
    """Make ``ctx``'s activation current for the duration (creating it if needed)."""
    act = STATE.act
    if act is not None and act.ctx is ctx:
        yield act
        return
    created = False
    target = find_activation(ctx)
    if target is None:
        target = new_activation(ctx, sys._getframe(2))
        created = True
    previous = STATE.act
    try:
        switch_to(target)
        with deeper_recursion(target):
            yield target
    finally:
        switch_to(previous)
        if created:
            target.finish()
