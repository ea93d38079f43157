"""An activation's per-call entry points, one module per call strategy.

Rewritten code asks ``STATE`` at every call site (see ``context/rewrite/calls.py`` for
which instruction becomes which request); ``STATE`` holds the entry points of the
current activation, built here once per activation for its context's class:

========================  ==============================================================
``running``               ``default_run``, ``recurse``, ``call``, ``call_ex``, ``run``:
                          running one call as the context sees it (every strategy)
``direct``                call sites get the callee itself (outermost contexts with at
                          most a prehook and primitives): no engine frame between calls
``observing``             call sites get a bound ``call``/``call_ex``: hooks, ``overdub``,
                          ``canrecurse``, ``fallback``, nested contexts
``overdub_only``          call sites call the context's ``overdub`` directly
``kinds``                 the one verdict on how a native callee is called
========================  ==============================================================
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from ..depth import HOOK_FRAMES
from .direct import build_direct
from .observing import build_observing
from .overdub_only import build_overdub_only
from .running import build_running, rewritten_function

__all__ = ["build_entries", "rewritten_function"]


def build_entries(act, overridden):
    """Set every entry point of ``act``; ``overridden`` names the hooks its context class overrides."""
    build_running(act, overridden)
    ctx = act.ctx
    hooks = getattr(ctx, "_hooks_enabled", True)
    pre = hooks and "prehook" in overridden
    post = hooks and "posthook" in overridden
    if not (post or overridden & {"overdub", "canrecurse", "fallback"}) and act.parent is None:
        build_direct(act, ctx.prehook if pre else None)
    elif "overdub" in overridden and not pre and not post:
        build_overdub_only(act)
    else:
        build_observing(act)
    # frames a hook, or a native guard's check of a native's arguments, adds below the deepest user frame
    act.hook_frames = HOOK_FRAMES if pre or post or act.guard is not None else 0
    act.enter_kw = _enter_kw(act.enter_ex)


def _enter_kw(enter_ex):
    def enter_kw(f, args, names):
        if names is None:  # 3.13 CALL_KW: the names tuple is the last item
            names = args[-1]
            args = args[:-1]
        n = len(names)
        return enter_ex(f, args[:-n], dict(zip(names, args[-n:])))

    return enter_kw
