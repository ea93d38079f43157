"""The direct strategy: call sites get the callee itself, with no engine frame between user frames.

For an outermost context that at most has a prehook and primitives (no posthook, no
``overdub``, ``canrecurse`` or ``fallback`` of its own). Which emitted call form reaches what:

* ``STATE.enter(f, args)`` returns what the call site calls with its own arguments: the
  rewritten copy of ``f``, a bound method of it, a plain native, ``call_primitive`` bound
  to ``f`` when ``f`` has primitives, or, when the arguments must change (callbacks
  wrapped, a frame-sensitive native), a bound ``_call_prepared`` that ignores the call
  site's arguments;
* ``STATE.enter_kw``/``enter_ex`` return ``(kwargs, g, args)`` for the call site to call
  ``g(*args, **kwargs)``;
* ``STATE.callee(f)`` (a callee swapped where it is loaded, before its arguments exist)
  returns what to call with them. Code rewritten for a context with a prehook never
  swaps callees at their load: the prehook must see each call's arguments.

Each call adds one Python frame to the stack, as natively (``frames_per_call`` is 1).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from functools import partial
from sys import getprofile as _getprofile
from types import FunctionType, MethodType, ModuleType

from .. import primitives
from .. import resolve as resolution
from ..callbacks import wrap_callbacks
from ..native import SPECIAL_NATIVES
from ..tracehooks import apply as _apply, reported_call, run_special
from ..resolve import NATIVE_CALLABLE_TYPES, class_verdict, instantiate, is_engine_callable, resolve
from .observing import _call_through
from ..callbacks import CALLBACK_ARGUMENTS, LASTING_PLAIN_NATIVES, METHOD_OWNER_NAMES
from .kinds import (BOUND_NATIVE_TYPES, CLASS, FRAME, LASTING_KINDS, PLAIN, SPECIAL, native_kind, plain_bound_native,
                    remember_plain)
from .running import rewritten_function

_EMPTY = {}
# (module globals rather than cells of the closures: an activation makes fewer cells)
_lasting = LASTING_PLAIN_NATIVES.get
_owner_names = METHOD_OWNER_NAMES.values.get  # (the dict is emptied in place, never replaced)


def build_direct(act, pre):
    """Set ``act``'s call-site entry points for the direct strategy; ``pre`` is the prehook or None."""
    guard = act.guard
    fget = act.fvalues.get
    copy_of = act.fcache.copy_of
    # plain natives already seen, called as they are (a guard checks each call instead)
    lasting = LASTING_PLAIN_NATIVES.get if guard is None else _EMPTY.get
    table = primitives.table_for(type(act.ctx))

    def native(f, args, kwargs):
        if native_kind(f) is SPECIAL:
            return run_special, (SPECIAL_NATIVES[id(f)], act, f, args, kwargs), _EMPTY
        args, kwargs = wrap_callbacks(act, f, args, kwargs)
        if guard is not None and not guard.passes(f) and not is_engine_callable(f):
            return guard.call, (f, args, kwargs), _EMPTY
        return f, args, kwargs

    def prepare(f, args, kwargs):
        """``(g, args, kwargs)``: what to call for ``f(*args, **kwargs)``, whatever ``f`` is."""
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

    def known(f):
        """What to call for ``f`` when its arguments need no preparing (after a cache miss), or None."""
        kind = type(f)
        if kind is MethodType:
            rf = fget(id(f.__func__))
            if rf is not None:
                return MethodType(rf, f.__self__)
        elif kind in NATIVE_CALLABLE_TYPES or kind is type:
            verdict = native_kind(f)
            if verdict is FRAME:
                return f  # called from the user's frame, it acts on that frame
            if verdict is CLASS:  # (the verdict lasts as long as the class: found at its id next time)
                g = MethodType(class_verdict(f), f)
                act.fcache.remember_class(f, g)
                return g
            if verdict is PLAIN:
                if guard is None:
                    if kind in LASTING_KINDS and not remember_plain(f) and kind is type:  # (kept: found in ``lasting``)
                        act.fcache.remember_class(f, f)  # a class made at run time: found at its id this epoch
                    return f  # a plain native: call it as it is
                if guard.passes(f):
                    return f
                return MethodType(_guarded_native, (guard, f))
        return None

    has_primitives = table is not None
    primitive_ids = table if has_primitives else _EMPTY

    def primitive_for(f):
        kind = type(f)
        return id(f) in primitive_ids or (kind is MethodType and id(f.__func__) in primitive_ids) or \
            (kind is partial and primitives.has_partial_primitives(primitive_ids, f))

    ctx = act.ctx
    find = primitives.find

    def call_primitive(f, /, *args, **kwargs):
        """``f(*args, **kwargs)`` for an ``f`` with primitives: the one that matches, run as
        ``run_primitive`` runs it, in one frame; else ``f`` as ``prepare`` says."""
        if type(f) is partial:
            f, args, kwargs = primitives.through_partial(table, f, args, kwargs)
        entries = table.get(id(f))
        if entries is not None and entries[0][0] is None:  # (``find``'s commonest answer, without its frame)
            impl, pargs = entries[0][1], args
        else:
            impl, pargs = find(table, f, args)
        if impl is None:
            g, args, kwargs = prepare(f, args, kwargs)
            return g(*args, **kwargs)
        if getattr(impl, "native_primitive", False):
            return impl(ctx, *pargs, **kwargs)
        return act.run_primitive(impl, pargs, kwargs)

    def enter_unhooked(f, args):
        if has_primitives and primitive_for(f):
            return MethodType(call_primitive, f)
        key = id(f)
        g = fget(key) or lasting(key)
        if g is not None:
            return g
        kind = type(f)
        if kind is MethodType:  # (``known``'s answer for a method of a cached function, without its frame)
            g = fget(id(f.__func__))
            if g is not None:
                return MethodType(g, f.__self__)
        elif kind in BOUND_NATIVE_TYPES and guard is None:
            owner = type(f.__self__)
            names = _owner_names(id(owner)) if owner is not ModuleType else None
            if names is not None:  # (``plain_bound_native``'s answer for an owner it remembers, without its frame)
                if not names or f.__name__ not in names:
                    return f
            elif plain_bound_native(f):
                return f
        g = known(f)
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
            return kwargs, MethodType(call_primitive, f), args
        rf = fget(id(f))
        if rf is not None:
            return kwargs, rf, args
        g, args, kwargs = prepare(f, args, kwargs)
        return kwargs, g, args

    def callee_full(f):
        key = id(f)
        kind = type(f)
        if has_primitives and (key in primitive_ids or (kind is MethodType and id(f.__func__) in primitive_ids) or (
                kind is partial and primitives.has_partial_primitives(primitive_ids, f))):  # (``primitive_for``)
            return MethodType(call_primitive, f)
        g = fget(key) or lasting(key)
        if g is not None:
            return g
        if kind is FunctionType:
            if not f.__code__.co_filename.startswith(resolution.ENGINE_PREFIXES):
                return copy_of(f)  # (``resolve``'s commonest answer, without the frames of ``known`` and ``resolve``)
            if key not in SPECIAL_NATIVES and key not in CALLBACK_ARGUMENTS:
                return f  # the engine's own function: called as it is, as ``prepare`` would say after a guard's look
        if kind in BOUND_NATIVE_TYPES and guard is None and plain_bound_native(f):
            return f
        g = known(f)
        if g is not None:
            return g
        target = resolve(f, (), _EMPTY)
        if target is None:
            if native_kind(f) is PLAIN and (guard is None or guard.passes(f)):
                return f  # a native callable object (an lru_cache wrapper, say): called from the user's frame
            return MethodType(_prepare_then_call, (prepare, f))
        fn, bound, kwargs = target
        if fn is not instantiate:
            fn = rewritten_function(act, fn)
        if kwargs or len(bound) > 1:
            return partial(fn, *bound, **kwargs)
        return MethodType(fn, bound[0]) if bound else fn

    if has_primitives or guard is not None:
        callee = callee_full
    else:
        def callee(f):
            """What a call site calls for ``f``, loaded before its arguments (the commonest request):
            ``callee_full``'s answer for what the caches hold, a method of a function they hold
            (``obj.m``) and a bound native of a type known plain (``xs.append``).

            Small on purpose: CPython copies a closure's cells into each call's frame and clears
            them after, so this path names only what it reads. A bound native (half the
            callees of real code) is made at each access and never cached: plain when its
            owner type's remembered names allow (see ``plain_bound_native``); a function of a
            module (``len``) or of a class has an owner never named, and is found in
            ``LASTING_PLAIN_NATIVES``."""
            key = id(f)
            g = fget(key)
            if g is not None:
                return g
            kind = type(f)
            if kind in BOUND_NATIVE_TYPES:
                owner = type(f.__self__)
                if owner is not ModuleType:
                    names = _owner_names(id(owner))
                    if names is not None and (not names or f.__name__ not in names):
                        return f
                g = _lasting(key)
                if g is not None:
                    return g
                return callee_full(f)
            g = _lasting(key)
            if g is not None:
                return g
            if kind is MethodType:
                g = fget(id(f.__func__))
                if g is not None:
                    return MethodType(g, f.__self__)
            return callee_full(f)

    act.enter = enter_unhooked if pre is None else enter_hooked
    act.enter_ex = enter_ex
    if pre is None:
        act.callee = callee
    else:  # code rewritten for this context has none; code rewritten for another may
        def callee_hooked(f):
            return MethodType(_call_through, (act, f))

        act.callee = callee_hooked
    act.frames_per_call = 1


def _guarded_native(bound, /, *args, **kwargs):
    """A native called under a context that checks what natives receive (see ``native_guard``)."""
    guard, f = bound
    try:
        if _getprofile() is not None:  # (told to the program's profiler as natively)
            return reported_call(f, guard.call, f, args, kwargs)
        return guard.call(f, args, kwargs)
    finally:
        bound = f = args = kwargs = None  # (a frame a traceback keeps holds nothing: design.md)


def _call_prepared(prepared, *ignored):
    """Call ``g(*args, **kwargs)`` prepared by an entry (the call site's own arguments were replaced)."""
    g, args, kwargs = prepared
    try:
        if _getprofile() is not None:  # (a native called from here is told to the program's profiler)
            return reported_call(g, _apply, g, args, kwargs)
        return g(*args, **kwargs)
    finally:
        prepared = g = args = kwargs = None  # (a frame a traceback keeps holds nothing: design.md)


def _prepare_then_call(bound, /, *args, **kwargs):
    """A native that needs its arguments prepared (callbacks wrapped, frame-sensitive help)."""
    try:
        prepare, f = bound
        g, args, kwargs = prepare(f, args, kwargs)
        if _getprofile() is not None and g is not run_special:  # (told to the program's profiler: the native
            return reported_call(f, _apply, g, args, kwargs)     # itself, or through a guard; a handler tells)
        return g(*args, **kwargs)
    finally:
        bound = f = g = args = kwargs = None  # (a frame a traceback keeps holds nothing: design.md)
