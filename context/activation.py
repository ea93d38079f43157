"""An activation: one context running on one thread, and entering it.

Its per-call entry points (``call``, ``call_ex``, ``callee``, ``enter*``, ``run``) are
closures built for the context's class by ``context.entries``: a hook the class does
not override is not called at all, and a class that overrides nothing gets a path that
is just a cache lookup and a call.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
import weakref
from contextlib import contextmanager

from . import primitives
from .callbacks import register_numpy_callbacks
from .depth import deeper_recursion, lower_for, raise_for
from .entries import build_entries
from .functions import FunctionCache, drop_cyclic_entries, new_epoch
from .hooks import overridden_hooks
from .rewrite import config_for
from .state import NATIVE_ENTRIES, NATIVE_STATE, STATE, call_under, native_call_ex, state_of, switch_to

_function_caches = weakref.WeakValueDictionary()  # RewriteConfig -> FunctionCache


def _function_cache(config):
    cache = _function_caches.get(config)
    if cache is None:
        cache = _function_caches[config] = FunctionCache(config)
    return cache


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
        self.fvalues = self.fcache.values  # the copies checked in this epoch (one dict, emptied by new epochs)
        self.guard = getattr(cls, "native_guard", None)
        register_numpy_callbacks()
        build_entries(self, overridden)
        self.state = state_of(self)
        self.tag = getattr(ctx, "_tag", None)
        if self.tag is not None:
            self.tag.started(self)

    def finish(self):
        """The context's run is over: calls seen from now on run natively.

        Its entry points become the native ones: the closures built for it refer to it, and
        dropping them breaks that cycle, so the activation is freed when its run ends rather
        than by the cyclic garbage collector (some 70 objects an ``overdub``, which made
        collections a tenth of the cost of a short derivative).
        """
        self.alive = False
        self.entry_frame = None  # the caller's frame: keeping it would keep its locals alive
        if self.tag is not None:
            self.tag.ended(self)
        self.call, self.call_ex, self.callee, self.enter, self.enter_kw, self.enter_ex, self.run = NATIVE_ENTRIES
        self.default_run = self.recurse = native_call_ex
        self.state = NATIVE_STATE
        if self.parent is None:
            drop_cyclic_entries()  # so that a full collection after the run frees what it would natively

    def run_primitive(self, impl, args, kwargs):
        """Run a primitive's body; under a nested context it runs under the enclosing one.

        A primitive marked ``native_primitive`` always runs natively: it decides itself
        what runs under the enclosing context.
        """
        if getattr(impl, "native_primitive", False):
            return impl(self.ctx, *args, **kwargs)
        return call_under(self.parent, impl, (self.ctx,) + args, kwargs, recurse=True)


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
        target = new_activation(ctx, _getframe(2))
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


def run_outermost(ctx, f, args, kwargs, entry_frame):
    """``ctx.overdub(f, *args, **kwargs)`` in a new activation of ``ctx`` nested in the current
    one (``overdub``, ``@ctx``; the caller strips the engine's frames from what is raised,
    so that its own frame is the first entry)."""
    previous = STATE.act
    act = Activation(ctx, previous, entry_frame)
    key = object()
    try:  # each step undone in a finally of its own, whatever interrupts it (Ctrl-C)
        switch_to(act)
        try:
            raise_for(act, key)  # (deeper_recursion, without a generator's cost on every overdub)
            return ctx.overdub(f, *args, **kwargs)
        finally:
            lower_for(key)
    finally:
        try:
            act.finish()
        finally:
            switch_to(previous)
