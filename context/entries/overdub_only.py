"""The overdub-only strategy: call sites call the context's ``overdub`` directly.

For a context that overrides ``overdub`` and neither hook. Code rewritten for it calls
``STATE.run(f, *args)``, that is the context's ``overdub``, wherever the stack analysis
allows (``f(x)`` becomes ``STATE.run(f, x)``). Other call sites ask:

* ``STATE.callee(f)``: ``partial(overdub, f)``, made without a Python frame;
* ``STATE.enter(f, args)``: the same, called with the call site's own arguments;
* ``STATE.enter_kw``/``enter_ex``: ``(kwargs, overdub, (f,) + args)``.

No check that the context is still running is needed: a callee is handled where it is
loaded only when no suspension (a yield or an await) lies between the load and the
call, so the call happens while the context that answered is still current.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from functools import partial

from ..depth import FRAMES_PER_CALL


def build_overdub_only(act):
    """Set ``act``'s call-site entry points (and ``act.run``) for the overdub-only strategy."""
    ctx_overdub = act.ctx.overdub
    act.run = ctx_overdub
    callee = partial(partial, ctx_overdub)  # callee(f) is partial(ctx_overdub, f)

    def enter(f, args):
        return partial(ctx_overdub, f)

    def enter_ex(f, args, kwargs):
        if type(args) is not tuple:
            args = tuple(args)
        return kwargs, ctx_overdub, (f,) + args

    act.callee, act.enter, act.enter_ex = callee, enter, enter_ex
    act.frames_per_call = FRAMES_PER_CALL
